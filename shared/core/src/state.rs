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

/// How a failure reason begins when a job's transient errors (the source or
/// the broker unreachable) outlasted its attempts at the fetch stage: not a
/// verdict on the document, so the next sync reads it again.
pub const GAVE_UP: &str = "gave up after";

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
    /// What went partly wrong in a document indexed anyway (OCR pages read
    /// with low confidence), from its last extraction.
    pub warning: Option<String>,
    pub created_at: i64,
    pub updated_at: i64,
}

impl DocState {
    /// A document indexed with another model, pipeline or extractor version
    /// than the current ones: `ragpipe reindex --stale-only` reprocesses it.
    /// `extractor_version` may name a speech model after a `+`
    /// (`2+whisper-base/fp32`) and an OCR model (`+ocr:pp-ocrv6-small/1600`),
    /// see [`extractor_versions`]: a document is current with the plain
    /// version or the plain version plus one of those.
    pub fn is_stale(&self, model: &str, pipeline_version: &str, extractor_version: &str) -> bool {
        let current = extractor_versions(extractor_version);
        self.status == DocStatus::Indexed
            && (self.model.as_deref() != Some(model)
                || self.pipeline_version.as_deref() != Some(pipeline_version)
                || self.extractor_version.as_deref().is_some_and(|v| !current.iter().any(|c| c == v)))
    }
}

/// The versions a current document may carry, from the current version
/// `2+whisper-base/fp32+ocr:pp-ocrv6-small/1600`: `2` (no model made its
/// text), `2+whisper-base/fp32` (its transcript came from that model) and
/// `2+ocr:pp-ocrv6-small/1600` (OCR read it). A document read by another
/// model or variant, or by one that is now off, carries none and so is stale.
pub fn extractor_versions(current: &str) -> Vec<String> {
    let mut parts = current.split('+');
    let plain = parts.next().unwrap_or(current);
    std::iter::once(plain.to_string()).chain(parts.map(|label| format!("{plain}+{label}"))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn indexed(extractor_version: &str) -> DocState {
        DocState {
            id: crate::DocumentId::from_raw("d"),
            uri: "file:///talk.mp3".into(),
            etag: "e".into(),
            content_hash: None,
            size: 1,
            kind: None,
            status: DocStatus::Indexed,
            failure_reason: None,
            failure_stage: None,
            attempts: 1,
            generation: 1,
            chunks_expected: Some(1),
            batches_expected: Some(1),
            chunks_stored: Some(1),
            truncated: 0,
            model: Some("m".into()),
            dims: Some(384),
            pipeline_version: Some("1".into()),
            extractor_version: Some(extractor_version.into()),
            title: None,
            warning: None,
            created_at: 0,
            updated_at: 0,
        }
    }

    #[test]
    fn a_transcript_is_stale_when_its_speech_model_changes() {
        let current = "2+whisper-base/fp32";
        assert!(!indexed("2").is_stale("m", "1", current), "a document that was not transcribed");
        assert!(!indexed("2+whisper-base/fp32").is_stale("m", "1", current));
        assert!(indexed("2+whisper-base/int8").is_stale("m", "1", current), "another variant");
        assert!(indexed("2+whisper-tiny.en/fp32").is_stale("m", "1", current), "another model");
        assert!(indexed("2+whisper-base/fp32").is_stale("m", "1", "2"), "recognition now off");
        assert!(indexed("1").is_stale("m", "1", current), "an older extractor");
        let both = "2+whisper-base/fp32+ocr:pp-ocrv6-small/1600";
        assert!(!indexed("2+ocr:pp-ocrv6-small/1600").is_stale("m", "1", both), "read by the current OCR model");
        assert!(!indexed("2+whisper-base/fp32").is_stale("m", "1", both));
        assert!(indexed("2+ocr:pp-ocrv6-small/960").is_stale("m", "1", both), "another detection size");
        assert!(indexed("2+ocr:pp-ocrv6-small/1600").is_stale("m", "1", current), "OCR now off");
    }
}
