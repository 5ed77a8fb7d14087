//! Page furniture: running headers, running footers and page numbers.
//!
//! They repeat on every page, so left in place they would be quoted in
//! chunks, pull every page towards the same query and split paragraphs that
//! flow across a page break. A line is furniture only where that is reliable:
//! it sits at the very top or bottom of its page and, once digits are
//! ignored ("Page 3 of 9" ~ "Page 4 of 9"), the same line holds that place on
//! most pages; or it is a bare page number there.

use super::layout::Page;
use std::collections::HashMap;

/// How many lines from each edge of a page are candidates.
const EDGE_LINES: usize = 2;

/// Where on the page a candidate line sits; a header and a footer with the
/// same words are counted apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Edge {
    Top,
    Bottom,
}

/// Removes furniture lines from every page, in place.
pub(crate) fn strip(pages: &mut [Page]) {
    let with_text = pages.iter().filter(|p| !p.lines.is_empty()).count();
    let mut seen: HashMap<(Edge, String), usize> = HashMap::new();
    for page in pages.iter() {
        let mut keys: Vec<(Edge, String)> =
            edge_lines(page).into_iter().map(|(e, i)| (e, key(&page.lines[i].text))).collect();
        keys.sort();
        keys.dedup();
        for k in keys {
            *seen.entry(k).or_default() += 1;
        }
    }
    // "Most pages": more than half, and never a line seen only once.
    let repeated = |k: &(Edge, String)| seen.get(k).is_some_and(|&n| n >= 2 && 2 * n > with_text);
    for page in pages.iter_mut() {
        let candidates = edge_lines(page);
        let mut drop = Vec::new();
        // From each edge inwards, stopping at the first line that is content:
        // a second line is furniture only below a first one (two-line headers).
        for edge in [Edge::Top, Edge::Bottom] {
            for &(_, i) in candidates.iter().filter(|(e, _)| *e == edge) {
                let text = &page.lines[i].text;
                if !(is_page_number(text) || repeated(&(edge, key(text)))) {
                    break;
                }
                drop.push(i);
            }
        }
        drop.sort_unstable();
        drop.dedup();
        for i in drop.into_iter().rev() {
            page.lines.remove(i);
        }
    }
}

/// Indices of the lines nearest the top and the bottom edge of a page, by
/// baseline height rather than stream order (writers draw headers and
/// footers whenever they like), each edge's listed from the edge inwards. A
/// page with few lines has no furniture worth the risk of deleting its only
/// content, bar a page number.
fn edge_lines(page: &Page) -> Vec<(Edge, usize)> {
    if page.lines.len() <= EDGE_LINES {
        return page
            .lines
            .iter()
            .enumerate()
            .filter(|(_, l)| is_page_number(&l.text))
            .map(|(i, _)| (Edge::Bottom, i))
            .collect();
    }
    let mut order: Vec<usize> = (0..page.lines.len()).collect();
    order.sort_by(|&a, &b| page.lines[b].y.total_cmp(&page.lines[a].y));
    let n = EDGE_LINES.min(order.len() / 2);
    let top = order[..n].iter().map(|&i| (Edge::Top, i));
    let bottom = order[order.len() - n..].iter().rev().map(|&i| (Edge::Bottom, i));
    top.chain(bottom).collect()
}

/// A line's identity across pages: whitespace collapsed, digit runs as `#`.
fn key(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_digits = false;
    for word in text.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
            in_digits = false;
        }
        for c in word.chars() {
            if c.is_ascii_digit() {
                if !in_digits {
                    out.push('#');
                }
                in_digits = true;
            } else {
                out.push(c);
                in_digits = false;
            }
        }
    }
    out
}

/// A bare page number: `7`, `- 7 -`, `7 / 12`, `Page 7`, `Page 7 of 12`,
/// `vii`.
fn is_page_number(text: &str) -> bool {
    let t = text.trim().trim_matches(|c: char| c == '-' || c == '–' || c == '—' || c.is_whitespace());
    let lower = t.to_lowercase();
    let rest = lower.strip_prefix("page").map(str::trim_start).unwrap_or(&lower);
    let numeric = |s: &str| !s.is_empty() && s.len() <= 6 && s.chars().all(|c| c.is_ascii_digit());
    let roman = |s: &str| !s.is_empty() && s.len() <= 8 && s.chars().all(|c| "ivxlc".contains(c));
    if numeric(rest) || (roman(rest) && rest.len() == lower.len()) {
        return true;
    }
    let parts: Vec<&str> = rest.split('/').flat_map(|p| p.split(" of ")).map(str::trim).collect();
    parts.len() == 2 && parts.iter().all(|p| numeric(p))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pdf::layout::Line;

    fn page(number: u32, lines: &[&str]) -> Page {
        let n = lines.len() as f64;
        let lines = lines
            .iter()
            .enumerate()
            .map(|(i, t)| Line { y: 800.0 - 800.0 * i as f64 / n, size: 12.0, text: t.to_string() })
            .collect();
        Page { number, lines }
    }

    #[test]
    fn running_lines_and_page_numbers_go_body_stays() {
        let words = ["alpha", "beta", "gamma", "delta"];
        let mut pages: Vec<Page> = (1..=4)
            .map(|n| {
                let body = format!("Body text of page {n} differs.");
                let last = format!("Last words: {}.", words[n as usize - 1]);
                let footer = format!("Page {n} of 4");
                page(n, &["ACME Handbook  Confidential", "Heading", &body, &last, &footer])
            })
            .collect();
        pages[2].lines[1].text = "Another heading".into();
        strip(&mut pages);
        for (i, p) in pages.iter().enumerate() {
            let texts: Vec<&str> = p.lines.iter().map(|l| l.text.as_str()).collect();
            assert!(!texts.contains(&"ACME Handbook  Confidential"), "{texts:?}");
            assert!(texts.iter().all(|t| !t.starts_with("Page ")), "{texts:?}");
            assert!(texts.iter().any(|t| t.starts_with("Last words")), "{texts:?}");
            // Below a running header, a line on most pages is furniture too;
            // a line that differs stays.
            assert_eq!(i == 2, texts.contains(&"Another heading"));
        }
    }

    #[test]
    fn single_page_and_short_pages_keep_their_text() {
        let mut pages = vec![page(1, &["Title", "Only paragraph.", "Closing line."])];
        strip(&mut pages);
        assert_eq!(pages[0].lines.len(), 3, "nothing repeats on a single page");
        let mut pages = vec![page(1, &["Short note."]), page(2, &["Short note."]), page(3, &["2"])];
        strip(&mut pages);
        assert_eq!(pages[0].lines.len(), 1);
        assert!(pages[2].lines.is_empty(), "a bare number alone is a page number");
    }

    #[test]
    fn page_number_shapes() {
        for t in ["7", "- 7 -", "7 / 12", "Page 7", "page 7 of 12", "vii", "— 12 —"] {
            assert!(is_page_number(t), "{t}");
        }
        for t in ["2024 results", "Section 7.1", "vivid", ""] {
            assert!(!is_page_number(t), "{t}");
        }
    }
}
