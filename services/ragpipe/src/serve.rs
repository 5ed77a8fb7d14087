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
use ragpipe_coordinator::{SyncOptions, sync_once};
use ragpipe_embedder::EmbedStage;
use ragpipe_extractor::SIDECAR_EXTENSIONS;
use ragpipe_queue::{AmqpOptions, AmqpQueue, Queue};
use ragpipe_source::{FolderSource, ObjectSource, S3Config, S3Source};
use ragpipe_vectors::Bm25;
use std::process::ExitCode;
use std::sync::Arc;

/// Sync runs: list the source, diff against state, publish jobs; each run
/// prints its new/changed/deleted/unchanged counts as one JSON line. With
/// `--every`, runs follow one another (never overlapping) until SIGTERM; a
/// failed run is logged and the next one tries again.
pub async fn sync(config: Config, args: SyncArgs) -> anyhow::Result<ExitCode> {
    let source = open_source(args.source.as_deref().or(config.distributed.source.as_deref()))?;
    let state = embedded::open_state(&require_state(&config)?).await?;
    let queue = open_queue(&config).await?;
    let stop = shutdown();
    tokio::pin!(stop);
    loop {
        let opts = SyncOptions { resume_pending: false };
        match sync_once(source.as_ref(), state.as_ref(), queue.as_ref(), opts).await {
            Ok(report) => println!("{}", serde_json::to_string(&report)?),
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
/// if the process is killed, are redelivered by the broker).
pub async fn serve(config: Config, role: ServeRole) -> anyhow::Result<ExitCode> {
    let state = embedded::open_state(&require_state(&config)?).await?;
    let queue = open_queue(&config).await?;
    let mut tasks = Vec::new();
    match role {
        ServeRole::Extractor => {
            let source = open_source(config.distributed.source.as_deref())?;
            let tokenizer = embedded::load_tokenizer(&config)?;
            let extractor = Arc::new(ingest::build_extractor(&config, source, state, queue, tokenizer)?);
            for _ in 0..config.workers.extractors.max(1) {
                tasks.push(tokio::spawn(ragpipe_extractor::run(extractor.clone(), shutdown())));
            }
        }
        ServeRole::Embedder => {
            let embedder = embedded::load_embedder(&config)?;
            let vectors = embedded::open_vectors(&config, &embedded::collection(embedder.as_ref())).await?;
            let stage = Arc::new(EmbedStage { state, queue, vectors, embedder, bm25: Arc::new(Bm25::english()) });
            for _ in 0..config.workers.embedders.max(1) {
                tasks.push(tokio::spawn(ragpipe_embedder::run(stage.clone(), shutdown())));
            }
        }
    }
    tracing::info!(?role, workers = tasks.len(), "serving");
    for task in tasks {
        task.await??;
    }
    Ok(ExitCode::SUCCESS)
}

fn require_state(config: &Config) -> anyhow::Result<Config> {
    if config.distributed.state_url.is_none() {
        bail!("the distributed mode needs distributed.state_url (or RAGPIPE_STATE_URL), a PostgreSQL URL");
    }
    Ok(config.clone())
}

async fn open_queue(config: &Config) -> anyhow::Result<Arc<dyn Queue>> {
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
async fn shutdown() {
    let mut term = match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
        Ok(s) => s,
        Err(_) => return std::future::pending().await,
    };
    tokio::select! {
        _ = term.recv() => {}
        _ = tokio::signal::ctrl_c() => {}
    }
}
