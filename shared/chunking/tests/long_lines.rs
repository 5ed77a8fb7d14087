//! Chunking stays linear in the text on the files that broke it: one-line
//! HTML pages, minified JavaScript, one-line CSV and runs of letters with no
//! word boundary (a held-out folder of such files drove ingest past 8 GiB).
//!
//! Linear is checked without a clock: a metered tokenizer counts the bytes
//! it is asked to measure, and the total must stay a small multiple of the
//! text (rescanning from the start per chunk, or measuring a megabyte line
//! whole, blows far past it). Every chunk keeps the usual guarantees:
//! within the budget, `#char` resolving to the chunk's own slice.

use ragpipe_chunking::{COUNT_WHOLE_MAX_BYTES, ChunkConfig, TokenCounter, chunk_document};
use ragpipe_core::{Chunk, Document, Kind};
use ragpipe_embed::{ModelFiles, ModelTokenizer, ModelVariant};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The model's tokenizer, counting how many bytes it was asked to measure
/// and the longest single text.
struct Metered {
    inner: ModelTokenizer,
    bytes: AtomicUsize,
    longest: AtomicUsize,
}

impl Metered {
    fn new() -> Self {
        let files = ModelFiles::provisioned(ModelVariant::Fp32).expect("model provisioned");
        let inner = ModelTokenizer::load(&files).unwrap();
        Metered { inner, bytes: AtomicUsize::new(0), longest: AtomicUsize::new(0) }
    }
}

impl TokenCounter for Metered {
    fn count(&self, text: &str) -> usize {
        self.bytes.fetch_add(text.len(), Ordering::Relaxed);
        self.longest.fetch_max(text.len(), Ordering::Relaxed);
        self.inner.count(text)
    }

    fn special_tokens(&self) -> usize {
        self.inner.special_tokens()
    }
}

/// Chunks `doc` and checks every chunk and the metered work.
fn chunk_and_check(doc: &Document) -> Vec<Chunk> {
    let tok = Metered::new();
    let cfg = ChunkConfig::default().for_model(&tok);
    let chunks = chunk_document(doc, &tok, &cfg);
    assert!(!chunks.is_empty(), "{}: chunks", doc.title);
    for c in &chunks {
        assert!(c.tokens as usize <= cfg.budget, "{}: chunk {} has {} tokens", doc.title, c.index, c.tokens);
        let slice = &doc.text[c.bytes.clone()];
        assert_eq!(c.locator.resolve(&doc.text), Some(slice), "{}: #char names the chunk's slice", doc.title);
        assert!(c.content.ends_with(slice), "{}: content quotes the slice", doc.title);
        assert!(c.content.len() < 64 << 10, "{}: chunk {} holds {} bytes", doc.title, c.index, c.content.len());
    }
    let measured = tok.bytes.load(Ordering::Relaxed);
    assert!(
        measured <= 8 * doc.text.len(),
        "{}: measured {measured} bytes for a {}-byte text: not linear",
        doc.title,
        doc.text.len()
    );
    // Header, separators and the quoted slice: a little over the limit.
    let longest = tok.longest.load(Ordering::Relaxed);
    assert!(longest <= 2 * COUNT_WHOLE_MAX_BYTES, "{}: measured a {longest}-byte text at once", doc.title);
    chunks
}

/// `n` bytes of varied English sentences, with no newline.
fn one_line_prose(n: usize) -> String {
    let words = ["retention", "policy", "backup", "quarterly", "ledger", "audit", "vendor", "invoice", "region"];
    let mut s = String::with_capacity(n + 64);
    let mut i = 0usize;
    while s.len() < n {
        for k in 0..12 {
            s.push_str(words[(i * 7 + k * 3) % words.len()]);
            s.push(' ');
        }
        s.push_str(&format!("item {i}. "));
        i += 1;
    }
    s
}

fn extract(kind: Kind, name: &str, bytes: &[u8]) -> Document {
    ragpipe_extract::extract(kind, name, bytes).unwrap()
}

#[test]
fn a_one_line_html_page_is_cut_in_linear_work() {
    let html =
        format!("<html><head><title>One line</title></head><body><p>{}</p></body></html>", one_line_prose(1 << 20));
    let doc = extract(Kind::Html, "one-line.html", html.as_bytes());
    let chunks = chunk_and_check(&doc);
    assert!(chunks.len() > 500, "a 1 MB paragraph is many chunks, not one: {}", chunks.len());
}

#[test]
fn minified_javascript_on_one_line_is_cut_in_linear_work() {
    let mut js = String::new();
    for i in 0..15_000 {
        js.push_str(&format!("function f{i}(a,b){{return a.x{i}+b[\"k{i}\"]||null}};var v{i}=f{i}({{x{i}:1}},{{}});"));
    }
    let doc = extract(Kind::Code, "bundle.min.js", js.as_bytes());
    assert!(!doc.text.contains('\n'), "one line");
    let chunks = chunk_and_check(&doc);
    assert!(chunks.iter().all(|c| c.locator.lines == Some((1, 1))), "every chunk cites line 1");
}

#[test]
fn a_run_of_letters_with_no_word_boundary_is_cut_into_bounded_chunks() {
    let blob: String = (0..500_000u32).map(|i| char::from(b'a' + (i * 31 % 26) as u8)).collect();
    let doc = extract(Kind::Text, "blob.txt", blob.as_bytes());
    chunk_and_check(&doc);
}

#[test]
fn a_one_line_csv_is_cut_between_cells_in_linear_work() {
    let cells: Vec<String> = (0..50_000).map(|i| format!("value {i}")).collect();
    let csv = cells.join(",");
    let doc = extract(Kind::Csv, "wide.csv", csv.as_bytes());
    chunk_and_check(&doc);
}
