//! Which documents an admin is looking at: one filter shared by
//! `ragpipe documents`, `ragpipe retry` and the HTTP API, so the CLI and the
//! web page always agree on what "failed with reason X" selects.

use ragpipe_core::{DocState, DocStatus, Kind};
use serde::{Deserialize, Serialize};

/// The model and pipeline the index being written is sealed to, and the
/// extractor version of this build; a document indexed with anything else
/// is stale.
#[derive(Debug, Clone, Serialize)]
pub struct Current {
    pub model: String,
    pub pipeline_version: String,
    pub extractor_version: String,
}

impl Current {
    pub fn is_stale(&self, doc: &DocState) -> bool {
        doc.is_stale(&self.model, &self.pipeline_version, &self.extractor_version)
    }
}

/// A selection of documents. Every field narrows it; the empty filter
/// selects every document.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Filter {
    pub status: Option<DocStatus>,
    /// Failure reason contains this text (case-insensitive).
    pub reason: Option<String>,
    pub kind: Option<Kind>,
    /// Only documents indexed with another model or pipeline version.
    #[serde(default)]
    pub stale: bool,
}

impl Filter {
    pub fn matches(&self, doc: &DocState, current: &Current) -> bool {
        let reason = |needle: &str| {
            doc.failure_reason.as_deref().is_some_and(|r| r.to_lowercase().contains(&needle.to_lowercase()))
        };
        self.status.is_none_or(|s| doc.status == s)
            && self.kind.is_none_or(|k| kind(doc) == Some(k))
            && self.reason.as_deref().is_none_or(reason)
            && (!self.stale || current.is_stale(doc))
    }

    /// True when the filter can only select failed documents: the retry
    /// selections must, so that a typo never re-queues the whole index.
    pub fn selects_failures_only(&self) -> bool {
        self.status == Some(DocStatus::Failed) || (self.status.is_none() && self.reason.is_some())
    }
}

/// The kind detected at extraction or, for a document that failed before
/// (fetch errors, unsupported or mismatched content), the one its name promises.
fn kind(doc: &DocState) -> Option<Kind> {
    doc.kind.or_else(|| ragpipe_extract::kind_for_name(&doc.uri))
}

/// One document as the admin tools show it.
#[derive(Debug, Clone, Serialize)]
pub struct DocumentView {
    pub id: String,
    pub source: String,
    pub kind: Option<&'static str>,
    pub status: &'static str,
    /// Stage the failure happened in (fetch, extract, chunk, embed, store).
    pub stage: Option<&'static str>,
    pub reason: Option<String>,
    pub attempts: i64,
    pub generation: i64,
    /// Points counted in the vector store when the document was indexed.
    pub chunks: Option<i64>,
    pub model: Option<String>,
    pub pipeline_version: Option<String>,
    pub extractor_version: Option<String>,
    pub stale: bool,
    pub title: Option<String>,
    /// Milliseconds since the Unix epoch.
    pub updated_at: i64,
}

impl DocumentView {
    pub fn new(doc: &DocState, current: &Current) -> Self {
        DocumentView {
            id: doc.id.to_string(),
            source: doc.uri.clone(),
            kind: kind(doc).map(Kind::as_str),
            status: doc.status.as_str(),
            stage: doc.failure_stage.map(|s| s.as_str()),
            reason: doc.failure_reason.clone(),
            attempts: doc.attempts,
            generation: doc.generation,
            chunks: doc.chunks_stored,
            model: doc.model.clone(),
            pipeline_version: doc.pipeline_version.clone(),
            extractor_version: doc.extractor_version.clone(),
            stale: current.is_stale(doc),
            title: doc.title.clone(),
            updated_at: doc.updated_at,
        }
    }
}

/// Failed documents grouped by reason, largest group first: what an admin
/// fixes one cause at a time.
#[derive(Debug, Clone, Serialize)]
pub struct ReasonGroup {
    pub reason: String,
    pub stage: Option<&'static str>,
    pub count: usize,
}

pub fn group_failures(docs: &[DocumentView]) -> Vec<ReasonGroup> {
    let mut groups: Vec<ReasonGroup> = Vec::new();
    for d in docs.iter().filter(|d| d.status == DocStatus::Failed.as_str()) {
        let reason = d.reason.clone().unwrap_or_default();
        match groups.iter_mut().find(|g| g.reason == reason) {
            Some(g) => g.count += 1,
            None => groups.push(ReasonGroup { reason, stage: d.stage, count: 1 }),
        }
    }
    groups.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.reason.cmp(&b.reason)));
    groups
}
