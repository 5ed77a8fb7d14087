//! Admin controls over the index: see every document with its status and
//! failure reason, retry failures, check health. One set of functions serves
//! the CLI (`ragpipe documents`, `ragpipe retry`) and `ragpipe serve admin`
//! (an HTTP API, its OpenAPI description and a small web page), in both the
//! embedded and the distributed mode: only the adapters behind [`Admin`]
//! differ.

mod documents;
mod http;
mod probes;
mod retry;

pub use documents::{Current, DocumentView, Filter, ReasonGroup, group_failures};
pub use http::{bind, router, serve};
pub use probes::serve_probes;
pub use retry::{Queued, RetryReport, retry};

use async_trait::async_trait;
use ragpipe_core::{DocState, DocumentId};
use ragpipe_queue::{Queue, QueueError};
use ragpipe_state::{StateError, StateStore};
use ragpipe_vectors::ChunkPayload;
use std::sync::Arc;

#[derive(Debug, thiserror::Error)]
pub enum AdminError {
    #[error(transparent)]
    State(#[from] StateError),
    #[error(transparent)]
    Queue(#[from] QueueError),
    #[error("reading chunks: {0}")]
    Chunks(String),
    #[error("no document {0}")]
    NotFound(String),
    #[error("{0}")]
    BadRequest(String),
}

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
    pub current: Current,
    /// Bearer token required on `/api/*`; `None` = no auth (loopback only).
    pub token: Option<String>,
}

impl Admin {
    /// Documents the filter selects, ordered by source.
    pub async fn select(&self, filter: &Filter) -> Result<Vec<DocState>, AdminError> {
        select(self.state.as_ref(), filter, &self.current).await
    }

    /// Documents the filter selects, as the admin tools show them.
    pub async fn documents(&self, filter: &Filter) -> Result<Vec<DocumentView>, AdminError> {
        Ok(self.select(filter).await?.iter().map(|d| DocumentView::new(d, &self.current)).collect())
    }

    /// Retries documents by id, or every failed document a filter selects.
    pub async fn retry(&self, ids: &[DocumentId]) -> Result<RetryReport, AdminError> {
        retry(self.state.as_ref(), self.queue.as_deref(), ids).await
    }
}

/// Documents the filter selects, ordered by source.
pub async fn select(state: &dyn StateStore, filter: &Filter, current: &Current) -> Result<Vec<DocState>, AdminError> {
    let docs = state.list(filter.status).await?;
    Ok(docs.into_iter().filter(|d| filter.matches(d, current)).collect())
}
