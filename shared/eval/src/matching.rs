//! When does a retrieved chunk answer a query?

/// Collapses whitespace and case-folds, so layout never decides a match;
/// the ` | ` that parts a table row's cells in the canonical text is layout
/// too (the document shows cells side by side, not a bar between them), so a
/// needle copied from a table as it reads matches the row either way.
pub fn normalize(s: &str) -> String {
    s.split_whitespace().filter(|w| *w != "|").map(str::to_lowercase).collect::<Vec<_>>().join(" ")
}

/// Whether one chunk's (normalised) content holds every needle.
pub fn answers(content: &str, needles: &[String], fuzzy: bool) -> bool {
    let content = normalize(content);
    needles
        .iter()
        .all(|n| if fuzzy { fuzzy_contains(&content, &normalize(n)) } else { content.contains(&normalize(n)) })
}

/// Whether a locator's `#t=START,END` range overlaps `[from, to]` seconds
/// (a locator without one never does).
pub fn overlaps_time(locator: &str, (from, to): (f64, f64)) -> bool {
    ragpipe_core::Locator::parse(locator).and_then(|l| l.time).is_some_and(|(a, b)| a < to && b > from)
}

/// At least 80 % of the needle's words appear in the content in order (a
/// transcript may mishear a word or two).
pub fn fuzzy_contains(content: &str, needle: &str) -> bool {
    let words: Vec<&str> =
        needle.split(' ').map(|w| w.trim_matches(|c: char| !c.is_alphanumeric())).filter(|w| !w.is_empty()).collect();
    if words.is_empty() {
        return true;
    }
    let hay: Vec<&str> = content.split(' ').map(|w| w.trim_matches(|c: char| !c.is_alphanumeric())).collect();
    // Longest common subsequence of words, O(n*m) on short needles.
    let mut prev = vec![0usize; words.len() + 1];
    for h in &hay {
        let mut cur = vec![0usize; words.len() + 1];
        for (j, w) in words.iter().enumerate() {
            cur[j + 1] = if h == w { prev[j] + 1 } else { cur[j].max(prev[j + 1]) };
        }
        prev = cur;
    }
    prev[words.len()] * 5 >= words.len() * 4
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_ranges_overlap_or_not() {
        assert!(overlaps_time("#t=12.00,19.50&char=100,180", (18.0, 25.0)));
        assert!(!overlaps_time("#t=12.00,19.50&char=100,180", (19.5, 25.0)));
        assert!(!overlaps_time("#char=100,180", (0.0, 1e9)));
    }

    #[test]
    fn exact_needles_ignore_case_and_layout() {
        let content = "The  Mutex\nguards the DATA it holds.";
        assert!(answers(content, &["mutex guards the data".into()], false));
        assert!(!answers(content, &["mutex guards the data".into(), "absent".into()], false));
        // A table row's cell separators are layout.
        let row = "Part | Price\nSKU-1042 | Pump seal kit | 12.50";
        assert!(answers(row, &["SKU-1042 Pump seal kit 12.50".into()], false));
        assert!(answers(row, &["sku-1042 | pump seal kit".into()], false));
        assert!(!answers(row, &["kit 12.50 SKU".into()], false));
    }

    #[test]
    fn fuzzy_needles_tolerate_a_misheard_word() {
        let content = "so the quick brown fox jumped over the lazy dog today";
        assert!(fuzzy_contains(content, "the quick brown fax jumped over the lazy dog"));
        assert!(!fuzzy_contains(content, "a slow red cat crawled under the busy road"));
    }
}
