//! The model's tokenizer (WordPiece for MiniLM, SentencePiece unigram for
//! e5), configured for the real window.
//!
//! The `tokenizer.json` shipped with all-MiniLM-L6-v2 bakes in truncation at
//! 128 and fixed padding to 128. Both are removed here: truncation would hide
//! oversized chunks and padding is done per batch, to the longest input.

use crate::{EmbedError, ModelFiles};
use std::path::Path;

/// A text encoded for the model, special tokens included.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Encoded {
    pub ids: Vec<i64>,
    pub type_ids: Vec<i64>,
    /// Word-pieces before cutting to the window.
    pub full_len: usize,
}

pub struct ModelTokenizer {
    inner: tokenizers::Tokenizer,
    window: usize,
    /// Word-pieces of the passage prefix every chunk is embedded with.
    prefix: usize,
    /// The chunk budget the model's spec asks for (else MiniLM's 256, never
    /// over the window).
    budget: usize,
}

impl ModelTokenizer {
    /// The tokenizer of the model in `files`, with its window and passage
    /// prefix from the model's spec.
    pub fn load(files: &ModelFiles) -> Result<Self, EmbedError> {
        let mut tokenizer = Self::from_file(&files.tokenizer, files.spec.max_tokens)?;
        let prefix = files.spec.passage_prefix.trim_end();
        tokenizer.prefix = if prefix.is_empty() { 0 } else { ragpipe_core::TokenCounter::count(&tokenizer, prefix) };
        tokenizer.budget = files.spec.chunk_budget.unwrap_or(ragpipe_core::DEFAULT_BUDGET).min(tokenizer.window);
        Ok(tokenizer)
    }

    pub fn from_file(path: &Path, window: usize) -> Result<Self, EmbedError> {
        let err = |reason: String| EmbedError::Tokenizer { path: path.display().to_string(), reason };
        let mut inner = tokenizers::Tokenizer::from_file(path).map_err(|e| err(e.to_string()))?;
        inner.with_truncation(None).map_err(|e| err(e.to_string()))?;
        inner.with_padding(None);
        Ok(ModelTokenizer { inner, window, prefix: 0, budget: ragpipe_core::DEFAULT_BUDGET.min(window) })
    }

    pub fn window(&self) -> usize {
        self.window
    }

    /// Encodes with special tokens, cutting to the window only as a last
    /// resort (the caller counts it as a truncation).
    pub fn encode(&self, text: &str) -> Result<Encoded, EmbedError> {
        let enc = self.inner.encode(text, true).map_err(|e| EmbedError::Inference(format!("tokenizing: {e}")))?;
        let full_len = enc.get_ids().len();
        let mut ids: Vec<i64> = enc.get_ids().iter().map(|&i| i64::from(i)).collect();
        let mut type_ids: Vec<i64> = enc.get_type_ids().iter().map(|&i| i64::from(i)).collect();
        if full_len > self.window {
            // Keep [CLS] + the first window-2 pieces + the final [SEP].
            let sep = ids[full_len - 1];
            ids.truncate(self.window - 1);
            ids.push(sep);
            type_ids.truncate(self.window);
        }
        Ok(Encoded { ids, type_ids, full_len })
    }
}

impl ragpipe_core::TokenCounter for ModelTokenizer {
    fn count(&self, text: &str) -> usize {
        // Encoding only fails on pathological normaliser errors; count such a
        // text as too large so it is split rather than passed through.
        self.inner.encode(text, false).map(|e| e.get_ids().len()).unwrap_or(ragpipe_core::TOO_MANY_TOKENS)
    }

    /// The model's two special tokens and its passage prefix: what a chunk
    /// costs on top of its own text.
    fn special_tokens(&self) -> usize {
        2 + self.prefix
    }

    fn budget(&self) -> usize {
        self.budget
    }
}
