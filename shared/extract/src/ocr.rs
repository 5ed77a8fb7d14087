//! Scanned pages: image files, and PDF pages that are only pictures, read
//! by OCR behind the [`PageReader`] port (the extraction child plugs the
//! PP-OCRv6 engine in; `None` means OCR is off and such documents fail
//! saying so).
//!
//! Canonical text, as for PDF: the pages' texts joined by a form feed, so
//! page N is the N-th `\f`-separated part. Within a page, lines follow the
//! engine's reading order (columns, then top to bottom); a paragraph is a
//! run of lines close under each other, its lines joined by `\n` (words
//! found apart on one row by a space), paragraphs by a blank line. Every
//! line records the rectangle it was read from ([`Region`]), which chunks
//! cite as `&xywh=`.

use crate::{ExtractError, Limits, fallback_title, hyphens};
use ragpipe_core::{Block, BlockKind, Document, Kind, OcrPage, Region};
use ragpipe_ocr::{DecodeLimits, GrayImage, PageText, order};

/// The reason given when a document needs OCR and it is off.
pub const OCR_DISABLED: &str = "ocr disabled ([ocr] engine = \"off\")";
/// The reason given when OCR read nothing on any page.
pub const NO_TEXT_FOUND: &str = "ocr found no text";

/// Reads the text of one page image.
pub trait PageReader {
    /// The page's lines in reading order, with their rectangles.
    fn read(&mut self, page: &GrayImage) -> Result<PageText, String>;
    /// Pages read with a lower mean confidence are marked `low`.
    fn low_confidence(&self) -> f32;
}

/// The decoding limits of an image under the document limits.
pub(crate) fn decode_limits(limits: &Limits) -> DecodeLimits {
    DecodeLimits { max_pixels: limits.max_image_pixels, max_pages: limits.max_pages }
}

/// An image file (PNG, JPEG, WebP, TIFF with any number of pages): decoded
/// and read one page at a time, so a long scan costs one page of memory.
pub(crate) fn extract_image(
    name: &str,
    bytes: &[u8],
    reader: Option<&mut dyn PageReader>,
    limits: &Limits,
) -> Result<Document, ExtractError> {
    let pages = ragpipe_ocr::decode_pages(bytes, decode_limits(limits)).map_err(ocr_error)?;
    let reader = reader.ok_or_else(|| ExtractError::Malformed(OCR_DISABLED.into()))?;
    let mut read = Vec::new();
    for page in pages {
        let page = page.map_err(ocr_error)?;
        read.push(reader.read(&page).map_err(ExtractError::Malformed)?);
    }
    assemble(fallback_title(name), Kind::Image, &read, reader.low_confidence())
}

/// `image too large: …`, `unsupported image: …` as they are.
pub(crate) fn ocr_error(e: ragpipe_ocr::OcrError) -> ExtractError {
    ExtractError::Malformed(e.to_string())
}

