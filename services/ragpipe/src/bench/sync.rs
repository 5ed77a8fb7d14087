//! `ragpipe bench sync`: the coordinator's diff at scale. It fills a source
//! with N small objects (a folder, or a bucket on the S3 server of
//! `--s3-endpoint`), then times four syncs against PostgreSQL (a database
//! of its own): the first (every object new), an unchanged re-sync, and a
//! re-sync after 1 % of the objects changed and 1 % were deleted. Jobs go
//! to a queue that only counts them, so the figures are the listing, the
//! diff and the state store's; PostgreSQL's transaction counter gives the
//! round trips. Figures printed, never asserted.

use crate::cli::BenchSyncArgs;
use anyhow::Context;
use async_trait::async_trait;
use ragpipe_coordinator::{SyncOptions, sync_once};
use ragpipe_queue::{Consumer, Queue, QueueError, Topic};
use ragpipe_source::{FolderSource, ObjectSource, S3Config, S3Keys, S3Source};
use ragpipe_state::SqlStateStore;
use std::path::Path;
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// Uploads in flight while filling a bucket.
const UPLOADS_IN_FLIGHT: usize = 64;

pub async fn sync(args: BenchSyncArgs) -> anyhow::Result<ExitCode> {
    super::admin::ensure_database(&args.postgres).await?;
    let state = SqlStateStore::connect(&args.postgres).await.context("connecting the bench database")?;
    sqlx::query("TRUNCATE documents, batches, sync_runs, sync_lock")
        .execute(&state_pool(&args.postgres).await?)
        .await?;
    let n = args.objects;
    let dir = tempfile::tempdir()?;
    let s3 = args.s3_endpoint.as_ref().map(|endpoint| s3_config(endpoint));
    let started = Instant::now();
    match &s3 {
        Some(cfg) => fill_bucket(cfg, n, 0..n, "v1").await?,
        None => fill_folder(dir.path(), 0..n, "v1")?,
    }
    eprintln!("bench sync: {n} objects written in {:.1}s", started.elapsed().as_secs_f64());
    let source: Box<dyn ObjectSource> = match &s3 {
        Some(cfg) => Box::new(S3Source::new(cfg.clone())),
        None => Box::new(FolderSource::new(dir.path())?),
    };
    let what = if s3.is_some() { "S3 (SeaweedFS)" } else { "folder" };
    println!("{n} objects in a {what}, state in PostgreSQL, jobs counted (no broker)");
    println!(
        "{:<30} {:>8} {:>10} {:>8} {:>8} {:>8} {:>9} {:>11} {:>9}",
        "sync", "seconds", "objects/s", "new", "changed", "deleted", "enqueued", "round trips", "peak RSS"
    );
    let mut bench = Bench {
        source: source.as_ref(),
        state: &state,
        queue: CountingQueue::default(),
        url: &args.postgres,
        n,
        transactions: transactions(&args.postgres).await?,
    };
    bench.run("first (every object new)").await?;
    bench.run("unchanged").await?;
    let hundredth = (n / 100).max(1);
    match &s3 {
        Some(cfg) => {
            fill_bucket(cfg, n, 0..hundredth, "v2").await?;
            delete_objects(cfg, n - hundredth..n).await?;
        }
        None => {
            fill_folder(dir.path(), 0..hundredth, "v2 changed")?;
            for i in n - hundredth..n {
                std::fs::remove_file(dir.path().join(name(i)))?;
            }
        }
    }
    bench.run("1 % changed, 1 % deleted").await?;
    bench.run("unchanged again").await?;
    state.close().await;
    Ok(ExitCode::SUCCESS)
}

struct Bench<'a> {
    source: &'a dyn ObjectSource,
    state: &'a SqlStateStore,
    queue: CountingQueue,
    url: &'a str,
    n: u64,
    /// PostgreSQL's committed transactions after the last phase.
    transactions: i64,
}

impl Bench<'_> {
    async fn run(&mut self, name: &str) -> anyhow::Result<()> {
        reset_peak_rss();
        let published = self.queue.published.load(Ordering::Relaxed);
        let started = Instant::now();
        let report = sync_once(self.source, self.state, &self.queue, SyncOptions::default()).await?;
        let secs = started.elapsed().as_secs_f64();
        let rss = super::peak_rss_mib().unwrap_or(0.0);
        let transactions = transactions(self.url).await?;
        println!(
            "{name:<30} {secs:>8.2} {:>10.0} {:>8} {:>8} {:>8} {:>9} {:>11} {rss:>5.0} MiB",
            self.n as f64 / secs,
            report.new,
            report.changed,
            report.deleted,
            self.queue.published.load(Ordering::Relaxed) - published,
            transactions - self.transactions,
        );
        self.transactions = transactions;
        Ok(())
    }
}

