//! The transcript chunker (audio with WebVTT/SubRip cues): a chunk is a run
//! of whole consecutive cues that fits the budget, cited as
//! `#t=START,END` (W3C Media Fragments: from its first cue's start to its
//! last cue's end, in seconds) plus `#char`. Cues are the natural unit: a
//! player can seek to them and a cue is what was said in one breath. Only a
//! single cue over the budget is cut, at sentence boundaries, and each piece
//! keeps that cue's time range (cues carry no finer timing). The header is
//! the file's title; transcripts have no sections.

use crate::pack::{self, Context, Unit};
use crate::split::{Grain, units_for};
use crate::{ChunkConfig, TokenCounter, header_for};
use ragpipe_core::{BlockKind, Chunk, Document};
use std::ops::Range;

pub(crate) fn chunk(doc: &Document, counter: &dyn TokenCounter, cfg: &ChunkConfig) -> Vec<Chunk> {
    let (header, header_tokens) = title_header(&doc.title, counter, cfg);
    let room = cfg.budget.saturating_sub(counter.special_tokens() + header_tokens).max(1);
    let ctx = Context { section: &[], header: &header, page: None };
    let mut out = Vec::new();
    // Whole cues gather in `run`; a cue that must be cut is packed on its
    // own, so no chunk holds part of one cue and part of another. A run also
    // ends before a cue that would stretch it past `max_transcript_secs`.
    let max_secs = f64::from(cfg.max_transcript_secs);
    let mut run: Vec<Unit> = Vec::new();
    let mut run_start: Option<f64> = None;
    for block in &doc.blocks {
        let (start, end) = match block.kind {
            BlockKind::Cue { start, end } => (start, end),
            _ => (0.0, 0.0),
        };
        let mut pieces = units_for(&doc.text, block.range.clone(), Grain::Sentences, room, counter);
        if pieces.len() == 1 {
            if max_secs > 0.0 && run_start.is_some_and(|s| end - s > max_secs) {
                pack::emit(doc, &std::mem::take(&mut run), room, &ctx, counter, cfg, &mut out);
                run_start = None;
            }
            run_start.get_or_insert(start);
            run.append(&mut pieces);
            continue;
        }
        run_start = None;
        pack::emit(doc, &std::mem::take(&mut run), room, &ctx, counter, cfg, &mut out);
        pack::emit(doc, &pieces, room, &ctx, counter, cfg, &mut out);
    }
    pack::emit(doc, &run, room, &ctx, counter, cfg, &mut out);
    for chunk in &mut out {
        chunk.locator.time = cue_span(doc, &chunk.bytes);
    }
    out
}

/// The title as header, unless it would eat more than a quarter of the budget.
fn title_header(title: &str, counter: &dyn TokenCounter, cfg: &ChunkConfig) -> (String, usize) {
    if !cfg.contextual_header {
        return (String::new(), 0);
    }
    let header = header_for(title, &[]);
    let tokens = crate::measure(counter, &header);
    if header.is_empty() || tokens > cfg.budget / 4 { (String::new(), 0) } else { (header, tokens) }
}

/// From the start of the first cue a chunk touches to the end of the last.
/// Cues are in text order, so the first one is found by bisection and the
/// walk stops past the chunk: linear over a transcript, not cues x chunks.
fn cue_span(doc: &Document, bytes: &Range<usize>) -> Option<(f64, f64)> {
    let first = doc.blocks.partition_point(|b| b.range.end <= bytes.start);
    let mut span: Option<(f64, f64)> = None;
    for b in doc.blocks[first..].iter().take_while(|b| b.range.start < bytes.end) {
        let BlockKind::Cue { start, end } = b.kind else { continue };
        if bytes.start < b.range.end {
            span = Some(span.map_or((start, end), |(s, e)| (s.min(start), e.max(end))));
        }
    }
    span
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{Words, document};
    use ragpipe_core::Kind;

    fn transcript(cues: &[(&str, f64, f64)]) -> Document {
        let blocks: Vec<(BlockKind, &str, Option<u32>)> =
            cues.iter().map(|&(t, start, end)| (BlockKind::Cue { start, end }, t, None)).collect();
        Document { duration: Some(60.0), ..document("Talk", Kind::Audio, &blocks) }
    }

    #[test]
    fn consecutive_cues_group_within_budget_and_cite_their_span() {
        let doc = transcript(&[
            ("one two three four five", 0.0, 2.0),
            ("six seven eight nine ten", 2.5, 4.0),
            ("eleven twelve thirteen fourteen fifteen", 4.0, 6.5),
        ]);
        // Budget 15: 2 specials + 1 header word leaves room for 12, two cues.
        let chunks = crate::chunk_document(&doc, &Words, &ChunkConfig { budget: 15, ..ChunkConfig::default() });
        assert_eq!(chunks.len(), 2);
        assert_eq!(chunks[0].content, "one two three four five\nsix seven eight nine ten");
        assert_eq!(chunks[0].locator.time, Some((0.0, 4.0)));
        assert_eq!(chunks[0].text, format!("Talk\n\n{}", chunks[0].content));
        assert_eq!(chunks[1].locator.time, Some((4.0, 6.5)));
        assert_eq!(chunks[1].locator.to_string(), "#t=4.00,6.50&char=49,88");
        for c in &chunks {
            assert_eq!(c.locator.resolve(&doc.text), Some(c.content.as_str()));
            assert!(c.tokens <= 15);
        }
    }

    #[test]
    fn a_chunk_spans_at_most_max_transcript_secs_of_the_recording() {
        // Short prompts with long pauses: the budget alone would take all four.
        let doc = transcript(&[
            ("Press one.", 0.0, 2.0),
            ("Press two.", 12.0, 14.0),
            ("Press three.", 25.0, 27.0),
            ("Press four.", 40.0, 42.0),
        ]);
        let cfg = ChunkConfig { max_transcript_secs: 30, ..ChunkConfig::default() };
        let spans: Vec<_> = crate::chunk_document(&doc, &Words, &cfg).iter().map(|c| c.locator.time).collect();
        assert_eq!(spans, [Some((0.0, 27.0)), Some((40.0, 42.0))]);
        let whole = ChunkConfig { max_transcript_secs: 0, ..ChunkConfig::default() };
        assert_eq!(crate::chunk_document(&doc, &Words, &whole).len(), 1);
    }

    #[test]
    fn an_oversized_cue_is_cut_at_sentences_and_keeps_its_time() {
        let long = "First sentence has five words. Second one has five too. Third is short.";
        let doc = transcript(&[("Hello.", 0.0, 1.0), (long, 1.0, 9.0), ("Bye now.", 9.0, 10.0)]);
        let chunks = crate::chunk_document(&doc, &Words, &ChunkConfig { budget: 10, ..ChunkConfig::default() });
        let got: Vec<(&str, Option<(f64, f64)>)> =
            chunks.iter().map(|c| (c.content.as_str(), c.locator.time)).collect();
        assert_eq!(
            got,
            [
                ("Hello.", Some((0.0, 1.0))),
                ("First sentence has five words.", Some((1.0, 9.0))),
                ("Second one has five too.", Some((1.0, 9.0))),
                ("Third is short.", Some((1.0, 9.0))),
                ("Bye now.", Some((9.0, 10.0))),
            ]
        );
    }
}
