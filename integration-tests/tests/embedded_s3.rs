//! `ragpipe ingest s3://bucket/prefix` in the embedded mode (SQLite, the
//! in-process store and queue): a bucket indexed without PostgreSQL or
//! RabbitMQ, its hits cited by their `s3://` URI, a second run that moves
//! only what changed, and a reindex that reads the prefix the last run read;
//! objects the server would list but not serve fail with their reason, and
//! the next run, with the server back, reads them again.

use ragpipe_core::Locator;
use ragpipe_integration_tests::ragpipe_bin;
use serde_json::Value;
use std::path::PathBuf;
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

mod common;

fn sample(name: &str) -> Vec<u8> {
    std::fs::read(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../samples").join(name)).unwrap()
}

struct Bucket {
    s3: ragpipe_source::S3Config,
    endpoint: String,
}

impl Bucket {
    async fn new() -> Self {
        let endpoint = std::env::var("RAGPIPE_TEST_S3_ENDPOINT")
            .expect("RAGPIPE_TEST_S3_ENDPOINT must name an S3 server: eval \"$(scripts/s3-server.sh start)\"");
        let s3 = ragpipe_source::S3Config {
            bucket: format!("embedded-{}", common::deployment::unique()),
            prefix: String::new(),
            endpoint: Some(endpoint.clone()),
            region: "us-east-1".into(),
            keys: Some(ragpipe_source::S3Keys::new(
                std::env::var("AWS_ACCESS_KEY_ID").unwrap_or_else(|_| "ragpipe".into()),
                std::env::var("AWS_SECRET_ACCESS_KEY").unwrap_or_else(|_| "ragpipe-secret".into()),
            )),
        };
        s3.client().create_bucket().bucket(&s3.bucket).send().await.expect("create bucket");
        Bucket { s3, endpoint }
    }

    async fn put(&self, key: &str, bytes: Vec<u8>) {
        let body = aws_sdk_s3::primitives::ByteStream::from(bytes);
        self.s3.client().put_object().bucket(&self.s3.bucket).key(key).body(body).send().await.unwrap();
    }

    /// `ragpipe --data-dir DATA ARGS…` with the server and its credentials
    /// in the environment, as the README tells a user to run it.
    fn run(&self, data: &std::path::Path, args: &[&str]) -> (i32, Value) {
        self.run_via(&self.endpoint, data, args)
    }

    /// The same, reaching the server at `endpoint`.
    fn run_via(&self, endpoint: &str, data: &std::path::Path, args: &[&str]) -> (i32, Value) {
        let keys = self.s3.keys.as_ref().expect("the test bucket's keys");
        let mut cmd = Command::new(ragpipe_bin());
        cmd.arg("--data-dir")
            .arg(data)
            .env("RAGPIPE_S3_ENDPOINT", endpoint)
            .env("AWS_ACCESS_KEY_ID", &keys.access_key)
            .env("AWS_SECRET_ACCESS_KEY", &keys.secret_key);
        common::run_json(cmd, args)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_embedded_mode_indexes_an_s3_prefix_and_syncs_its_changes() {
    let bucket = Bucket::new().await;
    for name in ["rust-book-hash-maps.html", "walkdir-README.md", "dpkg-rootless-builds.txt"] {
        bucket.put(&format!("docs/{name}"), sample(name)).await;
    }
    bucket.put("docs/empty.txt", Vec::new()).await;
    // Outside the prefix: never listed.
    bucket.put("other/cargo-toml-vs-cargo-lock.html", sample("cargo-toml-vs-cargo-lock.html")).await;
    let data = tempfile::tempdir().unwrap();
    let source = format!("s3://{}/docs/", bucket.s3.bucket);

    let (code, summary) = bucket.run(data.path(), &["ingest", &source, "--json"]);
    assert_eq!(code, 1, "a run with a failure exits 1: {summary}");
    assert_eq!((summary["sync"]["new"].as_i64(), summary["indexed"].as_i64()), (Some(4), Some(3)), "{summary}");
    let failed = &summary["failed"][0];
    assert_eq!(failed["document"], format!("{source}empty.txt"));
    assert_eq!(failed["reason"], "empty file");

    // A hit is cited by its object's URI, and its locator slices the
    // object's canonical text back to the hit's words.
    let (_, hits) =
        bucket.run(data.path(), &["search", "how do I update the value stored under a key in a hash map", "--json"]);
    let top = &hits["hits"][0];
    assert_eq!(top["document"], format!("{source}rust-book-hash-maps.html"), "{hits}");
    let name = "rust-book-hash-maps.html";
    let text = ragpipe_extract::extract(ragpipe_extract::detect(name, &sample(name)).unwrap(), name, &sample(name))
        .unwrap()
        .text;
    let locator = Locator::parse(top["locator"].as_str().unwrap()).unwrap();
    assert_eq!(locator.resolve(&text), top["content"].as_str());
    let (_, other) =
        bucket.run(data.path(), &["search", "what is the difference between Cargo.toml and Cargo.lock", "--json"]);
    assert!(other["hits"].as_array().unwrap().iter().all(|h| h["document"].as_str().unwrap().starts_with(&source)));

    // One object changed, one removed: only those move.
    let mut readme = sample("walkdir-README.md");
    readme.extend_from_slice(b"\n\n## Changelog note\n\nThe zebra-striped traversal option was added for this test.\n");
    bucket.put("docs/walkdir-README.md", readme).await;
    bucket
        .s3
        .client()
        .delete_object()
        .bucket(&bucket.s3.bucket)
        .key("docs/dpkg-rootless-builds.txt")
        .send()
        .await
        .unwrap();
    let (_, again) = bucket.run(data.path(), &["ingest", &source, "--json"]);
    let sync = &again["sync"];
    assert_eq!(
        (sync["new"].as_i64(), sync["changed"].as_i64(), sync["deleted"].as_i64(), sync["unchanged"].as_i64()),
        (Some(0), Some(1), Some(1), Some(2)),
        "{again}"
    );
    let (_, zebra) = bucket.run(data.path(), &["search", "zebra-striped traversal option", "--json"]);
    assert_eq!(zebra["hits"][0]["document"], format!("{source}walkdir-README.md"), "{zebra}");

    // A reindex with no source named reads the prefix the last run read.
    let (_, before) = bucket.run(data.path(), &["status", "--json"]);
    let (code, reindexed) = bucket.run(data.path(), &["reindex", "--pipeline-version", "2", "--json", "--quiet"]);
    assert_eq!(code, 1, "the empty object failed again: {reindexed}");
    let (_, status) = bucket.run(data.path(), &["status", "--json"]);
    assert_eq!(reindexed["swapped"]["from"], before["index"]["live"]["name"], "{reindexed}");
    assert_eq!(reindexed["swapped"]["to"], status["index"]["live"]["name"], "{status}");
    assert_eq!(status["documents"]["indexed"].as_i64(), Some(2), "{status}");
    let (_, after) = bucket.run(data.path(), &["search", "zebra-striped traversal option", "--json"]);
    assert_eq!(after["hits"][0]["document"], format!("{source}walkdir-README.md"), "{after}");
}

/// A TCP proxy in front of the S3 server that, while `refusing`, lets
/// listings through and drops every other request (the reads) unanswered,
/// as a server that goes down right after the listing does. Each request
/// it forwards asks the server to close the connection after answering,
/// so every request comes on a connection of its own and is judged alone.
struct Gate {
    port: u16,
    refusing: Arc<AtomicBool>,
}

impl Gate {
    async fn start(endpoint: &str) -> Gate {
        let target = endpoint.trim_start_matches("http://").to_string();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let refusing = Arc::new(AtomicBool::new(true));
        let gate = refusing.clone();
        tokio::spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                tokio::spawn(forward(client, target.clone(), gate.clone()));
            }
        });
        Gate { port, refusing }
    }
}

