//! The distributed mode: `ragpipe sync` (the coordinator, one-shot) and
//! `ragpipe serve extractor|embedder` (long-running workers), over the
//! engines of `[distributed]`: PostgreSQL state, RabbitMQ queues and an S3
//! (or folder) source. The stages are the same libraries the embedded
//! `ingest` runs; only the adapters differ.
//!
//! Vectors: a Qdrant server when `distributed.qdrant_url` is set, so any
//! number of embedder processes share it; without one, the embedder writes
//! the qdrant-edge store in its data directory, which one process owns, so
//! such a deployment runs ONE embedder process (`workers.embedders` tasks).

use crate::cli::{ServeRole, SyncArgs};
use crate::{embedded, ingest};
use anyhow::{Context, bail};
use ragpipe_config::Config;
use ragpipe_coordinator::{CoordinatorError, SyncOptions, sync_once};
use ragpipe_embedder::{EmbedStage, Targets};
use ragpipe_extractor::SIDECAR_EXTENSIONS;
use ragpipe_queue::{AmqpOptions, AmqpQueue, Queue, QueueError};
use ragpipe_source::{FolderSource, ObjectSource, S3Config, S3Source};
use ragpipe_vectors::Bm25;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;
use tokio::task::JoinHandle;

/// Sync runs: list the source, diff against state, publish jobs; each run
/// prints its new/changed/deleted/unchanged counts as one JSON line. With
/// `--every`, runs follow one another until SIGTERM; a failed run is logged
/// and the next one tries again. Runs never overlap, across processes too
/// (the state store's sync lock): a run that finds another at work prints
/// `{"skipped": …, "held_by": …}` and does nothing.
pub async fn sync(config: Config, args: SyncArgs) -> anyhow::Result<ExitCode> {
    let source = open_source(args.source.as_deref().or(config.distributed.source.as_deref()))?;
    let state = embedded::open_state(&require_state(&config)?).await?;
    let queue = open_queue(&config).await?;
    let stop = shutdown();
    tokio::pin!(stop);
    loop {
        let mut opts = SyncOptions { resume_pending: false, ..SyncOptions::default() };
        if let Some(secs) = config.distributed.sync_lease_secs {
            opts.lock_lease = Duration::from_secs(secs.max(1));
        }
        match sync_once(source.as_ref(), state.as_ref(), queue.as_ref(), opts).await {
            Ok(report) => println!("{}", serde_json::to_string(&report)?),
            // Another run (a second scheduler, a manual run) is at work: not
            // an error for a cron job, but visible.
            Err(CoordinatorError::Busy(held)) => {
                println!("{}", serde_json::json!({ "skipped": "another sync is running", "held_by": held }));
            }
            Err(e) if args.every.is_some() => tracing::error!(error = %e, "sync run failed; the next run retries"),
            Err(e) => return Err(e.into()),
        }
        let Some(every) = args.every else {
            return Ok(ExitCode::SUCCESS);
        };
        tokio::select! {
            _ = &mut stop => return Ok(ExitCode::SUCCESS),
            _ = tokio::time::sleep(every) => {}
        }
    }
}

/// Runs a worker role until SIGTERM or Ctrl-C; in-flight jobs finish (or,
/// if the process is killed, are redelivered by the broker). When the broker
/// connection is lost the workers stop, unacked jobs go back to the queue,
/// and the role reconnects with exponential backoff (1 s doubling to 30 s);
/// the model, tokenizer, state and vector store are kept across reconnects.
pub async fn serve(config: Config, role: ServeRole) -> anyhow::Result<ExitCode> {
    require_state(&config)?;
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    tokio::spawn(async move {
        shutdown().await;
        let _ = stop_tx.send(true);
    });
    let mut stop = stop_rx.clone();
    // A worker started while PostgreSQL restarts waits for it.
    let Some(state) = patiently("the state store", &mut stop, || embedded::open_state(&config)).await else {
        return Ok(ExitCode::SUCCESS);
    };
    let stopped = move || {
        let mut rx = stop_rx.clone();
        async move {
            let _ = rx.wait_for(|stop| *stop).await;
        }
    };
    let worker: Worker = match role {
        ServeRole::Extractor => {
            let source = open_source(config.distributed.source.as_deref())?;
            let tokenizer = embedded::load_tokenizer(&config)?;
            let config = config.clone();
            Box::new(move |queue, n| {
                let ex = Arc::new(ingest::build_extractor(
                    &config,
                    source.clone(),
                    state.clone(),
                    queue,
                    tokenizer.clone(),
                )?);
                Ok((0..n).map(|_| tokio::spawn(ragpipe_extractor::run(ex.clone(), stopped()))).collect())
            })
        }
        ServeRole::Embedder => {
            // The model of the index being written; the target is looked up
            // again for every job, so a reindex that starts or swaps is followed.
            let first = embedded::first_index(&config);
            let write_index = || ragpipe_state::write_index(state.as_ref(), &first);
            let Some(index) = patiently("the index registry", &mut stop, write_index).await else {
                return Ok(ExitCode::SUCCESS);
            };
            let embedder = embedded::load_embedder_for(&config, &index)?;
            let targets = Arc::new(Targets::registry(state.clone(), embedded::collections(&config)?, first));
            let bm25 = Arc::new(Bm25::english());
            Box::new(move |queue, n| {
                let stage = Arc::new(EmbedStage {
                    state: state.clone(),
                    queue,
                    targets: targets.clone(),
                    embedder: embedder.clone(),
                    bm25: bm25.clone(),
                });
                Ok((0..n).map(|_| tokio::spawn(ragpipe_embedder::run(stage.clone(), stopped()))).collect())
            })
        }
        ServeRole::Admin => bail!("the admin role is served by `admin::serve`, it has no queue workers"),
    };
    let workers = match role {
        ServeRole::Extractor => config.workers.extractors,
        ServeRole::Embedder => config.workers.embedders,
        ServeRole::Admin => 0,
    }
    .max(1);
    let (ready_tx, ready) = tokio::sync::watch::channel(false);
    if let Some(addr) = &config.workers.health_listen {
        let listener = tokio::net::TcpListener::bind(addr).await.with_context(|| format!("binding {addr}"))?;
        let mut probe_stop = stop.clone();
        let stopped = async move {
            let _ = probe_stop.wait_for(|s| *s).await;
        };
        tokio::spawn(ragpipe_admin::serve_probes(listener, ready, stopped));
    }
    let mut backoff = RECONNECT_MIN;
    loop {
        if *stop.borrow() {
            break;
        }
        match open_queue(&config).await {
            Ok(queue) => {
                let depth = tokio::spawn(sample_depth(queue.clone()));
                let tasks = worker(queue, workers)?;
                let _ = ready_tx.send(true);
                tracing::info!(?role, workers, "serving");
                let mut lost = None;
                for task in tasks {
                    if let Err(e) = task.await? {
                        lost = Some(e);
                    }
                }
                let _ = ready_tx.send(false);
                depth.abort();
                if *stop.borrow() {
                    break;
                }
                tracing::warn!(error = ?lost, "lost the broker connection; reconnecting");
                backoff = RECONNECT_MIN;
            }
            Err(e) => tracing::warn!(error = %e, ?backoff, "cannot reach the broker; retrying"),
        }
        tokio::select! {
            _ = stop.wait_for(|s| *s) => break,
            _ = tokio::time::sleep(backoff) => {}
        }
        backoff = (backoff * 2).min(RECONNECT_MAX);
    }
    Ok(ExitCode::SUCCESS)
}

