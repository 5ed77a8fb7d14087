//! Type-aware chunkers: pure functions from a canonical [`Document`] to
//! [`Chunk`]s. Every chunk's `content` is a verbatim slice of the document's
//! text found by offset, its `text` is a contextual header plus that content,
//! and its size is measured with the embedding model's own tokenizer so it
//! never exceeds the model window.

mod code;
mod header;
mod pack;
mod prose;
mod split;
mod table;
mod transcript;

use ragpipe_core::{Chunk, Document, Kind};

pub use header::header_for;

/// Counts word-pieces the way the embedding model will. Implemented by the
/// embedder's tokenizer; chunkers never guess sizes from characters.
pub trait TokenCounter: Send + Sync {
    /// Word-pieces of `text` without the model's special tokens.
    fn count(&self, text: &str) -> usize;
    /// Special tokens the model adds around every input (`[CLS]`, `[SEP]`).
    fn special_tokens(&self) -> usize;
}

/// Limits for cutting chunks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChunkConfig {
    /// Target size of a chunk's `text` in word-pieces, specials and header included.
    pub budget: usize,
    /// Whether `text` starts with the `Title > Section` header.
    pub contextual_header: bool,
    /// How table rows are written in a table chunk's `text` (its `content` is
    /// always the readable table).
    pub table_rows_as: TableRows,
}

impl Default for ChunkConfig {
    fn default() -> Self {
        ChunkConfig { budget: 256, contextual_header: true, table_rows_as: TableRows::Readable }
    }
}

/// The form of table rows in the embedded `text`. Which retrieves better is
/// an evaluation question, so both exist; `Readable` is the default until an
/// eval run says otherwise.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TableRows {
    /// The header line then the row lines, as in `content`: `Region | Units`
    /// over `North | 10`.
    #[default]
    Readable,
    /// Each row as `Header: value` pairs, `Region: North; Units: 10`, which
    /// keeps every value next to its column name.
    Linearised,
}

/// Cuts a document into chunks with the chunker its structure calls for.
pub fn chunk_document(doc: &Document, counter: &dyn TokenCounter, cfg: &ChunkConfig) -> Vec<Chunk> {
    match doc.kind {
        Kind::Code => code::chunk(doc, counter, cfg),
        Kind::Spreadsheet | Kind::Csv => table::chunk(doc, counter, cfg),
        Kind::Audio => transcript::chunk(doc, counter, cfg),
        Kind::Html | Kind::Markdown | Kind::Text | Kind::Pdf => prose::chunk(doc, counter, cfg),
    }
}
