//! Stable identifiers. Every id is derived from content that survives a
//! restart or a redelivery, so repeating an effect writes the same keys.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::fmt;

/// A document's id: a hash of its source URI, so listing the same source twice
/// (on any machine) names the same document.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct DocumentId(String);

impl DocumentId {
    /// Derives the id from the document's source URI (`file:///…`, `s3://…`).
    pub fn from_uri(uri: &str) -> Self {
        let digest = Sha256::digest(uri.as_bytes());
        Self(hex::encode(&digest[..12]))
    }

    /// Wraps an id that was already derived (read back from a store or a message).
    pub fn from_raw(raw: impl Into<String>) -> Self {
        Self(raw.into())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for DocumentId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Namespace for point ids (a fixed random UUID; changing it orphans every point).
const POINT_NAMESPACE: uuid::Uuid = uuid::Uuid::from_u128(0x6c1f_42d8_9b0e_4f7a_a3d5_2e8c_71b4_90fe);

/// The vector-store id of one chunk. Deterministic in (document, generation,
/// chunk index), so a redelivered embed job overwrites instead of duplicating.
pub fn point_id(doc: &DocumentId, generation: i64, chunk_index: u32) -> uuid::Uuid {
    let name = format!("{}/{}/{}", doc.as_str(), generation, chunk_index);
    uuid::Uuid::new_v5(&POINT_NAMESPACE, name.as_bytes())
}

/// Hex sha256 of some bytes, used as a content hash.
pub fn content_hash(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_stable_and_distinct() {
        let a = DocumentId::from_uri("file:///corpus/a.md");
        assert_eq!(a, DocumentId::from_uri("file:///corpus/a.md"));
        assert_ne!(a, DocumentId::from_uri("file:///corpus/b.md"));
        assert_eq!(a.as_str().len(), 24);
        assert_eq!(point_id(&a, 1, 0), point_id(&a, 1, 0));
        assert_ne!(point_id(&a, 1, 0), point_id(&a, 2, 0));
        assert_ne!(point_id(&a, 1, 0), point_id(&a, 1, 1));
    }
}
