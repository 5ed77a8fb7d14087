//! The coordinator: lists a source, diffs it against per-document state and
//! enqueues exactly the work the difference calls for — an extract job per new
//! or changed document, a delete job per document that disappeared.
//!
//! A listing that ends in an error never deletes anything: a partial listing
//! would otherwise look like a mass deletion.

mod service;

pub use service::{Ports, RunEnd, run};

use ragpipe_core::{DeleteJob, DocumentId, ExtractJob, Job, SCHEMA_VERSION};
use ragpipe_queue::{Queue, QueueError, Topic};
use ragpipe_source::{ObjectMeta, ObjectSource, SourceError};
pub use ragpipe_state::{MAX_SKIPPED_KEPT, SkippedEntry, SyncReport};
use ragpipe_state::{OBSERVE_BATCH, Observation, Observed, StateError, StateStore, SyncRun};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

#[derive(Debug, thiserror::Error)]
pub enum CoordinatorError {
    #[error(transparent)]
    Source(#[from] SourceError),
    #[error(transparent)]
    State(#[from] StateError),
    #[error(transparent)]
    Queue(#[from] QueueError),
    /// Another sync run holds the lock: this one did nothing.
    #[error("another sync is running: run {} by {} on {}", .0.run, .0.holder, .0.source)]
    Busy(Box<SyncRun>),
    /// This run's lock lease ran out and another run took it over; it stopped
    /// before deleting anything.
    #[error("sync run {0} lost its lock (it stalled longer than its lease) and stopped")]
    LockLost(i64),
}

/// Options of a sync run.
#[derive(Debug, Clone, Copy)]
pub struct SyncOptions {
    /// Re-enqueue documents left queued/extracting/embedding. Right for the
    /// embedded mode, whose in-memory queue died with the previous process;
    /// the distributed mode relies on leases instead.
    pub resume_pending: bool,
    /// How long the sync lock holds without renewal; a run renews it as it
    /// goes, so only a dead (or frozen) coordinator lets it expire.
    pub lock_lease: Duration,
}

impl Default for SyncOptions {
    fn default() -> Self {
        SyncOptions { resume_pending: false, lock_lease: Duration::from_secs(60) }
    }
}

/// Runs one sync: take the sync lock, list, diff, enqueue, mark what was
/// not seen as deleted, record the run. Runs never overlap, whatever starts
/// them (a schedule, a cron job, a person): a run that finds the lock held
/// returns [`CoordinatorError::Busy`] having done nothing. A run that dies
/// leaves its lock to expire and its documents to the next run, which sees
/// every object again (observing is idempotent) and is the one that deletes.
pub async fn sync_once(
    source: &dyn ObjectSource,
    state: &dyn StateStore,
    queue: &dyn Queue,
    opts: SyncOptions,
) -> Result<SyncReport, CoordinatorError> {
    // Sync runs are ordered by start time; `last_seen < run` finds the missing.
    let run = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_micros() as i64);
    let root = source.root();
    if let Err(holder) = state.begin_sync(run, &root, &holder(), opts.lock_lease).await? {
        return Err(CoordinatorError::Busy(Box::new(holder)));
    }
    let result = diff_and_enqueue(source, state, queue, opts, run).await;
    let outcome = match &result {
        Ok(report) => Ok(serde_json::to_string(report).unwrap_or_default()),
        Err(e) => Err(e.to_string()),
    };
    if !matches!(result, Err(CoordinatorError::LockLost(_))) {
        state.finish_sync(run, outcome.as_deref().map_err(String::as_str)).await?;
    }
    result
}

/// Who runs this sync, as recorded with its lock: host and process id.
fn holder() -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_string())
        .or_else(|_| std::env::var("HOSTNAME"))
        .unwrap_or_else(|_| "unknown-host".into());
    format!("{host}:{}", std::process::id())
}

