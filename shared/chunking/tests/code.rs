//! The code chunker's guarantees, checked on every chunk of real source files
//! (`shared/extract/tests/fixtures/code`) with the model's own tokenizer:
//! - `content` is the verbatim slice its `#char` locator and byte range name,
//!   and exactly the lines its `#L` locator names;
//! - chunks start and end at line boundaries, unless a single line alone is
//!   over the budget, and together they quote every non-blank line;
//! - `text` is header + content and fits the budget, measured for real;
//! - an item that fits is never cut; a cut falls on an inner item's start,
//!   or at a blank line, or between lines only when the blank-line run alone
//!   is over the budget;
//! - the header names the file and the enclosing items.

use ragpipe_chunking::{ChunkConfig, TokenCounter, chunk_document, header_for};
use ragpipe_core::{BlockKind, Chunk, Document, Kind, Locator};
use ragpipe_embed::{ModelFiles, ModelTokenizer, ModelVariant};
use std::path::PathBuf;

fn tokenizer() -> ModelTokenizer {
    let files = ModelFiles::provisioned(ModelVariant::Fp32).expect("model provisioned");
    ModelTokenizer::load(&files).unwrap()
}

fn fixtures() -> Vec<Document> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../extract/tests/fixtures/code");
    let mut docs = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if name.ends_with(".md") {
            continue;
        }
        let bytes = std::fs::read(&path).unwrap();
        docs.push(ragpipe_extract::extract(Kind::Code, &name, &bytes).unwrap());
    }
    assert!(docs.len() >= 10, "Rust, Python, Go, JS, TS, TSX, Java and a shell script");
    docs
}

fn fixture(name: &str) -> Document {
    fixtures().into_iter().find(|d| d.title == name).unwrap()
}

fn path(kind: &BlockKind) -> &[String] {
    match kind {
        BlockKind::CodeItem { path } => path,
        _ => &[],
    }
}

/// Lines `first..=last` (1-based) of `text`, joined as they stand.
fn lines(text: &str, (first, last): (u32, u32)) -> String {
    let all: Vec<&str> = text.split('\n').collect();
    all[first as usize - 1..last as usize].join("\n")
}

fn line_start(text: &str, at: usize) -> usize {
    text[..at].rfind('\n').map_or(0, |i| i + 1)
}

fn at_line_start(text: &str, at: usize) -> bool {
    at == 0 || text.as_bytes()[at - 1] == b'\n'
}

fn line_end(text: &str, at: usize) -> usize {
    text[at..].find('\n').map_or(text.len(), |i| at + i)
}

/// The line of `text` around byte `at`.
fn line_around(text: &str, at: usize) -> &str {
    &text[line_start(text, at)..line_end(text, at)]
}

fn check(doc: &Document, chunks: &[Chunk], tok: &ModelTokenizer, cfg: &ChunkConfig) {
    let text = &doc.text;
    // Over the budget alone, with the header of the item the line is in.
    let over = |s: &str, at: usize| tok.count(s) + tok.special_tokens() + header_cost(doc, at, tok, cfg) > cfg.budget;
    assert!(!chunks.is_empty());
    for (i, c) in chunks.iter().enumerate() {
        assert_eq!(c.index as usize, i);
        assert_eq!(c.content, text[c.bytes.clone()], "content is the byte slice");
        assert_eq!(c.locator.resolve(text), Some(c.content.as_str()), "#char slices to content");
        assert_eq!(Locator::parse(&c.locator.to_string()).as_ref(), Some(&c.locator));
        assert!(c.locator.to_string().starts_with("#L"), "{}", c.locator);
        assert!(c.text.ends_with(&c.content));
        assert_eq!(tok.count(&c.text) + tok.special_tokens(), c.tokens as usize, "measured, not estimated");
        assert!(c.tokens as usize <= cfg.budget, "chunk {i} of {} has {} tokens", doc.title, c.tokens);
        let span = c.locator.lines.expect("code chunks carry #L");
        // #L names whole lines; a chunk that starts or ends inside a line
        // (only a line over the budget alone is cut) is that part of them.
        let start_line = line_around(text, c.bytes.start);
        let end_line = line_around(text, c.bytes.end);
        let prefix = &text[line_start(text, c.bytes.start)..c.bytes.start];
        let suffix = &text[c.bytes.end..line_end(text, c.bytes.end)];
        assert_eq!(
            lines(text, span),
            format!("{prefix}{}{suffix}", c.content),
            "#L{}-L{} hold the content",
            span.0,
            span.1
        );
        if !prefix.is_empty() {
            assert!(over(start_line, c.bytes.start), "a fitting line was cut in {}: {start_line:?}", doc.title);
        }
        if !suffix.is_empty() {
            assert!(over(end_line, c.bytes.end), "a fitting line was cut in {}: {end_line:?}", doc.title);
        }
        let (first_line, last_line) = (c.content.split('\n').next().unwrap(), c.content.rsplit('\n').next().unwrap());
        assert!(!first_line.trim().is_empty() && !last_line.trim().is_empty(), "no blank first or last line");
        let closing_only = c.content.trim().chars().all(|ch| "}])>;,".contains(ch) || ch.is_whitespace());
        assert!(!closing_only, "a closing bracket goes with what it closes: {:?}", c.content);
    }
    for w in chunks.windows(2) {
        assert!(w[0].bytes.end <= w[1].bytes.start, "chunks are ordered and disjoint");
        assert!(text[w[0].bytes.end..w[1].bytes.start].trim().is_empty(), "nothing between chunks is dropped");
    }
    assert!(
        text[..chunks[0].bytes.start].trim().is_empty() && text[chunks.last().unwrap().bytes.end..].trim().is_empty()
    );
    for c in chunks.iter().skip(1) {
        check_cut(doc, c.bytes.start, tok, cfg);
    }
}

