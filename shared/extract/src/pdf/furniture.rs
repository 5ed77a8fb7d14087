//! Page furniture: running headers, running footers and page numbers.
//!
//! They repeat on every page, so left in place they would be quoted in
//! chunks, pull every page towards the same query and split paragraphs that
//! flow across a page break. A line is furniture only where that is reliable:
//! it sits at the very top or bottom of its page and, once digits are
//! ignored ("Page 3 of 9" ~ "Page 4 of 9"), the same line holds that place on
//! most pages, or on pages it numbers (a chapter's running header); or it is
//! a bare page number there.

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

/// A running header that changes with the chapter (`Chapter 4: Function
/// reference 19`) holds its place on the pages of its chapter only, too few
/// for "most pages". It is furniture when it sits on two pages at least and
/// its first or last word is a number that counts the pages: it grows by one
/// from one page to the next (a title repeated on a few pages, numbered
/// inside or not, does not).
const RUN_PAGES: usize = 2;

/// The pages a candidate line was seen on (indices, ascending), each with
/// the line's [`numbers`] there.
type Sightings = Vec<(usize, Vec<u64>)>;

/// Whether a line seen on these pages numbers them: one of its numbers
/// minus the page's index is the same on every page.
fn counts_pages(seen: &[(usize, Vec<u64>)]) -> bool {
    let Some((first_page, first)) = seen.first() else { return false };
    (0..first.len()).any(|j| {
        let offset = first[j] as i128 - *first_page as i128;
        seen.iter().all(|(page, numbers)| numbers.get(j).is_some_and(|&n| n as i128 - *page as i128 == offset))
    })
}

/// A number that is a line's first or last word, where running headers
/// set the page number (`19 Chapter 4`, `Chapter 4: Function reference 19`,
/// a front matter's `Manual iv`).
fn numbers(text: &str) -> Vec<u64> {
    let mut words = text.split_whitespace();
    let (first, last) = (words.next(), words.next_back());
    [first, last].into_iter().flatten().filter_map(|w| w.parse().ok().or_else(|| roman(w))).collect()
}

