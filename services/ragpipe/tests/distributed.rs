//! The distributed mode end to end on real engines: objects in SeaweedFS
//! (`RAGPIPE_TEST_S3_ENDPOINT`), jobs on RabbitMQ (`RAGPIPE_TEST_AMQP_URL`),
//! state in PostgreSQL (`RAGPIPE_TEST_POSTGRES_URL`), workers as separate
//! `ragpipe serve` processes. Each test has its own bucket, queue namespace
//! and database schema.

use ragpipe_core::{DocState, DocStatus, DocumentId, PIPELINE_VERSION};
use ragpipe_state::{SqlStateStore, StateStore};
use ragpipe_vectors::{CollectionSpec, EdgeStore, VectorStore};
use serde_json::Value;
use std::collections::{BTreeMap, HashSet};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

mod common;

use common::net::{Proxy, free_port, http_get};

fn fixture(kind: &str, name: &str) -> Vec<u8> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/extract/tests/fixtures");
    std::fs::read(root.join(kind).join(name)).unwrap()
}

fn unique() -> String {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
    format!("{}-{nanos}", std::process::id())
}

/// One deployment: a bucket, a queue namespace, a schema, a data dir.
struct Deployment {
    bucket: String,
    s3: ragpipe_source::S3Config,
    env: Vec<(String, String)>,
    state_url: String,
    data: tempfile::TempDir,
    workers: Vec<(&'static str, Child)>,
    /// Every worker reaches RabbitMQ through this proxy, so the test can cut
    /// all their connections at once.
    broker: Proxy,
}

impl Deployment {
    async fn new() -> Self {
        let id = unique();
        let endpoint = std::env::var("RAGPIPE_TEST_S3_ENDPOINT")
            .expect("RAGPIPE_TEST_S3_ENDPOINT must name an S3 server: eval \"$(scripts/s3-server.sh start)\"");
        let (key, secret) = (
            std::env::var("AWS_ACCESS_KEY_ID").unwrap_or_else(|_| "ragpipe".into()),
            std::env::var("AWS_SECRET_ACCESS_KEY").unwrap_or_else(|_| "ragpipe-secret".into()),
        );
        let bucket = format!("dist-{id}");
        let s3 = ragpipe_source::S3Config {
            bucket: bucket.clone(),
            prefix: "docs/".into(),
            endpoint: Some(endpoint.clone()),
            region: "us-east-1".into(),
            access_key: key.clone(),
            secret_key: secret.clone(),
        };
        s3.client().create_bucket().bucket(&bucket).send().await.expect("create bucket");

        let pg = std::env::var("RAGPIPE_TEST_POSTGRES_URL")
            .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".into());
        let schema = format!("dist_{}", id.replace('-', "_"));
        let mut conn = <sqlx::PgConnection as sqlx::Connection>::connect(&pg).await.expect("postgres reachable");
        sqlx::query(&format!("CREATE SCHEMA {schema}")).execute(&mut conn).await.unwrap();
        let sep = if pg.contains('?') { '&' } else { '?' };
        let state_url = format!("{pg}{sep}options=-c%20search_path%3D{schema}");
        let amqp =
            std::env::var("RAGPIPE_TEST_AMQP_URL").unwrap_or_else(|_| "amqp://guest:guest@127.0.0.1:5672/%2f".into());
        let data = tempfile::tempdir().unwrap();
        let (host, rest) = amqp.split_once('@').expect("amqp://user:pass@host:port/vhost");
        let (hostport, vhost) = rest.split_once('/').unwrap_or((rest, ""));
        let broker = Proxy::start(0, hostport).await;
        let amqp = format!("{host}@127.0.0.1:{}/{vhost}", broker.port);
        let env = vec![
            ("RAGPIPE_STATE_URL".into(), state_url.clone()),
            ("RAGPIPE_AMQP_URL".into(), amqp),
            ("RAGPIPE_AMQP_NAMESPACE".into(), format!("dist-{id}")),
            ("RAGPIPE_SOURCE".into(), format!("s3://{bucket}/docs/")),
            ("RAGPIPE_S3_ENDPOINT".into(), endpoint),
            ("AWS_ACCESS_KEY_ID".into(), key),
            ("AWS_SECRET_ACCESS_KEY".into(), secret),
            ("RAGPIPE_DATA_DIR".into(), data.path().display().to_string()),
            ("RAGPIPE_EXTRACT_TIMEOUT_SECS".into(), "3".into()),
        ];
        // One chunk per embed job, so a document is many jobs and an
        // embedder can be killed half-way through one.
        std::fs::write(data.path().join("ragpipe.toml"), "[workers]\nembed_batch = 1\n").unwrap();
        Deployment { bucket, s3, env, state_url, data, workers: Vec::new(), broker }
    }

