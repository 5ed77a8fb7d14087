//! The code chunker: chunks follow the syntax items the extractor found.
//!
//! - An item that fits the budget is never cut; small adjacent items are
//!   merged into one chunk while they fit.
//! - An item that does not fit is cut at its inner items (a long impl block or
//!   class between its methods), recursively; code of its own (signature,
//!   fields, closing brace) goes with its neighbours: the opening lines with
//!   the first inner item, the closing lines with the last one.
//! - Code with no inner item to cut at is cut at blank lines; a run of lines
//!   with no blank line that still does not fit is cut between lines, and a
//!   single line longer than the budget between words (the prose splitter's
//!   line and word grains, shared with Markdown code blocks).
//! - Chunks are whole lines unless a single line had to be cut, so the
//!   `#L{first}-L{last}` locator holds exactly the content: lines `first..=last`
//!   joined by `\n` are the content. `#char` is always set too.
//! - The header is `path > impl Foo > fn bar`: the file path and the items
//!   enclosing everything in the chunk (their common path when several are
//!   merged).
//!
//! Documents from code without a grammar (paragraph blocks) and the code
//! between items are chunked the same way, as path-less code.

use crate::pack::{self, Context, Unit};
use crate::split::{Grain, units_for};
use crate::{ChunkConfig, TokenCounter, header_for};
use ragpipe_core::{Block, BlockKind, Chunk, Document};
use std::collections::HashMap;
use std::ops::Range;

pub(crate) fn chunk(doc: &Document, counter: &dyn TokenCounter, cfg: &ChunkConfig) -> Vec<Chunk> {
    let mut chunker = Chunker { doc, counter, cfg, headers: HashMap::new() };
    let mut pieces = Vec::new();
    for item in tree(&doc.blocks, &mut 0, None) {
        chunker.pieces(&item, &mut pieces);
    }
    let newlines: Vec<usize> = doc.text.match_indices('\n').map(|(i, _)| i).collect();
    let mut out = Vec::new();
    for group in chunker.group(&pieces) {
        chunker.emit(&pieces[group], &newlines, &mut out);
    }
    out
}

/// An item rebuilt from the blocks, which list each container before its
/// inner items (see the extractor's `code::items`).
struct Item<'d> {
    range: Range<usize>,
    path: &'d [String],
    inner: Vec<Item<'d>>,
}

/// Which neighbour a container's own code belongs with when the container is
/// cut: its opening lines (`impl Foo {`) with the piece after them, its
/// closing lines with the piece before.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Glue {
    Free,
    Next,
    Prev,
}

/// A span that is not cut further, with the path of the item it is code of.
/// `opens` and `closes` mark the first and last piece of a block that was
/// cut: its chunks are its own, not shared with its neighbours.
struct Piece<'d> {
    unit: Unit,
    path: &'d [String],
    glue: Glue,
    opens: bool,
    closes: bool,
}

impl<'d> Piece<'d> {
    /// A piece of `text`; one that only closes brackets (`}`, `});`) or a
    /// comment (`*/`) ends what came before it, so it never starts a chunk.
    fn new(text: &str, unit: Unit, path: &'d [String]) -> Self {
        let body = text[unit.range.clone()].trim();
        let brackets = body.chars().all(|c| matches!(c, ')' | ']' | '}' | ';' | ',') || c.is_whitespace());
        let closing = body == "*/" || (!body.is_empty() && brackets);
        let glue = if closing { Glue::Prev } else { Glue::Free };
        Piece { unit, path, glue, opens: false, closes: false }
    }
}

struct Chunker<'d> {
    doc: &'d Document,
    counter: &'d dyn TokenCounter,
    cfg: &'d ChunkConfig,
    /// Header text and its tokens, per item path.
    headers: HashMap<&'d [String], (String, usize)>,
}

/// The blocks as a forest: a block inside the previous one is its inner item.
fn tree<'d>(blocks: &'d [Block], next: &mut usize, within: Option<&Range<usize>>) -> Vec<Item<'d>> {
    let mut items = Vec::new();
    while let Some(block) = blocks.get(*next) {
        if within.is_some_and(|w| block.range.start < w.start || block.range.end > w.end) {
            break;
        }
        *next += 1;
        let inner = tree(blocks, next, Some(&block.range));
        let path = match &block.kind {
            BlockKind::CodeItem { path } => path.as_slice(),
            _ => &[],
        };
        items.push(Item { range: block.range.clone(), path, inner });
    }
    items
}

