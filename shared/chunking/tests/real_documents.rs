//! The prose chunker's guarantees, checked on every chunk of real documents
//! (Rust book and Cargo pages, Markdown design notes, plain-text manuals from
//! `eval/corpus`) with the model's own tokenizer:
//! - `content` is the verbatim slice its `#char` locator and byte range name
//!   (after the repeated header line, for table chunks);
//! - `text` is header + content and fits the budget, measured for real;
//! - a chunk never spans two sections, and never cuts a paragraph that fits
//!   (with `pack_sections_below`, small sections may share a chunk: then it
//!   quotes their headings whole, on one page);
//! - an oversized paragraph is cut only at sentence boundaries.

use ragpipe_chunking::{ChunkConfig, TokenCounter, chunk_document};
use ragpipe_core::{BlockKind, Chunk, Document, Kind};
use ragpipe_embed::{ModelFiles, ModelTokenizer, ModelVariant};
use std::path::PathBuf;
use unicode_segmentation::UnicodeSegmentation;

fn tokenizer() -> ModelTokenizer {
    let files = ModelFiles::provisioned(ModelVariant::Fp32).expect("model provisioned");
    ModelTokenizer::load(&files).unwrap()
}

fn corpus() -> Vec<Document> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../eval/corpus");
    let mut docs = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let bytes = std::fs::read(&path).unwrap();
        // The prose chunker's documents; tables, code and transcripts have
        // their own chunkers and tests (tables.rs, code.rs, transcript.rs).
        let Ok(kind @ (Kind::Html | Kind::Markdown | Kind::Text | Kind::Pdf)) = ragpipe_extract::detect(&name, &bytes)
        else {
            continue;
        };
        match ragpipe_extract::extract(kind, &name, &bytes) {
            Ok(doc) => docs.push(doc),
            // A scanned PDF is read by OCR (tests/scanned.rs, shared/ocr).
            Err(e) if e.to_string().contains("no text layer") => continue,
            Err(e) => panic!("{name}: {e}"),
        }
    }
    assert!(docs.len() >= 10, "the corpus has HTML, Markdown, text and PDF documents");
    docs
}

fn check(doc: &Document, chunks: &[Chunk], tok: &ModelTokenizer, cfg: &ChunkConfig) {
    assert!(!chunks.is_empty(), "{} yields chunks", doc.title);
    for (i, c) in chunks.iter().enumerate() {
        assert_eq!(c.index as usize, i);
        // A table chunk's content repeats its table's header line above the
        // rows slice (see the table chunker); bytes and #char name the rows.
        let slice = &doc.text[c.bytes.clone()];
        assert!(c.content == slice || c.content.ends_with(&format!("\n{slice}")), "content is the byte slice");
        assert_eq!(c.locator.resolve(&doc.text), Some(slice), "#char slices to content");
        assert!(c.text.ends_with(&c.content), "text ends with the verbatim content");
        let measured = tok.count(&c.text) + tok.special_tokens();
        assert_eq!(measured, c.tokens as usize, "token count is measured, not estimated");
        assert!(c.tokens as usize <= cfg.budget, "chunk {i} of {} has {} tokens > {}", doc.title, c.tokens, cfg.budget);
        assert!(c.tokens <= 256, "never over the model window");
    }
    for w in chunks.windows(2) {
        assert!(w[0].bytes.end <= w[1].bytes.start, "chunks are ordered and disjoint");
    }
    for block in &doc.blocks {
        let inside: Vec<&Chunk> =
            chunks.iter().filter(|c| c.bytes.start < block.range.end && block.range.start < c.bytes.end).collect();
        match block.kind {
            BlockKind::Heading { .. } if cfg.pack_sections_below == 0 => {
                // A heading is never quoted: it starts a section and lives in the header.
                assert!(inside.is_empty(), "heading {:?} inside a chunk", doc.slice(block));
            }
            BlockKind::Heading { .. } => {
                // Quoted only whole, where small sections share a chunk.
                assert!(inside.len() <= 1, "heading {:?} cut", doc.slice(block));
                for c in inside {
                    assert!(c.bytes.start <= block.range.start && block.range.end <= c.bytes.end);
                    assert_eq!(c.locator.page, block.page, "a heading quoted on its own page");
                }
            }
            BlockKind::TableRow { table, .. } if inside.len() > 1 => {
                // A row is cut (between cells; tests/tables.rs checks where)
                // only when it does not fit under its table's repeated header.
                let repeated: usize = doc
                    .blocks
                    .iter()
                    .filter(|b| matches!(b.kind, BlockKind::TableRow { table: t, header: true, .. } if t == table))
                    .map(|b| tok.count(doc.slice(b)))
                    .sum();
                let header = inside[0].header_tokens as usize + repeated;
                assert!(
                    tok.count(doc.slice(block)) + header + 2 > cfg.budget,
                    "a fitting row was cut in {}",
                    doc.title
                );
            }
            _ if inside.len() > 1 => {
                // Cut: allowed only when the block alone is over the budget, and
                // then only at sentence (or line) boundaries.
                let header = inside[0].header_tokens as usize;
                assert!(
                    tok.count(doc.slice(block)) + header + 2 > cfg.budget,
                    "a fitting block was cut in {}",
                    doc.title
                );
                for c in &inside[1..] {
                    check_cut(doc, block.range.clone(), c.bytes.start, header, tok, cfg);
                }
            }
            _ => {}
        }
    }
    // Every chunk's section path names headings that precede it.
    for c in chunks {
        for name in &c.section {
            let before = &doc.text[..c.bytes.start];
            assert!(before.contains(name.as_str()), "section {name:?} precedes chunk {}", c.index);
        }
    }
}

