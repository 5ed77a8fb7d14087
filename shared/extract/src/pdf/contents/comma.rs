//! A back-of-book index set without leaders, as Word and LaTeX set it by
//! default: a term, a comma and its pages (`lockout, 3`, `breaker, 3, 7`,
//! `parsing, 12–14`). Such a page names dozens of terms, each once more,
//! and ranks above the passages that explain them. Its layout alone is
//! what a list of names and counts also looks like, so a page is an index
//! only when its entries are most of its lines, run in alphabetical order,
//! cite pages the document has, and name terms the rest of the document
//! uses.

use super::page_number;
use crate::pdf::layout::Page;
use std::cell::OnceCell;

/// Entries an index page holds at least.
const MIN_INDEX_ENTRIES: usize = 5;

/// Share of a page's lines its entries make at least (its heading, its
/// letter headings and a running header are the rest).
const MIN_SHARE: f64 = 0.5;

/// Share of neighbouring entries in alphabetical order, at least (a
/// sub-entry under its term breaks the order once).
const MIN_ORDERED: f64 = 0.8;

/// Share of an index page's terms that must be found on another page.
const MIN_FOUND: f64 = 0.5;

/// The lines of `pages[index]` that are index entries, as a mask over its
/// lines (empty when the page is no index). `text` is every page's text,
/// lower-cased, built only once a page's layout reads as an index.
pub(super) fn entries(pages: &[Page], index: usize, text: &OnceCell<Vec<String>>) -> Vec<bool> {
    let last_page = pages.len() as u64;
    let lines = &pages[index].lines;
    let terms: Vec<Option<&str>> = lines.iter().map(|l| term(&l.text, last_page)).collect();
    let found: Vec<&str> = terms.iter().flatten().copied().collect();
    let counted = lines.iter().filter(|l| !l.text.trim().is_empty()).count();
    if found.len() < MIN_INDEX_ENTRIES || (found.len() as f64) < MIN_SHARE * counted as f64 {
        return Vec::new();
    }
    let sort_key = |t: &str| t.chars().filter(|c| c.is_alphanumeric()).flat_map(char::to_lowercase).collect::<String>();
    let ordered = found.windows(2).filter(|w| sort_key(w[0]) <= sort_key(w[1])).count();
    if (ordered as f64) < MIN_ORDERED * (found.len() - 1) as f64 {
        return Vec::new();
    }
    let text = text.get_or_init(|| pages.iter().map(|p| page_text(p).to_lowercase()).collect());
    let elsewhere = |t: &str| {
        let t = t.to_lowercase();
        text.iter().enumerate().any(|(i, page)| i != index && page.contains(&t))
    };
    if (found.iter().filter(|t| elsewhere(t)).count() as f64) < MIN_FOUND * found.len() as f64 {
        return Vec::new();
    }
    terms.iter().map(Option::is_some).collect()
}

fn page_text(page: &Page) -> String {
    page.lines.iter().map(|l| l.text.as_str()).collect::<Vec<_>>().join("\n")
}

/// The term of an index entry: `text` is a term with a letter, a comma and
/// one or more page numbers or ranges (`3`, `12–14`, `7f`) separated by
/// commas, every page one the document has.
fn term(text: &str, last_page: u64) -> Option<&str> {
    let text = text.trim();
    if text.contains(" | ") {
        return None; // a table's row
    }
    let mut rest = text;
    let mut pages = 0;
    while let Some((before, last)) = rest.rsplit_once(',') {
        if !pages_of(last.trim(), last_page) {
            break;
        }
        pages += 1;
        rest = before;
    }
    let term = rest.trim();
    (pages > 0 && term.chars().any(char::is_alphabetic) && term.chars().count() <= 80).then_some(term)
}

/// `12`, `12–14`, `12-14`, `7f`, `7ff`, `iv`: pages of the document.
fn pages_of(cited: &str, last_page: u64) -> bool {
    let cited = cited.trim_end_matches("ff").trim_end_matches('f');
    let mut ends = cited.split(['–', '-']).map(str::trim);
    let first = ends.next().is_some_and(|p| page_number(p, last_page).is_some());
    first && ends.all(|p| page_number(p, last_page).is_some())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pdf::layout::Line;

    fn page(number: u32, lines: &[&str]) -> Page {
        let lines = lines.iter().map(|t| Line { text: t.to_string(), ..Line::default() }).collect();
        Page { number, lines, ..Page::default() }
    }

    fn body() -> Vec<Page> {
        let words = "Check the breaker before the error log; photographs of the gate code, \
                     fuses and the lockout tag go in the visit report with the spare parts.";
        (1..=4).map(|n| page(n, &[words])).collect()
    }

    fn mask(pages: &[Page], i: usize) -> Vec<bool> {
        entries(pages, i, &OnceCell::new())
    }

    #[test]
    fn an_alphabetical_page_of_terms_and_pages_is_an_index() {
        let mut pages = body();
        pages.push(page(5, &["Index", "breaker, 3", "error log, 3, 4", "fuses, 2", "gate code, 2–3", "lockout, 3f"]));
        assert_eq!(mask(&pages, 4), [false, true, true, true, true, true]);
        assert!(mask(&pages, 0).is_empty(), "prose");
    }

    #[test]
    fn lists_that_only_look_like_one_are_kept() {
        let mut pages = body();
        // Not in order; counts past the last page; names no page uses.
        pages.push(page(5, &["fuses, 2", "breaker, 3", "lockout, 3", "error log, 3", "gate code, 2", "cable, 4"]));
        pages.push(page(6, &["Stock", "apples, 12", "breaker, 40", "fuses, 250", "lockout, 31", "pears, 90"]));
        pages.push(page(7, &["Ages", "Ada, 3", "Bob, 4", "Cleo, 2", "Dora, 5", "Emil, 1"]));
        for i in 4..7 {
            assert!(mask(&pages, i).is_empty(), "page {}", i + 1);
        }
    }

    #[test]
    fn a_term_needs_a_letter_and_its_pages_after_a_comma() {
        assert_eq!(term("error log, 3, 4", 9), Some("error log"));
        assert_eq!(term("Figure 3, 12–14", 20), Some("Figure 3"));
        assert_eq!(term("parsing, 4 - 6, 9ff", 20), Some("parsing"));
        assert_eq!(term("preface, iv", 20), Some("preface"));
        for not in ["It cost 3", "1, 2, 3", "see also, gate", "Smith, J., 2001", "a | 3", "lock, 3x"] {
            assert_eq!(term(not, 20), None, "{not}");
        }
    }
}