impl<'d> Chunker<'d> {
    /// The header for chunks whose items share `path`, shortened when a deep
    /// or long path would eat more than a quarter of the budget: first to the
    /// file and the innermost item, then to the file, then to nothing.
    fn header(&mut self, path: &'d [String]) -> &(String, usize) {
        let (doc, counter, cfg) = (self.doc, self.counter, self.cfg);
        self.headers.entry(path).or_insert_with(|| {
            if !cfg.contextual_header {
                return (String::new(), 0);
            }
            let innermost = path.len().saturating_sub(1);
            for candidate in [path, &path[innermost..], &[]] {
                let header = header_for(&doc.title, candidate);
                let tokens = crate::measure(counter, &header);
                if tokens <= cfg.budget / 4 {
                    return (header, tokens);
                }
            }
            (String::new(), 0)
        })
    }

    /// Tokens left for content in a chunk whose items share `path`.
    fn room(&mut self, path: &'d [String]) -> usize {
        let specials = self.counter.special_tokens();
        let header = self.header(path).1;
        self.cfg.budget.saturating_sub(specials + header).max(1)
    }

    /// Appends the pieces of `item`: the whole item if it fits, else its own
    /// code and its inner items' pieces, in text order.
    fn pieces(&mut self, item: &Item<'d>, out: &mut Vec<Piece<'d>>) {
        let room = self.room(item.path);
        let tokens = crate::measure(self.counter, &self.doc.text[item.range.clone()]);
        if tokens <= room {
            out.push(Piece::new(&self.doc.text, Unit { range: item.range.clone(), tokens }, item.path));
            return;
        }
        let first = out.len();
        let mut at = item.range.start;
        for (i, inner) in item.inner.iter().enumerate() {
            self.own_code(at..inner.range.start, item.path, if i == 0 { Glue::Next } else { Glue::Free }, out);
            self.pieces(inner, out);
            at = inner.range.end;
        }
        let glue = if item.inner.is_empty() { Glue::Free } else { Glue::Prev };
        self.own_code(at..item.range.end, item.path, glue, out);
        if out.len() > first {
            out[first].opens = true;
            out.last_mut().expect("pieces were added").closes = true;
        }
    }

    /// Pieces of code that belongs to `path` and holds no inner item: its
    /// blank-line-separated runs, each cut into lines (and words) if needed.
    fn own_code(&mut self, range: Range<usize>, path: &'d [String], glue: Glue, out: &mut Vec<Piece<'d>>) {
        let room = self.room(path);
        let first = out.len();
        for run in nonblank_runs(&self.doc.text, range) {
            for unit in units_for(&self.doc.text, run, Grain::Lines, room, self.counter) {
                out.push(Piece::new(&self.doc.text, unit, path));
            }
        }
        let added = out.len() > first;
        let glued = match glue {
            Glue::Next if added => out.last_mut(),
            Glue::Prev => out.get_mut(first),
            Glue::Next | Glue::Free => None,
        };
        if let Some(piece) = glued {
            piece.glue = glue;
        }
    }

    /// Groups consecutive pieces greedily into chunks that fit the room left
    /// by their common header. A cut block's chunks are its own, except that
    /// a container's opening lines stay with the piece after them and its
    /// closing lines with the piece before.
    fn group(&mut self, pieces: &[Piece<'d>]) -> Vec<Range<usize>> {
        let mut groups = Vec::new();
        let mut start = 0;
        for i in 1..pieces.len() {
            let glued = pieces[i - 1].glue == Glue::Next || pieces[i].glue == Glue::Prev;
            let boundary = (pieces[i - 1].closes || pieces[i].opens) && !glued;
            if !boundary && self.fits(&pieces[start..=i]) {
                continue;
            }
            let mut end = i;
            if glued && end - start >= 2 && self.fits(&pieces[i - 1..=i]) {
                end -= 1;
            }
            groups.push(start..end);
            start = end;
        }
        if start < pieces.len() {
            groups.push(start..pieces.len());
        }
        groups
    }

    fn fits(&mut self, pieces: &[Piece<'d>]) -> bool {
        let tokens: usize = pieces.iter().map(|p| p.unit.tokens).sum();
        tokens <= self.room(common_path(pieces))
    }

    /// Builds the chunk for a group, measured for real; a group over budget
    /// (word-pieces are not perfectly additive) is halved until it fits.
    fn emit(&mut self, pieces: &[Piece<'d>], newlines: &[usize], out: &mut Vec<Chunk>) {
        let text = &self.doc.text;
        let range = whole_lines(text, pieces[0].unit.range.start..pieces[pieces.len() - 1].unit.range.end);
        let path = common_path(pieces);
        let header = self.header(path).0.clone();
        let ctx = Context { section: path, header: &header, page: None };
        let mut chunk = pack::build(self.doc, range.clone(), &ctx, self.counter, out.len() as u32);
        if chunk.tokens as usize > self.cfg.budget {
            if pieces.len() > 1 {
                let mid = pieces.len() / 2;
                self.emit(&pieces[..mid], newlines, out);
                self.emit(&pieces[mid..], newlines, out);
                return;
            }
            if let Some(halves) = halve(text, range.clone(), pieces[0].path) {
                self.emit(&halves, newlines, out);
                return;
            }
        }
        let line = |byte: usize| newlines.partition_point(|&n| n < byte) as u32 + 1;
        chunk.locator.lines = Some((line(range.start), line(range.end)));
        out.push(chunk);
    }
}

/// The longest path all pieces share: the items enclosing the whole chunk.
fn common_path<'d>(pieces: &[Piece<'d>]) -> &'d [String] {
    let first = pieces[0].path;
    let shared = pieces
        .iter()
        .skip(1)
        .fold(first.len(), |n, p| first.iter().zip(p.path).take(n).take_while(|(a, b)| a == b).count());
    &first[..shared]
}

