//! Queue messages. Every message is JSON carrying `schema_version`; the JSON
//! Schemas in `schemas/` describe them for non-Rust producers and consumers.

use crate::{DocumentId, Kind, Locator};
use serde::{Deserialize, Serialize};

/// Bumped on any incompatible change to a message shape.
pub const SCHEMA_VERSION: u32 = 1;

/// Extract one document of one generation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExtractJob {
    pub schema_version: u32,
    pub document_id: DocumentId,
    pub uri: String,
    /// Key of the object in its source.
    pub key: String,
    pub generation: i64,
}

/// One numbered batch of a document's chunks, ready to embed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EmbedJob {
    pub schema_version: u32,
    pub document_id: DocumentId,
    pub uri: String,
    pub title: String,
    pub kind: Kind,
    pub generation: i64,
    pub batch_index: u32,
    pub batch_count: u32,
    pub chunk_count: u32,
    pub extractor_version: String,
    pub chunks: Vec<ChunkMessage>,
}

/// A chunk as it travels to the embedder.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChunkMessage {
    pub index: u32,
    pub text: String,
    pub content: String,
    pub section: Vec<String>,
    pub locator: Locator,
    pub tokens: u32,
    pub header_tokens: u32,
}

/// Remove every point of a document that disappeared from its source.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeleteJob {
    pub schema_version: u32,
    pub document_id: DocumentId,
}

/// Everything that travels on a queue, tagged by `type`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Job {
    Extract(ExtractJob),
    Embed(EmbedJob),
    Delete(DeleteJob),
}

impl Job {
    pub fn to_bytes(&self) -> Vec<u8> {
        serde_json::to_vec(self).expect("jobs always serialise")
    }

    /// Parses a message, refusing other schema versions so an old worker never
    /// misreads a new message.
    pub fn from_bytes(bytes: &[u8]) -> Result<Job, String> {
        let job: Job = serde_json::from_slice(bytes).map_err(|e| format!("malformed job: {e}"))?;
        let version = match &job {
            Job::Extract(j) => j.schema_version,
            Job::Embed(j) => j.schema_version,
            Job::Delete(j) => j.schema_version,
        };
        if version != SCHEMA_VERSION {
            return Err(format!("unsupported schema_version {version} (expected {SCHEMA_VERSION})"));
        }
        Ok(job)
    }
}
