//! The reference files the embedder tests compare with: vectors made by
//! sentence-transformers itself for the same ten texts, one file per model.

use ragpipe_embed::{Embedder, OnnxEmbedder};
use serde::Deserialize;

#[derive(Deserialize)]
pub struct Reference {
    pub dims: usize,
    /// The model's window (MiniLM's file predates the field: 256).
    #[serde(default = "minilm_window")]
    pub window: usize,
    pub items: Vec<Item>,
}

#[derive(Deserialize)]
pub struct Item {
    pub text: String,
    pub wordpieces_with_special: usize,
    #[serde(alias = "truncated_to_256")]
    pub truncated: bool,
    pub input_ids_first_16: Vec<i64>,
    pub embedding: Vec<f32>,
}

fn minilm_window() -> usize {
    256
}

impl Reference {
    pub fn parse(json: &str) -> Reference {
        serde_json::from_str(json).expect("reference fixture parses")
    }

    pub fn texts(&self) -> Vec<&str> {
        self.items.iter().map(|i| i.text.as_str()).collect()
    }

    /// `model` has the reference's width and window, counts the texts cut
    /// to the window, gives every text the reference's word-piece count and
    /// reproduces every vector to 1e-5 per component (`batch`: for the
    /// message).
    pub fn assert_reproduced_by(&self, model: &OnnxEmbedder, batch: usize) {
        assert_eq!((model.dims(), model.window()), (self.dims, self.window));
        let out = model.embed(&self.texts()).unwrap();
        let expected_truncations = self.items.iter().filter(|i| i.truncated).count();
        assert_eq!(out.truncated, expected_truncations, "over-window texts are counted, not hidden");
        for (i, item) in self.items.iter().enumerate() {
            assert_eq!(out.tokens[i], item.wordpieces_with_special, "token count of item {i}");
            let diff = max_abs_diff(&out.vectors[i], &item.embedding);
            assert!(diff < 1e-5, "item {i} (batch {batch}) differs by {diff}");
        }
    }
}

pub fn max_abs_diff(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0.0, f32::max)
}

/// The dot product: the cosine of two unit vectors.
pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}
