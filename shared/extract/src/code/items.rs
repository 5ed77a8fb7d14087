//! Turns a syntax tree into item blocks, the same way for every grammar.
//!
//! The block structure, which the code chunker relies on:
//! - Blocks are whole lines: a block starts at the beginning of its first
//!   line (indentation included) and ends at the end of its last line, so a
//!   block's line numbers hold exactly its text.
//! - Top-level blocks tile the file: every non-blank line is in exactly one.
//!   An item is a [`BlockKind::CodeItem`] whose path names it
//!   (`["impl Foo"]`); the code between items (imports, constants,
//!   statements, license headers) is grouped into [`BlockKind::Code`] blocks,
//!   one per run between two items.
//! - A container (impl block, class, trait, module, function with nested
//!   functions) is followed by its inner items, in order, with longer paths
//!   (`["impl Foo", "fn bar"]`) and ranges inside its own. What lies in a
//!   container outside its inner items (its signature line, fields, closing
//!   brace) belongs to the container alone; the chunker cuts a long container
//!   at its inner items' boundaries.
//! - An item starts at its doc comments, attributes or decorators. Two
//!   things never share a line: an item that starts on the line where the
//!   previous sibling ends joins it (`} fn next() {`), a trailing comment
//!   joins its item, and an inner item that starts on its container's first
//!   line is part of the container's header.

use super::Lines;
use super::lang::{Lang, Role};
use ragpipe_core::{Block, BlockKind};
use tree_sitter::Node;

/// Items nested deeper than this are read as their parent's lines: a
/// hostile file of thousands of nested classes must not exhaust the stack.
const MAX_DEPTH: usize = 24;

/// Lines `first..=last` (0-based) and, for an item, its name and inner items.
struct Span {
    first: usize,
    last: usize,
    item: Option<(String, Vec<Span>)>,
}

struct Walk<'a> {
    lang: &'a Lang,
    src: &'a str,
}

/// The blocks of a parsed file; see the module docs for their structure.
pub(super) fn blocks(root: Node<'_>, lang: &Lang, src: &str, lines: &Lines<'_>) -> Vec<Block> {
    let walk = Walk { lang, src };
    let spans = walk.spans(walk.siblings(root), None, 0);
    let mut out = Vec::new();
    flatten(fill_gaps(spans, lines), lines, &mut Vec::new(), &mut out);
    out
}

impl Walk<'_> {
    /// The children of `node`, with inline wrappers opened.
    fn siblings<'t>(&self, node: Node<'t>) -> Vec<Node<'t>> {
        let mut cursor = node.walk();
        let mut out = Vec::new();
        for child in node.children(&mut cursor) {
            match (self.lang.role)(child, self.src) {
                Role::Inline => out.extend(self.siblings(child)),
                _ => out.push(child),
            }
        }
        out
    }

    /// Spans of sibling `nodes`, in order and disjoint in lines. Inside an
    /// item, `floor` is the item's first line: whatever starts on it is part
    /// of the item's header, and only inner items are returned.
    fn spans(&self, nodes: Vec<Node<'_>>, floor: Option<usize>, depth: usize) -> Vec<Span> {
        let mut out: Vec<Span> = floor.map(|f| vec![Span::code(f, f)]).into_iter().flatten().collect();
        let mut leads: Vec<(Node<'_>, bool)> = Vec::new();
        for node in nodes {
            match (self.lang.role)(node, self.src) {
                Role::Lead { sticky } => leads.push((node, sticky)),
                Role::Item { name, body } => {
                    let keep = attached(&leads, node);
                    for (lead, _) in leads.drain(..keep) {
                        push(&mut out, Span::code(first_row(lead), last_row(lead)));
                    }
                    let first = leads.first().map_or(first_row(node), |(lead, _)| first_row(*lead));
                    leads.clear();
                    let children = match body {
                        Some(body) if depth < MAX_DEPTH => self.spans(self.siblings(body), Some(first), depth + 1),
                        _ => Vec::new(),
                    };
                    push(&mut out, Span { first, last: last_row(node), item: Some((name, children)) });
                }
                Role::Code | Role::Inline => {
                    for (lead, _) in leads.drain(..) {
                        push(&mut out, Span::code(first_row(lead), last_row(lead)));
                    }
                    push(&mut out, Span::code(first_row(node), last_row(node)));
                }
            }
        }
        for (lead, _) in leads {
            push(&mut out, Span::code(first_row(lead), last_row(lead)));
        }
        if floor.is_some() {
            out.retain(|s| s.item.is_some());
        }
        out
    }
}

impl Span {
    fn code(first: usize, last: usize) -> Span {
        Span { first, last, item: None }
    }
}

/// How many of the pending `leads` stay code: the ones before the last run
/// that reaches the item without a blank line (attributes and decorators
/// reach it across blank lines too).
fn attached(leads: &[(Node<'_>, bool)], item: Node<'_>) -> usize {
    let mut keep = leads.len();
    let mut next = first_row(item);
    while let Some(&(lead, sticky)) = keep.checked_sub(1).and_then(|k| leads.get(k)) {
        if !sticky && last_row(lead) + 1 < next {
            break;
        }
        next = first_row(lead);
        keep -= 1;
    }
    keep
}

/// Appends a span, keeping siblings on separate lines: a span that starts on
/// the previous one's last line joins it, and consecutive code spans group.
fn push(out: &mut Vec<Span>, span: Span) {
    match out.last_mut() {
        Some(prev) if span.first <= prev.last || (prev.item.is_none() && span.item.is_none()) => {
            prev.last = prev.last.max(span.last);
        }
        _ => out.push(span),
    }
}

/// Adds code spans for non-blank lines no node covered, so the top level
/// tiles the file whatever the parser recovered from.
fn fill_gaps(spans: Vec<Span>, lines: &Lines<'_>) -> Vec<Span> {
    let mut out = Vec::with_capacity(spans.len());
    let mut row = 0;
    for span in spans {
        for (first, last) in lines.nonblank_runs(row..span.first) {
            push(&mut out, Span::code(first, last));
        }
        row = row.max(span.last + 1);
        push(&mut out, span);
    }
    for (first, last) in lines.nonblank_runs(row..lines.count()) {
        push(&mut out, Span::code(first, last));
    }
    out
}

/// Writes spans as blocks in pre-order: each item, then its inner items.
fn flatten(spans: Vec<Span>, lines: &Lines<'_>, path: &mut Vec<String>, out: &mut Vec<Block>) {
    for span in spans {
        let range = lines.range(span.first, span.last);
        match span.item {
            Some((name, children)) => {
                path.push(name);
                out.push(Block { kind: BlockKind::CodeItem { path: path.clone() }, range, page: None });
                flatten(children, lines, path, out);
                path.pop();
            }
            None => out.push(Block { kind: BlockKind::Code, range, page: None }),
        }
    }
}

fn first_row(n: Node<'_>) -> usize {
    n.start_position().row
}

/// The last line holding any of the node's text: a line comment's node ends
/// at column 0 of the next line, after its newline.
fn last_row(n: Node<'_>) -> usize {
    let (start, end) = (n.start_position(), n.end_position());
    if end.column == 0 && end.row > start.row { end.row - 1 } else { end.row }
}
