//! A row found by its key *and* its name. A monthly price table holds
//! `MSFT | Oct 1 2009 | 27.48` and `AMZN | Oct 1 2009 | 118.81`: asked for
//! "Amazon (AMZN) on 1 October 2009", both rows hold the key, and the
//! symbol is one common word against it, so the other company's chunk
//! could lead (docs/EVALUATION.md, "Row lookups by key"). Each key of a
//! table row is paired with every word of the same row into one term
//! (`d20091001` + `amzn` → `d20091001amzn`), and a question's keys with
//! its own words: the chunk whose row holds both meets the pair, a chunk
//! holding the key in another company's row does not.
//!
//! Only table rows are paired (lines with a ` | ` between cells, as every
//! table chunk writes them, DESIGN.md): in prose a date and a word in one
//! paragraph say much less about each other.

use crate::keys::{joiner, key_terms, month};

/// At most this many words of one row are paired (a wide sheet's row
/// would otherwise add hundreds of terms to its chunk).
const MAX_WORDS: usize = 24;

/// The pair terms of a chunk's text: each table row's keys with its words.
pub fn row_pairs(text: &str) -> Vec<String> {
    let mut out: Vec<String> =
        text.lines().filter(|l| l.contains(" | ")).flat_map(|row| pairs(&key_terms(row, false), row)).collect();
    out.sort();
    out.dedup();
    out
}

/// The pair terms of a question whose keys are `keys` (its
/// [`key_terms`]): each with each of its words.
pub fn query_pairs(text: &str, keys: &[String]) -> Vec<String> {
    pairs(keys, text)
}

/// Every key joined with every word: a word is letters (digits may
/// follow, `v2`), lower-cased, of two characters or more, and neither a
/// month's name (it is part of the date) nor a joining `of` / `de`.
fn pairs(keys: &[String], text: &str) -> Vec<String> {
    if keys.is_empty() {
        return Vec::new();
    }
    let mut words: Vec<String> = Vec::new();
    for w in text.split(|c: char| !c.is_alphanumeric()) {
        let word = w.chars().next().is_some_and(char::is_alphabetic) && w.chars().count() >= 2;
        if !word || month(w).is_some() || joiner(w) {
            continue;
        }
        let w = w.to_lowercase();
        if !words.contains(&w) && words.len() < MAX_WORDS {
            words.push(w);
        }
    }
    keys.iter().flat_map(|k| words.iter().map(move |w| format!("{k}{w}"))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rows_key_pairs_with_the_words_of_its_own_row() {
        let chunk = "symbol | date | price\nMSFT | Oct 1 2009 | 27.48\nAMZN | Oct 1 2009 | 118.81";
        let pairs = row_pairs(chunk);
        for expected in ["d20091001amzn", "d20091001msft", "m200910amzn", "m200910msft"] {
            assert!(pairs.contains(&expected.to_string()), "{expected}: {pairs:?}");
        }
        assert_eq!(pairs.len(), 4, "the month name and the header pair with nothing: {pairs:?}");
        let asked = "What was the Amazon (AMZN) share price on 1 October 2009?";
        let asked_pairs = query_pairs(asked, &key_terms(asked, true));
        assert!(asked_pairs.contains(&"d20091001amzn".to_string()), "{asked_pairs:?}");
        assert!(!asked_pairs.contains(&"d20091001msft".to_string()));
    }

    #[test]
    fn prose_and_rows_without_keys_pair_nothing() {
        assert!(row_pairs("Amazon reported on Oct 1 2009 that sales rose.").is_empty(), "not a row");
        assert!(row_pairs("symbol | date | price\nMSFT | n/a | 27.48").is_empty(), "no key in the row");
        assert!(query_pairs("what is the price of amzn", &[]).is_empty());
    }

    #[test]
    fn words_are_lower_cased_once_and_capped() {
        let row =
            format!("2015-04-28 | {}", (0..40).map(|i| format!("Word{i} word{i}")).collect::<Vec<_>>().join(" | "));
        let pairs = row_pairs(&row);
        // Two keys (the day and its month), each with the row's first words.
        assert_eq!(pairs.len(), 2 * MAX_WORDS, "{pairs:?}");
        assert!(pairs.contains(&"d20150428word0".to_string()) && pairs.contains(&"m201504word0".to_string()));
        assert_eq!(row_pairs("Ñandú | 2015-04-28"), ["d20150428ñandú", "m201504ñandú"]);
    }
}
