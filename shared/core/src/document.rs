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
}

impl Kind {
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
            _ => return None,
        })
    }
}

/// What a span of the canonical text is. Chunkers use it to keep structure:
/// headings open sections, paragraphs are never cut unless oversized, code and
/// preformatted blocks stay whole where they fit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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
}

/// One structural span of [`Document::text`]. `range` is a byte range that
/// always falls on char boundaries and was found in the text, not summed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Block {
    pub kind: BlockKind,
    pub range: Range<usize>,
    /// 1-based page for paged sources (PDF).
    pub page: Option<u32>,
}

/// The extractor's output: a title, one canonical text and its blocks in order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Document {
    pub title: String,
    pub kind: Kind,
    pub text: String,
    pub blocks: Vec<Block>,
}

impl Document {
    /// The text of one block.
    pub fn slice(&self, block: &Block) -> &str {
        &self.text[block.range.clone()]
    }
}
