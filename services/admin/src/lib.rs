//! Admin controls over the index: see every document with its status and
//! failure reason, retry failures, check health. One set of functions serves
//! the CLI (`ragpipe documents`, `ragpipe retry`) and `ragpipe serve admin`
//! (an HTTP API, its OpenAPI description and a small web page), in both the
//! embedded and the distributed mode: only the adapters behind [`Admin`]
//! differ. [`reindex`] rebuilds the index into a new collection and swaps
//! it in atomically.

mod auth;
mod documents;
mod http;
mod params;
pub mod reindex;
mod retry;
mod status;

pub use documents::{Current, DocumentView, Filter, ReasonGroup, group_failures};
pub use http::{MAX_BODY_BYTES, bind, router, serve};
pub use params::MAX_REASON_BYTES;
pub use retry::{Queued, RetryReport, retry};
pub use status::{Entry, MAX_LISTED, Status, status};

use async_trait::async_trait;
use ragpipe_core::{DocState, DocumentId};
use ragpipe_queue::{Queue, QueueError};
use ragpipe_state::{IndexState, StateError, StateStore};
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

    /// Documents the filter selects, ordered by source.
    pub async fn select(&self, filter: &Filter) -> Result<Vec<DocState>, AdminError> {
        select(self.state.as_ref(), filter, &self.current().await?).await
    }

    /// Documents the filter selects, as the admin tools show them.
    pub async fn documents(&self, filter: &Filter) -> Result<Vec<DocumentView>, AdminError> {
        let current = self.current().await?;
        Ok(select(self.state.as_ref(), filter, &current)
            .await?
            .iter()
            .map(|d| DocumentView::new(d, &current))
            .collect())
    }

    /// Retries documents by id, or every failed document a filter selects.
    pub async fn retry(&self, ids: &[DocumentId]) -> Result<RetryReport, AdminError> {
        retry(self.state.as_ref(), self.queue.as_deref(), ids).await
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

/// Documents the filter selects, ordered by source.
pub async fn select(state: &dyn StateStore, filter: &Filter, current: &Current) -> Result<Vec<DocState>, AdminError> {
    let docs = state.list(filter.status).await?;
    Ok(docs.into_iter().filter(|d| filter.matches(d, current)).collect())
}