    async fn put(&self, name: &str, bytes: Vec<u8>) {
        let body = aws_sdk_s3::primitives::ByteStream::from(bytes);
        self.s3.client().put_object().bucket(&self.bucket).key(format!("docs/{name}")).body(body).send().await.unwrap();
    }

    async fn delete(&self, name: &str) {
        self.s3.client().delete_object().bucket(&self.bucket).key(format!("docs/{name}")).send().await.unwrap();
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_ragpipe"));
        cmd.arg("--config")
            .arg(self.data.path().join("ragpipe.toml"))
            .args(args)
            .envs(self.env.iter().map(|(k, v)| (k, v)));
        cmd
    }

    fn start(&mut self, role: &'static str) {
        let child = self.command(&["serve", role]).stdout(Stdio::null()).spawn().unwrap();
        self.workers.push((role, child));
    }

    /// Stops the workers of `role`: politely (SIGTERM, waited for) or not (SIGKILL).
    fn stop(&mut self, role: &str, kill: bool) {
        for (_, child) in self.workers.iter_mut().filter(|(r, _)| *r == role) {
            let signal = if kill { libc::SIGKILL } else { libc::SIGTERM };
            unsafe { libc::kill(child.id() as i32, signal) };
            child.wait().unwrap();
        }
        self.workers.retain(|(r, _)| *r != role);
    }