/// What the header of the innermost item around `at` costs: the full path
/// when it fits a quarter of the budget, else the file and innermost item,
/// else the file alone, else nothing.
fn header_cost(doc: &Document, at: usize, tok: &ModelTokenizer, cfg: &ChunkConfig) -> usize {
    let innermost = doc.blocks.iter().rfind(|b| b.range.start <= at && at <= b.range.end);
    let path = innermost.map_or(&[][..], |b| path(&b.kind));
    let shorter = [path, &path[path.len().saturating_sub(1)..], &[]];
    shorter.iter().map(|p| tok.count(&header_for(&doc.title, p))).find(|&t| t <= cfg.budget / 4).unwrap_or(0)
}

/// A chunk may start inside an item only if the item is over the budget, and
/// then only at one of its inner items, after a blank line, or between lines
/// of a blank-line run that is itself over the budget.
fn check_cut(doc: &Document, at: usize, tok: &ModelTokenizer, cfg: &ChunkConfig) {
    let text = &doc.text;
    let inside: Vec<_> = doc.blocks.iter().filter(|b| b.range.start < at && at < b.range.end).collect();
    let Some(block) = inside.last() else {
        return; // between top-level blocks
    };
    let item_path = path(&block.kind);
    let header_tokens = header_cost(doc, at, tok, cfg);
    assert!(
        tok.count(doc.slice(block)) + header_tokens + tok.special_tokens() > cfg.budget,
        "{} cut inside {item_path:?}, which fits",
        doc.title
    );
    let inner_start = doc.blocks.iter().any(|b| b.range.start == at && path(&b.kind).len() > item_path.len());
    let after_blank =
        at_line_start(text, at) && text[..at - 1].rsplit('\n').next().is_some_and(|l| l.trim().is_empty());
    if inner_start || after_blank {
        return;
    }
    // Cut between lines: the run of non-blank lines around the cut must not fit.
    let start = text[..at].rfind("\n\n").map_or(block.range.start, |i| i + 2).max(block.range.start);
    let end = text[at..].find("\n\n").map_or(block.range.end, |i| at + i).min(block.range.end);
    let run = &text[start..end];
    let cost = tok.count(run) + header_tokens + tok.special_tokens();
    assert!(cost > cfg.budget, "{}: a fitting run was cut at {at}: {run:?}", doc.title);
}

#[test]
fn every_chunk_of_real_source_keeps_the_rules() {
    let tok = tokenizer();
    for budget in [256, 128, 64] {
        let cfg = ChunkConfig { budget, contextual_header: true, ..ChunkConfig::default() };
        for doc in fixtures() {
            let chunks = chunk_document(&doc, &tok, &cfg);
            if std::env::var("DUMP").is_ok_and(|d| doc.title.contains(&d)) {
                for c in &chunks {
                    println!("--- {} {} [{}]\n{}", c.locator, c.tokens, c.section.join(" > "), c.text);
                }
            }
            check(&doc, &chunks, &tok, &cfg);
        }
    }
}

