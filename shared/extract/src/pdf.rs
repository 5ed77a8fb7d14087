//! PDF via `pdf-extract` (on `lopdf`), page by page.
//!
//! Canonical text: the pages' texts joined by a form feed (`\f`, U+000C), so
//! page N is exactly the N-th `\f`-separated part of the text (an empty page
//! stays an empty part) and no other form feed ever occurs in it. Within a
//! page, paragraphs are separated by a blank line and the lines of a
//! paragraph by `\n`, as they were laid out. Every block carries its 1-based
//! page, so the prose chunker never lets a chunk cross a page and cites it
//! with `#page=N`.
//!
//! Running headers, footers and page numbers are removed first (see
//! [`furniture`]), then the entries of a table of contents or an index
//! ([`contents`]); a short, larger-than-body paragraph is a heading, and so
//! is a line at the body's size numbered under one ([`outline`]).
//!
//! pdf-extract may panic, recurse without bound or loop on hostile files; the
//! extractor stage runs this in a child process with resource limits for that
//! reason, so this module only has to be right on files that are merely bad.

mod contents;
mod furniture;
mod layout;
mod outline;
mod scanned;
mod tables;

use crate::ocr::{OCR_DISABLED, PageReader};
use crate::{ExtractError, Limits, fallback_title};
use crate::{builder, hyphens};
use layout::{Collector, Line, Page};
use ragpipe_core::{Block, BlockKind, Document, Kind, Table};

/// The reason given for a PDF that needs a password to open.
pub(crate) const ENCRYPTED: &str = "encrypted PDF";
/// Why a PDF whose pages hold no text (scanned images) fails with OCR off.
pub const NO_TEXT_LAYER: &str = "no text layer";

/// A PDF's text layer; when no page has one (a scan), its page images read
/// by `ocr`.
pub(crate) fn extract(
    name: &str,
    bytes: &[u8],
    ocr: Option<&mut dyn PageReader>,
    limits: &Limits,
) -> Result<Document, ExtractError> {
    let mut doc = pdf_extract::Document::load_mem(bytes).map_err(load_error)?;
    // A file with only an owner password opens with the empty user password;
    // one that needs a user password cannot be read without it.
    if doc.is_encrypted() && doc.decrypt("").is_err() {
        return Err(ExtractError::Malformed(ENCRYPTED.into()));
    }
    let count = doc.get_pages().len();
    if count == 0 {
        return Err(malformed("no pages"));
    }
    if count > limits.max_pages as usize {
        return Err(ExtractError::Limit(format!("{count} pages exceeds max_pages {}", limits.max_pages)));
    }
    let mut collector = Collector::default();
    pdf_extract::output_doc(&doc, &mut collector).map_err(|e| malformed(&e.to_string()))?;
    pdf_extract::OutputDev::end_page(&mut collector).map_err(|e| malformed(&e.to_string()))?;
    let mut pages = collector.pages;
    let title = info_title(&doc).unwrap_or_else(|| fallback_title(name));
    if pages.iter().all(|p| p.lines.is_empty()) {
        return match ocr {
            Some(reader) => scanned::extract(&doc, title, reader, limits),
            None => Err(ExtractError::Malformed(format!("{NO_TEXT_LAYER}: {OCR_DISABLED}"))),
        };
    }
    furniture::strip(&mut pages);
    contents::strip(&mut pages);
    Ok(assemble(title, &pages))
}

fn malformed(why: &str) -> ExtractError {
    ExtractError::Malformed(format!("malformed PDF: {why}"))
}

fn load_error(e: pdf_extract::Error) -> ExtractError {
    match e {
        pdf_extract::Error::Decryption(_) | pdf_extract::Error::InvalidPassword => {
            ExtractError::Malformed(ENCRYPTED.into())
        }
        other => malformed(&other.to_string()),
    }
}