/// A cut inside a block must fall where a sentence (or a code line) starts;
/// only a sentence that alone exceeds the budget may be cut between words.
fn check_cut(
    doc: &Document,
    block: std::ops::Range<usize>,
    at: usize,
    header: usize,
    tok: &ModelTokenizer,
    cfg: &ChunkConfig,
) {
    let body = &doc.text[block.clone()];
    let line_start = doc.text[block.start..at].ends_with('\n');
    let sentence = body
        .split_sentence_bound_indices()
        .map(|(i, s)| (block.start + i, s))
        .find(|(start, s)| *start <= at && at < start + s.len())
        .expect("cut lies inside the block");
    let at_sentence_start = doc.text[sentence.0..at].trim().is_empty();
    if line_start || at_sentence_start {
        return;
    }
    let sentence_tokens = tok.count(sentence.1) + header + tok.special_tokens();
    assert!(sentence_tokens > cfg.budget, "cut inside a fitting sentence in {}: {:?}", doc.title, sentence.1);
    let before = doc.text[..at].chars().next_back().unwrap();
    let after = doc.text[at..].chars().next().unwrap();
    assert!(
        before.is_whitespace() || !after.is_alphanumeric() || !before.is_alphanumeric(),
        "cut inside a word at {at}"
    );
    assert!(!".,;:!?)]}".contains(after), "piece starts with closing punctuation {after:?} in {}", doc.title);
}

#[test]
fn every_chunk_of_real_documents_keeps_the_rules() {
    let tok = tokenizer();
    for budget in [256, 128, 64] {
        for pack_sections_below in [0, 64] {
            let cfg = ChunkConfig { budget, contextual_header: true, pack_sections_below, ..ChunkConfig::default() };
            for doc in corpus() {
                let chunks = chunk_document(&doc, &tok, &cfg);
                check(&doc, &chunks, &tok, &cfg);
            }
        }
    }
}

#[test]
fn small_sections_of_real_documents_share_chunks_under_their_parent() {
    let tok = tokenizer();
    let alone = ChunkConfig::default().for_model(&tok);
    let packed = ChunkConfig { pack_sections_below: 64, ..alone };
    let (mut before, mut after, mut shared) = (0, 0, 0);
    for doc in corpus() {
        let one = chunk_document(&doc, &tok, &alone);
        let many = chunk_document(&doc, &tok, &packed);
        before += one.len();
        after += many.len();
        for c in &many {
            let headings: Vec<&str> = doc
                .blocks
                .iter()
                .filter(|b| c.bytes.start <= b.range.start && b.range.end <= c.bytes.end)
                .filter(|b| matches!(b.kind, BlockKind::Heading { .. }))
                .map(|b| doc.slice(b))
                .collect();
            if headings.is_empty() {
                continue;
            }
            shared += 1;
            // Labelled by the path above the sections it holds: a heading is
            // quoted or named in the header, not both.
            for name in &headings {
                let name = name.split_whitespace().collect::<Vec<_>>().join(" ");
                assert!(!c.section.contains(&name), "{name:?} quoted and in the path");
            }
        }
    }
    assert!(shared > 0, "some small sections share a chunk");
    assert!(after < before, "packing makes fewer chunks: {after} of {before}");
}

#[test]
fn headers_carry_title_and_section_path() {
    let tok = tokenizer();
    let cfg = ChunkConfig::default().for_model(&tok);
    let doc = corpus().into_iter().find(|d| d.title.starts_with("Shared-State Concurrency")).expect("book page");
    let chunks = chunk_document(&doc, &tok, &cfg);
    let mutex =
        chunks.iter().find(|c| c.content.starts_with("Mutex is an abbreviation")).expect("mutex paragraph chunk");
    assert_eq!(mutex.section, ["Shared-State Concurrency", "Controlling Access with Mutexes"]);
    assert!(
        mutex.text.starts_with(
            "Shared-State Concurrency - The Rust Programming Language > Controlling Access with Mutexes\n\n"
        )
    );
    let bare =
        chunk_document(&doc, &tok, &ChunkConfig { budget: 256, contextual_header: false, ..ChunkConfig::default() });
    assert!(bare.iter().all(|c| c.text == c.content && c.header_tokens == 0));
}

#[test]
fn oversized_paragraph_splits_at_sentences() {
    let tok = tokenizer();
    let sentence = "The embedder refuses to truncate silently, so the chunker must cut long paragraphs itself. ";
    let text = sentence.repeat(40);
    let doc = Document {
        title: "Long".into(),
        kind: ragpipe_core::Kind::Text,
        blocks: vec![ragpipe_core::Block { kind: BlockKind::Paragraph, range: 0..text.trim_end().len(), page: None }],
        text,
        tables: Vec::new(),
        duration: None,
        regions: Vec::new(),
        ocr_pages: Vec::new(),
        warnings: Vec::new(),
    };
    let cfg = ChunkConfig { budget: 96, contextual_header: true, ..ChunkConfig::default() };
    let chunks = chunk_document(&doc, &tok, &cfg);
    assert!(chunks.len() > 3);
    for c in &chunks {
        assert!(c.content.starts_with("The embedder") && c.content.ends_with("itself."), "{:?}", c.content);
        assert!(c.tokens as usize <= 96);
    }
}
