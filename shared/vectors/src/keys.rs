//! Keys as people type them: a date, an identifier or a number is written
//! one way in a table cell (`2015-04-28`, `SKU-1042`, `1,042,300`) and
//! another in a question (`28 April 2015`, `sku 1042`, `1042300`). The
//! lexical tokenizer cuts them into pieces that match other rows as well
//! (`2015`, `04`, `28`) or not at all (`sku1042` against `sku` + `1042`).
//! These functions add one whole, normalised term per key, on the document
//! side and on the query side alike, so that a row is found by its key
//! however either side wrote it:
//!
//! - dates → `d20150428` (ISO, `/` and `.` separated, day-month-year and
//!   month-day-year where the numbers allow both, two-digit years, English
//!   and Spanish month names and abbreviations before or after the day,
//!   `28th of April 2015` and `28 de abril de 2015` too, and an ISO
//!   timestamp's date, `2015-04-28T10:30:00Z`), and each also
//!   → its month, `m201504`, which is what a month written without a day
//!   gives (`April 2015`, `Apr 2015`, `2015-04`, `04/2015`): a monthly table
//!   keys its rows by the first of the month, and people ask for the month;
//! - quarters → `q20191` (`Q1 2019`, `2019-Q1`, `1Q19`, "the first quarter
//!   of 2019", [`crate::quarters`]);
//! - identifiers with separators → their letters and digits joined
//!   (`INV/2024/0042` → `inv20240042`); in a query, a short word followed by
//!   a number is joined too (`SKU 1042` → `sku1042`);
//! - numbers with thousands separators → their digits (`1,042,300`,
//!   `1.042.300` and `1.042,30` → `1042300`, `1042`).

const MONTHS: [&str; 12] = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];

/// Spanish month names, for the same numbers (`setiembre` is a spelling of
/// `septiembre`).
const MESES: [&str; 12] = [
    "enero",
    "febrero",
    "marzo",
    "abril",
    "mayo",
    "junio",
    "julio",
    "agosto",
    "septiembre",
    "octubre",
    "noviembre",
    "diciembre",
];

/// The key terms of `text`, to be indexed beside its words. `query` adds
/// the joins a person makes when typing an identifier with a space.
pub fn key_terms(text: &str, query: bool) -> Vec<String> {
    let words = words(text);
    let (mut out, mut dates) = (Vec::new(), Vec::new());
    for (i, w) in words.iter().enumerate() {
        if let Some(found) = numeric_date(w) {
            dates.extend(found);
        } else if let Some(m) = numeric_month(w) {
            out.push(m);
        } else if let Some(n) = grouped_number(w) {
            out.push(n);
        } else if let Some(id) = identifier(w) {
            out.extend(unpadded(w).filter(|u| *u != id));
            out.push(id);
        }
        if month(w).is_some() {
            dates.extend(worded_date(&words, i));
            out.extend(worded_month(&words, i));
        }
        if query
            && let Some(next) = words.get(i + 1)
            && (2..=6).contains(&w.len())
            && w.chars().all(|c| c.is_ascii_alphabetic())
            && next.chars().all(|c| c.is_ascii_digit())
            && month(w).is_none()
            && !joiner(w)
        {
            let joined = format!("{w} {next}");
            out.extend(unpadded(&joined));
            out.push(format!("{}{next}", w.to_ascii_lowercase()));
        }
    }
    out.extend(crate::quarters::quarter_terms(&words));
    // d20150428 → m201504 as well.
    out.extend(dates.iter().map(|d| format!("m{}", &d[1..7])));
    out.extend(dates);
    out.sort();
    out.dedup();
    out
}

/// The text cut where keys end: at spaces, a table's `|` and brackets,
/// with the punctuation around a word left out.
pub(crate) fn words(text: &str) -> Vec<&str> {
    text.split(|c: char| c.is_whitespace() || matches!(c, '|' | ';' | '(' | ')' | '[' | ']' | '"' | '\''))
        .map(|w| w.trim_matches(|c: char| matches!(c, ',' | ':' | '!' | '?') || c == '.'))
        .filter(|w| !w.is_empty())
        .collect()
}

fn month_term(y: u32, m: u32) -> Option<String> {
    ((1..=12).contains(&m) && (1000..=2999).contains(&y)).then(|| format!("m{y:04}{m:02}"))
}