/// The document's own title from its Info dictionary, when it has one.
fn info_title(doc: &pdf_extract::Document) -> Option<String> {
    let info = doc.trailer.get_deref(b"Info", doc).ok()?.as_dict().ok()?;
    let title = pdf_extract::decode_text_string(info.get_deref(b"Title", doc).ok()?).ok()?;
    let title = title.split_whitespace().collect::<Vec<_>>().join(" ");
    (!title.is_empty()).then_some(title)
}

/// What a page is made of, in reading order: paragraphs (with their
/// heading level, if they are headings, and their lines) and tables.
enum Part {
    Paragraph(Option<u8>, Vec<String>),
    Table(tables::Found),
}

impl Part {
    /// The heading level of a paragraph that is a heading.
    fn level(&self) -> Option<u8> {
        match self {
            Part::Paragraph(level, _) => *level,
            Part::Table(_) => None,
        }
    }
}

/// The table that ended the page before: its index, its last row's number
/// and where its columns lie.
struct OpenTable {
    table: u32,
    last_row: u32,
    columns: Vec<(f64, f64)>,
}

/// Writes the canonical text and its blocks, page after page, with words
/// broken across lines made whole (see [`hyphens`]) and tables written as
/// rows of cells (see [`tables`]).
fn assemble(title: String, pages: &[Page]) -> Document {
    let body = body_size(pages);
    let levels = heading_sizes(pages, body);
    let mut laid_out: Vec<Vec<Part>> = pages.iter().map(|page| parts(page, body, &levels)).collect();
    title_page(&mut laid_out);
    outline::numbered_headings(&mut laid_out);
    let paragraphs = laid_out.iter_mut().flatten().filter_map(|part| match part {
        Part::Paragraph(_, lines) => Some(lines),
        Part::Table(_) => None,
    });
    hyphens::rejoin_all(paragraphs, hyphens::Layout::Typeset);
    let mut text = String::new();
    let mut blocks = Vec::new();
    let mut tables = Vec::new();
    let mut open: Option<OpenTable> = None;
    for (i, (page, parts)) in pages.iter().zip(&mut laid_out).enumerate() {
        if i > 0 {
            text.push('\u{c}');
        }
        let last = parts.len().saturating_sub(1);
        for (j, part) in parts.iter_mut().enumerate() {
            if j > 0 {
                text.push_str("\n\n");
            }
            let page = Some(page.number);
            match part {
                Part::Paragraph(level, lines) => {
                    lines.retain(|l| !l.is_empty());
                    let start = text.len();
                    text.push_str(&lines.join("\n"));
                    let kind = match *level {
                        Some(level) => BlockKind::Heading { level },
                        None => BlockKind::Paragraph,
                    };
                    blocks.push(Block { kind, range: start..text.len(), page });
                }
                Part::Table(found) => {
                    // A table at the top of a page that goes on with the one
                    // that ended the page before is the same table, so its
                    // rows are chunked under that table's header.
                    let (table, first_row) = match open.take() {
                        Some(before) if j == 0 && found.goes_on_from(&before.columns) => {
                            (before.table, before.last_row + 1)
                        }
                        _ => {
                            tables.push(Table {
                                sheet: String::new(),
                                first_col: 1,
                                last_col: found.columns.len() as u32,
                            });
                            (tables.len() as u32 - 1, 1)
                        }
                    };
                    for (r, cells) in found.rows.iter().enumerate() {
                        if r > 0 {
                            text.push('\n');
                        }
                        let start = text.len();
                        let used = cells.iter().rposition(|c| !c.is_empty()).map_or(0, |k| k + 1);
                        builder::push_row(&mut text, cells[..used].iter().map(String::as_str));
                        let row = first_row + r as u32;
                        let kind = BlockKind::TableRow { table, row, header: found.header && r == 0 };
                        blocks.push(Block { kind, range: start..text.len(), page });
                    }
                    if j == last {
                        let last_row = first_row + found.rows.len() as u32 - 1;
                        open = Some(OpenTable { table, last_row, columns: found.columns.clone() });
                    }
                }
            }
        }
        if parts.last().is_none_or(|p| !matches!(p, Part::Table(_))) {
            open = None;
        }
    }
    Document {
        title,
        kind: Kind::Pdf,
        text,
        blocks,
        tables,
        duration: None,
        regions: Vec::new(),
        ocr_pages: Vec::new(),
        warnings: Vec::new(),
    }
}

