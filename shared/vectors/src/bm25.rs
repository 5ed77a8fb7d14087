//! BM25-style sparse vectors. Documents get BM25 term-frequency weights,
//! queries get one weight per distinct term, and the store multiplies in IDF
//! at query time, so scores follow the corpus as it changes. Term ids are
//! murmur3 hashes compatible with Qdrant's server-side BM25.

use qdrant_edge::bm25_embed::{EdgeBm25, EdgeBm25Config};

/// A sparse vector: sorted unique term ids and their weights.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SparseVec {
    pub indices: Vec<u32>,
    pub values: Vec<f32>,
}

impl SparseVec {
    pub fn is_empty(&self) -> bool {
        self.indices.is_empty()
    }
}

/// English BM25 with stop words and Snowball stemming.
pub struct Bm25 {
    inner: EdgeBm25,
}

impl Default for Bm25 {
    fn default() -> Self {
        Self::new()
    }
}

impl Bm25 {
    pub fn new() -> Self {
        let inner = EdgeBm25::new(EdgeBm25Config::default()).expect("the default BM25 config is valid");
        Bm25 { inner }
    }

    /// The text's terms, with each date, identifier and grouped number once
    /// more as one normalised term ([`crate::keys`]).
    pub fn document(&self, text: &str) -> SparseVec {
        convert(self.inner.embed_document(&with_keys(text, false)))
    }

    pub fn query(&self, text: &str) -> SparseVec {
        convert(self.inner.embed_query(&with_keys(text, true)))
    }

    /// The query's key terms alone (dates, identifiers, grouped numbers),
    /// or `None` when it names none.
    pub fn keys_query(&self, text: &str) -> Option<SparseVec> {
        let keys = crate::keys::key_terms(text, true);
        (!keys.is_empty()).then(|| convert(self.inner.embed_query(&keys.join(" "))))
    }
}

fn with_keys(text: &str, query: bool) -> std::borrow::Cow<'_, str> {
    let keys = crate::keys::key_terms(text, query);
    if keys.is_empty() {
        return text.into();
    }
    format!("{text}\n{}", keys.join(" ")).into()
}

fn convert(v: qdrant_edge::SparseVector) -> SparseVec {
    SparseVec { indices: v.indices, values: v.values }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stems_and_drops_stop_words() {
        let bm25 = Bm25::new();
        let doc = bm25.document("The queues are acknowledging messages");
        let query = bm25.query("acknowledged queue");
        assert_eq!(query.indices.len(), 2);
        assert!(query.indices.iter().all(|i| doc.indices.contains(i)), "stemmed terms match");
        assert!(bm25.query("the and of").is_empty());
    }

    #[test]
    fn a_key_written_another_way_matches() {
        let bm25 = Bm25::new();
        let row = bm25.document("2012/01/01 | 0.0 | 12.8 | 5.0 | 4.7 | drizzle");
        let other = bm25.document("2012/01/02 | 10.9 | 10.6 | 2.8 | 4.5 | rain");
        let query = bm25.query("weather in Seattle on January 1st, 2012");
        let shared = |d: &SparseVec| query.indices.iter().filter(|i| d.indices.contains(i)).count();
        assert!(shared(&row) > shared(&other), "the date's term is the row's alone");
    }
}
