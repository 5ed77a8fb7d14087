//! Contents entries with no leader: a title, a wide gap, a page number
//! ending at the tab stop the page's other entries end at (or, on a page
//! that is contents, naming a heading of the document).

use super::{MIN_ENTRIES, page_number};
use crate::pdf::layout::{Line, Page};
use std::cell::OnceCell;
use std::collections::HashMap;

/// A page number stands at least this many ems from its title (a word gap
/// is about a quarter of one).
const MIN_GAP_EM: f64 = 1.5;

/// Page numbers ending at one tab stop end this close together (points).
const ALIGN: f64 = 1.0;

/// Every line of a document by its words (see [`key`]), with the indexes
/// of the pages it is on: where a contents entry's title is found again.
pub(super) struct Titles(HashMap<String, Vec<usize>>);

impl Titles {
    pub(super) fn of(pages: &[Page]) -> Self {
        let mut map: HashMap<String, Vec<usize>> = HashMap::new();
        for (i, page) in pages.iter().enumerate() {
            for line in &page.lines {
                let words = key(&line.text);
                if words.is_empty() {
                    continue;
                }
                let on = map.entry(words).or_default();
                if on.last() != Some(&i) {
                    on.push(i);
                }
            }
        }
        Titles(map)
    }

    /// Whether `title` is a line of a page other than `page`.
    fn elsewhere(&self, title: &str, page: usize) -> bool {
        let words = key(title);
        !words.is_empty() && self.0.get(&words).is_some_and(|on| on.iter().any(|&p| p != page))
    }
}

/// A line ending in a page number, which may be an entry: where its title
/// ends, its page number (0 for a roman one: front matter comes first),
/// the number's right edge and whether it stands apart from the title.
struct Candidate {
    line: usize,
    title_end: usize,
    number: u64,
    right: f64,
    apart: bool,
}

/// The lines of `pages[index]` that are contents entries without a leader,
/// as a mask over its lines (empty when there are none). The document's
/// [`Titles`] are gathered only once a page's layout reads as contents.
pub(super) fn entries(pages: &[Page], index: usize, titles: &OnceCell<Titles>) -> Vec<bool> {
    let page = &pages[index];
    let last_page = pages.len() as u64;
    let candidates: Vec<Candidate> =
        page.lines.iter().enumerate().filter_map(|(i, l)| candidate(i, l, last_page)).collect();
    let apart: Vec<f64> = candidates.iter().filter(|c| c.apart).map(|c| c.right).collect();
    if apart.len() < MIN_ENTRIES {
        return Vec::new();
    }
    let stop = tab_stop(apart);
    let at_stop = |c: &&Candidate| c.apart && (stop..=stop + ALIGN).contains(&c.right);
    let listed: Vec<&Candidate> = candidates.iter().filter(at_stop).collect();
    // Page numbers go up through a contents page; a column of defaults
    // (`Twips | 1`) that never does is a table.
    let ascending = listed.windows(2).all(|w| w[0].number <= w[1].number);
    let rising = listed.first().map(|c| c.number) < listed.last().map(|c| c.number);
    if listed.len() < MIN_ENTRIES || !ascending || !rising {
        return Vec::new();
    }
    let titles = titles.get_or_init(|| Titles::of(pages));
    let heading = |c: &Candidate| titles.elsewhere(&page.lines[c.line].text[..c.title_end], index);
    if 2 * listed.iter().filter(|c| heading(c)).count() < listed.len() {
        return Vec::new();
    }
    // A contents page: its entries at that stop, and those of another
    // level set otherwise (a chapter's line, its number after a short tab)
    // naming a heading.
    let mut mask = vec![false; page.lines.len()];
    for c in &candidates {
        mask[c.line] = at_stop(&c) || heading(c);
    }
    mask
}

/// Where the tab stop most page numbers end at begins: the start of the
/// `ALIGN`-wide span holding the most of their right edges.
fn tab_stop(mut rights: Vec<f64>) -> f64 {
    rights.sort_by(f64::total_cmp);
    let (mut best, mut stop, mut from) = (0, rights[0], 0);
    for (to, &right) in rights.iter().enumerate() {
        while right - rights[from] > ALIGN {
            from += 1;
        }
        if to + 1 - from > best {
            (best, stop) = (to + 1 - from, rights[from]);
        }
    }
    stop
}

