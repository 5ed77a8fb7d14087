//! The `StateStore` port: one row of state per document, moved through its
//! lifecycle by conditional transitions so that redelivered or late messages
//! can never move a document backwards or count a batch twice.
//!
//! One SQL adapter serves both modes through sqlx's `Any` driver: SQLite for
//! the embedded default, PostgreSQL for distributed deployments. The queries
//! live in `src/sql/*.sql` and are written once in the dialect both accept.

#[cfg(feature = "testsuite")]
pub mod conformance;
mod indexes;
mod observe;
mod pages;
mod query;
mod registry;
mod sql;
mod sync_report;
mod sync_runs;

pub use observe::OBSERVE_BATCH;
pub use pages::REQUEUE_BATCH;
pub use query::{Cursor, DocQuery, FailureGroup, KindMatch, Page, Seal, every};
pub use registry::{live_index, write_index};
pub use sql::{DEFAULT_LEASE, SqlStateStore};
pub use sync_report::{MAX_SKIPPED_KEPT, SkippedEntry, SyncReport};

use async_trait::async_trait;
use ragpipe_core::{DocState, DocStatus, DocumentId, Kind, Stage};
use std::time::Duration;

#[derive(Debug, thiserror::Error)]
pub enum StateError {
    #[error("state store: {0}")]
    Database(#[from] sqlx::Error),
    #[error("state store migration: {0}")]
    Migration(#[from] sqlx::migrate::MigrateError),
    #[error("state store holds an invalid row for {id}: {reason}")]
    Corrupt { id: String, reason: String },
}

impl StateError {
    /// Whether trying again later can succeed (connection trouble, locks).
    pub fn is_retryable(&self) -> bool {
        matches!(self, StateError::Database(sqlx::Error::Io(_) | sqlx::Error::PoolTimedOut | sqlx::Error::PoolClosed))
            || matches!(self, StateError::Database(sqlx::Error::Database(e)) if e.message().contains("locked"))
    }
}

/// An object as a source listed it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Observed {
    pub id: DocumentId,
    pub uri: String,
    pub key: String,
    pub etag: String,
    pub size: i64,
}

/// What the coordinator must do about an observed object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Observation {
    /// First sighting: extract generation 1.
    New { generation: i64 },
    /// Content changed (or the document came back): extract the new generation.
    Changed { generation: i64 },
    /// Same version, but its processing never finished (queued, extracting or
    /// embedding) — e.g. the previous embedded run was killed.
    Pending { generation: i64 },
    /// Same version, claimed for extraction by a worker whose lease ran out
    /// (it died, and its job did not come back): extract it again.
    Stalled { generation: i64 },
    /// Same version, still queued by a sync run that never finished cleanly
    /// (killed, or failed on the broker): its extract job may never have
    /// been published, so publish it (a second copy is a no-op).
    Unpublished { generation: i64 },
    /// Same version, failed only because reading it from the source gave
    /// up on transient errors (the source or the broker was unreachable):
    /// read it again, as a new generation.
    Unread { generation: i64 },
    /// Same version, indexed or failed: nothing to do.
    Unchanged,
}

/// What the embedder learned about a finished generation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Completion {
    /// Points counted in the vector store for this generation.
    pub chunks_stored: i64,
    pub model: String,
    pub dims: i64,
    pub pipeline_version: String,
}

/// What the extractor learned about a document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Extracted {
    pub kind: Kind,
    pub title: String,
    pub content_hash: String,
    pub chunks: i64,
    pub batches: i64,
    pub extractor_version: String,
    /// See [`ragpipe_core::DocState::warning`].
    pub warning: Option<String>,
}

/// Sizes of one stored embed batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct BatchStats {
    pub chunks: i64,
    pub tokens: i64,
    pub header_tokens: i64,
    pub truncated: i64,
}

/// Totals per status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct StatusCount {
    pub documents: i64,
    pub chunks: i64,
    pub truncated: i64,
    pub tokens: i64,
    pub header_tokens: i64,
}

/// Totals of every status, as the state store counts them in one query:
/// what `ragpipe status`, `GET /api/status`, progress bars and reports read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StatusCounts(Vec<(DocStatus, StatusCount)>);

impl StatusCounts {
    pub fn new(counts: Vec<(DocStatus, StatusCount)>) -> Self {
        StatusCounts(counts)
    }

    /// The totals of one status (zero when no document has it).
    pub fn get(&self, status: DocStatus) -> StatusCount {
        self.0.iter().find(|(s, _)| *s == status).map(|(_, c)| *c).unwrap_or_default()
    }

    /// Documents with this status.
    pub fn documents(&self, status: DocStatus) -> i64 {
        self.get(status).documents
    }

