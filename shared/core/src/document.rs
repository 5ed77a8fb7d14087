//! The canonical document: one text that every locator indexes into, plus
//! blocks that say what each span of it is (heading, paragraph, code, …).

use serde::{Deserialize, Serialize};
use std::ops::Range;

/// What kind of source a document came from; decides extractor and chunker.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    Html,
    Markdown,
    Text,
    Pdf,
    Spreadsheet,
    Csv,
    Code,
    Audio,
    /// A scanned page or photo of text (PNG, JPEG, TIFF, WebP): read by OCR.
    Image,
    /// A word-processor document: Office Open XML (`.docx`) or OpenDocument
    /// text (`.odt`).
    Word,
    /// A slide deck: Office Open XML (`.pptx`) or OpenDocument presentation
    /// (`.odp`); each slide is a page.
    Presentation,
    /// E-mail: a message (`.eml`, Outlook's `.msg`) or a mailbox (`.mbox`).
    Email,
    /// An e-book (`.epub`): its chapters' XHTML in reading order.
    Ebook,
    /// An archive (`.zip`, `.tar`, `.tar.gz`, `.tgz`, `.gz`): the documents
    /// it holds, each under a heading of its path.
    Archive,
    /// A timed transcript on its own (WebVTT `.vtt`, SubRip `.srt`): a
    /// meeting's or a video's captions with no recording beside them. One
    /// beside its recording is that recording's sidecar, not a document.
    Transcript,
}

impl Kind {
    /// Every kind, in the order people read them in lists.
    pub const ALL: [Kind; 15] = [
        Kind::Html,
        Kind::Markdown,
        Kind::Text,
        Kind::Pdf,
        Kind::Word,
        Kind::Presentation,
        Kind::Email,
        Kind::Ebook,
        Kind::Archive,
        Kind::Spreadsheet,
        Kind::Csv,
        Kind::Code,
        Kind::Audio,
        Kind::Transcript,
        Kind::Image,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Html => "html",
            Kind::Markdown => "markdown",
            Kind::Text => "text",
            Kind::Pdf => "pdf",
            Kind::Spreadsheet => "spreadsheet",
            Kind::Csv => "csv",
            Kind::Code => "code",
            Kind::Audio => "audio",
            Kind::Image => "image",
            Kind::Word => "word",
            Kind::Presentation => "presentation",
            Kind::Email => "email",
            Kind::Ebook => "ebook",
            Kind::Archive => "archive",
            Kind::Transcript => "transcript",
        }
    }

    pub fn parse(s: &str) -> Option<Kind> {
        Some(match s {
            "html" => Kind::Html,
            "markdown" => Kind::Markdown,
            "text" => Kind::Text,
            "pdf" => Kind::Pdf,
            "spreadsheet" => Kind::Spreadsheet,
            "csv" => Kind::Csv,
            "code" => Kind::Code,
            "audio" => Kind::Audio,
            "image" => Kind::Image,
            "word" => Kind::Word,
            "presentation" => Kind::Presentation,
            "email" => Kind::Email,
            "ebook" => Kind::Ebook,
            "archive" => Kind::Archive,
            "transcript" => Kind::Transcript,
            _ => return None,
        })
    }
}

/// What a span of the canonical text is. Chunkers use it to keep structure:
/// headings open sections, paragraphs are never cut unless oversized, code and
/// preformatted blocks stay whole where they fit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum BlockKind {
    /// A section heading at `level` (1 = top); its text names the section.
    Heading {
        level: u8,
    },
    Paragraph,
    /// A list item; adjacent items read as one unit.
    ListItem,
    /// Preformatted or fenced code; split only at line boundaries.
    Code,
    /// One row of table `table` (an index into [`Document::tables`]); `row` is
    /// its 1-based row number in the source (the spreadsheet row, or the row's
    /// position in an HTML/Markdown table). Header rows are repeated at the
    /// top of every chunk of their table.
    TableRow {
        table: u32,
        row: u32,
        header: bool,
    },
    /// A syntax item of source code (function, method, class, impl block),
    /// with the names of the items enclosing it and its own, outermost first,
    /// e.g. `["impl Foo", "fn bar"]`. Doc comments belong to the item.
    CodeItem {
        path: Vec<String>,
    },
    /// A transcript cue spoken from `start` to `end` seconds.
    Cue {
        start: f64,
        end: f64,
    },
}

/// One structural span of [`Document::text`]. `range` is a byte range that
/// always falls on char boundaries and was found in the text, not summed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Block {
    pub kind: BlockKind,
    pub range: Range<usize>,
    /// 1-based page for paged sources (a PDF page, a presentation's slide).
    pub page: Option<u32>,
}

