//! Type-aware chunkers: pure functions from a canonical [`Document`] to
//! [`Chunk`]s. Every chunk's `content` is a verbatim slice of the document's
//! text found by offset, its `text` is a contextual header plus that content,
//! and its size is measured with the embedding model's own tokenizer so it
//! never exceeds the model window.

mod code;
mod header;
mod pack;
mod prose;
mod sections;
mod split;
mod table;
mod transcript;

use ragpipe_core::{Chunk, Document, Kind};
pub use ragpipe_core::{ChunkConfig, TOO_MANY_TOKENS, TableRows, TokenCounter};

pub use header::header_for;

/// Cuts a document into chunks with the chunker its structure calls for.
///
/// Linear in the document: no step rescans the text from its start per
/// chunk, and no text larger than [`COUNT_WHOLE_MAX_BYTES`] is handed to the
/// tokenizer in one piece (a 50 MB one-line page costs what fifty 1 MB pages
/// cost).
pub fn chunk_document(doc: &Document, counter: &dyn TokenCounter, cfg: &ChunkConfig) -> Vec<Chunk> {
    let cfg = &cfg.for_model(counter);
    let mut chunks = match doc.kind {
        Kind::Code => code::chunk(doc, counter, cfg),
        Kind::Spreadsheet | Kind::Csv => table::chunk(doc, counter, cfg),
        Kind::Audio | Kind::Transcript => transcript::chunk(doc, counter, cfg),
        Kind::Html
        | Kind::Markdown
        | Kind::Text
        | Kind::Pdf
        | Kind::Image
        | Kind::Word
        | Kind::Presentation
        | Kind::Email
        | Kind::Ebook
        | Kind::Archive => prose::chunk(doc, counter, cfg),
    };
    set_char_ranges(&doc.text, &mut chunks);
    set_regions(doc, &mut chunks);
    chunks
}

/// Sets the `&xywh=` rectangle of every chunk of an OCR'd page: the union
/// of the regions (lines) its content overlaps on its page. The regions are
/// in text order, so one forward sweep serves all chunks.
fn set_regions(doc: &Document, chunks: &mut [Chunk]) {
    if doc.regions.is_empty() {
        return;
    }
    let mut first = 0;
    for chunk in chunks.iter_mut() {
        while first < doc.regions.len() && doc.regions[first].range.end <= chunk.bytes.start {
            first += 1;
        }
        let mut union: Option<[u32; 4]> = None;
        for r in doc.regions[first..].iter().take_while(|r| r.range.start < chunk.bytes.end) {
            if Some(r.page) != chunk.locator.page || r.range.end <= chunk.bytes.start {
                continue;
            }
            let [x, y, w, h] = r.rect;
            union = Some(match union {
                None => r.rect,
                Some([ux, uy, uw, uh]) => {
                    let (x0, y0) = (ux.min(x), uy.min(y));
                    [x0, y0, (ux + uw).max(x + w) - x0, (uy + uh).max(y + h) - y0]
                }
            });
        }
        chunk.locator.region = union;
    }
}

/// Blocks, sentences and lines longer than this many bytes are split before
/// they are measured: at 256 word-pieces no such text fits a chunk unless it
/// is made of 100-character "words" (one `[UNK]` each), and splitting a text
/// that would have fitted only costs a re-grouping, while measuring a
/// multi-megabyte line at once costs gigabytes of tokenizer state.
pub const COUNT_WHOLE_MAX_BYTES: usize = 16 << 10;

/// Word-pieces of `text`, or [`TOO_MANY_TOKENS`] without asking the
/// tokenizer when the text is longer than [`COUNT_WHOLE_MAX_BYTES`]: such a
/// text is split anyway, so its exact count is never needed.
pub(crate) fn measure(counter: &dyn TokenCounter, text: &str) -> usize {
    if text.len() > COUNT_WHOLE_MAX_BYTES { TOO_MANY_TOKENS } else { counter.count(text) }
}

/// Sets every chunk's `#char` range from its byte range in one sweep of the
/// text. Chunkers only know byte ranges; counting chars from the start of
/// the text per chunk was quadratic (a 50 MB one-line HTML never finished).
fn set_char_ranges(text: &str, chunks: &mut [Chunk]) {
    let mut marks: Vec<usize> = chunks.iter().flat_map(|c| [c.bytes.start, c.bytes.end]).collect();
    marks.sort_unstable();
    marks.dedup();
    let mut chars = Vec::with_capacity(marks.len());
    let (mut byte, mut count) = (0, 0);
    for &mark in &marks {
        count += text[byte..mark].chars().count();
        byte = mark;
        chars.push(count);
    }
    let at = |b: usize| chars[marks.binary_search(&b).expect("every chunk offset is a mark")];
    for chunk in chunks {
        chunk.locator.chars = at(chunk.bytes.start)..at(chunk.bytes.end);
    }
}

#[cfg(test)]
mod testing {
    use crate::TokenCounter;
    use ragpipe_core::{Block, BlockKind, Document, Kind};

    /// A document of `kind` whose blocks are the given texts, one per line.
    pub fn document(title: &str, kind: Kind, blocks: &[(BlockKind, &str, Option<u32>)]) -> Document {
        let mut text = String::new();
        let mut out = Vec::new();
        for (block, words, page) in blocks {
            if !text.is_empty() {
                text.push('\n');
            }
            let at = text.len();
            text.push_str(words);
            out.push(Block { kind: block.clone(), range: at..text.len(), page: *page });
        }
        Document {
            title: title.into(),
            kind,
            text,
            blocks: out,
            tables: vec![],
            duration: None,
            regions: Vec::new(),
            ocr_pages: Vec::new(),
            warnings: Vec::new(),
        }
    }

    /// Counts words as tokens, with two specials, for chunkers' unit tests.
    pub struct Words;

    impl TokenCounter for Words {
        fn count(&self, text: &str) -> usize {
            text.split_whitespace().count()
        }
        fn special_tokens(&self) -> usize {
            2
        }
    }
}