/// A page's paragraphs and tables in reading order: a table stands where
/// its lines were, the lines between tables are grouped into paragraphs.
fn parts(page: &Page, body: f64, levels: &[i64]) -> Vec<Part> {
    let mut out = Vec::new();
    let prose = |lines: &[Line], out: &mut Vec<Part>| {
        for para in paragraphs(lines) {
            let level = heading_level(&para, body, levels);
            out.push(Part::Paragraph(level, para.iter().map(|l| l.text.clone()).collect()));
        }
    };
    let mut at = 0;
    for table in tables::find(page) {
        prose(&page.lines[at..table.lines.start], &mut out);
        at = table.lines.end;
        out.push(Part::Table(table));
    }
    prose(&page.lines[at..], &mut out);
    out
}

/// Groups a page's lines into paragraphs: a new one starts where the gap to
/// the previous baseline is wider than ordinary line spacing (1.4 em), where
/// the text moves up (a new column or box), or where the font size changes.
fn paragraphs(lines: &[Line]) -> Vec<Vec<&Line>> {
    let mut out: Vec<Vec<&Line>> = Vec::new();
    for line in lines {
        let joins = out.last().and_then(|p| p.last()).is_some_and(|prev| {
            let gap = prev.y - line.y;
            let size = prev.size.max(line.size);
            gap > 0.0 && gap <= 1.4 * size && similar(prev.size, line.size)
        });
        match out.last_mut() {
            Some(p) if joins => p.push(line),
            _ => out.push(vec![line]),
        }
    }
    out
}

fn similar(a: f64, b: f64) -> bool {
    a.max(b) <= 1.1 * a.min(b)
}

/// Font sizes are compared at half-point resolution.
fn rounded(size: f64) -> i64 {
    (size * 2.0).round() as i64
}

/// The body font size: the size most characters are set in.
fn body_size(pages: &[Page]) -> f64 {
    let mut weight: std::collections::HashMap<i64, usize> = std::collections::HashMap::new();
    for line in pages.iter().flat_map(|p| &p.lines) {
        *weight.entry(rounded(line.size)).or_default() += line.text.chars().count();
    }
    weight.into_iter().max_by_key(|&(size, n)| (n, -size)).map_or(12.0, |(s, _)| s as f64 / 2.0)
}

/// A heading is a short paragraph (at most two lines, 150 characters) set
/// at least 15 % larger than the body text.
fn is_heading(para: &[&Line], body: f64) -> bool {
    let chars: usize = para.iter().map(|l| l.text.chars().count()).sum();
    para.len() <= 2
        && chars <= 150
        && para[0].size >= 1.15 * body
        && para.iter().any(|l| l.text.chars().any(char::is_alphabetic))
}

/// Distinct heading sizes, largest first: the largest is level 1.
fn heading_sizes(pages: &[Page], body: f64) -> Vec<i64> {
    let mut sizes: Vec<i64> = pages
        .iter()
        .flat_map(|p| paragraphs(&p.lines))
        .filter(|para| is_heading(para, body))
        .map(|para| rounded(para[0].size))
        .collect();
    sizes.sort_unstable_by(|a, b| b.cmp(a));
    sizes.dedup();
    sizes
}

/// A title page (the first page of a longer document, holding nothing but
/// lines set larger than the body: a title, then a subtitle, a date, an
/// author, as DocBook and LaTeX set them) is not the outline: its first
/// line of the highest level is the title, a heading; the others are text,
/// or `Publish date: 2024-01-31` would be the parent of every section.
fn title_page(laid_out: &mut [Vec<Part>]) {
    let [first, _, ..] = laid_out else { return };
    let Some(levels) = first.iter().map(Part::level).collect::<Option<Vec<u8>>>() else { return };
    // The first of the highest level (`min_by_key` keeps the first of equals).
    let Some((top, _)) = levels.iter().enumerate().min_by_key(|&(_, level)| level) else { return };
    for (k, part) in first.iter_mut().enumerate() {
        if let Part::Paragraph(level, _) = part
            && k != top
        {
            *level = None;
        }
    }
}