/// `2015-04`, `2015/4`, `04/2015`: a year of four digits and a month. Not
/// with `.` (`2015.04` is a number).
fn numeric_month(w: &str) -> Option<String> {
    let (a, b) = w.split_once(['-', '/'])?;
    let digits = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_digit());
    if !(digits(a) && digits(b)) {
        return None;
    }
    match (a.len(), b.len()) {
        (4, 1..=2) => month_term(a.parse().ok()?, b.parse().ok()?),
        (1..=2, 4) => month_term(b.parse().ok()?, a.parse().ok()?),
        _ => None,
    }
}

/// A month name at `i` followed by a four-digit year: `April 2015`,
/// `Apr. 2015`.
fn worded_month(words: &[&str], i: usize) -> Option<String> {
    let y = beside(words, i, true).first().filter(|w| w.len() == 4).and_then(|w| year(w))?;
    month_term(y, month(words[i])?)
}

fn date_term(y: u32, m: u32, d: u32) -> Option<String> {
    let days = match m {
        2 => 29,
        4 | 6 | 9 | 11 => 30,
        1..=12 => 31,
        _ => return None,
    };
    ((1..=days).contains(&d) && (1000..=2999).contains(&y)).then(|| format!("d{y:04}{m:02}{d:02}"))
}

pub(crate) fn year(s: &str) -> Option<u32> {
    let n: u32 = s.parse().ok()?;
    match s.len() {
        4 => Some(n),
        // Two digits: 00–49 are this century, 50–99 the last.
        2 => Some(if n < 50 { 2000 + n } else { 1900 + n }),
        _ => None,
    }
}

/// `2015-04-28`, `2015/4/28`, `28.04.2015`, `04/28/2015`, `11/11/07`: every
/// reading the numbers allow; an ISO timestamp's date
/// (`2015-04-28T10:30:00Z`, as databases and JSON export them).
fn numeric_date(w: &str) -> Option<Vec<String>> {
    let w = match w.split_once('T') {
        Some((date, time)) if date.len() == 10 && time.starts_with(|c: char| c.is_ascii_digit()) => date,
        _ => w,
    };
    let sep = w.chars().find(|c| matches!(c, '-' | '/' | '.'))?;
    let parts: Vec<&str> = w.split(sep).collect();
    if parts.len() != 3 {
        return None;
    }
    // 28-Apr-2015
    if let (Some(d), Some(m), Some(y)) = (day(parts[0]), month(parts[1]), year(parts[2])) {
        return date_term(y, m, d).map(|t| vec![t]);
    }
    if parts.iter().any(|p| p.is_empty() || !p.chars().all(|c| c.is_ascii_digit())) {
        return None;
    }
    let num = |s: &str| s.parse::<u32>().ok();
    let mut out = Vec::new();
    if parts[0].len() == 4 {
        out.extend(date_term(num(parts[0])?, num(parts[1])?, num(parts[2])?));
    } else if parts[0].len() <= 2 && parts[1].len() <= 2 {
        let y = year(parts[2])?;
        let (a, b) = (num(parts[0])?, num(parts[1])?);
        out.extend(date_term(y, b, a));
        out.extend(date_term(y, a, b));
    }
    out.dedup();
    (!out.is_empty()).then_some(out)
}

/// `April`, `apr`, `Apr.`, `Sept` → the month's number. "May" and "March"
/// are words too: a month counts only beside a day and a year.
/// Called on every word of every chunk at ingest: compares without allocating.
pub(crate) fn month(w: &str) -> Option<u32> {
    let w = w.trim_end_matches('.');
    let abbreviation = w.len() == 3 || w.eq_ignore_ascii_case("sept");
    let matches = |m: &str| {
        m.eq_ignore_ascii_case(w) || (abbreviation && m.get(..w.len()).is_some_and(|p| p.eq_ignore_ascii_case(w)))
    };
    let found = MONTHS.iter().position(|m| matches(m)).or_else(|| MESES.iter().position(|m| matches(m)));
    found.or_else(|| w.eq_ignore_ascii_case("setiembre").then_some(8)).map(|i| i as u32 + 1)
}

/// The words around a month name, skipping the `of` / `de` / `del` that
/// join a day, a month and a year in writing.
/// The two words after it (`forward`) or the one before.
fn beside<'a>(words: &[&'a str], i: usize, forward: bool) -> Vec<&'a str> {
    match forward {
        true => words[i + 1..].iter().filter(|w| !joiner(w)).take(2).copied().collect(),
        false => words[..i].iter().rev().filter(|w| !joiner(w)).take(1).copied().collect(),
    }
}

