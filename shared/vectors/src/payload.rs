//! What a point carries besides its vectors: everything needed to cite the
//! chunk without going back to the source.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChunkPayload {
    pub document_id: String,
    pub generation: i64,
    pub chunk_index: u32,
    /// Source URI of the document.
    pub document: String,
    pub title: String,
    /// Heading path joined with ` > `.
    pub section: String,
    pub kind: String,
    /// Fragment locator, e.g. `#page=3&char=120,480`.
    pub locator: String,
    /// The verbatim words quoted back to users.
    pub content: String,
    /// What was embedded (header + content).
    pub text: String,
    pub tokens: u32,
    pub model: String,
    pub pipeline_version: String,
    /// The language BM25 analysed the chunk in (its index's, or, with
    /// `[lexical] language = "auto"`, the one detected in its document).
    /// Empty in points written before it was recorded.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub language: String,
}

impl ChunkPayload {
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self).expect("payload always serialises")
    }

    pub fn from_json(value: serde_json::Value) -> Result<Self, serde_json::Error> {
        serde_json::from_value(value)
    }
}