fn heading_level(para: &[&Line], body: f64, sizes: &[i64]) -> Option<u8> {
    if !is_heading(para, body) {
        return None;
    }
    let rank = sizes.iter().position(|&s| s == rounded(para[0].size))?;
    Some((rank + 1).min(6) as u8)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(y: f64, size: f64, text: &str) -> Line {
        Line { y, size, text: text.into(), ..Line::default() }
    }

    #[test]
    fn pages_join_with_form_feed_and_blocks_carry_their_page() {
        let pages = vec![
            Page {
                number: 1,
                lines: vec![
                    line(800.0, 18.0, "Overview"),
                    line(770.0, 11.0, "First line of a paragraph"),
                    line(757.0, 11.0, "and its second line."),
                    line(730.0, 11.0, "Next paragraph."),
                ],
                ..Page::default()
            },
            Page { number: 2, ..Page::default() },
            Page { number: 3, lines: vec![line(800.0, 11.0, "Last page.")], ..Page::default() },
        ];
        let doc = assemble("Guide".into(), &pages);
        assert_eq!(
            doc.text,
            "Overview\n\nFirst line of a paragraph\nand its second line.\n\nNext paragraph.\u{c}\u{c}Last page."
        );
        let got: Vec<(&str, Option<u32>, bool)> = doc
            .blocks
            .iter()
            .map(|b| (doc.slice(b), b.page, matches!(b.kind, BlockKind::Heading { level: 1 })))
            .collect();
        assert_eq!(
            got,
            [
                ("Overview", Some(1), true),
                ("First line of a paragraph\nand its second line.", Some(1), false),
                ("Next paragraph.", Some(1), false),
                ("Last page.", Some(3), false),
            ]
        );
        for b in &doc.blocks {
            let page = doc.text.split('\u{c}').nth(b.page.unwrap() as usize - 1).unwrap();
            assert!(page.contains(doc.slice(b)));
        }
    }

    #[test]
    fn a_title_page_s_date_and_author_are_no_headings() {
        let title_page = vec![
            line(700.0, 24.0, "Field Manual"),
            line(640.0, 16.0, "Published 2024-01-31"),
            line(600.0, 14.4, "Ana Ruiz"),
        ];
        let chapter = |n: u32, title: &str| Page {
            number: n,
            lines: vec![line(800.0, 17.0, title), line(770.0, 10.0, "Body text."), line(757.0, 10.0, "More body.")],
            ..Page::default()
        };
        let pages = vec![
            Page { number: 1, lines: title_page, ..Page::default() },
            chapter(2, "1. Setup"),
            chapter(3, "2. Use"),
        ];
        let doc = assemble("Field Manual".into(), &pages);
        assert_eq!(doc.headings(), [("Field Manual", 1), ("1. Setup", 2), ("2. Use", 2)]);
        assert!(doc.text.starts_with("Field Manual\n\nPublished 2024-01-31\n\nAna Ruiz\u{c}"), "{:?}", doc.text);
        // A one-page document keeps its sizes: its first page is all of it.
        let mut memo = pages[0].clone();
        memo.lines.extend([line(560.0, 10.0, "Body text."), line(547.0, 10.0, "More body.")]);
        let one = assemble("Memo".into(), &[memo]);
        assert_eq!(one.blocks.iter().filter(|b| matches!(b.kind, BlockKind::Heading { .. })).count(), 3);
    }

    #[test]
    fn garbage_and_limits_have_precise_reasons() {
        let err = extract("x.pdf", b"%PDF-1.7\nnot really a pdf", None, &Limits::default()).unwrap_err();
        assert!(err.to_string().starts_with("malformed PDF: "), "{err}");
    }
}
