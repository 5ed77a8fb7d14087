//! Synthetic points for the conformance checks and retrieval tests: known
//! unit directions (so the expected cosine of every pair is computable) and
//! payloads that exercise every field.

use crate::{Bm25, ChunkPayload, Point};
use ragpipe_core::{DocumentId, point_id};

/// Dimensions of the synthetic vectors (those of all-MiniLM-L6-v2).
pub const DIMS: usize = 384;

/// The unit vector along a weighted sum of basis vectors.
pub fn unit(parts: &[(usize, f32)]) -> Vec<f32> {
    let mut v = vec![0.0; DIMS];
    for &(i, w) in parts {
        v[i % DIMS] += w;
    }
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    v.iter().map(|x| x / norm).collect()
}

/// A distinct unit direction per `n` (for n < 384 * 383): mostly along one
/// axis, so distinct directions are far apart and a vector's nearest
/// neighbour is itself.
pub fn direction(n: usize) -> Vec<f32> {
    unit(&[(n % DIMS, 1.0), ((n % DIMS) + 1 + n / DIMS, 0.5)])
}

pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let norm = |v: &[f32]| v.iter().map(|x| x * x).sum::<f32>().sqrt();
    dot / (norm(a) * norm(b))
}

/// A source URI for a test document, e.g. `file:///corpus/a.md` for "a".
pub fn uri(name: &str) -> String {
    format!("file:///corpus/{name}.md")
}

pub fn doc_id(name: &str) -> DocumentId {
    DocumentId::from_uri(&uri(name))
}

/// The id the pipeline gives chunk `chunk_index` of document `name`.
pub fn point_id_of(name: &str, generation: i64, chunk_index: u32) -> uuid::Uuid {
    point_id(&doc_id(name), generation, chunk_index)
}

/// The payload of chunk `chunk_index` of document `name`, every field set.
pub fn payload(name: &str, generation: i64, chunk_index: u32, content: &str) -> ChunkPayload {
    ChunkPayload {
        document_id: doc_id(name).to_string(),
        generation,
        chunk_index,
        document: uri(name),
        title: format!("Document {name}"),
        section: "Überblick > Détails".into(),
        kind: "prose".into(),
        locator: format!("#char={},{}", chunk_index * 100, chunk_index * 100 + content.len() as u32),
        content: content.into(),
        text: format!("Document {name} > Überblick\n\n{content}"),
        tokens: 7 + chunk_index,
        model: "test-model".into(),
        pipeline_version: "1".into(),
        language: "english".into(),
    }
}

/// A point with the deterministic id the pipeline would give it, a BM25
/// sparse vector of its text and the given dense vector.
pub fn point(bm25: &Bm25, name: &str, generation: i64, chunk_index: u32, dense: Vec<f32>, content: &str) -> Point {
    let payload = payload(name, generation, chunk_index, content);
    Point { id: point_id_of(name, generation, chunk_index), dense, sparse: bm25.document(&payload.text), payload }
}

/// `count` chunks of one document and generation, with directions from
/// `first_direction` on.
pub fn chunks_of(bm25: &Bm25, name: &str, generation: i64, count: u32, first_direction: usize) -> Vec<Point> {
    (0..count)
        .map(|i| {
            let content = format!("chunk {i} of {name} generation {generation}");
            point(bm25, name, generation, i, direction(first_direction + i as usize), &content)
        })
        .collect()
}
