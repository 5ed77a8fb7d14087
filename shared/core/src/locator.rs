//! Where a chunk's `content` lives, in standard fragment syntax a viewer
//! understands: `#char=FROM,TO` (RFC 5147, counted in Unicode scalar values of
//! the canonical text) always, preceded by `page=N` for PDFs (PDF Open
//! Parameters) and presentations (the slide number, which is the page of the
//! deck printed or saved as PDF), `t=START,END` for media (W3C Media Fragments),
//! `sheet=NAME&range=A1:F1,A8:F20` (header row(s), then the chunk's rows; one
//! area `A1:F20` when they are adjacent) for spreadsheets or `L10-L42` for code.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::ops::Range;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Locator {
    /// Character (not byte) range in the canonical text.
    pub chars: Range<usize>,
    pub page: Option<u32>,
    pub time: Option<(f64, f64)>,
    pub sheet: Option<(String, String)>,
    pub lines: Option<(u32, u32)>,
    /// The rectangle on the page the content was read from (OCR):
    /// `[x, y, w, h]` in pixels of the page image, `&xywh=` (W3C Media
    /// Fragments' spatial dimension).
    pub region: Option<[u32; 4]>,
}

impl Locator {
    /// A locator for the byte range `bytes` of `text`; the char offsets are
    /// counted in `text` itself so they always slice back to the same content.
    pub fn for_bytes(text: &str, bytes: Range<usize>) -> Self {
        let start = text[..bytes.start].chars().count();
        let len = text[bytes.clone()].chars().count();
        Locator { chars: start..start + len, page: None, time: None, sheet: None, lines: None, region: None }
    }

    /// Resolves the `#char` range against a canonical text: the inverse of
    /// [`Locator::for_bytes`]. `None` when the range is outside the text.
    pub fn resolve<'t>(&self, text: &'t str) -> Option<&'t str> {
        let mut indices = text.char_indices().map(|(i, _)| i).chain(std::iter::once(text.len()));
        let start = indices.nth(self.chars.start)?;
        let len = self.chars.end.checked_sub(self.chars.start)?;
        let end = if len == 0 { start } else { indices.nth(len - 1)? };
        Some(&text[start..end])
    }

    /// Parses the fragment form produced by `Display`.
    pub fn parse(s: &str) -> Option<Locator> {
        let s = s.strip_prefix('#').unwrap_or(s);
        let mut loc = Locator { chars: 0..0, page: None, time: None, sheet: None, lines: None, region: None };
        let mut have_chars = false;
        let mut sheet_name = None;
        for part in s.split('&') {
            if let Some(v) = part.strip_prefix("char=") {
                let (a, b) = v.split_once(',')?;
                loc.chars = a.parse().ok()?..b.parse().ok()?;
                have_chars = true;
            } else if let Some(v) = part.strip_prefix("page=") {
                loc.page = Some(v.parse().ok()?);
            } else if let Some(v) = part.strip_prefix("xywh=") {
                let n: Vec<u32> = v.split(',').map(str::parse).collect::<Result<_, _>>().ok()?;
                loc.region = Some(n.try_into().ok()?);
            } else if let Some(v) = part.strip_prefix("t=") {
                let (a, b) = v.split_once(',')?;
                loc.time = Some((a.parse().ok()?, b.parse().ok()?));
            } else if let Some(v) = part.strip_prefix("sheet=") {
                sheet_name = Some(decode(v));
            } else if let Some(v) = part.strip_prefix("range=") {
                loc.sheet = Some((sheet_name.take()?, v.to_string()));
            } else if let Some(v) = part.strip_prefix('L') {
                let (a, b) = v.split_once("-L")?;
                loc.lines = Some((a.parse().ok()?, b.parse().ok()?));
            } else {
                return None;
            }
        }
        have_chars.then_some(loc)
    }
}

impl fmt::Display for Locator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("#")?;
        if let Some(p) = self.page {
            write!(f, "page={p}&")?;
        }
        if let Some([x, y, w, h]) = self.region {
            write!(f, "xywh={x},{y},{w},{h}&")?;
        }
        if let Some((a, b)) = self.time {
            write!(f, "t={a:.2},{b:.2}&")?;
        }
        if let Some((sheet, range)) = &self.sheet {
            write!(f, "sheet={}&range={range}&", encode(sheet))?;
        }
        if let Some((a, b)) = self.lines {
            write!(f, "L{a}-L{b}&")?;
        }
        write!(f, "char={},{}", self.chars.start, self.chars.end)
    }
}

/// Percent-encodes the characters that would break the fragment grammar.
fn encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' | '%' | '#' | '=' | ' ' => out.push_str(&format!("%{:02X}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

fn decode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find('%') {
        out.push_str(&rest[..i]);
        match rest.get(i + 1..i + 3).and_then(|h| u8::from_str_radix(h, 16).ok()) {
            Some(b) => {
                out.push(b as char);
                rest = &rest[i + 3..];
            }
            None => {
                out.push('%');
                rest = &rest[i + 1..];
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn char_ranges_count_scalars_not_bytes() {
        let text = "héllo wörld — ünïcode";
        let start = text.find("wörld").unwrap();
        let loc = Locator::for_bytes(text, start..start + "wörld".len());
        assert_eq!(loc.chars, 6..11);
        assert_eq!(loc.resolve(text), Some("wörld"));
        assert_eq!(loc.to_string(), "#char=6,11");
    }

    #[test]
    fn display_and_parse_round_trip() {
        let mut loc = Locator::for_bytes("abcdef", 1..4);
        loc.page = Some(3);
        loc.sheet = Some(("Q1 & Q2".into(), "A1:F20".into()));
        loc.lines = Some((10, 42));
        let s = loc.to_string();
        assert_eq!(s, "#page=3&sheet=Q1%20%26%20Q2&range=A1:F20&L10-L42&char=1,4");
        assert_eq!(Locator::parse(&s), Some(loc));
    }

    #[test]
    fn out_of_range_does_not_resolve() {
        let loc = Locator { chars: 3..9, page: None, time: None, sheet: None, lines: None, region: None };
        assert_eq!(loc.resolve("abc"), None);
    }
}
