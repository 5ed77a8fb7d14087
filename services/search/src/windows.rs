//! Window evidence for a model that abstains by windows: the nearest
//! chunks' windows are embedded at query time (about 18 short passages for
//! three chunks of 256 word-pieces at 32 words a window) and the nearest
//! window's distance becomes the answer's evidence. The same step runs in a
//! search and in `ragpipe eval`, so the threshold the sweep calibrates is the
//! one searches apply.

use crate::SearchError;
use ragpipe_embed::Embedder;
use ragpipe_vectors::retrieval::Answer;
use ragpipe_vectors::windows;
use std::sync::Arc;

/// Sets `answer.nearest_window_distance` when `embedder`'s model abstains
/// by windows and the answer has nearest chunks; otherwise leaves it unset.
pub async fn measure(embedder: &Arc<dyn Embedder>, answer: &mut Answer, query: &[f32]) -> Result<(), SearchError> {
    let Some(words) = embedder.abstain_window_words() else { return Ok(()) };
    let passages: Vec<String> = answer.nearest_chunks.iter().flat_map(|c| windows::passages(c, words)).collect();
    if passages.is_empty() {
        return Ok(());
    }
    let embedder = embedder.clone();
    let embedded =
        tokio::task::spawn_blocking(move || embedder.embed(&passages.iter().map(String::as_str).collect::<Vec<_>>()))
            .await
            .map_err(|e| SearchError::Embed(format!("embedding task failed: {e}")))?
            .map_err(|e| SearchError::Embed(e.to_string()))?;
    let nearest =
        embedded.vectors.iter().map(|v| v.iter().zip(query).map(|(a, b)| a * b).sum::<f32>()).fold(f32::MIN, f32::max);
    answer.nearest_window_distance = Some(1.0 - nearest);
    Ok(())
}
