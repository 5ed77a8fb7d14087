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

impl Bm25 {
    pub fn english() -> Self {
        let inner = EdgeBm25::new(EdgeBm25Config::default()).expect("the default BM25 config is valid");
        Bm25 { inner }
    }

    pub fn document(&self, text: &str) -> SparseVec {
        convert(self.inner.embed_document(text))
    }

    pub fn query(&self, text: &str) -> SparseVec {
        convert(self.inner.embed_query(text))
    }
}

fn convert(v: qdrant_edge::SparseVector) -> SparseVec {
    SparseVec { indices: v.indices, values: v.values }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stems_and_drops_stop_words() {
        let bm25 = Bm25::english();
        let doc = bm25.document("The queues are acknowledging messages");
        let query = bm25.query("acknowledged queue");
        assert_eq!(query.indices.len(), 2);
        assert!(query.indices.iter().all(|i| doc.indices.contains(i)), "stemmed terms match");
        assert!(bm25.query("the and of").is_empty());
    }
}