/// Runs `attempt` until it succeeds, waiting the reconnect backoff between
/// tries (1 s doubling to 30 s); `None` if the role is stopped meanwhile.
async fn patiently<T, E, F, Fut>(what: &str, stop: &mut tokio::sync::watch::Receiver<bool>, attempt: F) -> Option<T>
where
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = Result<T, E>>,
    E: std::fmt::Display,
{
    let mut backoff = RECONNECT_MIN;
    loop {
        match attempt().await {
            Ok(v) => return Some(v),
            // `{:#}`: with its causes (anyhow shows only the outer context otherwise).
            Err(e) => tracing::warn!(error = %format!("{e:#}"), ?backoff, "cannot reach {what}; retrying"),
        }
        tokio::select! {
            _ = stop.wait_for(|s| *s) => return None,
            _ = tokio::time::sleep(backoff) => {}
        }
        backoff = (backoff * 2).min(RECONNECT_MAX);
    }
}

/// Records the depth of both queues every 10 s (the `ragpipe.queue.depth`
/// gauge) while the connection lives.
async fn sample_depth(queue: Arc<dyn Queue>) {
    let gauge = &ragpipe_telemetry::metrics::metrics().queue_depth;
    loop {
        for topic in [ragpipe_queue::Topic::Extract, ragpipe_queue::Topic::Embed] {
            if let Ok(n) = queue.depth(topic).await {
                gauge.record(n, &[opentelemetry::KeyValue::new("topic", topic.as_str())]);
            }
        }
        tokio::time::sleep(Duration::from_secs(10)).await;
    }
}

/// Starts `n` workers of a role on a (new) broker connection.
type Worker = Box<dyn Fn(Arc<dyn Queue>, usize) -> anyhow::Result<Vec<JoinHandle<Result<(), QueueError>>>> + Send>;

const RECONNECT_MIN: Duration = Duration::from_secs(1);
const RECONNECT_MAX: Duration = Duration::from_secs(30);

fn require_state(config: &Config) -> anyhow::Result<Config> {
    if config.distributed.state_url.is_none() {
        bail!("the distributed mode needs distributed.state_url (or RAGPIPE_STATE_URL), a PostgreSQL URL");
    }
    Ok(config.clone())
}

pub(crate) async fn open_queue(config: &Config) -> anyhow::Result<Arc<dyn Queue>> {
    let d = &config.distributed;
    let url = d.amqp_url.as_deref().context("the distributed mode needs distributed.amqp_url (or RAGPIPE_AMQP_URL)")?;
    let mut options = AmqpOptions::default();
    if let Some(ns) = &d.namespace {
        options.namespace = ns.clone();
    }
    Ok(Arc::new(AmqpQueue::connect(url, options).await.context("connecting to RabbitMQ")?))
}

/// `s3://bucket/prefix` or a folder path.
fn open_source(uri: Option<&str>) -> anyhow::Result<Arc<dyn ObjectSource>> {
    let uri = uri.context("no source: pass --source or set distributed.source (or RAGPIPE_SOURCE)")?;
    Ok(if uri.starts_with("s3://") {
        Arc::new(S3Source::new(S3Config::from_uri(uri)?).skipping(&SIDECAR_EXTENSIONS))
    } else {
        Arc::new(FolderSource::new(std::path::Path::new(uri))?.skipping(&SIDECAR_EXTENSIONS))
    })
}

/// Resolves on SIGTERM or Ctrl-C.
pub(crate) async fn shutdown() {
    let mut term = match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
        Ok(s) => s,
        Err(_) => return std::future::pending().await,
    };
    tokio::select! {
        _ = term.recv() => {}
        _ = tokio::signal::ctrl_c() => {}
    }
}