async fn forward(mut client: tokio::net::TcpStream, target: String, refusing: Arc<AtomicBool>) {
    let mut head = Vec::new();
    let mut buf = [0u8; 4096];
    let end = loop {
        if let Some(i) = head.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 2;
        }
        match client.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => head.extend_from_slice(&buf[..n]),
        }
    };
    let line = String::from_utf8_lossy(&head[..head.iter().position(|&b| b == b'\n').unwrap_or(0)]).to_string();
    if refusing.load(Ordering::SeqCst) && !line.contains("list-type=2") {
        return;
    }
    let mut request = head[..end].to_vec();
    request.extend_from_slice(b"Connection: close\r\n");
    request.extend_from_slice(&head[end..]);
    let Ok(mut server) = tokio::net::TcpStream::connect(&target).await else { return };
    if server.write_all(&request).await.is_ok() {
        let _ = tokio::io::copy_bidirectional(&mut client, &mut server).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn objects_the_server_could_not_serve_are_read_again_by_the_next_run() {
    let bucket = Bucket::new().await;
    for name in ["rust-book-hash-maps.html", "walkdir-README.md"] {
        bucket.put(&format!("docs/{name}"), sample(name)).await;
    }
    let data = tempfile::tempdir().unwrap();
    let source = format!("s3://{}/docs/", bucket.s3.bucket);
    let gate = Gate::start(&bucket.endpoint).await;
    let through_gate = format!("http://127.0.0.1:{}", gate.port);

    // Listed, never served: each read is retried, then the document fails
    // with the last reason.
    let (code, down) = bucket.run_via(&through_gate, data.path(), &["ingest", &source, "--json"]);
    assert_eq!((code, down["sync"]["new"].as_i64(), down["indexed"].as_i64()), (1, Some(2), Some(0)), "{down}");
    for failure in down["failed"].as_array().unwrap() {
        let reason = failure["reason"].as_str().unwrap();
        assert!(reason.starts_with("gave up after 5 attempts: reading "), "{reason}");
        assert_eq!(failure["stage"], "fetch");
    }

    // The server is back and the objects are unchanged: the next run reads
    // them again, not leaving them to an admin's retry.
    gate.refusing.store(false, Ordering::SeqCst);
    let (code, back) = bucket.run_via(&through_gate, data.path(), &["ingest", &source, "--json"]);
    let sync = &back["sync"];
    assert_eq!((sync["resumed"].as_i64(), sync["unchanged"].as_i64()), (Some(2), Some(0)), "{back}");
    assert_eq!((code, back["indexed"].as_i64(), back["failed_total"].as_i64()), (0, Some(2), Some(0)), "{back}");
    let (_, again) = bucket.run_via(&through_gate, data.path(), &["ingest", &source, "--json"]);
    assert_eq!(again["sync"]["unchanged"].as_i64(), Some(2), "indexed now: left alone");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_object_the_store_refuses_fails_at_once_and_is_read_again_by_retry() {
    let bucket = Bucket::new().await;
    for name in ["rust-book-hash-maps.html", "walkdir-README.md", "dpkg-rootless-builds.txt"] {
        bucket.put(&format!("docs/{name}"), sample(name)).await;
    }
    let client = bucket.s3.client();
    let denied = r#"{"Version":"2012-10-17","Statement":[{"Effect":"Deny","Principal":"*","Action":"s3:GetObject","Resource":["arn:aws:s3:::BUCKET/docs/walkdir-README.md","arn:aws:s3:::BUCKET/docs/dpkg-rootless-builds.txt"]}]}"#;
    let denied = denied.replace("BUCKET", &bucket.s3.bucket);
    client.put_bucket_policy().bucket(&bucket.s3.bucket).policy(denied).send().await.expect("bucket policy");
    let data = tempfile::tempdir().unwrap();
    let source = format!("s3://{}/docs/", bucket.s3.bucket);

    // Denied: failed on their first read, with the store's answer in words,
    // not after five attempts; the other object is indexed.
    let (code, first) = bucket.run(data.path(), &["ingest", &source, "--json"]);
    assert_eq!((code, first["indexed"].as_i64(), first["failed_total"].as_i64()), (1, Some(1), Some(2)), "{first}");
    let failure = &first["failed"][0];
    let reason = failure["reason"].as_str().unwrap();
    assert!(reason.starts_with("access denied: the credentials ragpipe uses may not read it"), "{reason}");
    assert!(!reason.contains("request id"), "the same cause reads the same for every object: {reason}");
    assert_eq!(failure["stage"], "fetch");
    let (_, doc) = bucket.run(data.path(), &["documents", "--status", "failed", "--json"]);
    assert_eq!(doc["documents"][0]["attempts"].as_i64(), Some(1), "{doc}");
    // One cause, one group in `status`, however many objects it refuses.
    let (_, status) = bucket.run(data.path(), &["status", "--json"]);
    let groups = status["failures"].as_array().unwrap();
    assert_eq!((groups.len(), groups[0]["count"].as_i64()), (1, Some(2)), "{status}");

    // Nothing changed: the next sync leaves it to an admin.
    let (_, again) = bucket.run(data.path(), &["ingest", &source, "--json"]);
    assert_eq!((again["sync"]["unchanged"].as_i64(), again["sync"]["resumed"].as_i64()), (Some(3), Some(0)), "{again}");

    // The admin lifts the policy and retries what was denied; the next
    // ingest reads it.
    client.delete_bucket_policy().bucket(&bucket.s3.bucket).send().await.unwrap();
    let (code, retried) =
        bucket.run(data.path(), &["retry", "--status", "failed", "--reason", "access denied", "--json"]);
    assert_eq!(code, 0, "{retried}");
    let (code, after) = bucket.run(data.path(), &["ingest", &source, "--json"]);
    let resumed = after["sync"]["resumed"].as_i64();
    assert_eq!(
        (code, resumed, after["failed_total"].as_i64()),
        (0, Some(2), Some(0)),
        "the retried objects are read: {after}"
    );
    let (_, status) = bucket.run(data.path(), &["status", "--json"]);
    assert_eq!(
        (status["documents"]["indexed"].as_i64(), status["documents"]["failed"].as_i64()),
        (Some(3), Some(0)),
        "{status}"
    );
}

/// Keys in the environment are not the only way in: a platform's workload
/// signs with its profile or role. Here a named profile in the shared
/// credentials file, with no keys in the environment, and the endpoint in
/// the variable the AWS SDKs read (`AWS_ENDPOINT_URL_S3`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_keys_in_the_environment_a_named_profile_signs() {
    let bucket = Bucket::new().await;
    bucket.put("docs/walkdir-README.md", sample("walkdir-README.md")).await;
    let keys = bucket.s3.keys.clone().unwrap();
    let source = format!("s3://{}/docs/", bucket.s3.bucket);
    let aws = tempfile::tempdir().unwrap();
    std::fs::write(aws.path().join("config"), "[profile indexer]\nregion = us-east-1\n").unwrap();
    let ingest = |secret: Option<&str>, data: &std::path::Path| {
        let profile = match secret {
            Some(secret) => {
                format!("[indexer]\naws_access_key_id = {}\naws_secret_access_key = {secret}\n", keys.access_key)
            }
            None => String::new(),
        };
        std::fs::write(aws.path().join("credentials"), profile).unwrap();
        Command::new(ragpipe_bin())
            .arg("--data-dir")
            .arg(data)
            .args(["ingest", &source, "--json"])
            .env_remove("AWS_ACCESS_KEY_ID")
            .env_remove("AWS_SECRET_ACCESS_KEY")
            .env_remove("AWS_SESSION_TOKEN")
            .env("AWS_SHARED_CREDENTIALS_FILE", aws.path().join("credentials"))
            .env("AWS_CONFIG_FILE", aws.path().join("config"))
            .env("AWS_PROFILE", "indexer")
            .env("AWS_EC2_METADATA_DISABLED", "true")
            .env_remove("RAGPIPE_S3_ENDPOINT")
            .env("AWS_ENDPOINT_URL_S3", &bucket.endpoint)
            .output()
            .unwrap()
    };

    // No keys anywhere: the run stops at the listing and says so in a line.
    let data = tempfile::tempdir().unwrap();
    let none = ingest(None, data.path());
    let stderr = String::from_utf8_lossy(&none.stderr);
    assert!(!none.status.success(), "{stderr}");
    assert!(
        stderr.contains("no credentials to sign with: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not set"),
        "{stderr}"
    );

    // The profile's secret is wrong: the store refuses the listing, so it
    // is the profile that signs.
    let refused = ingest(Some("not-the-secret"), data.path());
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success(), "{stderr}");
    assert!(stderr.contains("the store refused the credentials ragpipe signs with"), "{stderr}");
    assert!(stderr.contains("SignatureDoesNotMatch"), "{stderr}");

    let data = tempfile::tempdir().unwrap();
    let out = ingest(Some(&keys.secret_key), data.path());
    let summary: Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    assert_eq!((out.status.code(), summary["indexed"].as_i64()), (Some(0), Some(1)), "{summary}");
}