pub(crate) fn joiner(w: &str) -> bool {
    ["of", "de", "del"].iter().any(|j| w.eq_ignore_ascii_case(j))
}

fn day(w: &str) -> Option<u32> {
    let digits = w.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let suffix = &w[digits.len()..];
    if !matches!(suffix, "" | "st" | "nd" | "rd" | "th") || digits.is_empty() || digits.len() > 2 {
        return None;
    }
    digits.parse().ok()
}

/// A month name at `i` with a day and a year around it: `28 April 2015`,
/// `April 28, 2015`, `Apr 28 2015`, `28-Apr-2015` (one word).
fn worded_date(words: &[&str], i: usize) -> Option<String> {
    let m = month(words[i])?;
    let four = |w: Option<&str>| w.filter(|w| w.len() == 4).and_then(year);
    let (next, prev) = (beside(words, i, true), beside(words, i, false));
    let (after, then) = (next.first().copied(), next.get(1).copied());
    if let (Some(d), Some(y)) = (prev.first().and_then(|w| day(w)), four(after)) {
        return date_term(y, m, d);
    }
    if let (Some(d), Some(y)) = (after.and_then(day), four(then)) {
        return date_term(y, m, d);
    }
    None
}

/// `1,042,300` or `12,500.75` → the integer's digits; written the
/// continental way, `1.042.300` or `1.042,30` (one dot group alone, `1.042`,
/// is a decimal as often as not: left as it is).
fn grouped_number(w: &str) -> Option<String> {
    let grouped = |int: &str, sep: char, min_groups: usize| {
        let groups: Vec<&str> = int.split(sep).collect();
        let well_formed = groups.len() >= min_groups
            && (1..=3).contains(&groups[0].len())
            && groups[1..].iter().all(|g| g.len() == 3)
            && groups.iter().all(|g| !g.is_empty() && g.chars().all(|c| c.is_ascii_digit()));
        well_formed.then(|| groups.concat())
    };
    let english = w.split('.').next().and_then(|int| grouped(int, ',', 2));
    let continental = || {
        let (int, decimals) = w.split_once(',').unwrap_or((w, ""));
        let decimal = !decimals.is_empty() && decimals.chars().all(|c| c.is_ascii_digit());
        grouped(int, '.', if decimal { 2 } else { 3 })
    };
    english.or_else(continental)
}

/// `SKU-1042`, `INV/2024/0042`, `AB_12.3`: letters and digits joined,
/// lower-cased; only for words with a separator, a letter and a digit
/// (others are whole tokens already, or decimals such as `39.1`).
fn identifier(w: &str) -> Option<String> {
    let has_sep = w.chars().any(|c| matches!(c, '-' | '/' | '_' | '.'));
    let has_digit = w.chars().any(|c| c.is_ascii_digit());
    let has_letter = w.chars().any(|c| c.is_ascii_alphabetic());
    let only = w.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '/' | '_' | '.'));
    if !(has_sep && has_digit && has_letter && only) || w.contains("//") || w.len() > 40 {
        return None;
    }
    let joined: String = w.chars().filter(char::is_ascii_alphanumeric).map(|c| c.to_ascii_lowercase()).collect();
    (joined.len() >= 3).then_some(joined)
}

/// An identifier whose numbers are padded with zeros, joined without them:
/// `INV/2024/0042` → `inv202442`, so that `INV-2024-42` and `ORD 42` meet
/// `ORD-00042` (`None` when no number is padded). Not across a dot: `v1.02`
/// and `v1.2` are two versions.
fn unpadded(w: &str) -> Option<String> {
    let groups: Vec<&str> = w.split(|c: char| !c.is_ascii_alphanumeric()).filter(|g| !g.is_empty()).collect();
    let padded = |g: &str| g.len() > 1 && g.starts_with('0') && g.chars().all(|c| c.is_ascii_digit());
    if w.contains('.') || !groups.iter().any(|g| padded(g)) {
        return None;
    }
    let trimmed = |g: &str| match g.trim_start_matches('0') {
        "" if padded(g) => "0".to_string(),
        t if padded(g) => t.to_string(),
        _ => g.to_ascii_lowercase(),
    };
    Some(groups.iter().map(|g| trimmed(g)).collect::<String>()).filter(|u| u.len() >= 3)
}

#[cfg(test)]
mod tests {
    use super::key_terms;

    fn doc(s: &str) -> Vec<String> {
        key_terms(s, false)
    }

