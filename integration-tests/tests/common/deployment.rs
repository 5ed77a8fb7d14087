//! A distributed deployment for the end-to-end tests: its own bucket in
//! SeaweedFS (`RAGPIPE_TEST_S3_ENDPOINT`), queue namespace on RabbitMQ
//! (`RAGPIPE_TEST_AMQP_URL`, reached through a proxy the test can cut),
//! schema in PostgreSQL (`RAGPIPE_TEST_POSTGRES_URL`) and data dir, with
//! workers as separate `ragpipe serve` processes.

use super::net::Proxy;
use ragpipe_core::{DocState, DocStatus, DocumentId, PIPELINE_VERSION};
use ragpipe_embed::{DEFAULT_MODEL, ModelVariant};
use ragpipe_integration_tests::ragpipe_bin;
use ragpipe_state::SqlStateStore;
use ragpipe_vectors::{CollectionSpec, EdgeStore, QdrantStore, VectorStore};
use serde_json::Value;
use std::collections::{BTreeMap, HashSet};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub fn fixture(kind: &str, name: &str) -> Vec<u8> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/extract/tests/fixtures");
    std::fs::read(root.join(kind).join(name)).unwrap()
}

/// The two fixtures every deployment test puts beside good files, and the
/// reasons they must fail with.
pub const FIXTURE_FAILURES: [(&str, &str); 2] = [
    ("encrypted.pdf", "encrypted PDF"),
    ("truncated.xlsx", "malformed spreadsheet: invalid zip archive (truncated or corrupt)"),
];

/// Failed documents by file name, with their reasons.
pub fn failures(docs: &[DocState]) -> BTreeMap<&str, &str> {
    docs.iter()
        .filter(|d| d.status == DocStatus::Failed)
        .map(|d| (d.uri.rsplit('/').next().unwrap(), d.failure_reason.as_deref().unwrap_or("")))
        .collect()
}

pub fn unique() -> String {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
    format!("{}-{nanos}", std::process::id())
}

/// One deployment: a bucket, a queue namespace, a schema, a data dir.
pub struct Deployment {
    pub bucket: String,
    pub s3: ragpipe_source::S3Config,
    pub env: Vec<(String, String)>,
    pub state_url: String,
    pub data: tempfile::TempDir,
    pub workers: Vec<(&'static str, Child)>,
    /// Every worker reaches RabbitMQ through this proxy, so the test can cut
    /// all their connections at once.
    pub broker: Proxy,
    /// The Qdrant server the workers write to (gRPC URL); the embedded
    /// store in the data dir when `None`.
    pub qdrant: Option<String>,
    pub namespace: String,
    /// Whether a failing test's message already holds [`Deployment::report`].
    reported: std::cell::Cell<bool>,
}

impl Deployment {
    pub async fn new() -> Self {
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
            keys: Some(ragpipe_source::S3Keys::new(key.clone(), secret.clone())),
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
            ("RAGPIPE_AMQP_NAMESPACE".into(), format!("dist-{}", id.replace('-', "_"))),
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
        let namespace = format!("dist-{}", id.replace('-', "_"));
        Deployment {
            bucket,
            s3,
            env,
            state_url,
            data,
            workers: Vec::new(),
            broker,
            qdrant: None,
            namespace,
            reported: Default::default(),
        }
    }

    /// The same deployment writing to the Qdrant server at `url` (gRPC), so
    /// any number of embedder processes share the vectors.
    pub fn on_qdrant(mut self, url: &str) -> Self {
        self.env.push(("RAGPIPE_QDRANT_URL".into(), url.into()));
        self.qdrant = Some(url.into());
        self
    }

    /// Replaces the deployment's config file.
    pub fn configure(&self, toml: &str) {
        std::fs::write(self.data.path().join("ragpipe.toml"), toml).unwrap();
    }