/// A lower-case roman numeral's value up to 399 (front matter's page
/// numbers), written the one way it is written (`iv`, not `iiii`; `civil`
/// and `mix` are words).
pub(super) fn roman(word: &str) -> Option<u64> {
    const DIGITS: [(u64, &str); 9] =
        [(100, "c"), (90, "xc"), (50, "l"), (40, "xl"), (10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i")];
    if word.is_empty() || word.len() > 9 {
        return None;
    }
    let (mut rest, mut value) = (word, 0);
    for (n, digits) in DIGITS {
        // At most three of `i`, `x`, `c`; one of any other.
        let most = if matches!(digits, "i" | "x" | "c") { 3 } else { 1 };
        for _ in 0..most {
            match rest.strip_prefix(digits) {
                Some(r) => (rest, value) = (r, value + n),
                None => break,
            }
        }
    }
    (rest.is_empty()).then_some(value)
}

/// Removes furniture lines from every page, in place.
pub(crate) fn strip(pages: &mut [Page]) {
    let with_text = pages.iter().filter(|p| !p.lines.is_empty()).count();
    let mut seen: HashMap<(Edge, String), Sightings> = HashMap::new();
    for (index, page) in pages.iter().enumerate() {
        let mut keys: Vec<(Edge, String, &str)> = edge_lines(page)
            .into_iter()
            .map(|(e, i)| (e, key(&page.lines[i].text), page.lines[i].text.as_str()))
            .collect();
        keys.sort();
        keys.dedup_by(|a, b| (a.0, &a.1) == (b.0, &b.1));
        for (edge, k, text) in keys {
            seen.entry((edge, k)).or_default().push((index, numbers(text)));
        }
    }
    let repeated = |k: &(Edge, String)| {
        seen.get(k).is_some_and(|on| {
            let n = on.len();
            // "Most pages": more than half, and never a line seen only once.
            (n >= 2 && 2 * n > with_text) || (n >= RUN_PAGES && counts_pages(on))
        })
    };
    for page in pages.iter_mut() {
        let candidates = edge_lines(page);
        let mut drop = Vec::new();
        if page.lines.len() <= EDGE_LINES {
            // A page of a line or two (a figure's page under its running
            // header): a line goes when it is a page number or one of the
            // fuller pages' running lines, at either edge.
            let running = |t: &str| [Edge::Top, Edge::Bottom].into_iter().any(|e| repeated(&(e, key(t))));
            drop.extend(
                (0..page.lines.len()).filter(|&i| is_page_number(&page.lines[i].text) || running(&page.lines[i].text)),
            );
        }
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

/// A line's identity across pages: whitespace collapsed, digit runs as `#`,
/// and so is a roman numeral that opens or ends it (`Manual iv`).
fn key(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_digits = false;
    let last = text.split_whitespace().count().saturating_sub(1);
    for (n, word) in text.split_whitespace().enumerate() {
        if !out.is_empty() {
            out.push(' ');
            in_digits = false;
        }
        if (n == 0 || n == last) && roman(word).is_some() {
            out.push('#');
            continue;
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
    if numeric(rest) || (roman(rest).is_some() && rest.len() == lower.len()) {
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
            .map(|(i, t)| Line { y: 800.0 - 800.0 * i as f64 / n, size: 12.0, text: t.to_string(), ..Line::default() })
            .collect();
        Page { number, lines, ..Page::default() }
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
    fn a_chapters_running_header_goes_and_a_repeated_title_stays() {
        // Twelve pages: chapter 1 on pages 1-3, chapter 2 on 4-12; a
        // chapter's first page has no header, as TeX books set them, so
        // neither header is on most pages. Pages 5-7 share one title, pages
        // 9-11 a numbered one whose number is not the page's.
        let words = ["oak", "ash", "elm", "yew", "fir", "box", "bay", "fig", "lime", "pine", "plum", "pear"];
        let mut pages: Vec<Page> = (1..=12usize)
            .map(|n| {
                let header = match n {
                    2..=3 => format!("Chapter 1: Setup {n}"),
                    5..=12 => format!("{n} Chapter 2: Reference"),
                    _ => String::new(),
                };
                let title = match n {
                    5..=7 => "Architecture".to_string(),
                    9..=11 => format!("Step {}: repeat", n - 5),
                    _ => format!("About {}", words[n - 1]),
                };
                let body = format!("Body of page {n}.");
                let (more, last) = (format!("More on {}.", words[n - 1]), format!("Ends with {}.", words[12 - n]));
                let lines = [header.as_str(), &title, &body, &more, &last];
                page(n as u32, if header.is_empty() { &lines[1..] } else { &lines })
            })
            .collect();
        strip(&mut pages);
        let texts: Vec<Vec<&str>> = pages.iter().map(|p| p.lines.iter().map(|l| l.text.as_str()).collect()).collect();
        assert!(texts.iter().flatten().all(|t| !t.contains("Chapter")), "{texts:?}");
        assert!(texts[4..7].iter().all(|t| t[0] == "Architecture"), "{texts:?}");
        assert!(texts[8..11].iter().all(|t| t[0].starts_with("Step ")), "{texts:?}");
        assert!(texts.iter().all(|t| t.len() == 4), "nothing else goes: {texts:?}");
    }

    #[test]
    fn a_figure_s_page_and_the_front_matter_lose_their_running_header() {
        // A title page; front matter numbered ii, iii; seven body pages
        // `Manual N / 7`, the fourth a screenshot's page with nothing but the
        // header; a last page holding a caption alone.
        let mut pages = vec![page(1, &["Manual", "Published 2024", "For schools"])];
        for (n, title) in [("ii", "Foreword"), ("iii", "Contents")] {
            let header = format!("Manual {n}");
            pages.push(page(2, &[&header, title, "Chapter one", "Chapter two"]));
        }
        for n in 1..=7 {
            let header = format!("Manual {n} / 7");
            let word = ["oak", "ash", "elm", "yew", "fir", "box", "bay"][n as usize - 1];
            let (body, more) = (format!("About the {word}."), format!("Where the {word} grows."));
            let lines = [header.as_str(), &body, &more];
            pages.push(page(n, if n == 4 { &lines[..1] } else { &lines }));
        }
        pages.push(page(8, &["Figure 3: the network"]));
        strip(&mut pages);
        let texts: Vec<Vec<&str>> = pages.iter().map(|p| p.lines.iter().map(|l| l.text.as_str()).collect()).collect();
        assert_eq!(texts[0], ["Manual", "Published 2024", "For schools"], "a title is no header");
        assert_eq!(texts[1], ["Foreword", "Chapter one", "Chapter two"]);
        assert_eq!(texts[2], ["Contents", "Chapter one", "Chapter two"]);
        assert!(texts[6].is_empty(), "the screenshot's page: {texts:?}");
        assert!(texts[3..10].iter().flatten().all(|t| !t.starts_with("Manual")), "{texts:?}");
        assert_eq!(texts[3..10].iter().map(Vec::len).sum::<usize>(), 12);
        assert_eq!(texts[10], ["Figure 3: the network"], "a line of its own stays");
    }

    #[test]
    fn roman_numerals_are_read_only_as_written() {
        assert_eq!(["i", "iv", "ix", "xiv", "xl", "cxcix"].map(roman), [1, 4, 9, 14, 40, 199].map(Some));
        for word in ["iiii", "vv", "civil", "mix", "ic", "vi.", "", "Iv"] {
            assert_eq!(roman(word), None, "{word}");
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
