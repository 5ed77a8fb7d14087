//! The `VectorStore` port: chunk points with a dense vector (cosine), a
//! BM25-style sparse vector (IDF applied by the store at query time) and the
//! chunk's payload. Point ids are deterministic, so re-storing a batch
//! overwrites it; counts are read back from the store, never trusted from a
//! client. Hybrid retrieval (dense + sparse fused by reciprocal rank) lives in
//! [`retrieval`] and works over any adapter. Every adapter passes the suite in
//! [`conformance`].

pub mod bm25;
mod collections;
#[cfg(feature = "testsuite")]
pub mod conformance;
mod edge;
mod folding;
pub mod keys;
pub mod language;
pub mod pairs;
mod payload;
mod qdrant;
mod quarters;
pub mod retrieval;
pub mod windows;

pub use bm25::{Bm25, SparseVec};
pub use collections::{Collections, EdgeCollections, QdrantCollections};
pub use edge::EdgeStore;
pub use payload::ChunkPayload;
pub use qdrant::QdrantStore;
pub use ragpipe_core::CollectionSpec;

use async_trait::async_trait;
use ragpipe_core::DocumentId;

#[derive(Debug, thiserror::Error)]
pub enum VectorError {
    #[error("vector store: {0}")]
    Store(String),
    #[error("vector store holds a malformed point {id}: {reason}")]
    Malformed { id: String, reason: String },
}

/// One chunk as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct Point {
    pub id: uuid::Uuid,
    pub dense: Vec<f32>,
    pub sparse: SparseVec,
    pub payload: ChunkPayload,
}

/// Narrows a search to chunks of some kinds or some documents; an empty
/// list does not narrow. The store filters while it searches (payload
/// indexes on both fields), so a narrow filter still fills `limit`.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SearchFilter {
    /// Document kinds (`pdf`, `markdown`, `spreadsheet`…): any of them.
    #[serde(default)]
    pub kinds: Vec<String>,
    /// Documents by source URI: any of them.
    #[serde(default)]
    pub documents: Vec<String>,
}

impl SearchFilter {
    pub fn is_empty(&self) -> bool {
        self.kinds.is_empty() && self.documents.is_empty()
    }
}

/// Payload fields a [`SearchFilter`] matches on, indexed as keywords.
pub(crate) const FILTERED_FIELDS: [&str; 2] = ["kind", "document"];

/// A search result from one retriever.
#[derive(Debug, Clone, PartialEq)]
pub struct Scored {
    pub id: uuid::Uuid,
    /// Cosine similarity for dense search; BM25 score for sparse search.
    pub score: f32,
    pub payload: ChunkPayload,
}

#[async_trait]
pub trait VectorStore: Send + Sync {
    /// Stores points durably; when this returns they are counted and searchable.
    async fn upsert(&self, points: Vec<Point>) -> Result<(), VectorError>;
    /// Exact number of points of a document, of one generation or of all.
    async fn count(&self, doc: &DocumentId, generation: Option<i64>) -> Result<u64, VectorError>;
    /// Deletes a document's points, except those of `keep_generation`.
    async fn delete_document(&self, doc: &DocumentId, keep_generation: Option<i64>) -> Result<(), VectorError>;
    /// Nearest neighbours by cosine similarity.
    async fn search_dense(&self, vector: &[f32], limit: usize) -> Result<Vec<Scored>, VectorError> {
        self.search_dense_in(vector, limit, &SearchFilter::default()).await
    }
    /// Nearest neighbours among the chunks the filter selects.
    async fn search_dense_in(
        &self,
        vector: &[f32],
        limit: usize,
        filter: &SearchFilter,
    ) -> Result<Vec<Scored>, VectorError>;
    /// Best BM25 matches of a query's sparse vector.
    async fn search_sparse(&self, query: &SparseVec, limit: usize) -> Result<Vec<Scored>, VectorError> {
        self.search_sparse_in(query, limit, &SearchFilter::default()).await
    }
    /// Best BM25 matches among the chunks the filter selects.
    async fn search_sparse_in(
        &self,
        query: &SparseVec,
        limit: usize,
        filter: &SearchFilter,
    ) -> Result<Vec<Scored>, VectorError>;
    /// Dense vectors of some points (missing ids are omitted).
    async fn dense_vectors(&self, ids: &[uuid::Uuid]) -> Result<Vec<(uuid::Uuid, Vec<f32>)>, VectorError>;
    /// Every chunk of a document (or of the whole index), ordered by document
    /// and chunk index.
    async fn chunks(&self, doc: Option<&DocumentId>) -> Result<Vec<ChunkPayload>, VectorError>;
    /// Compacts and indexes after bulk writes; a no-op where the store does it itself.
    async fn optimize(&self) -> Result<(), VectorError>;
}