    fn sync(&self) -> Value {
        let out = self.command(&["sync"]).output().unwrap();
        assert!(out.status.success(), "sync: {}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice(&out.stdout).unwrap()
    }

    async fn state(&self) -> SqlStateStore {
        SqlStateStore::connect(&self.state_url).await.unwrap()
    }

    /// Polls until `name` is in `status`; returns its state then.
    async fn wait_for(&self, name: &str, status: DocStatus) -> DocState {
        let state = self.state().await;
        let started = Instant::now();
        loop {
            let all = state.list(None).await.unwrap();
            if let Some(d) = all.iter().find(|d| d.uri.ends_with(&format!("/{name}")) && d.status == status) {
                return d.clone();
            }
            assert!(started.elapsed() < Duration::from_secs(120), "{name} never reached {status:?}");
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    /// Embed batches stored so far for a document's generation.
    async fn batches(&self, doc: &DocState) -> i64 {
        let mut conn = <sqlx::PgConnection as sqlx::Connection>::connect(&self.state_url).await.unwrap();
        sqlx::query_scalar("SELECT COUNT(*) FROM batches WHERE document_id = $1 AND generation = $2")
            .bind(doc.id.as_str())
            .bind(doc.generation)
            .fetch_one(&mut conn)
            .await
            .unwrap()
    }

    /// Waits until every document is indexed, failed or deleted.
    async fn settle(&self, docs: usize) -> Vec<DocState> {
        let state = self.state().await;
        let started = Instant::now();
        loop {
            let all = state.list(None).await.unwrap();
            let done =
                all.iter().filter(|d| matches!(d.status, DocStatus::Indexed | DocStatus::Failed | DocStatus::Deleted));
            if all.len() == docs && done.count() == docs {
                return all;
            }
            let pending: Vec<_> = all.iter().map(|d| (d.uri.rsplit('/').next().unwrap(), d.status)).collect();
            assert!(started.elapsed() < Duration::from_secs(240), "not settled: {pending:?}");
            tokio::time::sleep(Duration::from_millis(300)).await;
        }
    }

    /// Points per document in the vector store (the embedder must be stopped:
    /// the edge store has one owner), and whether any point id repeats.
    async fn points(&self) -> BTreeMap<String, (u64, HashSet<i64>)> {
        let spec =
            CollectionSpec { model: "all-MiniLM-L6-v2".into(), dims: 384, pipeline_version: PIPELINE_VERSION.into() };
        let store = EdgeStore::open(&self.data.path().join("vectors"), &spec).unwrap();
        let mut out: BTreeMap<String, (u64, HashSet<i64>)> = BTreeMap::new();
        let mut seen = HashSet::new();
        for c in store.chunks(None).await.unwrap() {
            assert!(seen.insert((c.document_id.clone(), c.generation, c.chunk_index)), "duplicate chunk {c:?}");
            let entry = out.entry(c.document_id.clone()).or_default();
            entry.1.insert(c.generation);
        }
        for (id, entry) in out.iter_mut() {
            entry.0 = store.count(&DocumentId::from_raw(id.clone()), None).await.unwrap();
        }
        out
    }
}

impl Deployment {
    /// Deletes the deployment's queues, schema and bucket (after a passing run).
    async fn remove(&self) {
        let env = |k: &str| self.env.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone()).unwrap();
        let options = ragpipe_queue::AmqpOptions { namespace: env("RAGPIPE_AMQP_NAMESPACE"), ..Default::default() };
        let queue = ragpipe_queue::AmqpQueue::connect(&env("RAGPIPE_AMQP_URL"), options).await.unwrap();
        queue.delete_topology().await.unwrap();
        let schema = self.state_url.rsplit("search_path%3D").next().unwrap().to_string();
        let pg = self.state_url.split(['?', '&']).next().unwrap().to_string();
        let mut conn = <sqlx::PgConnection as sqlx::Connection>::connect(&pg).await.unwrap();
        sqlx::query(&format!("DROP SCHEMA {schema} CASCADE")).execute(&mut conn).await.unwrap();
        let client = self.s3.client();
        let listed = client.list_objects_v2().bucket(&self.bucket).send().await.unwrap();
        for obj in listed.contents() {
            client.delete_object().bucket(&self.bucket).key(obj.key().unwrap()).send().await.unwrap();
        }
        client.delete_bucket().bucket(&self.bucket).send().await.unwrap();
    }
}

impl Drop for Deployment {
    fn drop(&mut self) {
        for (_, child) in &mut self.workers {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

fn name(d: &DocState) -> &str {
    d.uri.rsplit('/').next().unwrap()
}

/// Every indexed document's count in state equals its points, all of its
/// current generation; failed and deleted documents have no points.
async fn check_counts(dep: &Deployment, docs: &[DocState]) {
    let points = dep.points().await;
    for d in docs {
        let got = points.get(d.id.as_str());
        match d.status {
            DocStatus::Indexed => {
                let (n, gens) = got.unwrap_or_else(|| panic!("{}: no points", name(d)));
                assert_eq!(Some(*n as i64), d.chunks_stored, "{}: state count == points", name(d));
                assert_eq!(gens, &HashSet::from([d.generation]), "{}: only the current generation", name(d));
            }
            _ => assert!(got.is_none(), "{} ({:?}) has points", name(d), d.status),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn services_index_an_s3_bucket_resync_only_changes_and_survive_killed_workers() {
    let mut dep = Deployment::new().await;
    dep.put("handbook.pdf", fixture("pdf", "handbook.pdf")).await;
    dep.put("book.xlsx", fixture("sheets", "book.xlsx")).await;
    dep.put("hex.rs", fixture("code", "hex.rs")).await;
    dep.put("intro.wav", fixture("audio", "intro.wav")).await;
    dep.put("intro.vtt", fixture("audio", "intro.vtt")).await;
    dep.put("truncated.xlsx", fixture("sheets", "truncated.xlsx")).await;
    dep.put("encrypted.pdf", fixture("pdf", "encrypted.pdf")).await;

    // The first sync publishes before any worker runs: jobs wait durably.
    let report = dep.sync();
    assert_eq!((report["new"].as_u64(), report["listed"].as_u64()), (Some(6), Some(6)), "{report}");
    // Two extractor processes share the extract queue.
    dep.start("extractor");
    dep.start("extractor");
    dep.start("embedder");
    let docs = dep.settle(6).await;
    let failed: BTreeMap<&str, &str> = docs
        .iter()
        .filter(|d| d.status == DocStatus::Failed)
        .map(|d| (name(d), d.failure_reason.as_deref().unwrap_or("")))
        .collect();
    assert_eq!(
        failed,
        BTreeMap::from([
            ("encrypted.pdf", "encrypted PDF"),
            ("truncated.xlsx", "malformed spreadsheet: invalid zip archive (truncated or corrupt)"),
        ])
    );
    dep.stop("embedder", false);
    check_counts(&dep, &docs).await;

    // Unchanged: nothing is published.
    let report = dep.sync();
    assert_eq!((report["new"].as_u64(), report["changed"].as_u64()), (Some(0), Some(0)), "{report}");
    assert_eq!(report["unchanged"].as_u64(), Some(6));

    // One modified, one deleted, two added, one that spins its parser: only
    // those move. Workers are killed (SIGKILL) in the middle of a document:
    // the extractor while the spinning PDF is being extracted, the embedder
    // half-way through a many-batch document; new ones finish the work.
    let before: BTreeMap<String, i64> = docs.iter().map(|d| (name(d).to_string(), d.generation)).collect();
    let mut hex = fixture("code", "hex.rs");
    hex.extend_from_slice(b"\n/// Added after the first sync.\npub fn extra() {}\n");
    dep.put("hex.rs", hex).await;
    dep.delete("book.xlsx").await;
    dep.put("stack.go", fixture("code", "stack.go")).await;
    dep.put("penguins.tsv", fixture("sheets", "penguins.tsv")).await;
    // A page that is its own parent: pdf-extract loops until the time limit.
    let spin = common::Page { content: b"BT /F1 12 Tf (x) Tj ET", parent: Some("3 0 R"), ..Default::default() };
    dep.put("spin.pdf", common::one_page_pdf(spin)).await;
    let report = dep.sync();
    let moved = (report["new"].as_u64(), report["changed"].as_u64(), report["deleted"].as_u64());
    assert_eq!(moved, (Some(3), Some(1), Some(1)), "{report}");

    dep.start("extractor");
    dep.wait_for("spin.pdf", DocStatus::Extracting).await;
    dep.stop("extractor", true);
    dep.start("extractor");
    let penguins = dep.wait_for("penguins.tsv", DocStatus::Embedding).await;
    let expected = penguins.batches_expected.unwrap();
    assert!(expected >= 10, "penguins.tsv is {expected} embed jobs");
    dep.start("embedder");
    let started = Instant::now();
    while dep.batches(&penguins).await == 0 {
        assert!(started.elapsed() < Duration::from_secs(120), "the embedder never stored a batch");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    dep.stop("embedder", true);
    let stored = dep.batches(&penguins).await;
    assert!(stored < expected, "killed half-way: {stored} of {expected} batches stored");
    dep.start("embedder");
    dep.settle(9).await;

    // The broker connection of every worker drops (the proxy cuts them all
    // and comes back): the workers reconnect and process a new document.
    dep.broker.cut().await;
    dep.put("late.md", b"# Late\n\nAdded after every broker connection was cut.\n".to_vec()).await;
    let report = dep.sync();
    assert_eq!(report["new"].as_u64(), Some(1), "{report}");
    let docs = dep.settle(10).await;
    assert!(docs.iter().any(|d| name(d) == "late.md" && d.status == DocStatus::Indexed), "reconnected workers");
    dep.stop("embedder", false);
    dep.stop("extractor", false);

    let status: BTreeMap<&str, &DocState> = docs.iter().map(|d| (name(d), d)).collect();
    assert_eq!(status["book.xlsx"].status, DocStatus::Deleted);
    for new in ["stack.go", "penguins.tsv", "hex.rs"] {
        assert_eq!(status[new].status, DocStatus::Indexed, "{new}");
    }
    assert!(status["hex.rs"].generation > before["hex.rs"], "hex.rs has a new generation");
    assert_eq!(status["spin.pdf"].status, DocStatus::Failed);
    assert_eq!(status["spin.pdf"].failure_reason.as_deref(), Some("extraction timed out after 3s"));
    for unchanged in ["handbook.pdf", "intro.wav", "encrypted.pdf", "truncated.xlsx"] {
        assert_eq!(status[unchanged].generation, before[unchanged], "{unchanged} was not reprocessed");
    }
    check_counts(&dep, &docs).await;

    // `ragpipe eval` runs against the deployment's index as it does against
    // the embedded one (state from PostgreSQL, the embedder's vectors).
    let golden = dep.data.path().join("golden.jsonl");
    let lines = [
        r#"{"id":"d1-doc","qid":"d1","style":"doc","query":"When does the causeway flood?","doc":"handbook.pdf","kind":"pdf","needles":["causeway floods two hours before high water"]}"#,
        r#"{"id":"d2-doc","qid":"d2","style":"doc","query":"Where are the first aid kits kept?","doc":"handbook.pdf","kind":"pdf","needles":["First aid kits are kept in the kitchen"]}"#,
    ];
    std::fs::write(&golden, lines.join("\n")).unwrap();
    let out = dep.command(&["eval", "--golden", golden.to_str().unwrap(), "--json"]).output().unwrap();
    assert!(out.status.success(), "eval: {}", String::from_utf8_lossy(&out.stderr));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["overall"]["queries"], 2, "{report}");
    assert_eq!(report["overall"]["recall"]["8"]["value"], 1.0, "{report}");
    assert_eq!(report["destroyed"], serde_json::json!([]));

    // Scheduled form: one JSON line per run, nothing to do, stops on SIGTERM.
    let mut every =
        dep.command(&["sync", "--every", "200ms"]).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let mut lines = std::io::BufRead::lines(std::io::BufReader::new(every.stdout.take().unwrap()));
    for _ in 0..2 {
        let Some(Ok(line)) = lines.next() else {
            let out = every.wait_with_output().unwrap();
            panic!("sync --every stopped: {:?} {}", out.status, String::from_utf8_lossy(&out.stderr));
        };
        let run: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(
            (run["new"].as_u64(), run["changed"].as_u64(), run["deleted"].as_u64()),
            (Some(0), Some(0), Some(0))
        );
        assert_eq!(run["listed"].as_u64(), Some(9), "{run}");
    }
    unsafe { libc::kill(every.id() as i32, libc::SIGTERM) };
    assert!(every.wait().unwrap().success(), "a scheduled sync stops cleanly on SIGTERM");

    // Runs never overlap: while another coordinator holds the sync lock, a
    // run does nothing and says who holds it; once that coordinator is gone
    // (its lease ran out) the next run works and the dead one is abandoned.
    let state = dep.state().await;
    let lease = std::time::Duration::from_millis(1500);
    state.begin_sync(1, "s3://elsewhere", "other-host:42", lease).await.unwrap().expect("the lock is free");
    let skipped = dep.sync();
    assert_eq!(skipped["held_by"]["holder"], "other-host:42", "{skipped}");
    assert!(skipped.get("new").is_none(), "a refused run lists nothing: {skipped}");
    std::thread::sleep(lease);
    let report = dep.sync();
    assert_eq!(report["listed"].as_u64(), Some(9), "{report}");
    let runs = state.sync_runs(50).await.unwrap();
    let abandoned = runs.iter().find(|r| r.run == 1).unwrap();
    assert_eq!(abandoned.state, ragpipe_state::SyncRunState::Abandoned);
    assert!(runs.iter().filter(|r| r.run != 1).all(|r| r.state == ragpipe_state::SyncRunState::Finished), "{runs:?}");

    // Admin retry: the failed documents whose reason matches are queued as a
    // new generation and their jobs published; a worker fails them again.
    let out = dep.command(&["retry", "--reason", "encrypted", "--json"]).output().unwrap();
    assert!(out.status.success(), "retry: {}", String::from_utf8_lossy(&out.stderr));
    let retried: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(retried["queued"].as_array().map(Vec::len), Some(1), "{retried}");
    assert_eq!(retried["published"], true);
    // This extractor answers probes: live at once, ready once consuming.
    let probes = free_port();
    dep.env.push(("RAGPIPE_HEALTH_LISTEN".into(), format!("127.0.0.1:{probes}")));
    dep.start("extractor");
    dep.env.pop();
    assert_eq!(http_get(&format!("http://127.0.0.1:{probes}/readyz"), None).0, 200);
    assert_eq!(http_get(&format!("http://127.0.0.1:{probes}/healthz"), None).0, 200);
    let state = dep.state().await;
    let started = Instant::now();
    loop {
        let doc = state.list(None).await.unwrap().into_iter().find(|d| name(d) == "encrypted.pdf").unwrap();
        if doc.generation == before["encrypted.pdf"] + 1 && doc.status == DocStatus::Failed {
            assert_eq!(doc.failure_reason.as_deref(), Some("encrypted PDF"));
            assert_eq!(doc.attempts, 1, "attempts start again");
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(60), "retried document not processed: {doc:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    dep.stop("extractor", false);

    // The admin server over this deployment, with a token: the failures are
    // listed with their reasons, and it is ready (PostgreSQL and RabbitMQ answer).
    let port = free_port();
    let listen = format!("127.0.0.1:{port}");
    let mut admin = dep
        .command(&["serve", "admin", "--listen", &listen])
        .env("RAGPIPE_ADMIN_TOKEN", "t0ken")
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let api = format!("http://{listen}/api/documents?status=failed");
    let (code, body) = http_get(&api, Some("t0ken"));
    assert_eq!(code, 200, "{body}");
    let reasons: BTreeMap<String, String> = body["documents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (d["source"].as_str().unwrap().rsplit('/').next().unwrap().into(), d["reason"].as_str().unwrap().into())
        })
        .collect();
    assert_eq!(reasons.get("encrypted.pdf").map(String::as_str), Some("encrypted PDF"), "{body}");
    assert_eq!(http_get(&api, None).0, 401);
    assert_eq!(http_get(&format!("http://{listen}/readyz"), None).0, 200);
    unsafe { libc::kill(admin.id() as i32, libc::SIGTERM) };
    assert!(admin.wait().unwrap().success());
    dep.remove().await;
}
