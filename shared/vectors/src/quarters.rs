//! Quarters as people write them: a quarterly table keys its rows `2019 Q1`,
//! `Q1-2019` or `1Q19`, and a question asks for `Q1 2019` or "the first
//! quarter of 2019" (`primer trimestre de 2019`). Each gives one term,
//! `q20191`, on both sides ([`crate::keys`]). A date is not taken for its
//! quarter: asked for a quarter, a daily table's ninety rows would all
//! match.

use crate::keys::{joiner, year};

/// The quarter terms of a text cut into `words` (as [`crate::keys`] cuts it).
pub(crate) fn quarter_terms(words: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    for (i, w) in words.iter().enumerate() {
        let next = || words[i + 1..].iter().find(|w| !joiner(w)).copied();
        let found = match (combined(w), quarter(w), ordinal(w)) {
            (Some(qy), _, _) => Some(qy),
            // `Q1 2019`, `2019 Q1`
            (None, Some(q), _) => {
                next().and_then(year).or_else(|| i.checked_sub(1).and_then(|p| year(words[p]))).map(|y| (y, q))
            }
            // `first quarter of 2019`, `primer trimestre de 2019`
            (None, None, Some(q)) => {
                let noun = words
                    .get(i + 1)
                    .is_some_and(|n| ["quarter", "trimestre"].iter().any(|q| n.eq_ignore_ascii_case(q)));
                let y = words[(i + 2).min(words.len())..].iter().find(|w| !joiner(w)).and_then(|w| year(w));
                noun.then_some(y).flatten().map(|y| (y, q))
            }
            _ => None,
        };
        out.extend(found.filter(|(y, _)| (1000..=2999).contains(y)).map(|(y, q)| format!("q{y:04}{q}")));
    }
    out
}

/// `Q1`, `q3`, `1Q`, `T2` (Spanish `trimestre`) → the quarter.
fn quarter(w: &str) -> Option<u32> {
    let w = w.to_ascii_lowercase();
    number(w.strip_prefix(['q', 't']).or_else(|| w.strip_suffix(['q', 't']))?)
}

/// `1` to `4`.
fn number(digit: &str) -> Option<u32> {
    digit.parse().ok().filter(|q| (1..=4).contains(q))
}

/// `Q1-2019`, `Q1/2019`, `2019-Q1`, `2019Q1`, `1Q2019`, `1Q19`, `Q1'19`:
/// a quarter and its year in one word.
fn combined(w: &str) -> Option<(u32, u32)> {
    let lower = w.to_ascii_lowercase();
    let parts: Vec<&str> = lower.split(['-', '/', '\'', '_']).filter(|p| !p.is_empty()).collect();
    match parts.as_slice() {
        [a, b] => quarter(a).zip(year(b)).map(|(q, y)| (y, q)).or_else(|| year(a).zip(quarter(b))),
        [one] => {
            // 2019q1, 1q2019, 1q19
            let at = one.find(['q', 't'])?;
            let (a, b) = (&one[..at], &one[at + 1..]);
            match (a.len(), b.len()) {
                (4, 1) => year(a).zip(number(b)),
                (1, 2 | 4) => year(b).zip(number(a)),
                _ => None,
            }
        }
        _ => None,
    }
}

/// `first`, `1st`, `primer` … → the quarter they name before `quarter`.
fn ordinal(w: &str) -> Option<u32> {
    const ORDINALS: [&[&str]; 4] = [
        &["first", "1st", "primer", "primero", "1er", "1º"],
        &["second", "2nd", "segundo", "2º"],
        &["third", "3rd", "tercer", "tercero", "3er", "3º"],
        &["fourth", "4th", "cuarto", "4º"],
    ];
    ORDINALS.iter().position(|names| names.iter().any(|n| n.eq_ignore_ascii_case(w))).map(|i| i as u32 + 1)
}

#[cfg(test)]
mod tests {
    use super::quarter_terms;
    use crate::keys::{key_terms, words};

    fn quarters(text: &str) -> Vec<String> {
        let terms = quarter_terms(&words(text));
        assert!(terms.iter().all(|t| key_terms(text, true).contains(t)), "{text}: keys hold the quarter");
        terms
    }

    #[test]
    fn every_way_of_writing_a_quarter_meets() {
        for written in [
            "Q1 2019",
            "2019 Q1",
            "q1-2019",
            "2019-Q1",
            "2019Q1",
            "1Q2019",
            "1Q19",
            "Q1'19",
            "revenue in the first quarter of 2019?",
            "1st quarter 2019",
            "ventas del primer trimestre de 2019",
            "T1 2019",
        ] {
            assert_eq!(quarters(written), ["q20191"], "{written}");
        }
        assert_eq!(quarters("2019 Q1 | North | 1,204,000"), ["q20191"]);
        assert_eq!(quarters("fourth quarter 2020 and Q3 2021"), ["q20204", "q20213"]);
    }

    #[test]
    fn what_only_looks_like_a_quarter_is_not_one() {
        for not in ["Q5 2019", "Q1 alone", "first quarter", "the first of 2019", "Q12019x", "T10 2019", "2019-05-01"] {
            assert!(quarters(not).is_empty(), "{not}: {:?}", quarters(not));
        }
    }
}