    /// SIGKILLs the `pick`-th (modulo their number) worker of `role`; its pid.
    pub fn kill_one(&mut self, role: &str, pick: usize) -> u32 {
        let mine: Vec<usize> = (0..self.workers.len()).filter(|&i| self.workers[i].0 == role).collect();
        let (_, mut child) = self.workers.remove(mine[pick % mine.len()]);
        unsafe { libc::kill(child.id() as i32, libc::SIGKILL) };
        child.wait().unwrap();
        child.id()
    }

    /// The bucket's object names (under the deployment's prefix).
    pub async fn objects(&self) -> Vec<String> {
        let client = self.s3.client();
        let mut out = Vec::new();
        let mut token = None;
        loop {
            let page = client
                .list_objects_v2()
                .bucket(&self.bucket)
                .prefix("docs/")
                .set_continuation_token(token)
                .send()
                .await
                .unwrap();
            out.extend(page.contents().iter().filter_map(|o| o.key()?.strip_prefix("docs/").map(String::from)));
            match page.next_continuation_token() {
                Some(t) => token = Some(t.to_string()),
                None => return out,
            }
        }
    }

    /// The collection `name` of the registry, read directly: on the Qdrant
    /// server (`{namespace}_{name}`) or in the embedded store (its embedder
    /// must be stopped: the edge store has one owner).
    pub fn store(&self, name: &str) -> Box<dyn VectorStore> {
        match &self.qdrant {
            Some(url) => {
                let client = QdrantStore::connect(url, None).unwrap();
                Box::new(QdrantStore::named(client, &format!("{}_{name}", self.namespace)))
            }
            None => Box::new(EdgeStore::open_dir(&self.data.path().join("vectors").join(name), 384).unwrap()),
        }
    }

    pub async fn put(&self, name: &str, bytes: Vec<u8>) {
        let body = aws_sdk_s3::primitives::ByteStream::from(bytes);
        self.s3.client().put_object().bucket(&self.bucket).key(format!("docs/{name}")).body(body).send().await.unwrap();
    }

    pub async fn delete(&self, name: &str) {
        self.s3.client().delete_object().bucket(&self.bucket).key(format!("docs/{name}")).send().await.unwrap();
    }

    pub fn command(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(ragpipe_bin());
        cmd.arg("--config")
            .arg(self.data.path().join("ragpipe.toml"))
            .args(args)
            .envs(self.env.iter().map(|(k, v)| (k, v)));
        cmd
    }

    /// Starts a worker of `role`; what it logs goes to a file of its own
    /// under `logs/` in the data dir, which [`Deployment::report`] reads.
    pub fn start(&mut self, role: &'static str) {
        let dir = self.data.path().join("logs");
        std::fs::create_dir_all(&dir).unwrap();
        let n = std::fs::read_dir(&dir).unwrap().count();
        let log = std::fs::File::create(dir.join(format!("{n:02}-{role}.log"))).unwrap();
        let child = self.command(&["serve", role]).stdout(Stdio::null()).stderr(log).spawn().unwrap();
        self.workers.push((role, child));
    }

    /// The workers as a failing test should show them: which still run,
    /// and the last warnings and errors each worker (killed ones too) logged.
    pub fn report(&self) -> String {
        self.reported.set(true);
        let mut out = String::from("workers:");
        for (role, child) in &self.workers {
            let state = if running(child.id()) { "running" } else { "EXITED" };
            out.push_str(&format!(" {role} {} {state};", child.id()));
        }
        out.push_str(&format!("\nbroker: {}", broker_health()));
        let mut logs: Vec<_> = std::fs::read_dir(self.data.path().join("logs"))
            .map(|d| d.filter_map(|e| e.ok()).map(|e| e.path()).collect())
            .unwrap_or_default();
        logs.sort();
        for log in logs {
            let text = plain(&std::fs::read_to_string(&log).unwrap_or_default());
            let said: Vec<&str> = text.lines().filter(|l| l.contains("WARN") || l.contains("ERROR")).collect();
            out.push_str(&format!("\n{}:", log.file_name().unwrap().to_string_lossy()));
            for line in &said[said.len().saturating_sub(4)..] {
                out.push_str(&format!("\n  {}", line.chars().take(400).collect::<String>()));
            }
            // A worker that exited says why last (an error, not a warning).
            if let Some(last) = text.lines().last().filter(|l| !said.contains(l)) {
                out.push_str(&format!("\n  last: {}", last.chars().take(400).collect::<String>()));
            }
        }
        out
    }