/// The chunk whose content holds `needle`.
fn holding<'c>(chunks: &'c [Chunk], needle: &str) -> &'c Chunk {
    chunks.iter().find(|c| c.content.contains(needle)).unwrap_or_else(|| panic!("no chunk holds {needle:?}"))
}

#[test]
fn long_impls_and_classes_are_split_between_methods() {
    let tok = tokenizer();
    let cfg = ChunkConfig::default();
    let doc = fixture("atomic_waker.rs");
    let chunks = chunk_document(&doc, &tok, &cfg);
    let opening = holding(&chunks, "impl AtomicWaker {");
    assert!(
        opening.content.starts_with("impl AtomicWaker {") && opening.content.contains("pub const fn new() -> Self {")
    );
    assert!(opening.content.ends_with("\n    }"), "the opening line goes with the first method, whole");
    let wake = holding(&chunks, "pub fn wake(&self) {");
    assert!(
        wake.content.starts_with("    /// Calls `wake` on the last `Waker`"),
        "a chunk starts at the method's docs"
    );
    let closing = chunks.iter().find(|c| c.bytes.end == doc.text.find("\n\nimpl Default").unwrap()).unwrap();
    assert!(
        closing.content.contains("state == REGISTERING || state == REGISTERING | WAKING"),
        "the closing brace stays with the last method"
    );
    for (name, needle) in [
        ("textwrap.py", "    def wrap(self, text):"),
        ("mutation.ts", "  addObserver(observer: MutationObserver<any, any, any, any>): void {"),
        ("StringJoiner.java", "    public StringJoiner setEmptyValue(CharSequence emptyValue) {"),
    ] {
        let doc = fixture(name);
        let chunks = chunk_document(&doc, &tok, &cfg);
        let c = holding(&chunks, needle);
        let method_start = ["    def ", "  /**", "    /**"].iter().any(|m| c.content.starts_with(m));
        assert!(method_start, "{name}: the chunk holding {needle:?} starts at a method: {:?}", c.content);
    }
}

#[test]
fn headers_carry_the_file_and_enclosing_items() {
    let tok = tokenizer();
    let cfg = ChunkConfig::default();
    let doc = fixture("atomic_waker.rs");
    let chunks = chunk_document(&doc, &tok, &cfg);
    let register = holding(&chunks, "pub fn register(&self, waker: &Waker) {");
    assert_eq!(register.section, ["impl AtomicWaker", "fn register"]);
    assert!(register.text.starts_with("atomic_waker.rs > impl AtomicWaker > fn register\n\n"));
    // Small adjacent items merge; their header is what encloses them all.
    let tail = holding(&chunks, "impl Default for AtomicWaker {");
    assert!(tail.content.contains("unsafe impl Sync for AtomicWaker {}"));
    assert!(tail.text.starts_with("atomic_waker.rs\n\n") && tail.section.is_empty());
    let go = fixture("errors.go");
    let merged = holding(&chunk_document(&go, &tok, &cfg), "func New(message string) error {").clone();
    assert!(merged.content.contains("func Errorf(format string"), "small functions merge: {:?}", merged.content);
    let sh = chunk_document(&fixture("xzmore.sh"), &tok, &cfg);
    assert!(sh.iter().all(|c| c.text.starts_with("xzmore.sh\n\n") && c.locator.lines.is_some()));
    let bare =
        chunk_document(&doc, &tok, &ChunkConfig { budget: 256, contextual_header: false, ..ChunkConfig::default() });
    assert!(bare.iter().all(|c| c.text == c.content && c.header_tokens == 0));
}

#[test]
fn a_line_over_the_budget_is_cut_between_words() {
    let tok = tokenizer();
    let words: Vec<String> = (0..600).map(|i| format!("word{i}")).collect();
    let src = format!("// Generated.\nfunction f() {{\n  return \"{}\";\n}}\n", words.join(" "));
    let doc = ragpipe_extract::extract(Kind::Code, "dist/app.min.js", src.as_bytes()).unwrap();
    for budget in [256, 64] {
        let cfg = ChunkConfig { budget, contextual_header: true, ..ChunkConfig::default() };
        let chunks = chunk_document(&doc, &tok, &cfg);
        check(&doc, &chunks, &tok, &cfg);
        assert!(chunks.iter().filter(|c| c.locator.lines == Some((3, 3))).count() > 2, "line 3 is cut");
        assert!(chunks.iter().any(|c| c.content.contains("word599")));
    }
}