fn name(i: u64) -> String {
    format!("d{:03}/doc-{i:08}.txt", i % 1000)
}

fn fill_folder(dir: &Path, range: std::ops::Range<u64>, version: &str) -> anyhow::Result<()> {
    for i in range {
        let path = dir.join(name(i));
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(path, format!("document {i}, {version}\n"))?;
    }
    Ok(())
}

fn s3_config(endpoint: &str) -> S3Config {
    let env = |k: &str, d: &str| std::env::var(k).unwrap_or_else(|_| d.to_string());
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    S3Config {
        bucket: format!("bench-sync-{nanos}"),
        prefix: String::new(),
        endpoint: Some(endpoint.to_string()),
        region: "us-east-1".into(),
        keys: Some(S3Keys::new(env("AWS_ACCESS_KEY_ID", "ragpipe"), env("AWS_SECRET_ACCESS_KEY", "ragpipe-secret"))),
    }
}

async fn fill_bucket(cfg: &S3Config, n: u64, range: std::ops::Range<u64>, version: &str) -> anyhow::Result<()> {
    let client = cfg.client();
    if range.start == 0 && version == "v1" {
        client.create_bucket().bucket(&cfg.bucket).send().await.context("creating the bench bucket")?;
    }
    let mut uploads = tokio::task::JoinSet::new();
    for i in range {
        if uploads.len() >= UPLOADS_IN_FLIGHT {
            uploads.join_next().await.context("an upload task")???;
        }
        let (client, bucket, body) = (client.clone(), cfg.bucket.clone(), format!("document {i}, {version}\n"));
        uploads.spawn(async move {
            let body = aws_sdk_s3::primitives::ByteStream::from(body.into_bytes());
            client.put_object().bucket(bucket).key(name(i)).body(body).send().await.map(|_| ()).context("put")
        });
        if i % 10_000 == 0 && i > 0 {
            eprintln!("bench sync: {i} of {n} objects uploaded");
        }
    }
    while let Some(done) = uploads.join_next().await {
        done??;
    }
    Ok(())
}

async fn delete_objects(cfg: &S3Config, range: std::ops::Range<u64>) -> anyhow::Result<()> {
    let client = cfg.client();
    for i in range {
        client.delete_object().bucket(&cfg.bucket).key(name(i)).send().await?;
    }
    Ok(())
}

async fn state_pool(url: &str) -> anyhow::Result<sqlx::PgPool> {
    Ok(sqlx::PgPool::connect(url).await?)
}

/// Transactions committed in the bench database so far: every statement
/// outside a transaction is one, so the difference over a sync counts its
/// round trips to the state store (plus this reading's own few). Sessions
/// report their counts when idle, at the latest after PostgreSQL's 10 s
/// idle interval: the reading waits that long first.
async fn transactions(url: &str) -> anyhow::Result<i64> {
    tokio::time::sleep(std::time::Duration::from_secs(11)).await;
    let pool = state_pool(url).await?;
    sqlx::query("SELECT pg_stat_clear_snapshot()").execute(&pool).await?;
    let n: i64 = sqlx::query_scalar("SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()")
        .fetch_one(&pool)
        .await?;
    pool.close().await;
    Ok(n)
}

/// Resets this process's peak RSS (`VmHWM`) so a phase reports its own.
fn reset_peak_rss() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

/// A queue that counts what is published and delivers nothing.
#[derive(Default)]
struct CountingQueue {
    published: AtomicU64,
}

#[async_trait]
impl Queue for CountingQueue {
    async fn publish(&self, _topic: Topic, _payload: Vec<u8>) -> Result<(), QueueError> {
        self.published.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    async fn consume(&self, _topic: Topic) -> Result<Box<dyn Consumer>, QueueError> {
        Err(QueueError::Connection("the bench's counting queue delivers nothing".into()))
    }

    async fn depth(&self, _topic: Topic) -> Result<u64, QueueError> {
        Ok(0)
    }
}
