//! Which documents an admin is looking at: one filter shared by
//! `ragpipe documents`, `ragpipe retry` and the HTTP API, so the CLI and the
//! web page always agree on what "failed with reason X" selects.

use ragpipe_core::{DocState, DocStatus, Kind};
use ragpipe_state::{DocQuery, FailureGroup, KindMatch, Seal};
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
        self.seal().is_stale(doc)
    }

    pub fn seal(&self) -> Seal {
        Seal {
            model: self.model.clone(),
            pipeline_version: self.pipeline_version.clone(),
            extractor_version: self.extractor_version.clone(),
        }
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
    /// Only documents whose last extraction left a warning (OCR pages read
    /// with low confidence).
    #[serde(default)]
    pub warned: bool,
}

impl Filter {
    /// The state store's query for this filter; stale is against `current`.
    pub fn query(&self, current: &Current) -> DocQuery {
        DocQuery {
            status: self.status,
            reason: self.reason.clone(),
            kind: self.kind.map(|kind| KindMatch {
                kind,
                extensions: ragpipe_extract::extensions_of(kind).into_iter().map(String::from).collect(),
            }),
            stale_against: self.stale.then(|| current.seal()),
            warned: self.warned,
        }
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
    /// What went partly wrong in a document indexed anyway.
    pub warning: Option<String>,
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
            warning: doc.warning.clone(),
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
    pub count: i64,
}

impl From<FailureGroup> for ReasonGroup {
    fn from(g: FailureGroup) -> Self {
        ReasonGroup { reason: g.reason, stage: g.stage.map(|s| s.as_str()), count: g.count }
    }
}

/// One page of a selection, with the cursors of its neighbours: pass
/// `after=next` for the following page and `before=previous` for the one
/// before (each is the URI the page ends or starts at; `None` at an end).
#[derive(Debug, Clone, Serialize)]
pub struct DocumentsPage {
    pub documents: Vec<DocumentView>,
    pub next: Option<String>,
    pub previous: Option<String>,
}
