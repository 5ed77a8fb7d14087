//! Window evidence for a model that abstains by windows: the nearest
//! chunks' windows are embedded at query time (about 18 short passages for
//! three chunks of 256 word-pieces at 32 words a window) and the nearest
//! window's distance becomes the answer's evidence. The same step runs in a
//! search and in `ragpipe eval`, so the threshold the sweep calibrates is the
//! one searches apply. A chunk's window vectors are kept by the searcher
//! ([`WindowCache`]): the chunks nearest to questions repeat, and embedding
//! their windows is nearly all a window search costs.

use crate::SearchError;
use lru::LruCache;
use ragpipe_embed::Embedder;
use ragpipe_vectors::retrieval::{Answer, dot};
use ragpipe_vectors::windows;
use std::num::NonZeroUsize;
use std::sync::{Arc, Mutex};

/// (model, the chunk's embedded text): the text, not the point, so a
/// reindexed or re-chunked document never meets stale vectors.
type ChunkKey = (String, String);

/// One chunk's window vectors.
type Vectors = Arc<[Vec<f32>]>;

/// Window vectors by [`ChunkKey`].
pub struct WindowCache(Mutex<LruCache<ChunkKey, Vectors>>);

impl WindowCache {
    /// A cache of `chunks` chunks' windows, or none for 0.
    pub fn new(chunks: usize) -> Option<Self> {
        NonZeroUsize::new(chunks).map(|n| WindowCache(Mutex::new(LruCache::new(n))))
    }

    fn get(&self, key: &ChunkKey) -> Option<Vectors> {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).get(key).cloned()
    }

    fn put(&self, key: ChunkKey, vectors: Vectors) {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).put(key, vectors);
    }
}

/// Sets `answer.nearest_window_distance` when `embedder`'s model abstains
/// by windows and the answer has nearest chunks; otherwise leaves it unset.
pub async fn measure(
    embedder: &Arc<dyn Embedder>,
    answer: &mut Answer,
    query: &[f32],
    cache: Option<&WindowCache>,
) -> Result<(), SearchError> {
    let Some(words) = embedder.abstain_window_words() else { return Ok(()) };
    let key = |text: &str| (embedder.model().to_string(), text.to_string());
    let mut known: Vec<Arc<[Vec<f32>]>> = Vec::new();
    let mut missing: Vec<(&str, Vec<String>)> = Vec::new();
    for chunk in &answer.nearest_chunks {
        match cache.and_then(|c| c.get(&key(&chunk.text))) {
            Some(vectors) => known.push(vectors),
            None => missing.push((chunk.text.as_str(), windows::passages(chunk, words))),
        }
    }
    let passages: Vec<String> = missing.iter().flat_map(|(_, p)| p.iter().cloned()).collect();
    if !passages.is_empty() {
        let model = embedder.clone();
        let mut vectors =
            tokio::task::spawn_blocking(move || model.embed(&passages.iter().map(String::as_str).collect::<Vec<_>>()))
                .await
                .map_err(|e| SearchError::Embed(format!("embedding task failed: {e}")))?
                .map_err(|e| SearchError::Embed(e.to_string()))?
                .vectors
                .into_iter();
        for (text, chunk_passages) in &missing {
            let of_chunk: Arc<[Vec<f32>]> = vectors.by_ref().take(chunk_passages.len()).collect();
            if let Some(cache) = cache {
                cache.put(key(text), of_chunk.clone());
            }
            known.push(of_chunk);
        }
    }
    let nearest = known.iter().flat_map(|vectors| vectors.iter()).map(|v| dot(v, query)).fold(f32::MIN, f32::max);
    if nearest > f32::MIN {
        answer.nearest_window_distance = Some(1.0 - nearest);
    }
    Ok(())
}
