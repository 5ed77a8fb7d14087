//! Per-document state: the source of truth for what is indexed, what failed
//! and why, and what is stale.

use crate::{DocumentId, Kind};
use serde::{Deserialize, Serialize};

/// Lifecycle of a document. Transitions are conditional on the current status
/// and generation, so a late or duplicated message cannot move a document back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DocStatus {
    Queued,
    Extracting,
    Embedding,
    Indexed,
    Failed,
    Deleted,
}

impl DocStatus {
    pub const ALL: [DocStatus; 6] = [
        DocStatus::Queued,
        DocStatus::Extracting,
        DocStatus::Embedding,
        DocStatus::Indexed,
        DocStatus::Failed,
        DocStatus::Deleted,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            DocStatus::Queued => "queued",
            DocStatus::Extracting => "extracting",
            DocStatus::Embedding => "embedding",
            DocStatus::Indexed => "indexed",
            DocStatus::Failed => "failed",
            DocStatus::Deleted => "deleted",
        }
    }

    pub fn parse(s: &str) -> Option<DocStatus> {
        DocStatus::ALL.into_iter().find(|st| st.as_str() == s)
    }

    /// Whether the document still has work in flight.
    pub fn is_pending(self) -> bool {
        matches!(self, DocStatus::Queued | DocStatus::Extracting | DocStatus::Embedding)
    }
}

/// The stage a failure happened in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Stage {
    Fetch,
    Extract,
    Chunk,
    Embed,
    Store,
}

impl Stage {
    pub fn as_str(self) -> &'static str {
        match self {
            Stage::Fetch => "fetch",
            Stage::Extract => "extract",
            Stage::Chunk => "chunk",
            Stage::Embed => "embed",
            Stage::Store => "store",
        }
    }

    pub fn parse(s: &str) -> Option<Stage> {
        [Stage::Fetch, Stage::Extract, Stage::Chunk, Stage::Embed, Stage::Store].into_iter().find(|st| st.as_str() == s)
    }
}

/// One row of document state, as every state store returns it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DocState {
    pub id: DocumentId,
    pub uri: String,
    /// Source-side version marker (S3 ETag, or size+mtime for a folder).
    pub etag: String,
    pub content_hash: Option<String>,
    pub size: i64,
    pub kind: Option<Kind>,
    pub status: DocStatus,
    pub failure_reason: Option<String>,
    pub failure_stage: Option<Stage>,
    pub attempts: i64,
    pub generation: i64,
    pub chunks_expected: Option<i64>,
    pub batches_expected: Option<i64>,
    /// Points counted in the vector store after the last generation completed.
    pub chunks_stored: Option<i64>,
    /// Texts the embedder had to truncate (should always be 0).
    pub truncated: i64,
    pub model: Option<String>,
    pub dims: Option<i64>,
    pub pipeline_version: Option<String>,
    pub extractor_version: Option<String>,
    pub title: Option<String>,
    pub created_at: i64,
    pub updated_at: i64,
}

impl DocState {
    /// A document indexed with another model, pipeline or extractor version
    /// than the current ones: `ragpipe reindex --stale-only` reprocesses it.
    pub fn is_stale(&self, model: &str, pipeline_version: &str, extractor_version: &str) -> bool {
        self.status == DocStatus::Indexed
            && (self.model.as_deref() != Some(model)
                || self.pipeline_version.as_deref() != Some(pipeline_version)
                || self.extractor_version.as_deref().is_some_and(|v| v != extractor_version))
    }
}
