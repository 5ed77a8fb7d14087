//! Turns pdf-extract's stream of positioned glyphs into lines per page.
//!
//! pdf-extract's own `PlainTextOutput` writes one string for the whole file
//! and forgets where each line sat on the page. We need both the page a line
//! is on (for `#page=N`) and its height on the page (to tell a running header
//! or footer from body text), so this collector keeps every line with its
//! baseline and font size.

use pdf_extract::{ColorSpace, MediaBox, OutputDev, OutputError, Path, PathOp, Transform};

/// One line of text as it was drawn: its baseline height (PDF user space, y
/// grows upwards), its font size and its words.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Line {
    pub y: f64,
    pub size: f64,
    pub text: String,
    /// Where each word of `text` was drawn, in text order (a table's cells
    /// are told by the gaps between them).
    pub words: Vec<Word>,
    /// The advance of the line's first glyph, whether another glyph's
    /// differed from it (a proportional font), and how many glyphs it holds.
    pub advance: Option<f64>,
    pub proportional: bool,
    pub glyphs: usize,
    /// The narrowest gap between two glyphs drawn one after the other, in
    /// em: about zero where letters touch, as type is set.
    pub tightest: Option<f64>,
}

impl Line {
    /// Whether the line is set in a monospaced font (a code listing, whose
    /// columns are a program's indentation, not a table's).
    pub(crate) fn monospaced(&self) -> bool {
        self.glyphs >= 4 && !self.proportional
    }
}

/// A word of a [`Line`]: its byte range in the line's text and the
/// horizontal extent of its glyphs.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Word {
    pub start: usize,
    pub end: usize,
    pub x0: f64,
    pub x1: f64,
}

/// A horizontal line drawn on a page (a table's border, the top or bottom
/// edge of a shaded row): its height and extent.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Rule {
    pub y: f64,
    pub x0: f64,
    pub x1: f64,
}

/// Rules kept per page; a page drawing more is a drawing, not a table.
const MAX_RULES: usize = 20_000;

/// The lines of one page, in content-stream order, and its rules, from the
/// bottom of the page up.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Page {
    pub number: u32,
    pub lines: Vec<Line>,
    pub rules: Vec<Rule>,
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
        let line = page.lines.last_mut().filter(|l| (l.y - y).abs() <= 0.5 * size.max(l.size));
        let Some(line) = line else {
            page.lines.push(Line { y, size, ..Line::default() });
            self.pending_space = false;
            return true;
        };
        let gap = (x - self.last_end) / size;
        line.tightest = Some(line.tightest.map_or(gap, |t| t.min(gap)));
        if self.word_start && x > self.last_end + 0.1 * size {
            self.pending_space = true;
        }
        true
    }
}

/// The tightest gap, in em, at which a monospaced line is taken for one set
/// in columns rather than as type.
const COLUMN_GAP: f64 = 0.02;

/// Joins the words of a monospaced line set in columns that a gap between
/// letters parted. LaTeX's `listings` (its default) puts each character in
/// a cell wider than the glyph (0.6 em against Latin Modern Mono's 0.525),
/// so no two letters touch and some sit over a tenth of an em apart, the
/// gap that tells words in type: `full - upgrade`. A space there is a whole
/// cell, so a gap under half an advance is between letters. Justified
/// monospaced text, whose letters touch and whose spaces may shrink, is
/// left alone.
fn close_columns(line: &mut Line) {
    let Some(advance) = line.advance else { return };
    if !line.monospaced() || line.tightest.is_none_or(|t| t < COLUMN_GAP) || line.words.len() < 2 {
        return;
    }
    let letters = 0.5 * advance * line.size;
    let mut text = String::with_capacity(line.text.len());
    let mut words: Vec<Word> = Vec::with_capacity(line.words.len());
    for word in &line.words {
        let piece = &line.text[word.start..word.end];
        match words.last_mut() {
            Some(last) if word.x0 - last.x1 < letters => {
                text.push_str(piece);
                last.end = text.len();
                last.x1 = last.x1.max(word.x1);
            }
            last => {
                if last.is_some() {
                    text.push(' ');
                }
                let start = text.len();
                text.push_str(piece);
                words.push(Word { start, end: text.len(), x0: word.x0, x1: word.x1 });
            }
        }
    }
    line.text = text;
    line.words = words;
}

impl Collector {
    /// Keeps the horizontal segments of a stroked or filled path, in page
    /// space: lines drawn from point to point, and a rectangle's top and
    /// bottom edges.
    fn keep_rules(&mut self, ctm: &Transform, path: &Path) {
        let Some(page) = self.current.as_mut() else { return };
        let point = |x: f64, y: f64| (ctm.m11 * x + ctm.m21 * y + ctm.m31, ctm.m12 * x + ctm.m22 * y + ctm.m32);
        let mut at = (0.0, 0.0);
        for op in &path.ops {
            match *op {
                PathOp::MoveTo(x, y) => at = point(x, y),
                PathOp::LineTo(x, y) => {
                    let to = point(x, y);
                    horizontal(&mut page.rules, at, to);
                    at = to;
                }
                PathOp::CurveTo(_, _, _, _, x, y) => at = point(x, y),
                PathOp::Rect(x, y, w, h) => {
                    let (a, b) = (point(x, y), point(x + w, y + h));
                    horizontal(&mut page.rules, a, (b.0, a.1));
                    horizontal(&mut page.rules, (a.0, b.1), b);
                }
                PathOp::Close => {}
            }
        }
    }
}

