//! The golden-set formats (JSON Lines).

use serde::{Deserialize, Serialize};

/// An in-domain query and the verbatim needles that answer it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GoldenQuery {
    pub id: String,
    pub qid: String,
    pub style: String,
    pub query: String,
    pub doc: String,
    pub kind: String,
    pub needles: Vec<String>,
    /// Needles from speech transcripts: matched when 80 % of their words
    /// appear in order in one hit.
    #[serde(default)]
    pub fuzzy: bool,
    /// `dev` (tuned on) or `test` (only reported); both phrasings of a
    /// question share one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub split: Option<String>,
    /// For media: the seconds `[from, to]` the answer is spoken in. A hit
    /// answers only when its `#t=` range overlaps them, so a transcript
    /// chunk with the right words cut from elsewhere does not count.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub t: Option<(f64, f64)>,
}

impl GoldenQuery {
    /// Whether a chunk (its verbatim content and its locator) answers this query.
    pub fn answered_by(&self, content: &str, locator: &str) -> bool {
        crate::matching::answers(content, &self.needles, self.fuzzy)
            && self.t.is_none_or(|want| crate::matching::overlaps_time(locator, want))
    }
}

/// A query the corpus does not answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OodQuery {
    pub id: String,
    pub query: String,
    #[serde(default)]
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub split: Option<String>,
}

#[derive(Debug, thiserror::Error)]
#[error("line {line}: {reason}")]
pub struct ParseError {
    pub line: usize,
    pub reason: String,
}

/// Parses JSON Lines, skipping blank lines.
pub fn parse_lines<T: for<'de> Deserialize<'de>>(text: &str) -> Result<Vec<T>, ParseError> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| serde_json::from_str(l).map_err(|e| ParseError { line: i + 1, reason: e.to_string() }))
        .collect()
}
