//! `ragpipe ingest <folder | s3://bucket/prefix>`: the whole pipeline in one
//! process. The same
//! coordinator, extractor and embedder `run` functions as the distributed
//! services, wired to a bounded in-memory queue, SQLite and qdrant-edge.

use crate::cli::IngestArgs;
use crate::wiring;
use indicatif::{ProgressBar, ProgressStyle};
use ragpipe_admin::reindex::{self, Swapped};
use ragpipe_config::Config;
use ragpipe_coordinator::{SyncOptions, SyncReport, sync_once};
use ragpipe_core::DocStatus;
use ragpipe_embedder::{EmbedStage, Targets};
use ragpipe_extractor::{ExtractStage, ExtractorConfig};
use ragpipe_queue::{Activity, Handler, MemoryQueue, Topic};
use ragpipe_state::{Cursor, DocQuery, StateStore};
use ragpipe_worker::Stop;
use serde::Serialize;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What an ingest run did, printed at the end.
#[derive(Debug, Serialize)]
struct Summary {
    sync: SyncReport,
    indexed: i64,
    /// The first [`ragpipe_admin::MAX_LISTED`] failed documents.
    failed: Vec<Failure>,
    failed_total: i64,
    chunks_stored: i64,
    truncated: i64,
    seconds: f64,
    chunks_per_second: f64,
    /// Share of the pipeline's wall time (after the model loaded) during
    /// which the model was embedding: below 1, it waited for input.
    embedder_busy: f64,
    /// A reindex this run completed: the new index went live.
    #[serde(skip_serializing_if = "Option::is_none")]
    swapped: Option<Swapped>,
}

#[derive(Debug, Serialize)]
struct Failure {
    document: String,
    stage: String,
    reason: String,
}

/// One ingest run; with `--every`, one run after another (a fresh pipeline
/// each time, never overlapping: the sync lock) until SIGTERM or Ctrl-C.
pub async fn run(config: Config, args: IngestArgs) -> anyhow::Result<ExitCode> {
    let Some(every) = args.every else {
        return ingest_once(&config, &args).await;
    };
    let stop = Stop::on_signals();
    loop {
        if let Err(e) = ingest_once(&config, &args).await {
            tracing::error!(error = %format!("{e:#}"), "ingest run failed; the next run retries");
        }
        if stop.sleep(every).await {
            return Ok(ExitCode::SUCCESS);
        }
    }
}