/// Records the segment from `a` to `b` when it is horizontal and longer
/// than a dot.
fn horizontal(rules: &mut Vec<Rule>, a: (f64, f64), b: (f64, f64)) {
    let flat = (a.1 - b.1).abs() <= 0.5 && (a.0 - b.0).abs() >= 2.0;
    if flat && rules.len() < MAX_RULES && a.1.is_finite() && a.0.is_finite() && b.0.is_finite() {
        rules.push(Rule { y: (a.1 + b.1) / 2.0, x0: a.0.min(b.0), x1: a.0.max(b.0) });
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
        self.current = Some(Page { number: page_num, ..Page::default() });
        self.pending_space = false;
        Ok(())
    }

    fn end_page(&mut self) -> Result<(), OutputError> {
        if let Some(mut page) = self.current.take() {
            for line in &mut page.lines {
                let trimmed = line.text.trim_end().len();
                line.text.truncate(trimmed);
                close_columns(line);
            }
            page.lines.retain(|l| !l.text.is_empty());
            page.rules.sort_by(|a, b| a.y.total_cmp(&b.y));
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
        let end = x + width * size;
        line.glyphs += 1;
        let first = *line.advance.get_or_insert(width);
        line.proportional |= (first - width).abs() > 0.01 * first.abs();
        for c in glyph.chars() {
            if c.is_whitespace() {
                self.pending_space = true;
            } else if !c.is_control() {
                // Control characters (a form feed above all) never reach the
                // canonical text: `\f` separates its pages.
                if self.pending_space && !line.text.is_empty() {
                    line.text.push(' ');
                }
                let new_word = self.pending_space || line.words.is_empty();
                self.pending_space = false;
                if new_word {
                    let start = line.text.len();
                    line.words.push(Word { start, end: start, x0: x, x1: end });
                }
                line.text.push(c);
                if let Some(word) = line.words.last_mut() {
                    word.end = line.text.len();
                    word.x0 = word.x0.min(x);
                    word.x1 = word.x1.max(end);
                }
            }
        }
        self.word_start = false;
        self.last_end = end;
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

    fn stroke(&mut self, ctm: &Transform, _: &ColorSpace, _: &[f64], path: &Path) -> Result<(), OutputError> {
        self.keep_rules(ctm, path);
        Ok(())
    }

    fn fill(&mut self, ctm: &Transform, _: &ColorSpace, _: &[f64], path: &Path) -> Result<(), OutputError> {
        self.keep_rules(ctm, path);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A line of `size` 10 in a font of advance 0.5 em whose words sit at
    /// the given left edges, each glyph one advance wide, letters `tightest`
    /// em apart at the least.
    fn line(words: &[(&str, f64)], tightest: f64) -> Line {
        let mut line = Line { size: 10.0, advance: Some(0.5), tightest: Some(tightest), ..Line::default() };
        for (i, (word, x0)) in words.iter().enumerate() {
            if i > 0 {
                line.text.push(' ');
            }
            let start = line.text.len();
            line.text.push_str(word);
            let x1 = x0 + 5.0 * word.len() as f64;
            line.words.push(Word { start, end: line.text.len(), x0: *x0, x1 });
            line.glyphs += word.len();
        }
        line
    }

    #[test]
    fn letters_set_in_columns_join_and_spaces_stay() {
        // "full" ends at 20; "-" 1.2 pt on (a letter gap), "upgrade" 1 pt
        // after it; "-y" a whole cell and more away.
        let mut l = line(&[("full", 0.0), ("-", 21.2), ("upgrade", 27.2), ("-y", 68.0)], 0.06);
        close_columns(&mut l);
        assert_eq!(l.text, "full-upgrade -y");
        assert_eq!(l.words.len(), 2);
        assert_eq!((l.words[0].x0, l.words[0].x1, l.words[1].x0), (0.0, 62.2, 68.0));
        assert_eq!(&l.text[l.words[1].start..l.words[1].end], "-y");
    }

    #[test]
    fn monospaced_type_whose_letters_touch_is_left_alone() {
        // Justified monospaced text: letters touch, a space shrank to 0.2 em.
        let mut l = line(&[("setlinejoin", 0.0), ("setmiterlimit", 57.0)], 0.0);
        close_columns(&mut l);
        assert_eq!(l.text, "setlinejoin setmiterlimit");
        // A proportional line is never touched.
        let mut l = line(&[("by", 0.0), ("glob", 11.0)], 0.06);
        l.proportional = true;
        close_columns(&mut l);
        assert_eq!(l.text, "by glob");
    }
}
