//! A typeset document's table of contents and back-of-book index: lines of
//! a title, a leader of dots and a page number (`2.3 Simple parsing . . . 4`,
//! `asn1_copy_node . . . . 11`). They are the document's navigation, as a
//! web manual's menus are: every title in them is again a heading or a
//! passage in the body, and an index page names so many functions and
//! concepts that it ranks above the passages that explain them. So a page's
//! entries are left out when the page is made of them.
//!
//! An index set without leaders (`lockout, 3`, Word's and LaTeX's way) is
//! told by its order and by the body: its terms run alphabetically and the
//! rest of the document uses them ([`comma`]).
//!
//! Contents without a leader (a word processor's tab stop with no fill:
//! `Basic Entities        7`) are told by their layout and by the body:
//! the page number stands well apart from its title, the page numbers of
//! the page's entries end at one tab stop and rise, never going down, and their
//! titles are again lines of other pages (the headings they list). A table
//! of names and small numbers is not such a list: its first cells are not
//! the document's headings.

mod comma;
mod spaced;

use super::layout::Page;
use std::cell::OnceCell;

/// Entries a page must hold for them to be its contents or index, not a
/// line of prose that happens to end in dots and a number.
const MIN_ENTRIES: usize = 3;

/// Dots a leader holds at least.
const MIN_DOTS: usize = 3;

/// Removes the table-of-contents and index entries from every page that
/// holds `MIN_ENTRIES` of them, in place. An entry's page number cannot
/// be past the document's last page, so a price list (`Espresso . . . 250`)
/// is not taken for one. Entries without a leader go first (contents at
/// a tab stop, [`spaced`]; an index's `term, 3`, [`comma`]), on the page as
/// it was laid out.
pub(crate) fn strip(pages: &mut [Page]) {
    let last_page = pages.len() as u64;
    let (titles, text) = (OnceCell::new(), OnceCell::new());
    let spaced: Vec<Vec<bool>> = (0..pages.len()).map(|i| spaced::entries(pages, i, &titles)).collect();
    let comma: Vec<Vec<bool>> = (0..pages.len()).map(|i| comma::entries(pages, i, &text)).collect();
    for ((page, spaced), comma) in pages.iter_mut().zip(spaced).zip(comma) {
        // All three are read off the lines as laid out (a page whose
        // entries at a tab stop go keeps no leader line of its contents);
        // an index's letter headings (`A`, `B`, …) go with its entries.
        let leaders = page.lines.iter().filter(|l| entry(&l.text, last_page)).count() >= MIN_ENTRIES;
        let (index, mut n) = (!comma.is_empty(), 0);
        page.lines.retain(|l| {
            let listed = |mask: &[bool]| mask.get(n).copied().unwrap_or(false);
            let led = leaders && entry(&l.text, last_page);
            let keep = !(listed(&spaced) || listed(&comma) || led || ((index || leaders) && letter(&l.text)));
            n += 1;
            keep
        });
    }
}

/// Whether `text` is a single letter.
fn letter(text: &str) -> bool {
    let mut chars = text.trim().chars();
    chars.next().is_some_and(char::is_alphabetic) && chars.next().is_none()
}

/// `word` as a page number of a document of `last_page` pages: an arabic
/// one, or 0 for a lower-case roman one (front matter comes first).
fn page_number(word: &str, last_page: u64) -> Option<u64> {
    match word.parse::<u64>() {
        Ok(n) => (1..=last_page).contains(&n).then_some(n),
        Err(_) => super::furniture::roman(word).map(|_| 0),
    }
}

/// Whether `text` is a title, a leader of dots and a page number (arabic,
/// or lower-case roman for front matter).
fn entry(text: &str, last_page: u64) -> bool {
    let Some((rest, number)) = text.trim_end().rsplit_once(|c: char| c.is_whitespace() || c == '.') else {
        return false;
    };
    let numbered = page_number(number, last_page).is_some();
    let title = rest.trim_end_matches(|c: char| c == '.' || c == '…' || c.is_whitespace());
    let leader = &rest[title.len()..];
    let dots = leader.chars().map(|c| if c == '…' { 3 } else { usize::from(c == '.') }).sum::<usize>();
    numbered && dots >= MIN_DOTS && title.chars().any(char::is_alphanumeric)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pdf::layout::Line;

    fn page(number: u32, lines: &[&str]) -> Page {
        let lines = lines.iter().map(|t| Line { y: 0.0, size: 10.0, text: t.to_string(), ..Line::default() }).collect();
        Page { number, lines, ..Page::default() }
    }

    fn texts(page: &Page) -> Vec<&str> {
        page.lines.iter().map(|l| l.text.as_str()).collect()
    }

    #[test]
    fn entries_are_recognised_by_leader_and_page() {
        assert!(entry("2.3 Simple parsing. . . . . . . . 4", 36));
        assert!(entry("asn1_copy_node . . . . . . . . . . 11", 36));
        assert!(entry("Function and Data Index . . . . . . 33", 36));
        assert!(entry("Preface ........ iii", 36));
        assert!(entry("Installing … 7", 36));
        assert!(!entry("Espresso . . . . . . . 250", 36), "past the last page");
        assert!(!entry("It was 1. 2. 3 and then 4", 36), "not a leader");
        assert!(!entry(". . . . 4", 36), "no title");
        assert!(!entry("See chapter 4", 36));
    }

    #[test]
    fn a_page_of_entries_loses_them_and_keeps_the_rest() {
        let mut pages = vec![
            page(
                1,
                &[
                    "Table of Contents",
                    "1 Introduction . . . . . . . . . 2",
                    "2 Structure handling . . . . . . . 2",
                    "2.1 Syntax . . . . . . . . . . . . 3",
                ],
            ),
            page(2, &["1 Introduction", "The library reads DER . . . and BER. See page 2 . . . 2"]),
            page(3, &["Index", "A", "asn1_array2tree . . . . 2", "B", "ber . . . . 3", "bit string . . . . 3"]),
            page(4, &["Prices", "Espresso . . . . 250", "Tea . . . . 180", "Cake . . . . . 3", "Water . . . 90"]),
        ];
        strip(&mut pages);
        assert_eq!(texts(&pages[0]), ["Table of Contents"]);
        // One entry-like line is prose; a price list's prices are past the last page.
        assert_eq!(texts(&pages[1]), ["1 Introduction", "The library reads DER . . . and BER. See page 2 . . . 2"]);
        assert_eq!(texts(&pages[3]).len(), 5);
        assert_eq!(texts(&pages[2]), ["Index"]);
    }
}
