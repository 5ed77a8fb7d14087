//! Character error rate, the measure OCR engines are compared by
//! (`ragpipe bench ocr`, the crate's tests): the edit distance between the
//! recognised text and a reference read by a person, over the reference's
//! length, after normalising what typesetting varies and readers do not
//! (curly and straight quotes, dash lengths, runs of whitespace).

/// Normalises typography: quotes to `"` and `'`, dashes to `-`, every run of
/// whitespace (line breaks included) to one space.
pub fn normalise(text: &str) -> String {
    let mapped: String = text
        .chars()
        .map(|c| match c {
            '“' | '”' | '„' | '«' | '»' | '″' => '"',
            '‘' | '’' | '‚' | '`' | '´' => '\'',
            '–' | '—' | '‐' | '‑' | '−' => '-',
            other => other,
        })
        .collect();
    mapped.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Character error rate of `hypothesis` against `reference`, both normalised.
pub fn cer(reference: &str, hypothesis: &str) -> f64 {
    let r: Vec<char> = normalise(reference).chars().collect();
    let h: Vec<char> = normalise(hypothesis).chars().collect();
    if r.is_empty() {
        return if h.is_empty() { 0.0 } else { 1.0 };
    }
    // Levenshtein distance over one row.
    let mut row: Vec<usize> = (0..=h.len()).collect();
    for (i, rc) in r.iter().enumerate() {
        let mut diag = row[0];
        row[0] = i + 1;
        for (j, hc) in h.iter().enumerate() {
            let next = (diag + usize::from(rc != hc)).min(row[j] + 1).min(row[j + 1] + 1);
            diag = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[h.len()] as f64 / r.len() as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typography_is_not_an_error_but_letters_are() {
        assert_eq!(cer("It’s a “test” — ok", "It's a \"test\" - ok"), 0.0);
        assert_eq!(cer("line one\nline two", "line one line two"), 0.0);
        assert!((cer("abcd", "abxd") - 0.25).abs() < 1e-9);
        assert!((cer("abcd", "abd") - 0.25).abs() < 1e-9);
        assert_eq!(cer("", ""), 0.0);
    }
}
