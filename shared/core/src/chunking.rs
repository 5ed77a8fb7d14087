//! What the chunkers need from the rest of the system, kept here so the
//! configuration, the embedder's tokenizer and the chunkers share one
//! definition: the settings of `[chunking]` and the word-piece counter.

use serde::Deserialize;

/// Counts word-pieces the way the embedding model will. Implemented by the
/// embedder's tokenizer; chunkers never guess sizes from characters.
pub trait TokenCounter: Send + Sync {
    /// Word-pieces of `text` without the model's special tokens.
    fn count(&self, text: &str) -> usize;
    /// Special tokens the model adds around every input (`[CLS]`, `[SEP]`).
    fn special_tokens(&self) -> usize;
    /// The chunk budget this model was calibrated with, what
    /// `chunking.budget = 0` (the default) means: all-MiniLM-L6-v2's window,
    /// 256, unless the model's spec says otherwise.
    fn budget(&self) -> usize {
        DEFAULT_BUDGET
    }
}

/// The budget of a model whose spec names none, and the most it may be: the
/// window of all-MiniLM-L6-v2, the first model.
pub const DEFAULT_BUDGET: usize = 256;

/// A token count larger than any budget, for texts that are not measured
/// (or that a tokenizer could not encode). Small enough that adding headers
/// and specials and storing it in a chunk's `u32` never wraps around to a
/// count that would fit.
pub const TOO_MANY_TOKENS: usize = 1 << 30;

/// How chunks are cut: the `[chunking]` section of the configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ChunkConfig {
    /// Target size of a chunk's `text` in word-pieces, specials and header
    /// included; at most the model window. 0 (the default): the model's own
    /// ([`TokenCounter::budget`], from its spec).
    pub budget: usize,
    /// Whether `text` starts with the `Title > Section` header.
    pub contextual_header: bool,
    /// How table rows are written in a table chunk's `text` (its `content` is
    /// always the readable table). See docs/EVALUATION.md.
    pub table_rows: TableRows,
    /// Longest stretch of a recording one transcript chunk may cover, in
    /// seconds (0, the default = only the budget decides). A chunk's `#t=` is
    /// where a listener is sent, and at the budget alone one chunk of sparse
    /// speech (a phone menu) spans minutes; but a 30 s cap ranked spoken
    /// answers lower on the golden set (docs/EVALUATION.md), so it is opt-in.
    pub max_transcript_secs: u32,
    /// Sections whose own words are fewer word-pieces than this share a
    /// chunk with their neighbours under the same parent heading, when all
    /// fit the budget on one page (0 = every section is chunked alone).
    pub pack_sections_below: usize,
}

impl Default for ChunkConfig {
    fn default() -> Self {
        ChunkConfig {
            budget: 0,
            contextual_header: true,
            table_rows: TableRows::Readable,
            max_transcript_secs: 0,
            pack_sections_below: 0,
        }
    }
}

impl ChunkConfig {
    /// This configuration with its budget settled for `counter`'s model
    /// (0 becomes the model's own).
    pub fn for_model(&self, counter: &dyn TokenCounter) -> ChunkConfig {
        let budget = if self.budget == 0 { counter.budget() } else { self.budget };
        ChunkConfig { budget, ..*self }
    }
}

/// The form of table rows in the embedded `text`. Which retrieves better is
/// an evaluation question, so both exist; `Readable` is the default until an
/// eval run says otherwise.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TableRows {
    /// The header line then the row lines, as in `content`: `Region | Units`
    /// over `North | 10`.
    #[default]
    Readable,
    /// Each row as `Header: value` pairs, `Region: North; Units: 10`, which
    /// keeps every value next to its column name.
    Linearised,
}