/// A table the document holds (a spreadsheet sheet, or a `<table>`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Table {
    /// The sheet name for spreadsheets; empty for tables inside prose.
    pub sheet: String,
    /// 1-based first and last column, for A1 ranges.
    pub first_col: u32,
    pub last_col: u32,
}

/// The extractor's output: a title, one canonical text and its blocks in order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Document {
    pub title: String,
    pub kind: Kind,
    pub text: String,
    pub blocks: Vec<Block>,
    /// Tables referenced by [`BlockKind::TableRow`] blocks.
    #[serde(default)]
    pub tables: Vec<Table>,
    /// Media duration in seconds, for audio and video.
    #[serde(default)]
    pub duration: Option<f64>,
    /// Where spans of the text were read on a page image (OCR), in text order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub regions: Vec<Region>,
    /// How well each OCR'd page was read.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ocr_pages: Vec<OcrPage>,
    /// What the reader left out of an indexed document and why (an e-mail
    /// attachment it could not read, say): shown with the document as its
    /// warning, as low OCR confidence is.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// A span of the canonical text (`range`, bytes) and the rectangle of page
/// `page` it was read from: `[x, y, w, h]` in pixels of the page image, from
/// its top-left corner. Chunks cite the union of the regions they cover.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Region {
    pub range: Range<usize>,
    pub page: u32,
    pub rect: [u32; 4],
}

/// One OCR'd page: its 1-based number and the mean confidence (0-1) of its
/// characters; `low` when under the configured threshold (reported).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OcrPage {
    pub page: u32,
    pub confidence: f32,
    pub low: bool,
}

/// Pages named in a low-confidence warning before the rest are counted.
const WARNED_PAGES_LISTED: usize = 10;

/// The warning an indexed document carries when OCR read some of its pages
/// with low confidence: `ocr: low confidence on 2 of 5 pages: 3 (0.620),
/// 7 (0.714)`; `None` when no page is low.
pub fn low_confidence_warning(pages: &[OcrPage]) -> Option<String> {
    let low: Vec<&OcrPage> = pages.iter().filter(|p| p.low).collect();
    if low.is_empty() {
        return None;
    }
    let listed: Vec<String> =
        low.iter().take(WARNED_PAGES_LISTED).map(|p| format!("{} ({:.3})", p.page, p.confidence)).collect();
    let more = low.len().saturating_sub(WARNED_PAGES_LISTED);
    let more = if more > 0 { format!(" and {more} more") } else { String::new() };
    let of = if pages.len() == 1 { "the page".to_string() } else { format!("{} of {} pages", low.len(), pages.len()) };
    Some(format!("ocr: low confidence on {of}: {}{more}", listed.join(", ")))
}

impl Document {
    /// The text of one block.
    pub fn slice(&self, block: &Block) -> &str {
        &self.text[block.range.clone()]
    }

    /// The headings, in order: their text and level.
    pub fn headings(&self) -> Vec<(&str, u8)> {
        self.blocks
            .iter()
            .filter_map(|b| match b.kind {
                BlockKind::Heading { level } => Some((self.slice(b), level)),
                _ => None,
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_reads_back_from_its_name() {
        for kind in Kind::ALL {
            assert_eq!(Kind::parse(kind.as_str()), Some(kind));
            let json = serde_json::to_string(&kind).unwrap();
            assert_eq!(json, format!("\"{}\"", kind.as_str()), "serde and as_str agree");
        }
        let names: std::collections::HashSet<_> = Kind::ALL.iter().map(|k| k.as_str()).collect();
        assert_eq!(names.len(), Kind::ALL.len());
    }

    fn pages(confidences: &[f32]) -> Vec<OcrPage> {
        let page = |(i, &confidence): (usize, &f32)| OcrPage { page: i as u32 + 1, confidence, low: confidence < 0.8 };
        confidences.iter().enumerate().map(page).collect()
    }

    #[test]
    fn low_pages_are_named_with_their_confidence() {
        assert_eq!(low_confidence_warning(&pages(&[0.95, 0.97])), None);
        assert_eq!(
            low_confidence_warning(&pages(&[0.95, 0.62, 0.9, 0.714])).as_deref(),
            Some("ocr: low confidence on 2 of 4 pages: 2 (0.620), 4 (0.714)")
        );
        assert_eq!(
            low_confidence_warning(&pages(&[0.5])).as_deref(),
            Some("ocr: low confidence on the page: 1 (0.500)")
        );
        let long = low_confidence_warning(&pages(&[0.1; 25])).unwrap();
        assert!(long.starts_with("ocr: low confidence on 25 of 25 pages: 1 (0.100), 2 (0.100)"), "{long}");
        assert!(long.ends_with("10 (0.100) and 15 more"), "{long}");
    }
}