/// Maximal runs of non-blank lines inside `range`, each from the start of
/// its first line to the end of its last.
fn nonblank_runs(text: &str, range: Range<usize>) -> Vec<Range<usize>> {
    let mut runs: Vec<Range<usize>> = Vec::new();
    let mut at = range.start;
    let mut open = false;
    for line in text[range].split_inclusive('\n') {
        let body = line.trim_end_matches('\n');
        if body.trim().is_empty() {
            open = false;
        } else if open {
            runs.last_mut().expect("an open run").end = at + body.len();
        } else {
            runs.push(at..at + body.len());
            open = true;
        }
        at += line.len();
    }
    runs
}

/// Widens `range` over whitespace to the start of its first line and the end
/// of its last, so pieces trimmed by the line splitter quote whole lines. A
/// range that starts or ends inside a cut line stays as it is.
fn whole_lines(text: &str, range: Range<usize>) -> Range<usize> {
    // Only the blanks next to the range are walked, never the rest of a
    // line: on a 5 MB minified line a scan to the line's ends per chunk
    // made chunking quadratic.
    let before = &text[..range.start];
    let blanks = before.len() - before.trim_end_matches(|c: char| c.is_whitespace() && c != '\n').len();
    let start = range.start - blanks;
    let start = if start == 0 || text.as_bytes()[start - 1] == b'\n' { start } else { range.start };
    let after = &text[range.end..];
    let blanks = after.len() - after.trim_start_matches(|c: char| c.is_whitespace() && c != '\n').len();
    let end = range.end + blanks;
    let end = if end == text.len() || text.as_bytes()[end] == b'\n' { end } else { range.end };
    start..end
}

/// The last resort for a single word longer than the whole budget (a
/// minified blob, a base64 literal): two halves at a char boundary, so no
/// chunk is ever over budget and nothing is dropped.
fn halve<'d>(text: &str, range: Range<usize>, path: &'d [String]) -> Option<[Piece<'d>; 2]> {
    let mut mid = range.start + (range.end - range.start) / 2;
    while !text.is_char_boundary(mid) {
        mid += 1;
    }
    if mid <= range.start || mid >= range.end {
        return None;
    }
    let piece = |range| Piece::new(text, Unit { range, tokens: 0 }, path);
    Some([piece(range.start..mid), piece(mid..range.end)])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_and_whole_lines() {
        let text = "a\n  b\n\n\n  c  \nd";
        let runs: Vec<&str> = nonblank_runs(text, 0..text.len()).into_iter().map(|r| &text[r]).collect();
        assert_eq!(runs, ["a\n  b", "  c  \nd"]);
        let c = text.find('c').unwrap();
        assert_eq!(&text[whole_lines(text, c..c + 1)], "  c  ");
        assert_eq!(whole_lines("ab cd", 3..5), 3..5, "a cut line stays cut");
    }

    #[test]
    fn common_path_is_the_shared_prefix() {
        let (a, b) = (vec!["impl Foo".to_string(), "fn a".into()], vec!["impl Foo".to_string(), "fn b".into()]);
        let piece = |path: &'static [String]| Piece::new("", Unit { range: 0..0, tokens: 0 }, path);
        let (a, b): (&'static [String], &'static [String]) = (a.leak(), b.leak());
        assert_eq!(common_path(&[piece(a), piece(b)]), ["impl Foo"]);
        assert_eq!(common_path(&[piece(a)]), a);
        assert!(common_path(&[piece(a), piece(&[])]).is_empty());
    }
}
