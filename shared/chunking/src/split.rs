//! Splitting a block that is larger than the budget: prose at sentence
//! boundaries, code at line boundaries, and only a single sentence or line
//! that is itself too large at word boundaries.

use crate::TokenCounter;
use crate::pack::Unit;
use std::ops::Range;
use unicode_segmentation::UnicodeSegmentation;

/// How a block may be cut when it does not fit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Grain {
    Sentences,
    Lines,
}

/// Turns the block at `range` of `text` into units that each fit `room`.
/// A block that fits is returned whole.
pub(crate) fn units_for(
    text: &str,
    range: Range<usize>,
    grain: Grain,
    room: usize,
    counter: &dyn TokenCounter,
) -> Vec<Unit> {
    let tokens = crate::measure(counter, &text[range.clone()]);
    if tokens <= room {
        return vec![Unit { range, tokens }];
    }
    let pieces = match grain {
        Grain::Sentences => sentences(text, range),
        Grain::Lines => lines(text, range),
    };
    let mut units = Vec::with_capacity(pieces.len());
    for piece in pieces {
        let tokens = crate::measure(counter, &text[piece.clone()]);
        if tokens <= room {
            units.push(Unit { range: piece, tokens });
        } else {
            units.extend(words(text, piece, room, counter));
        }
    }
    units
}

/// Sentence ranges (UAX #29) inside `range`, trimmed of surrounding whitespace.
fn sentences(text: &str, range: Range<usize>) -> Vec<Range<usize>> {
    let base = range.start;
    text[range].split_sentence_bound_indices().filter_map(|(i, s)| trimmed(base + i, s)).collect()
}

/// Non-empty line ranges inside `range`, trimmed at the end.
fn lines(text: &str, range: Range<usize>) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut at = range.start;
    for line in text[range].split_inclusive('\n') {
        let trimmed_len = line.trim_end().len();
        if trimmed_len > 0 {
            out.push(at..at + trimmed_len);
        }
        at += line.len();
    }
    out
}

/// Last resort for a single sentence or line over `room`: consecutive words
/// (UAX #29 word boundaries) grouped greedily, cutting only between words.
/// Punctuation stays with the word before it (a few tokens are reserved for
/// that), so no piece starts with a stray `.` or `,`.
fn words(text: &str, range: Range<usize>, room: usize, counter: &dyn TokenCounter) -> Vec<Unit> {
    const RESERVE: usize = 4;
    let soft = room.saturating_sub(RESERVE).max(1);
    let mut out = Vec::new();
    let mut current: Option<Unit> = None;
    let pieces = text[range.clone()]
        .split_word_bound_indices()
        .flat_map(|(i, w)| capped(w, MAX_WORD_BYTES).map(move |(j, p)| (i + j, p)));
    for (i, w) in pieces {
        if w.trim().is_empty() {
            continue;
        }
        let at = range.start + i;
        let tokens = counter.count(w);
        let punctuation = !w.chars().any(char::is_alphanumeric);
        match current.as_mut() {
            Some(u) if u.tokens + tokens <= soft || (punctuation && u.tokens + tokens <= room) => {
                u.range.end = at + w.len();
                u.tokens += tokens;
            }
            _ => {
                out.extend(current.take());
                current = Some(Unit { range: at..at + w.len(), tokens });
            }
        }
    }
    out.extend(current);
    out
}

/// Longest "word" measured as one: the tokenizer reads anything longer than
/// 100 chars as a single `[UNK]`, so a 20 MB run of letters (a base64 blob,
/// a line of `=`) would otherwise be one unit of one word-piece and one
/// 20 MB chunk. Longer runs are cut at char boundaries.
const MAX_WORD_BYTES: usize = 64;

/// `word` in pieces of at most `max` bytes (more for a single wide char),
/// with their offsets in `word`.
fn capped(word: &str, max: usize) -> impl Iterator<Item = (usize, &str)> {
    let mut at = 0;
    std::iter::from_fn(move || {
        if at >= word.len() {
            return None;
        }
        let mut end = (at + max).min(word.len());
        while !word.is_char_boundary(end) {
            end += 1;
        }
        let piece = (at, &word[at..end]);
        at = end;
        Some(piece)
    })
}

fn trimmed(at: usize, s: &str) -> Option<Range<usize>> {
    let lead = s.len() - s.trim_start().len();
    let body = s.trim();
    (!body.is_empty()).then(|| at + lead..at + lead + body.len())
}