/// One ingest run. New generations go to the registry's write target: the
/// live index, or the one a reindex is building, whose build the run then
/// goes on with (and completes with the swap when nothing is left pending).
pub(crate) async fn ingest_once(config: &Config, args: &IngestArgs) -> anyhow::Result<ExitCode> {
    let config = config.clone();
    let started = Instant::now();
    let state = wiring::open_state(&config).await?;
    let first = wiring::first_index(&config)?;
    let index = ragpipe_state::write_index(state.as_ref(), &first).await?;
    let embedder = wiring::load_embedder_for(&config, state.as_ref(), &index).await?;
    // Chunks are cut to the window of the model that embeds them.
    let tokenizer = embedder.tokenizer().clone();
    let collections = wiring::collections(&config)?;
    let targets = Arc::new(Targets::registry(state.clone(), collections.clone(), first));
    let source = wiring::open_source(Some(&args.source), &config)?;
    let queue =
        Arc::new(MemoryQueue::new(config.workers.queue_capacity).with_max_bytes(config.workers.queue_mib << 20));
    let chunks_before = total_chunks(state.as_ref()).await?;

    let ports = ragpipe_extractor::Ports { source: source.clone(), state: state.clone(), counter: tokenizer };
    let extract = ExtractStage::new(ExtractorConfig::from_config(&config)?, ports, queue.clone());
    let transcriber: Arc<dyn Handler> = Arc::new(extract.clone().transcribing());
    let extractor: Arc<dyn Handler> = Arc::new(extract);
    let model = embedder.clone();
    let ports = ragpipe_embedder::Ports { state: state.clone(), targets: targets.clone(), embedder };
    let stage: Arc<dyn Handler> = Arc::new(EmbedStage::new(ports));
    // Each stage's loops end when its queue is closed and drained.
    let consume = |handler: &Arc<dyn Handler>, n: usize| -> Vec<_> {
        (0..n)
            .map(|_| {
                let (queue, handler) = (queue.clone(), handler.clone());
                tokio::spawn(async move {
                    let idle = Activity::default();
                    ragpipe_queue::consume(queue.as_ref(), handler.as_ref(), &idle, std::future::pending()).await
                })
            })
            .collect()
    };
    let extractors = consume(&extractor, config.workers.extractors);
    let transcribers = consume(&transcriber, config.workers.transcribers);
    let embedders = consume(&stage, config.workers.embedders);

    let progress = Progress::start(state.clone(), args.quiet || args.json);
    let pipeline = Instant::now();
    let opts = SyncOptions { resume_pending: true, ..SyncOptions::default() };
    let report = sync_once(source.as_ref(), state.as_ref(), queue.as_ref(), opts).await;
    // Close the queues in pipeline order so every stage drains before it stops,
    // even when the sync failed half-way.
    queue.close(Topic::Extract);
    for task in extractors {
        task.await??;
    }
    // Media the extractors moved to the transcribe queue is all there now.
    queue.close(Topic::Transcribe);
    for task in transcribers {
        task.await??;
    }
    queue.close(Topic::Embed);
    for task in embedders {
        task.await??;
    }
    progress.finish().await;
    let embedder_busy = model.busy_time().as_secs_f64() / pipeline.elapsed().as_secs_f64().max(1e-9);
    let report = report?;

    let chunks_after = total_chunks(state.as_ref()).await?;
    if report.enqueued() + report.deleted > 0 {
        // qdrant-edge never optimises on its own: merge segments and build the
        // HNSW index once per run, after the bulk writes.
        targets.resolve().await?.store.optimize().await?;
    }
    // Release the collection before a swap makes it the one searches open.
    drop(stage);
    drop(targets);
    let swapped = reindex::finish(state.as_ref(), collections.as_ref()).await?;
    let mut summary = summarize(state.as_ref(), report, started.elapsed(), chunks_after - chunks_before).await?;
    summary.swapped = swapped;
    summary.embedder_busy = embedder_busy;
    print_summary(&summary, args.json)?;
    Ok(if summary.failed_total == 0 { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

async fn total_chunks(state: &dyn StateStore) -> anyhow::Result<i64> {
    Ok(state.counts().await?.get(DocStatus::Indexed).chunks)
}

async fn summarize(
    state: &dyn StateStore,
    sync: SyncReport,
    elapsed: Duration,
    new_chunks: i64,
) -> anyhow::Result<Summary> {
    let counts = state.counts().await?;
    let indexed = counts.get(DocStatus::Indexed);
    let failed_only = DocQuery { status: Some(DocStatus::Failed), ..DocQuery::default() };
    let failed = state
        .page(&failed_only, &Cursor::Start, ragpipe_admin::MAX_LISTED)
        .await?
        .documents
        .into_iter()
        .map(|d| Failure {
            document: d.uri,
            stage: d.failure_stage.map_or("-", |s| s.as_str()).to_string(),
            reason: d.failure_reason.unwrap_or_default(),
        })
        .collect();
    let seconds = elapsed.as_secs_f64();
    Ok(Summary {
        sync,
        indexed: indexed.documents,
        failed,
        failed_total: counts.documents(DocStatus::Failed),
        chunks_stored: indexed.chunks,
        truncated: indexed.truncated,
        seconds,
        chunks_per_second: new_chunks.max(0) as f64 / seconds.max(1e-9),
        embedder_busy: 0.0,
        swapped: None,
    })
}

fn print_summary(s: &Summary, json: bool) -> anyhow::Result<()> {
    if json {
        println!("{}", serde_json::to_string_pretty(s)?);
        return Ok(());
    }
    let r = &s.sync;
    println!(
        "listed {} files: {} new, {} changed, {} resumed, {} unchanged, {} deleted",
        r.listed, r.new, r.changed, r.resumed, r.unchanged, r.deleted
    );
    println!(
        "{} documents indexed, {} chunks in the index; {:.1}s ({:.1} new chunks/s, model busy {:.0}% of the pipeline's time)",
        s.indexed,
        s.chunks_stored,
        s.seconds,
        s.chunks_per_second,
        100.0 * s.embedder_busy
    );
    if let Some(sw) = &s.swapped {
        let dropped = if sw.dropped { "dropped" } else { "kept" };
        let from = sw.from.as_deref().unwrap_or("-");
        println!("reindex complete: searches now read {}; the old index {from} was {dropped}", sw.to);
    }
    if s.truncated > 0 {
        println!("warning: {} chunks were longer than the model window and truncated", s.truncated);
    }
    if s.failed_total > 0 {
        println!("{} documents failed:", s.failed_total);
        for f in &s.failed {
            println!("  {}  [{}] {}", f.document.escape_debug(), f.stage, f.reason);
        }
        if s.failed_total > s.failed.len() as i64 {
            println!("  … and {} more: `ragpipe documents --status failed`", s.failed_total - s.failed.len() as i64);
        }
    }
    crate::status::print_skipped(r.skipped, &r.skipped_entries);
    Ok(())
}

/// A progress bar fed by polling document state: the state store is the
/// truth, so the bar can never claim progress that was not committed.
struct Progress {
    stop: tokio::sync::oneshot::Sender<()>,
    task: tokio::task::JoinHandle<()>,
}

impl Progress {
    fn start(state: Arc<ragpipe_state::SqlStateStore>, hidden: bool) -> Self {
        let (stop, mut stopped) = tokio::sync::oneshot::channel();
        let bar = if hidden { ProgressBar::hidden() } else { ProgressBar::new(0) };
        bar.set_style(
            ProgressStyle::with_template("{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} documents  {msg}")
                .expect("static template"),
        );
        let started = Instant::now();
        let task = tokio::spawn(async move {
            loop {
                if let Ok(counts) = state.counts().await {
                    bar.set_length((counts.done() + counts.pending()) as u64);
                    bar.set_position(counts.done() as u64);
                    let chunks = counts.get(DocStatus::Indexed).chunks;
                    bar.set_message(format!(
                        "{chunks} chunks, {:.0} chunks/s",
                        chunks as f64 / started.elapsed().as_secs_f64()
                    ));
                }
                tokio::select! {
                    _ = &mut stopped => break,
                    _ = tokio::time::sleep(Duration::from_millis(200)) => {}
                }
            }
            bar.finish_and_clear();
        });
        Progress { stop, task }
    }

    async fn finish(self) {
        let _ = self.stop.send(());
        let _ = self.task.await;
    }
}
