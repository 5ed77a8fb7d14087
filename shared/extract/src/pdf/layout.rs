//! Turns pdf-extract's stream of positioned glyphs into lines per page.
//!
//! pdf-extract's own `PlainTextOutput` writes one string for the whole file
//! and forgets where each line sat on the page. We need both the page a line
//! is on (for `#page=N`) and its height on the page (to tell a running header
//! or footer from body text), so this collector keeps every line with its
//! baseline and font size.

use pdf_extract::{MediaBox, OutputDev, OutputError, Transform};

/// One line of text as it was drawn: its baseline height (PDF user space, y
/// grows upwards), its font size and its words.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Line {
    pub y: f64,
    pub size: f64,
    pub text: String,
}

/// The lines of one page, in content-stream order.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Page {
    pub number: u32,
    pub lines: Vec<Line>,
}

/// Collects lines page by page while pdf-extract interprets content streams.
#[derive(Debug, Default)]
pub(crate) struct Collector {
    pub pages: Vec<Page>,
    current: Option<Page>,
    /// Where the last glyph ended on its line, to tell a word gap.
    last_end: f64,
    /// The next glyph starts a new text-showing operation (`Tj`, a `TJ` element).
    word_start: bool,
    pending_space: bool,
}

impl Collector {
    /// Starts a new line unless (x, y) continues the current one; notes a
    /// word gap the file did not spell out as a space glyph. Returns whether
    /// a page is open.
    fn place(&mut self, x: f64, y: f64, size: f64) -> bool {
        let Some(page) = self.current.as_mut() else { return false };
        let same_line = page.lines.last().is_some_and(|l| (l.y - y).abs() <= 0.5 * size.max(l.size));
        if !same_line {
            page.lines.push(Line { y, size, text: String::new() });
            self.pending_space = false;
        } else if self.word_start && x > self.last_end + 0.1 * size {
            self.pending_space = true;
        }
        true
    }
}

/// The font size as drawn on the page: the side of the square with the same
/// area as the transformed em box, so scaled and rotated text measure alike.
fn drawn_size(trm: &Transform, font_size: f64) -> f64 {
    let vx = font_size * (trm.m11 + trm.m21);
    let vy = font_size * (trm.m12 + trm.m22);
    let size = (vx * vy).abs().sqrt();
    if size.is_finite() && size > 0.0 { size } else { 1.0 }
}

impl OutputDev for Collector {
    fn begin_page(
        &mut self,
        page_num: u32,
        _media_box: &MediaBox,
        _: Option<(f64, f64, f64, f64)>,
    ) -> Result<(), OutputError> {
        self.end_page()?;
        self.current = Some(Page { number: page_num, lines: Vec::new() });
        self.pending_space = false;
        Ok(())
    }

    fn end_page(&mut self) -> Result<(), OutputError> {
        if let Some(mut page) = self.current.take() {
            for line in &mut page.lines {
                let trimmed = line.text.trim_end().len();
                line.text.truncate(trimmed);
            }
            page.lines.retain(|l| !l.text.is_empty());
            self.pages.push(page);
        }
        Ok(())
    }

    fn output_character(
        &mut self,
        trm: &Transform,
        width: f64,
        _spacing: f64,
        font_size: f64,
        glyph: &str,
    ) -> Result<(), OutputError> {
        let (x, y) = (trm.m31, trm.m32);
        let size = drawn_size(trm, font_size);
        if !self.place(x, y, size) {
            return Ok(());
        }
        let Some(line) = self.current.as_mut().and_then(|p| p.lines.last_mut()) else { return Ok(()) };
        for c in glyph.chars() {
            if c.is_whitespace() {
                self.pending_space = true;
            } else if !c.is_control() {
                // Control characters (a form feed above all) never reach the
                // canonical text: `\f` separates its pages.
                if self.pending_space && !line.text.is_empty() {
                    line.text.push(' ');
                }
                self.pending_space = false;
                line.text.push(c);
            }
        }
        self.word_start = false;
        self.last_end = x + width * size;
        Ok(())
    }

    fn begin_word(&mut self) -> Result<(), OutputError> {
        self.word_start = true;
        Ok(())
    }

    fn end_word(&mut self) -> Result<(), OutputError> {
        Ok(())
    }

    fn end_line(&mut self) -> Result<(), OutputError> {
        Ok(())
    }
}
