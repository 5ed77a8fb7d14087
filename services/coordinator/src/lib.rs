//! The coordinator: lists a source, diffs it against per-document state and
//! enqueues exactly the work the difference calls for — an extract job per new
//! or changed document, a delete job per document that disappeared.
//!
//! A listing that ends in an error never deletes anything: a partial listing
//! would otherwise look like a mass deletion.

use ragpipe_core::{DeleteJob, DocumentId, ExtractJob, Job, SCHEMA_VERSION};
use ragpipe_queue::{Queue, QueueError, Topic};
use ragpipe_source::{ObjectSource, SourceError};
use ragpipe_state::{Observation, Observed, StateError, StateStore};
use std::time::{SystemTime, UNIX_EPOCH};

#[derive(Debug, thiserror::Error)]
pub enum CoordinatorError {
    #[error(transparent)]
    Source(#[from] SourceError),
    #[error(transparent)]
    State(#[from] StateError),
    #[error(transparent)]
    Queue(#[from] QueueError),
}

/// What one sync run found and did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct SyncReport {
    pub listed: u64,
    pub new: u64,
    pub changed: u64,
    /// Unfinished documents enqueued again (their previous run died).
    pub resumed: u64,
    pub unchanged: u64,
    pub deleted: u64,
}

impl SyncReport {
    /// Extract jobs this run published.
    pub fn enqueued(&self) -> u64 {
        self.new + self.changed + self.resumed
    }
}

/// Options of a sync run.
#[derive(Debug, Clone, Copy, Default)]
pub struct SyncOptions {
    /// Re-enqueue documents left queued/extracting/embedding. Right for the
    /// embedded mode, whose in-memory queue died with the previous process;
    /// the distributed mode relies on leases instead.
    pub resume_pending: bool,
}

/// Runs one sync: list, diff, enqueue, then mark what was not seen as deleted.
pub async fn sync_once(
    source: &dyn ObjectSource,
    state: &dyn StateStore,
    queue: &dyn Queue,
    opts: SyncOptions,
) -> Result<SyncReport, CoordinatorError> {
    // Sync runs are ordered by start time; `last_seen < run` finds the missing.
    let run = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_micros() as i64);
    let mut report = SyncReport::default();
    let mut listing = source.list();
    while let Some(item) = listing.recv().await {
        let meta = item?;
        report.listed += 1;
        let id = DocumentId::from_uri(&meta.uri);
        let observed = Observed {
            id: id.clone(),
            uri: meta.uri.clone(),
            key: meta.key.clone(),
            etag: meta.etag,
            size: meta.size as i64,
        };
        let generation = match state.observe(&observed, run).await? {
            Observation::New { generation } => {
                report.new += 1;
                generation
            }
            Observation::Changed { generation } => {
                report.changed += 1;
                generation
            }
            Observation::Pending { generation } if opts.resume_pending => {
                report.resumed += 1;
                generation
            }
            Observation::Stalled { generation } => {
                tracing::warn!(document = %id, generation, "extraction lease expired; enqueued again");
                report.resumed += 1;
                generation
            }
            Observation::Pending { .. } | Observation::Unchanged => {
                report.unchanged += 1;
                continue;
            }
        };
        let job = Job::Extract(ExtractJob {
            schema_version: SCHEMA_VERSION,
            document_id: id,
            uri: meta.uri,
            key: meta.key,
            generation,
        });
        queue.publish(Topic::Extract, job.to_bytes()).await?;
    }
    for id in state.mark_missing(run).await? {
        report.deleted += 1;
        let job = Job::Delete(DeleteJob { schema_version: SCHEMA_VERSION, document_id: id });
        queue.publish(Topic::Embed, job.to_bytes()).await?;
    }
    tracing::info!(?report, source = %source.root(), "sync finished");
    Ok(report)
}