    #[test]
    fn dates_in_every_common_form_meet() {
        let cell = doc("2015-04-28 | 0.0 | 20.6");
        assert_eq!(cell, ["d20150428", "m201504"]);
        for asked in ["28 April 2015", "April 28, 2015", "april 28th 2015", "Apr 28 2015", "2015/04/28", "28.04.2015"] {
            assert!(key_terms(asked, true).contains(&"d20150428".to_string()), "{asked}");
        }
        // Both readings when the numbers allow them; one when they do not.
        assert_eq!(doc("04/05/2015"), ["d20150405", "d20150504", "m201504", "m201505"]);
        assert_eq!(doc("04/28/2015"), ["d20150428", "m201504"]);
        assert_eq!(doc("11/11/07"), ["d20071111", "m200711"]);
        assert_eq!(doc("Jan 1 2000"), ["d20000101", "m200001"]);
        assert_eq!(doc("28-Apr-2015"), ["d20150428", "m201504"]);
        assert_eq!(doc("2015-04-28T10:30:00Z | 3.5"), ["d20150428", "m201504"]);
        assert_eq!(doc("2015-04-28T10:30:00+02:00"), ["d20150428", "m201504"]);
        for not in ["2015-04-28Tuesday", "AB-12-34T5"] {
            assert!(!doc(not).iter().any(|t| t.starts_with(['d', 'm'])), "{not}: {:?}", doc(not));
        }
        assert!(doc("2015-13-45").is_empty() && doc("may be 2015").is_empty());
    }

    #[test]
    fn spanish_dates_and_joining_words_meet_too() {
        for asked in ["28 de abril de 2015", "28th of April 2015", "abril 28, 2015", "28-abr-2015", "28 abr. 2015"] {
            assert!(key_terms(asked, true).contains(&"d20150428".to_string()), "{asked}: {:?}", key_terms(asked, true));
        }
        assert_eq!(key_terms("¿cuánto en febrero de 2010?", true), ["m201002"]);
        assert_eq!(key_terms("ventas de setiembre 2021", true), ["m202109"]);
        assert_eq!(doc("2 dic 2019"), ["d20191202", "m201912"]);
    }

    #[test]
    fn a_month_without_a_day_meets_the_dates_in_it() {
        // A monthly table keys its rows by the first of the month.
        assert!(doc("2010-02-01 | 129705 | 107352").contains(&"m201002".to_string()));
        for asked in ["February 2010", "Feb 2010", "feb. 2010", "2010-02", "2010/2", "02/2010", "in Feb 2010, how many"]
        {
            assert_eq!(key_terms(asked, true), ["m201002"], "{asked}");
        }
        // Not a month: decimals, year ranges, a month word without a year.
        for not in ["2010.02", "2010-2012", "13/2010", "may 20", "version 2010-5a"] {
            assert!(!doc(not).iter().any(|t| t.starts_with('m')), "{not}: {:?}", doc(not));
        }
    }

    #[test]
    fn identifiers_and_numbers_join() {
        assert_eq!(doc("order SKU-1042 shipped"), ["sku1042"]);
        assert_eq!(doc("INV/2024/0042"), ["inv20240042", "inv202442"]);
        assert!(key_terms("invoice INV-2024-42", true).contains(&"inv202442".to_string()));
        assert_eq!(doc("ORD-00042"), ["ord00042", "ord42"]);
        assert!(key_terms("where is ord 42", true).contains(&"ord42".to_string()));
        assert!(key_terms("where is ord 0042", true).contains(&"ord42".to_string()));
        assert_eq!(doc("AB-0"), ["ab0"], "a zero alone is no padding");
        assert_eq!(doc("ABC-000"), ["abc0", "abc000"]);
        assert_eq!(doc("v1.02"), ["v102"], "versions keep their zeros");
        assert!(key_terms("where is sku 1042", true).contains(&"sku1042".to_string()));
        assert!(doc("where is sku 1042").is_empty(), "joins across a space only in queries");
        assert_eq!(doc("population 1,042,300 people"), ["1042300"]);
        assert_eq!(doc("costs 12,500.75"), ["12500"]);
        assert_eq!(doc("población 1.042.300 habitantes"), ["1042300"]);
        assert_eq!(doc("cuesta 1.042,30 euros"), ["1042"]);
        assert!(doc("version 1.042 and 3,5 kg").is_empty(), "one dot group, or a decimal comma alone: not grouped");
        assert!(doc("plain words and 42 and v2, 39.1 mm").is_empty());
        assert!(doc("https://example.com/a-1").is_empty());
    }
}