fn candidate(line: usize, l: &Line, last_page: u64) -> Option<Candidate> {
    let [.., before, last] = l.words.as_slice() else { return None };
    let number = page_number(&l.text[last.start..last.end], last_page)?;
    let apart = last.x0 - before.x1 >= MIN_GAP_EM * l.size;
    Some(Candidate { line, title_end: before.end, number, right: last.x1, apart })
}

/// A line's words, lower-cased, without the section number that opens it
/// (`2.1 Basic Entities` and `Basic Entities` are the same heading, and so
/// is a contents line's `12.Basic Entities`, its number set against the
/// title); empty when no word has a letter.
fn key(text: &str) -> String {
    let text = text.trim_start();
    let number = text.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(text.len());
    let glued = number > 0 && text[..number].ends_with('.') && text[number..].starts_with(char::is_alphabetic);
    let text = if glued { &text[number..] } else { text };
    let words: Vec<String> = text
        .split(|c: char| !c.is_alphanumeric() && c != '.')
        .map(|w| w.trim_matches('.'))
        .filter(|w| !w.is_empty())
        .skip_while(|w| w.chars().all(|c| c.is_ascii_digit() || c == '.'))
        .map(str::to_lowercase)
        .collect();
    if words.iter().any(|w| w.chars().any(char::is_alphabetic)) { words.join(" ") } else { String::new() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pdf::layout::Word;

    /// A line of words 6 points a character, one space apart, starting at
    /// `x`; `number` (if any) ends at `right`.
    fn line(y: f64, x: f64, title: &str, number: Option<(&str, f64)>) -> Line {
        let mut l = Line { y, size: 10.0, ..Line::default() };
        let mut push = |word: &str, x0: f64| {
            if !l.text.is_empty() {
                l.text.push(' ');
            }
            let start = l.text.len();
            l.text.push_str(word);
            let x1 = x0 + 6.0 * word.len() as f64;
            l.words.push(Word { start, end: l.text.len(), x0, x1 });
            x1 + 3.0
        };
        let mut at = x;
        for word in title.split(' ') {
            at = push(word, at);
        }
        if let Some((n, right)) = number {
            push(n, right - 6.0 * n.len() as f64);
        }
        l
    }

    fn page(number: u32, lines: Vec<Line>) -> Page {
        Page { number, lines, ..Page::default() }
    }

    /// A contents page listing `entries` at a right tab stop, then a page
    /// for each heading.
    fn document(entries: &[(&str, &str)], right: &dyn Fn(usize) -> f64) -> Vec<Page> {
        let mut lines = vec![line(800.0, 50.0, "Contents", None)];
        for (i, (title, number)) in entries.iter().enumerate() {
            lines.push(line(780.0 - 14.0 * i as f64, 50.0, title, Some((number, right(i)))));
        }
        let mut pages = vec![page(1, lines)];
        for (i, (title, _)) in entries.iter().enumerate() {
            let body = line(770.0, 50.0, "Some words about it.", None);
            pages.push(page(i as u32 + 2, vec![line(800.0, 50.0, &format!("{}. {title}", i + 1), None), body]));
        }
        pages
    }

    fn listed(pages: &[Page]) -> Vec<bool> {
        entries(pages, 0, &OnceCell::new())
    }

    #[test]
    fn entries_at_a_tab_stop_naming_headings_are_contents() {
        let toc = [("Scheduling", "2"), ("Spare parts", "3"), ("Safety", "4"), ("Basic Entities", "4")];
        assert_eq!(listed(&document(&toc, &|_| 538.0)), [false, true, true, true, true]);
        // Numbers placed a fraction of a point apart are still one stop.
        assert_eq!(listed(&document(&toc, &|i| 538.0 + 0.3 * i as f64)), [false, true, true, true, true]);
        // A chapter's line set otherwise (its number half an em after the
        // title) goes with them when it names a heading; a line of
        // something else there stays.
        let mut pages = document(&toc, &|i| if i == 3 { 142.0 } else { 538.0 });
        assert_eq!(listed(&pages), [false, true, true, true, true]);
        pages[4].lines[0] = line(800.0, 50.0, "4. Entities", None);
        assert_eq!(listed(&pages), [false, true, true, true, false]);
    }

    #[test]
    fn small_numbers_in_a_column_are_not_contents_unless_they_list_the_document() {
        let toc = [("Scheduling", "2"), ("Spare parts", "3"), ("Safety", "4")];
        let mut pages = document(&toc, &|_| 538.0);
        // The same layout whose first cells are not the document's headings:
        // a table of quantities.
        for (p, name) in pages[1..].iter_mut().zip(["Pumps", "Valves", "Gauges"]) {
            p.lines[0] = line(800.0, 50.0, name, None);
        }
        assert!(listed(&pages).is_empty());
        // Going down is no contents; nor are numbers at no common stop.
        assert!(
            listed(&document(&[("Safety", "4"), ("Scheduling", "2"), ("Spare parts", "3")], &|_| 538.0)).is_empty()
        );
        assert!(listed(&document(&toc, &|i| 400.0 + 60.0 * i as f64)).is_empty());
        // Nor are numbers that never go up: a column of defaults, whose
        // lines a document may well repeat in another table.
        assert!(
            listed(&document(&[("Scheduling", "2"), ("Spare parts", "2"), ("Safety", "2")], &|_| 538.0)).is_empty()
        );
        // Two entries are not a page of them; a page number past the end is none.
        assert!(listed(&document(&toc[..2], &|_| 538.0)).is_empty());
        assert!(
            listed(&document(&[("Scheduling", "2"), ("Spare parts", "3"), ("Safety", "40")], &|_| 538.0)).is_empty()
        );
    }

    #[test]
    fn a_number_one_word_gap_after_its_title_is_prose() {
        let prose = line(700.0, 50.0, "as chapter", Some(("2", 50.0 + 6.0 * 10.0 + 3.0 + 6.0)));
        assert!(candidate(0, &prose, 9).is_some_and(|c| !c.apart));
        let entry = line(700.0, 50.0, "Scheduling", Some(("2", 538.0)));
        assert_eq!(candidate(0, &entry, 9).map(|c| (c.title_end, c.number)), Some((10, 2)));
        assert_eq!(candidate(0, &line(700.0, 50.0, "Preface", Some(("iv", 538.0))), 9).map(|c| c.number), Some(0));
    }

    /// DBLaTeX's contents: a chapter's line without a leader, its number
    /// set against the title (`12.Upgrades 70`), above its sections' lines
    /// with leaders, some short enough to stand apart from their page
    /// number, as the chapters' numbers do, and go with them; the rest,
    /// fewer than three, go as the leader lines of the same page.
    #[test]
    fn a_number_set_against_its_title_names_the_heading_and_its_sections_go_too() {
        let toc = [("1.Scheduling", "2"), ("2.Spare parts", "3"), ("3.Safety", "4")];
        let mut pages = document(&toc, &|_| 538.0);
        for (i, title) in ["Scheduling", "Spare parts", "Safety"].iter().enumerate() {
            pages[i + 1].lines[0] = line(800.0, 50.0, &format!("{}. {title}", i + 1), None);
        }
        assert_eq!(listed(&pages), [false, true, true, true]);
        for (y, dots) in [(600.0, 5), (586.0, 47), (572.0, 5), (558.0, 47)] {
            let leader = ["3.1", "Rotas"].into_iter().chain(std::iter::repeat_n(".", dots)).collect::<Vec<_>>();
            pages[0].lines.push(line(y, 50.0, &leader.join(" "), Some(("4", 538.0))));
        }
        crate::pdf::contents::strip(&mut pages);
        let left: Vec<&str> = pages[0].lines.iter().map(|l| l.text.as_str()).collect();
        assert_eq!(left, ["Contents"]);
    }

    #[test]
    fn a_heading_is_the_same_with_or_without_its_number() {
        assert_eq!(key("2.1 Basic Entities"), "basic entities");
        assert_eq!(key("Basic  entities"), "basic entities");
        assert_eq!(key("1. Introduction"), "introduction");
        assert_eq!(key("12.Actualizaciones"), "actualizaciones");
        assert_eq!(key("14.10.Actualizar con un CD"), "actualizar con un cd");
        assert_eq!(key("3.5mm jack"), "3.5mm jack", "a number that is part of a word stays");
        assert_eq!(key("Version 2.1 notes"), "version 2.1 notes");
        assert_eq!(key("12 34"), "");
    }
}