    /// Documents still on their way (queued, extracting, embedding).
    pub fn pending(&self) -> i64 {
        self.0.iter().filter(|(s, _)| s.is_pending()).map(|(_, c)| c.documents).sum()
    }

    /// Documents finished either way (indexed or failed).
    pub fn done(&self) -> i64 {
        self.documents(DocStatus::Indexed) + self.documents(DocStatus::Failed)
    }

    /// Documents of every status.
    pub fn total(&self) -> i64 {
        self.0.iter().map(|(_, c)| c.documents).sum()
    }

    /// Every status with its document count, zeros included, in
    /// [`DocStatus::ALL`] order.
    pub fn by_status(&self) -> Vec<(DocStatus, i64)> {
        DocStatus::ALL.iter().map(|s| (*s, self.documents(*s))).collect()
    }
}

/// Per-document state. Every transition is conditional on the generation it
/// is about and returns whether it applied; `false` means the message was
/// stale or duplicated and must be acked without further effect.
#[async_trait]
pub trait StateStore: Send + Sync {
    /// Records that a sync run (`run`, increasing) saw an object.
    async fn observe(&self, obj: &Observed, run: i64) -> Result<Observation, StateError>;
    /// [`StateStore::observe`] for a page of listed objects, answered in
    /// order, in a few statements per [`OBSERVE_BATCH`] whatever the
    /// page's size (what a sync of millions of objects needs).
    async fn observe_many(&self, objs: &[Observed], run: i64) -> Result<Vec<Observation>, StateError>;
    /// Marks documents the sync run `run` did not see as deleted; returns them.
    async fn mark_missing(&self, run: i64) -> Result<Vec<DocumentId>, StateError>;
    /// Claims a generation for extraction (counts an attempt).
    async fn begin_extract(&self, id: &DocumentId, generation: i64) -> Result<bool, StateError>;
    /// Records extraction results; the document now waits for its batches.
    async fn set_extracted(&self, id: &DocumentId, generation: i64, ex: &Extracted) -> Result<bool, StateError>;
    /// Records one stored batch (idempotent); returns batches stored so far.
    async fn record_batch(
        &self,
        id: &DocumentId,
        generation: i64,
        batch: u32,
        stats: BatchStats,
    ) -> Result<i64, StateError>;
    /// Marks a generation indexed with the count read back from the vector store.
    async fn complete(&self, id: &DocumentId, generation: i64, c: &Completion) -> Result<bool, StateError>;
    /// Marks a generation failed with a human-readable reason.
    async fn fail(&self, id: &DocumentId, generation: i64, stage: Stage, reason: &str) -> Result<bool, StateError>;
    /// One document.
    async fn get(&self, id: &DocumentId) -> Result<Option<DocState>, StateError>;
    /// Up to `limit` documents the query selects, from `cursor` on, in URI
    /// order (see [`query`](crate::Cursor)).
    async fn page(&self, query: &DocQuery, cursor: &Cursor, limit: usize) -> Result<Page, StateError>;
    /// How many documents the query selects.
    async fn count(&self, query: &DocQuery) -> Result<i64, StateError>;
    /// The failed documents the query selects, grouped by reason and stage,
    /// largest group first; at most `limit` groups.
    async fn failure_groups(&self, query: &DocQuery, limit: usize) -> Result<Vec<FailureGroup>, StateError>;
    /// Totals per status.
    async fn counts(&self) -> Result<StatusCounts, StateError>;
    /// Queues a document that is in status `from` again as a new generation
    /// with its attempts reset; `None` when it is not (so doing it twice
    /// queues once).
    async fn requeue(&self, id: &DocumentId, from: DocStatus) -> Result<Option<Retried>, StateError>;
    /// [`StateStore::requeue`] for many documents at once (in batches of
    /// [`REQUEUE_BATCH`] per statement); returns those requeued, in URI order.
    async fn requeue_many(&self, ids: &[DocumentId], from: DocStatus) -> Result<Vec<Retried>, StateError>;
    /// Queues a failed document again (see [`StateStore::requeue`]).
    async fn retry(&self, id: &DocumentId) -> Result<Option<Retried>, StateError> {
        self.requeue(id, DocStatus::Failed).await
    }
    /// The index registry, oldest first.
    async fn indexes(&self) -> Result<Vec<IndexRecord>, StateError>;
    /// Records `index` as live unless an index already is; returns whether
    /// it was recorded.
    async fn adopt_index(&self, index: &NewIndex) -> Result<bool, StateError>;
    /// Starts building `index` and, in the same transaction, queues every
    /// document still in the source as a new generation for it. `false`
    /// (nothing changed) when another build is in progress.
    async fn begin_build(&self, index: &NewIndex) -> Result<bool, StateError>;
    /// Records that the extract jobs of a build's documents were published.
    async fn build_published(&self, name: &str) -> Result<(), StateError>;
    /// Documents waiting in `queued`, ordered by URI (what a build publishes).
    async fn queued(&self) -> Result<Vec<Retried>, StateError>;
    /// Documents queued, extracting or embedding.
    async fn pending(&self) -> Result<i64, StateError>;
    /// Makes the building index `name` live and retires the live one, in one
    /// transaction, if no document is pending; `false` otherwise.
    async fn swap_index(&self, name: &str) -> Result<bool, StateError>;
    /// Forgets a retired (or abandoned building) index; never the live one.
    async fn forget_index(&self, name: &str) -> Result<(), StateError>;
    /// Records `seal` (the model's, opaque here) on index `name` unless it
    /// has one; returns the seal it records now (`None`: no such index).
    async fn seal_index(&self, name: &str, seal: &str) -> Result<Option<String>, StateError>;
    /// Starts sync run `run` if no other run holds the sync lock; the lock is
    /// held for `lease` and must be renewed by a run that lasts longer.
    /// `Err(run)` names the live run that holds it.
    async fn begin_sync(
        &self,
        run: i64,
        source: &str,
        holder: &str,
        lease: Duration,
    ) -> Result<Result<(), SyncRun>, StateError>;
    /// Extends the lock of a running sync; `false` when the run lost it
    /// (its lease ran out and another run took it): the run must stop.
    async fn renew_sync(&self, run: i64, lease: Duration) -> Result<bool, StateError>;
    /// Records how a run ended (its report as JSON, or its error) and
    /// releases the lock.
    async fn finish_sync(&self, run: i64, outcome: Result<&str, &str>) -> Result<(), StateError>;
    /// The latest sync runs, newest first.
    async fn sync_runs(&self, limit: i64) -> Result<Vec<SyncRun>, StateError>;
}

