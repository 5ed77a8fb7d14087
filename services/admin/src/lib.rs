//! Admin controls over the index: see every document with its status and
//! failure reason, retry failures, check health. One set of functions serves
//! the CLI (`ragpipe documents`, `ragpipe retry`) and `ragpipe serve admin`
//! (an HTTP API, its OpenAPI description and a small web page), in both the
//! embedded and the distributed mode: only the adapters behind [`Admin`]
//! differ. [`reindex`] rebuilds the index into a new collection and swaps
//! it in atomically.

mod documents;
mod http;
mod params;
pub mod reindex;
mod retry;
mod status;

pub use documents::{Current, DocumentView, DocumentsPage, Filter, ReasonGroup};
pub use http::{MAX_BODY_BYTES, bind, router, serve};
pub use params::MAX_REASON_BYTES;
pub use retry::{Queued, RetryReport, retry, retry_matching};
pub use status::{Entry, MAX_LISTED, Status, status};

use async_trait::async_trait;
use ragpipe_core::DocumentId;
use ragpipe_queue::{Queue, QueueError};
use ragpipe_state::{Cursor, IndexState, StateError, StateStore};
use ragpipe_vectors::ChunkPayload;
use std::sync::Arc;

#[derive(Debug, thiserror::Error)]
pub enum AdminError {
    #[error(transparent)]
    State(#[from] StateError),
    #[error(transparent)]
    Queue(#[from] QueueError),
    #[error(transparent)]
    Vectors(#[from] ragpipe_vectors::VectorError),
    #[error("no document {0}")]
    NotFound(String),
    #[error("{0}")]
    BadRequest(String),
    /// A request parameter that is not one of the values it can take; the
    /// HTTP API answers 400 with `parameter` named, so a client can fix it.
    #[error("invalid {parameter}: {problem}")]
    Invalid { parameter: String, problem: String },
    #[error("request body over {0} bytes")]
    BodyTooLarge(usize),
}

/// Documents a page shows unless asked for fewer or more.
pub const DEFAULT_PAGE: usize = 100;
/// Most documents one page shows.
pub const MAX_PAGE: usize = 1000;
/// Most failure groups a summary shows (largest first).
pub const MAX_GROUPS: usize = 100;

/// Where a document's stored chunks are read from. The embedded store has
/// one owner at a time, so the embedded mode opens it per request rather
/// than holding it while `ragpipe ingest` needs it.
#[async_trait]
pub trait ChunkReader: Send + Sync {
    async fn chunks(&self, id: &DocumentId) -> Result<Vec<ChunkPayload>, String>;
}

/// What the admin functions work on.
#[derive(Clone)]
pub struct Admin {
    pub state: Arc<dyn StateStore>,
    /// Where retried documents' extract jobs go; `None` in the embedded mode.
    pub queue: Option<Arc<dyn Queue>>,
    pub chunks: Arc<dyn ChunkReader>,
    /// The configured seal and this build's extractor version: what
    /// "stale" is against before the registry records an index.
    pub current: Current,
    /// Bearer token required on `/api/*`; `None` = no auth (loopback only).
    pub token: Option<String>,
}

impl Admin {
    /// What documents are compared with to be stale: the seal of the index
    /// being written (the building one during a reindex), else the
    /// configured one (`current`).
    pub async fn current(&self) -> Result<Current, AdminError> {
        current(self.state.as_ref(), &self.current).await
    }

    /// One page of the documents the filter selects, in source order.
    pub async fn page(&self, filter: &Filter, cursor: &Cursor, limit: usize) -> Result<DocumentsPage, AdminError> {
        page(self.state.as_ref(), filter, &self.current().await?, cursor, limit).await
    }

    /// The failed documents the filter selects, grouped by reason.
    pub async fn failures(&self, filter: &Filter) -> Result<Vec<ReasonGroup>, AdminError> {
        failures(self.state.as_ref(), filter, &self.current().await?).await
    }

    /// Retries documents by id, or every failed document a filter selects.
    pub async fn retry(&self, ids: &[DocumentId]) -> Result<RetryReport, AdminError> {
        retry(self.state.as_ref(), self.queue.as_deref(), ids).await
    }

    /// Retries every failed document the filter selects.
    pub async fn retry_matching(&self, filter: &Filter) -> Result<RetryReport, AdminError> {
        retry_matching(self.state.as_ref(), self.queue.as_deref(), filter, &self.current().await?).await
    }
}

/// The seal of the index being written (the building one during a
/// reindex, else the live one) with this build's extractor version; the
/// `configured` one while the registry has no index.
pub async fn current(state: &dyn StateStore, configured: &Current) -> Result<Current, AdminError> {
    let indexes = state.indexes().await?;
    let write = [IndexState::Building, IndexState::Live].iter().find_map(|st| indexes.iter().find(|i| i.state == *st));
    Ok(match write {
        Some(i) => Current {
            model: i.model.clone(),
            pipeline_version: i.pipeline_version.clone(),
            extractor_version: configured.extractor_version.clone(),
        },
        None => configured.clone(),
    })
}

/// One page of the documents the filter selects, in source order, with
/// the cursors of the pages beside it.
pub async fn page(
    state: &dyn StateStore,
    filter: &Filter,
    current: &Current,
    cursor: &Cursor,
    limit: usize,
) -> Result<DocumentsPage, AdminError> {
    let page = state.page(&filter.query(current), cursor, limit.clamp(1, MAX_PAGE)).await?;
    let first = page.documents.first().map(|d| d.uri.clone());
    let last = page.documents.last().map(|d| d.uri.clone());
    let (next, previous) = match cursor {
        Cursor::Start => (last.filter(|_| page.more), None),
        Cursor::After(_) => (last.filter(|_| page.more), first),
        Cursor::Before(_) => (last, first.filter(|_| page.more)),
    };
    let documents = page.documents.iter().map(|d| DocumentView::new(d, current)).collect();
    Ok(DocumentsPage { documents, next, previous })
}

/// The failed documents the filter selects, grouped by reason and stage,
/// the [`MAX_GROUPS`] largest groups.
pub async fn failures(
    state: &dyn StateStore,
    filter: &Filter,
    current: &Current,
) -> Result<Vec<ReasonGroup>, AdminError> {
    let groups = state.failure_groups(&filter.query(current), MAX_GROUPS).await?;
    Ok(groups.into_iter().map(ReasonGroup::from).collect())
}
