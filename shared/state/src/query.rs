//! Which documents a caller wants, and which page of them: the one selection
//! behind the admin listings, the failure summary, retries by filter and
//! the reindex's requeue of stale documents.
//!
//! Pages are keyset pages in URI order: a cursor is the URI a page starts
//! or ends at (a document's URI is unique: its id is the URI's hash), so the
//! ten-thousandth page of a million rows costs what the first one costs,
//! and rows added or retried between two pages never shift a page.

use ragpipe_core::{DocState, DocStatus, Kind, Stage};

/// A selection of documents; every field narrows it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DocQuery {
    pub status: Option<DocStatus>,
    /// The failure reason contains this text (ASCII letters case-insensitive).
    pub reason: Option<String>,
    pub kind: Option<KindMatch>,
    /// Only indexed documents sealed otherwise than this.
    pub stale_against: Option<Seal>,
    /// Only documents whose last extraction left a warning.
    pub warned: bool,
}

/// Documents of a kind: detected as it, or (not detected yet, e.g. failed
/// while being fetched) named with one of its extensions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KindMatch {
    pub kind: Kind,
    /// Lowercase extensions without the dot (`pdf`, `htm`).
    pub extensions: Vec<String>,
}

/// What an indexed document is compared with to be stale (see
/// [`DocState::is_stale`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Seal {
    pub model: String,
    pub pipeline_version: String,
    pub extractor_version: String,
}

impl Seal {
    pub fn is_stale(&self, doc: &DocState) -> bool {
        doc.is_stale(&self.model, &self.pipeline_version, &self.extractor_version)
    }
}

/// Where a page starts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Cursor {
    /// The first page.
    #[default]
    Start,
    /// The page of documents whose URIs follow this one.
    After(String),
    /// The page of documents whose URIs come just before this one.
    Before(String),
}

/// One page of documents, in URI order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Page {
    pub documents: Vec<DocState>,
    /// More documents match beyond this page in the direction it was read
    /// (after it for [`Cursor::Start`] and [`Cursor::After`], before it for
    /// [`Cursor::Before`]).
    pub more: bool,
}

/// Failed documents sharing one reason and stage.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FailureGroup {
    pub reason: String,
    pub stage: Option<Stage>,
    pub count: i64,
}

/// Every document a query selects, read a page of 1,000 at a time: for
/// tests and checks over small stores (the admin tools page instead).
pub async fn every(store: &dyn crate::StateStore, query: &DocQuery) -> Result<Vec<DocState>, crate::StateError> {
    let (mut all, mut cursor) = (Vec::new(), Cursor::Start);
    loop {
        let page = store.page(query, &cursor, 1000).await?;
        let more = page.more;
        all.extend(page.documents);
        match all.last() {
            Some(last) if more => cursor = Cursor::After(last.uri.clone()),
            _ => return Ok(all),
        }
    }
}