    /// Stops the workers of `role`: politely (SIGTERM, waited for) or not (SIGKILL).
    pub fn stop(&mut self, role: &str, kill: bool) {
        for (_, child) in self.workers.iter_mut().filter(|(r, _)| *r == role) {
            let signal = if kill { libc::SIGKILL } else { libc::SIGTERM };
            unsafe { libc::kill(child.id() as i32, signal) };
            child.wait().unwrap();
        }
        self.workers.retain(|(r, _)| *r != role);
    }

    pub fn sync(&self) -> Value {
        let out = self.command(&["sync"]).output().unwrap();
        assert!(out.status.success(), "sync: {}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice(&out.stdout).unwrap()
    }

    pub async fn state(&self) -> SqlStateStore {
        SqlStateStore::connect(&self.state_url).await.unwrap()
    }

    /// Polls until `name` is in `status`; returns its state then.
    pub async fn wait_for(&self, name: &str, status: DocStatus) -> DocState {
        let state = self.state().await;
        let started = Instant::now();
        loop {
            let all = ragpipe_state::every(&state, &Default::default()).await.unwrap();
            if let Some(d) = all.iter().find(|d| d.uri.ends_with(&format!("/{name}")) && d.status == status) {
                return d.clone();
            }
            assert!(started.elapsed() < Duration::from_secs(120), "{name} never reached {status:?}\n{}", self.report());
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    /// Embed batches stored so far for a document's generation.
    pub async fn batches(&self, doc: &DocState) -> i64 {
        let mut conn = <sqlx::PgConnection as sqlx::Connection>::connect(&self.state_url).await.unwrap();
        sqlx::query_scalar("SELECT COUNT(*) FROM batches WHERE document_id = $1 AND generation = $2")
            .bind(doc.id.as_str())
            .bind(doc.generation)
            .fetch_one(&mut conn)
            .await
            .unwrap()
    }

    /// Waits until every document is indexed, failed or deleted.
    pub async fn settle(&self, docs: usize) -> Vec<DocState> {
        self.settle_within(docs, Duration::from_secs(240)).await
    }

    pub async fn settle_within(&self, docs: usize, limit: Duration) -> Vec<DocState> {
        let state = self.state().await;
        let started = Instant::now();
        loop {
            let all = ragpipe_state::every(&state, &Default::default()).await.unwrap();
            let done =
                all.iter().filter(|d| matches!(d.status, DocStatus::Indexed | DocStatus::Failed | DocStatus::Deleted));
            if all.len() == docs && done.count() == docs {
                return all;
            }
            let pending: Vec<_> = all.iter().map(|d| (d.uri.rsplit('/').next().unwrap(), d.status)).collect();
            assert!(started.elapsed() < limit, "not settled: {pending:?}\n{}", self.report());
            tokio::time::sleep(Duration::from_millis(300)).await;
        }
    }

    /// The collection of the first index (the default model and variant,
    /// this build's pipeline version with the default lexical analysis).
    pub fn live_collection(&self) -> String {
        let model = ModelVariant::default().recorded_name(DEFAULT_MODEL);
        let pipeline_version = ragpipe_vectors::bm25::pipeline_version(PIPELINE_VERSION, ragpipe_vectors::bm25::AUTO);
        CollectionSpec { model, dims: 384, pipeline_version }.name()
    }

    /// Every indexed document's count in state equals its points in the
    /// collection `name`, all of its current generation, no chunk twice;
    /// failed and deleted documents have no points.
    pub async fn check_counts(&self, name: &str, docs: &[DocState]) {
        let points = self.points_in(name).await;
        for d in docs {
            let file = d.uri.rsplit('/').next().unwrap();
            let got = points.get(d.id.as_str());
            match d.status {
                DocStatus::Indexed => {
                    let (n, gens) = got.unwrap_or_else(|| panic!("{file}: no points"));
                    assert_eq!(Some(*n as i64), d.chunks_stored, "{file}: state count == points");
                    assert_eq!(gens, &HashSet::from([d.generation]), "{file}: only the current generation");
                }
                _ => assert!(got.is_none(), "{file} ({:?}) has points", d.status),
            }
        }
    }

    /// Points per document in the vector store, and the generations they
    /// belong to; fails on a chunk stored twice (same document, generation
    /// and index, or the same text twice in one document's generation).
    pub async fn points(&self) -> BTreeMap<String, (u64, HashSet<i64>)> {
        self.points_in(&self.live_collection()).await
    }

    /// The same, in the collection `name`.
    pub async fn points_in(&self, name: &str) -> BTreeMap<String, (u64, HashSet<i64>)> {
        let store = self.store(name);
        let mut out: BTreeMap<String, (u64, HashSet<i64>)> = BTreeMap::new();
        let (mut seen, mut texts) = (HashSet::new(), HashSet::new());
        for c in store.chunks(None).await.unwrap() {
            assert!(seen.insert((c.document_id.clone(), c.generation, c.chunk_index)), "duplicate chunk {c:?}");
            assert!(texts.insert((c.document_id.clone(), c.generation, c.text.clone())), "duplicate text {c:?}");
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
    pub async fn remove(&self) {
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
        if let Some(url) = &self.qdrant {
            let qdrant = QdrantStore::connect(url, None).unwrap();
            let mine = format!("{}_", self.namespace);
            let _ = qdrant.delete_alias(format!("{}chunks", mine)).await;
            for c in qdrant.list_collections().await.unwrap().collections {
                if c.name.starts_with(&mine) {
                    qdrant.delete_collection(c.name).await.unwrap();
                }
            }
        }
    }
}

/// Whether process `pid` runs (a child that exited and was not waited for
/// is a zombie: state `Z`).
fn running(pid: u32) -> bool {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    stat.rsplit(')').next().and_then(|rest| rest.split_whitespace().next()).is_some_and(|s| s != "Z" && s != "X")
}

/// What the machine's RabbitMQ says of itself: alarms, whether its ports
/// take connections, how many connections it holds.
fn broker_health() -> String {
    let ask = |cmd: &str, args: &[&str]| {
        let out = Command::new("timeout").arg("20").arg(cmd).arg("-q").args(args).output();
        out.map(|o| plain(&String::from_utf8_lossy(&o.stdout)).trim().to_string()).unwrap_or_else(|e| e.to_string())
    };
    let connections = ask("rabbitmqctl", &["list_connections", "state"]);
    format!(
        "{}; {}; {} connections ({})",
        ask("rabbitmq-diagnostics", &["alarms"]),
        ask("rabbitmq-diagnostics", &["check_port_connectivity"]),
        connections.lines().count(),
        connections.lines().take(5).collect::<Vec<_>>().join(",")
    )
}

/// `text` without terminal colour codes.
fn plain(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            chars.by_ref().find(|c| c.is_ascii_alphabetic());
        } else {
            out.push(c);
        }
    }
    out
}

impl Drop for Deployment {
    fn drop(&mut self) {
        // Workers log to files, not the test's output: a test that failed
        // without a report in its message (any assertion) shows them here.
        if std::thread::panicking() && !self.reported.get() {
            eprintln!("{}", self.report());
        }
        for (_, child) in &mut self.workers {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}