/// One recorded sync run.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct SyncRun {
    pub run: i64,
    pub source: String,
    /// Who ran it (host and process id).
    pub holder: String,
    /// Milliseconds since the epoch.
    pub started_at: i64,
    pub finished_at: Option<i64>,
    /// The run's counts, as JSON.
    pub report: Option<String>,
    pub error: Option<String>,
    pub state: SyncRunState,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SyncRunState {
    Running,
    Finished,
    Failed,
    /// Never finished, and its lock is gone: its process died.
    Abandoned,
}

/// What an index is sealed to, as a build or first use records it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewIndex {
    /// The vector collection.
    pub name: String,
    pub model: String,
    pub dims: i64,
    pub pipeline_version: String,
    /// Keep the old collection after the swap instead of dropping it.
    pub keep_old: bool,
}

/// One row of the index registry.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct IndexRecord {
    pub name: String,
    pub model: String,
    pub dims: i64,
    pub pipeline_version: String,
    pub state: IndexState,
    pub keep_old: bool,
    /// Documents queued into it when its build started.
    pub documents: i64,
    /// Its build's extract jobs were all published.
    pub published: bool,
    /// Milliseconds since the epoch.
    pub created_at: i64,
    pub swapped_at: Option<i64>,
    /// The seal of the model that embedded into it (JSON), once one has.
    pub seal: Option<String>,
}

impl IndexRecord {
    /// What the index is sealed to: its vectors and a query's must come from
    /// this model, with these dimensions and chunking rules.
    pub fn spec(&self) -> ragpipe_core::CollectionSpec {
        ragpipe_core::CollectionSpec {
            model: self.model.clone(),
            dims: self.dims as usize,
            pipeline_version: self.pipeline_version.clone(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum IndexState {
    /// What searches read.
    Live,
    /// Being filled by a reindex; becomes live when complete.
    Building,
    /// Replaced by a newer build and kept on request.
    Retired,
}

impl IndexState {
    pub fn as_str(self) -> &'static str {
        match self {
            IndexState::Live => "live",
            IndexState::Building => "building",
            IndexState::Retired => "retired",
        }
    }

    pub fn parse(s: &str) -> Option<IndexState> {
        [IndexState::Live, IndexState::Building, IndexState::Retired].into_iter().find(|st| st.as_str() == s)
    }
}

/// A failed document queued again: what its extract job needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Retried {
    pub id: DocumentId,
    pub uri: String,
    pub key: String,
    pub generation: i64,
}

impl Retried {
    /// The extract job that processes this generation.
    pub fn job(&self) -> ragpipe_core::Job {
        ragpipe_core::Job::Extract(ragpipe_core::ExtractJob {
            schema_version: ragpipe_core::SCHEMA_VERSION,
            document_id: self.id.clone(),
            uri: self.uri.clone(),
            key: self.key.clone(),
            generation: self.generation,
        })
    }
}
