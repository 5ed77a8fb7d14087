//! The prose chunker (HTML, Markdown, text, PDF pages, transcripts): a chunk
//! never spans two pages, nor two sections unless `pack_sections_below`
//! lets small ones share it (see `sections.rs`), never cuts inside a
//! paragraph that fits, and splits an oversized paragraph only at sentence
//! boundaries.

use crate::pack::{Context, Unit};
use crate::sections::{Label, Path, Piece, Sections};
use crate::split::{Grain, units_for};
use crate::{ChunkConfig, TokenCounter, header_for, table};
use ragpipe_core::{BlockKind, Chunk, Document};

pub(crate) fn chunk(doc: &Document, counter: &dyn TokenCounter, cfg: &ChunkConfig) -> Vec<Chunk> {
    let mut out = Vec::new();
    let mut path: Path = Vec::new();
    let mut section = Section::default();
    let mut sections = Sections::new(doc, counter, cfg);
    for (i, block) in doc.blocks.iter().enumerate() {
        if section.page != block.page {
            // Taken even when empty: a heading at a page's foot is not
            // quoted with a body on the next.
            sections.add(section.take(doc, &path, counter, cfg), &mut out);
        }
        section.page = block.page;
        match block.kind {
            BlockKind::Heading { level } => {
                sections.add(section.take(doc, &path, counter, cfg), &mut out);
                while path.last().is_some_and(|(l, _)| *l >= level) {
                    path.pop();
                }
                path.push((level, heading_name(doc.slice(block))));
                section.heading = Some(block.range.clone());
            }
            BlockKind::Paragraph | BlockKind::ListItem => section.blocks.push((block.range.clone(), Grain::Sentences)),
            BlockKind::Code | BlockKind::CodeItem { .. } => section.blocks.push((block.range.clone(), Grain::Lines)),
            // A table is chunked whole by the table packer at its first row
            // (whole rows, header repeated), after the prose before it.
            BlockKind::TableRow { .. } => {
                if table::starts_run(doc, i) {
                    sections.add(section.take(doc, &path, counter, cfg), &mut out);
                    sections.close(&mut out);
                    let names: Vec<String> = path.iter().map(|(_, n)| n.clone()).collect();
                    let (header, _) = fit_header(&doc.title, &names, caption(doc, i), counter, cfg);
                    let ctx = Context { section: &names, header: &header, page: block.page };
                    table::pack(doc, i, &ctx, counter, cfg, &mut out);
                }
            }
            // Cues get their own chunker (extractor issue); until then they
            // are read as lines of prose.
            BlockKind::Cue { .. } => section.blocks.push((block.range.clone(), Grain::Sentences)),
        }
    }
    sections.add(section.take(doc, &path, counter, cfg), &mut out);
    sections.close(&mut out);
    out
}

/// Longest heading name kept in a section path, in chars. Every chunk of a
/// section carries its path, so a 10 MB "heading" (a one-line Markdown file
/// starting with `#`) must not be copied into each of them.
const MAX_HEADING_CHARS: usize = 200;

/// A heading as it stands in section paths: whitespace collapsed, at most
/// [`MAX_HEADING_CHARS`] chars, an ellipsis where it was cut.
fn heading_name(heading: &str) -> String {
    let mut name = String::new();
    for (i, word) in heading.split_whitespace().enumerate() {
        if i > 0 {
            name.push(' ');
        }
        name.push_str(word);
        if name.len() > MAX_HEADING_CHARS * 4 {
            break;
        }
    }
    match name.char_indices().nth(MAX_HEADING_CHARS) {
        Some((cut, _)) => format!("{}…", &name[..cut]),
        None => name,
    }
}

/// The body blocks collected since the last heading or page break.
#[derive(Default)]
struct Section {
    blocks: Vec<(std::ops::Range<usize>, Grain)>,
    /// The heading that opened it, on its page.
    heading: Option<std::ops::Range<usize>>,
    page: Option<u32>,
}

impl Section {
    /// The section's body as units that fit under its own header, and its
    /// heading as one more unit, if it has a body; the section is left empty.
    fn take(&mut self, doc: &Document, path: &Path, counter: &dyn TokenCounter, cfg: &ChunkConfig) -> Option<Piece> {
        let heading = self.heading.take();
        if self.blocks.is_empty() {
            return None;
        }
        let label = Label::new(path.clone(), doc, counter, cfg);
        let units: Vec<Unit> = self
            .blocks
            .drain(..)
            .flat_map(|(range, grain)| units_for(&doc.text, range, grain, label.room, counter))
            .collect();
        // Only a pack quotes a heading, so only packing measures one.
        let heading = heading
            .filter(|_| cfg.pack_sections_below > 0)
            .map(|range| Unit { tokens: crate::measure(counter, &doc.text[range.clone()]), range });
        Some(Piece { label, heading, units, page: self.page })
    }
}

/// The short paragraph right before the table starting at block `i`, if it
/// is a label rather than a sentence (a caption, a chart's title, "Fees per
/// plan:"): the table's chunks carry it in their header, so a row is found
/// by what the table is about.
fn caption(doc: &Document, i: usize) -> Option<String> {
    let before = doc.blocks.get(i.checked_sub(1)?)?;
    if before.kind != BlockKind::Paragraph || before.page != doc.blocks[i].page {
        return None;
    }
    let words: Vec<&str> = doc.slice(before).split_whitespace().collect();
    // A sentence is prose (the paragraph before a layout table, a note);
    // a caption is a label: "Table 4.1. The files", "Fees per plan:".
    let sentence = words.last().is_some_and(|w| w.ends_with(['.', '!', '?']));
    (!words.is_empty() && words.len() <= CAPTION_WORDS && !sentence).then(|| words.join(" "))
}

/// The most words a paragraph before a table has to be its caption.
const CAPTION_WORDS: usize = 20;

/// The header for a section, shortened when a deep or long heading path would
/// eat more than a quarter of the budget: first to title and innermost
/// section, then to nothing. Returns the header and the tokens it costs in
/// `text` (its own plus the blank line, which costs none). A table's
/// `caption` ([`caption`]) follows the path when the whole still fits, and
/// is the first thing dropped when it does not.
pub(crate) fn fit_header(
    title: &str,
    names: &[String],
    caption: Option<String>,
    counter: &dyn TokenCounter,
    cfg: &ChunkConfig,
) -> (String, usize) {
    if !cfg.contextual_header {
        return (String::new(), 0);
    }
    let limit = cfg.budget / 4;
    if let Some(caption) = caption {
        let told: Vec<String> = names.iter().cloned().chain([caption]).collect();
        let full = header_for(title, &told);
        let tokens = crate::measure(counter, &full);
        if tokens <= limit {
            return (full, tokens);
        }
    }
    let full = header_for(title, names);
    let tokens = crate::measure(counter, &full);
    if tokens <= limit {
        return (full, tokens);
    }
    let short = header_for(title, names.last().map(std::slice::from_ref).unwrap_or(&[]));
    let tokens = crate::measure(counter, &short);
    if tokens <= limit {
        return (short, tokens);
    }
    (String::new(), 0)
}