async fn diff_and_enqueue(
    source: &dyn ObjectSource,
    state: &dyn StateStore,
    queue: &dyn Queue,
    opts: SyncOptions,
    run: i64,
) -> Result<SyncReport, CoordinatorError> {
    let mut report = SyncReport::default();
    let mut renewed = Instant::now();
    let mut listing = source.list();
    // The listing is diffed a page at a time: memory stays flat however many
    // objects the source holds, and the state store answers a page in a few
    // statements (StateStore::observe_many).
    let mut page: Vec<ObjectMeta> = Vec::with_capacity(OBSERVE_BATCH);
    let mut listed_all = false;
    while !listed_all {
        match listing.recv().await {
            Some(Ok(meta)) => {
                report.listed += 1;
                page.push(meta);
            }
            Some(Err(SourceError::Skipped { key, reason })) => {
                report.skipped += 1;
                if report.skipped_entries.len() < MAX_SKIPPED_KEPT {
                    report.skipped_entries.push(SkippedEntry { key, reason });
                }
            }
            Some(Err(e)) => return Err(e.into()),
            None => listed_all = true,
        }
        if page.len() < OBSERVE_BATCH && !listed_all {
            continue;
        }
        if renewed.elapsed() > opts.lock_lease / 3 {
            if !state.renew_sync(run, opts.lock_lease).await? {
                return Err(CoordinatorError::LockLost(run));
            }
            renewed = Instant::now();
        }
        enqueue_page(state, queue, opts, run, std::mem::take(&mut page), &mut report).await?;
    }
    if !state.renew_sync(run, opts.lock_lease).await? {
        return Err(CoordinatorError::LockLost(run));
    }
    for id in state.mark_missing(run).await? {
        report.deleted += 1;
        let job = Job::Delete(DeleteJob { schema_version: SCHEMA_VERSION, document_id: id });
        queue.publish(Topic::Embed, job.to_bytes()).await?;
    }
    tracing::info!(?report, source = %source.root(), run, "sync finished");
    Ok(report)
}

/// Diffs one page of listed objects against the state store and publishes
/// the extract jobs of those that need one.
async fn enqueue_page(
    state: &dyn StateStore,
    queue: &dyn Queue,
    opts: SyncOptions,
    run: i64,
    page: Vec<ObjectMeta>,
    report: &mut SyncReport,
) -> Result<(), CoordinatorError> {
    if page.is_empty() {
        return Ok(());
    }
    let observed: Vec<Observed> = page
        .iter()
        .map(|meta| Observed {
            id: DocumentId::from_uri(&meta.uri),
            uri: meta.uri.clone(),
            key: meta.key.clone(),
            etag: meta.etag.clone(),
            size: meta.size as i64,
        })
        .collect();
    let observations = state.observe_many(&observed, run).await?;
    let mut jobs = Vec::new();
    for (obj, observation) in observed.into_iter().zip(observations) {
        let (generation, change) = match observation {
            Observation::New { generation } => {
                report.new += 1;
                (generation, "new")
            }
            Observation::Changed { generation } => {
                report.changed += 1;
                (generation, "changed")
            }
            Observation::Pending { generation } if opts.resume_pending => {
                report.resumed += 1;
                (generation, "resumed")
            }
            Observation::Unpublished { generation } => {
                tracing::warn!(document = %obj.id, generation, "queued by a sync run that did not finish; enqueued again");
                report.resumed += 1;
                (generation, "unpublished")
            }
            Observation::Unread { generation } => {
                tracing::warn!(document = %obj.id, generation, "its last fetch gave up on transient errors; read again");
                report.resumed += 1;
                (generation, "unread")
            }
            Observation::Stalled { generation } => {
                tracing::warn!(document = %obj.id, generation, "extraction lease expired; enqueued again");
                report.resumed += 1;
                (generation, "stalled")
            }
            Observation::Pending { .. } | Observation::Unchanged => {
                report.unchanged += 1;
                continue;
            }
        };
        // The root of the document's trace: the extract job carries it on.
        let span = tracing::info_span!(
            "enqueue", document.id = %obj.id, document.uri = %obj.uri, generation, change, size = obj.size
        );
        let job = Job::Extract(ExtractJob {
            schema_version: SCHEMA_VERSION,
            document_id: obj.id,
            uri: obj.uri,
            key: obj.key,
            generation,
        });
        jobs.push((job.to_bytes(), span));
    }
    // The page's jobs in one go: with RabbitMQ, one wait for all confirms.
    queue.publish_many(Topic::Extract, jobs).await?;
    Ok(())
}