/// Writes the canonical text, blocks and regions of OCR'd pages (page 1
/// first), with words broken across lines made whole (see [`hyphens`]; a
/// line keeps its rectangle when the half it began with moves up, and one
/// left empty is left out).
pub(crate) fn assemble(title: String, kind: Kind, pages: &[PageText], low: f32) -> Result<Document, ExtractError> {
    let mut laid_out: Vec<Vec<(usize, Vec<String>)>> = pages
        .iter()
        .map(|page| {
            order::paragraphs(&page.lines)
                .into_iter()
                // A form feed would break the page split; OCR never reads one, but be sure.
                .map(|para| (para.start, page.lines[para].iter().map(|l| l.text.replace('\u{c}', " ")).collect()))
                .collect()
        })
        .collect();
    hyphens::rejoin_all(laid_out.iter_mut().flatten().map(|(_, lines)| lines), hyphens::Layout::Typeset);
    let mut text = String::new();
    let (mut blocks, mut regions, mut ocr_pages) = (Vec::new(), Vec::new(), Vec::new());
    for (i, (page, paras)) in pages.iter().zip(&laid_out).enumerate() {
        let number = i as u32 + 1;
        if i > 0 {
            text.push('\u{c}');
        }
        for (j, (first, lines)) in paras.iter().enumerate() {
            if j > 0 {
                text.push_str("\n\n");
            }
            let start = text.len();
            let mut previous: Option<&ragpipe_ocr::Line> = None;
            for (k, words) in lines.iter().enumerate().filter(|(_, l)| !l.is_empty()) {
                let line = &page.lines[*first + k];
                if let Some(prev) = previous {
                    text.push(if order::same_row(prev, line) { ' ' } else { '\n' });
                }
                let at = text.len();
                text.push_str(words);
                let r = line.rect;
                regions.push(Region { range: at..text.len(), page: number, rect: [r.x, r.y, r.w, r.h] });
                previous = Some(line);
            }
            blocks.push(Block { kind: BlockKind::Paragraph, range: start..text.len(), page: Some(number) });
        }
        if !page.lines.is_empty() {
            let confidence = page.confidence();
            ocr_pages.push(OcrPage { page: number, confidence, low: confidence < low });
        }
    }
    if blocks.is_empty() {
        return Err(ExtractError::Malformed(NO_TEXT_FOUND.into()));
    }
    Ok(Document {
        title,
        kind,
        text,
        blocks,
        tables: Vec::new(),
        duration: None,
        regions,
        ocr_pages,
        warnings: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use ragpipe_ocr::{Line, Rect};

    fn line(text: &str, x: u32, y: u32, w: u32) -> Line {
        Line { text: text.into(), confidence: 0.9, rect: Rect { x, y, w, h: 20 } }
    }

    #[test]
    fn pages_split_by_form_feed_with_paragraphs_and_regions() {
        let one = PageText {
            width: 600,
            height: 800,
            lines: vec![line("First line", 10, 10, 200), line("second.", 10, 30, 100), line("Next", 10, 90, 50)],
        };
        let two = PageText { width: 600, height: 800, lines: vec![line("Page two", 10, 10, 100)] };
        let doc = assemble("scan".into(), Kind::Image, &[one, PageText::default(), two], 0.95).unwrap();
        assert_eq!(doc.text, "First line\nsecond.\n\nNext\u{c}\u{c}Page two");
        let blocks: Vec<(&str, Option<u32>)> = doc.blocks.iter().map(|b| (doc.slice(b), b.page)).collect();
        assert_eq!(blocks, [("First line\nsecond.", Some(1)), ("Next", Some(1)), ("Page two", Some(3))]);
        let r = &doc.regions[1];
        assert_eq!((&doc.text[r.range.clone()], r.page, r.rect), ("second.", 1, [10, 30, 100, 20]));
        assert_eq!(doc.ocr_pages.iter().map(|p| (p.page, p.low)).collect::<Vec<_>>(), [(1, true), (3, true)]);
        let err = assemble("blank".into(), Kind::Image, &[PageText::default()], 0.5).unwrap_err();
        assert_eq!(err.to_string(), "ocr found no text");
    }

    #[test]
    fn a_word_broken_across_lines_is_whole_on_its_first_line_and_an_emptied_line_goes() {
        let page = PageText {
            width: 600,
            height: 800,
            lines: vec![
                line("the raft was com-", 10, 10, 300),
                line("pletely hid. A hyphen-", 10, 30, 300),
                line("ated", 10, 50, 60),
                line("word.", 10, 70, 80),
            ],
        };
        let doc = assemble("scan".into(), Kind::Image, &[page], 0.5).unwrap();
        assert_eq!(doc.text, "the raft was completely\nhid. A hyphenated\nword.");
        let cited: Vec<(&str, u32)> = doc.regions.iter().map(|r| (&doc.text[r.range.clone()], r.rect[1])).collect();
        assert_eq!(cited, [("the raft was completely", 10), ("hid. A hyphenated", 30), ("word.", 70)]);
    }
}
