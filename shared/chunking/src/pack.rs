//! Greedy grouping of uncuttable units into chunks, and the one place a
//! [`Chunk`] is assembled, so every chunker gets the same guarantees: verbatim
//! content, found offsets, exact token counts within the budget.

use crate::{ChunkConfig, TokenCounter};
use ragpipe_core::{Chunk, Document, Locator};
use std::ops::Range;

/// A span of the canonical text that must not be cut further, with its size.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Unit {
    pub range: Range<usize>,
    pub tokens: usize,
}

/// Groups consecutive units so that each group's token sum fits `room`.
/// Units larger than `room` get a group of their own (callers split them first).
pub(crate) fn group(units: &[Unit], room: usize) -> Vec<Range<usize>> {
    let mut groups = Vec::new();
    let mut start = 0;
    let mut used = 0;
    for (i, unit) in units.iter().enumerate() {
        if i > start && used + unit.tokens > room {
            groups.push(start..i);
            start = i;
            used = 0;
        }
        used += unit.tokens;
    }
    if start < units.len() {
        groups.push(start..units.len());
    }
    groups
}

/// Groups consecutive units as [`group`] does into about as many groups, of
/// about equal size: each is closed once it holds its share of the tokens,
/// so the last is not a remainder of a few units.
pub(crate) fn balanced(units: &[Unit], room: usize) -> Vec<Range<usize>> {
    let greedy = group(units, room);
    if greedy.len() <= 1 {
        return greedy;
    }
    let total: usize = units.iter().map(|u| u.tokens).sum();
    let share = total.div_ceil(greedy.len());
    let mut groups = Vec::new();
    let (mut start, mut used) = (0, 0);
    for (i, unit) in units.iter().enumerate() {
        if i > start && (used + unit.tokens > room || used >= share) {
            groups.push(start..i);
            (start, used) = (i, 0);
        }
        used += unit.tokens;
    }
    groups.push(start..units.len());
    groups
}

/// What a chunk is labelled with: its heading path and the header text.
pub(crate) struct Context<'a> {
    pub section: &'a [String],
    pub header: &'a str,
    pub page: Option<u32>,
}

/// Assembles chunks for one run of units, re-measuring each with the real
/// tokenizer; a group that turns out over budget (word-piece counts are not
/// perfectly additive) is halved until it fits.
pub(crate) fn emit(
    doc: &Document,
    units: &[Unit],
    room: usize,
    ctx: &Context<'_>,
    counter: &dyn TokenCounter,
    cfg: &ChunkConfig,
    out: &mut Vec<Chunk>,
) {
    for g in group(units, room) {
        emit_group(doc, &units[g], ctx, counter, cfg, out);
    }
}

fn emit_group(
    doc: &Document,
    units: &[Unit],
    ctx: &Context<'_>,
    counter: &dyn TokenCounter,
    cfg: &ChunkConfig,
    out: &mut Vec<Chunk>,
) {
    let bytes = units[0].range.start..units[units.len() - 1].range.end;
    let chunk = build(doc, bytes, ctx, counter, out.len() as u32);
    if chunk.tokens as usize > cfg.budget && units.len() > 1 {
        let mid = units.len() / 2;
        emit_group(doc, &units[..mid], ctx, counter, cfg, out);
        emit_group(doc, &units[mid..], ctx, counter, cfg, out);
        return;
    }
    out.push(chunk);
}

/// Builds one chunk over `bytes` of the document text.
pub(crate) fn build(
    doc: &Document,
    bytes: Range<usize>,
    ctx: &Context<'_>,
    counter: &dyn TokenCounter,
    index: u32,
) -> Chunk {
    let content = doc.text[bytes.clone()].to_string();
    let text = if ctx.header.is_empty() { content.clone() } else { format!("{}\n\n{}", ctx.header, content) };
    let tokens = crate::measure(counter, &text) + counter.special_tokens();
    let header_tokens = if ctx.header.is_empty() { 0 } else { crate::measure(counter, ctx.header) };
    // `#char` is filled in by `chunk_document` for all chunks in one sweep.
    let locator = Locator { chars: 0..0, page: ctx.page, time: None, sheet: None, lines: None, region: None };
    Chunk {
        index,
        text,
        content,
        section: ctx.section.to_vec(),
        bytes,
        locator,
        tokens: tokens as u32,
        header_tokens: header_tokens as u32,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u(tokens: usize) -> Unit {
        Unit { range: 0..0, tokens }
    }

    #[test]
    fn groups_fill_greedily_and_keep_oversized_alone() {
        let units = [u(40), u(50), u(20), u(200), u(10)];
        assert_eq!(group(&units, 100), vec![0..2, 2..3, 3..4, 4..5]);
        assert_eq!(group(&[], 100), Vec::<Range<usize>>::new());
    }

    #[test]
    fn balanced_groups_are_as_many_but_even() {
        // Greedy: 9 + 1 units of 10 tokens in room 90; balanced: 5 + 5.
        let units: Vec<Unit> = (0..10).map(|_| u(10)).collect();
        assert_eq!(group(&units, 90), vec![0..9, 9..10]);
        assert_eq!(balanced(&units, 90), vec![0..5, 5..10]);
        // Never over room, oversized units alone, one group left as it is.
        let units = [u(40), u(50), u(20), u(200), u(10)];
        assert_eq!(balanced(&units, 100).len(), group(&units, 100).len());
        assert_eq!(balanced(&[u(30), u(30)], 100), vec![0..2]);
    }
}
