//! Markdown through pulldown-cmark: headings open sections, fenced and
//! indented code stay whole and verbatim, inline markup is reduced to its
//! text, pipe tables become table rows (the row above the `---` line is the
//! header). Raw HTML and front matter are not prose and are dropped, and so
//! is a table of contents written as a list of links to the page's own
//! headings ([`contents_lists`]).

use crate::{TextBuilder, fallback_title};
use pulldown_cmark::{Event, HeadingLevel, Options, Parser, Tag, TagEnd};
use ragpipe_core::{BlockKind, Document, Kind};
use std::collections::HashSet;
use std::ops::Range;

const OPTIONS: Options = Options::ENABLE_TABLES
    .union(Options::ENABLE_STRIKETHROUGH)
    .union(Options::ENABLE_FOOTNOTES)
    .union(Options::ENABLE_YAML_STYLE_METADATA_BLOCKS)
    .union(Options::ENABLE_TASKLISTS);

/// Fewest links a list needs to be a table of contents.
const MIN_ENTRIES: usize = 3;

pub(crate) fn extract(name: &str, source: &str) -> Document {
    let contents = contents_lists(source);
    let mut b = TextBuilder::new();
    let mut title: Option<String> = None;
    let mut in_h1 = false;
    let mut in_code = false;
    let mut in_metadata = false;
    // Links open around the event, and whether an image's alt text is being
    // read: a linked image (a README's badges, a logo) is a link's label,
    // not prose, and its alt text (`crates.io release`, `codecov`) is left
    // out, as an HTML page's images are.
    let (mut links, mut in_image) = (0usize, false);
    // The row of a pipe table being read: its cells, and its position.
    let mut cells: Option<Vec<String>> = None;
    let mut row = 0u32;
    for (event, at) in Parser::new_ext(source, OPTIONS).into_offset_iter() {
        // The lists are in source order and apart: the last one starting
        // at or before the event is the only one that may hold it.
        let before = contents.partition_point(|list| list.start <= at.start);
        if before > 0 && contents[before - 1].contains(&at.start) {
            continue;
        }
        match event {
            Event::Start(Tag::Heading { level, .. }) => {
                in_h1 = level == HeadingLevel::H1 && title.is_none();
                if in_h1 {
                    title = Some(String::new());
                }
                b.start(BlockKind::Heading { level: level as u8 });
            }
            Event::End(TagEnd::Heading(_)) => {
                in_h1 = false;
                b.finish();
            }
            Event::Start(Tag::Paragraph)
                // A paragraph inside a list item continues the item.
                if !b.is_open() => {
                    b.start(BlockKind::Paragraph);
                }
            Event::Start(Tag::Item) => b.start(BlockKind::ListItem),
            Event::Start(Tag::Table(_)) => {
                b.begin_table("", 1);
                row = 0;
            }
            Event::End(TagEnd::Table) => b.end_table(),
            Event::Start(Tag::TableRow | Tag::TableHead) => {
                row += 1;
                cells = Some(Vec::new());
            }
            Event::Start(Tag::TableCell) => cells.get_or_insert_default().push(String::new()),
            Event::End(end @ (TagEnd::TableRow | TagEnd::TableHead)) => {
                let row_cells = cells.take().unwrap_or_default();
                b.table_row(row, end == TagEnd::TableHead, row_cells.iter().map(String::as_str));
            }
            Event::Text(t) | Event::Code(t) if cells.is_some() => {
                if let Some(cell) = cells.as_mut().and_then(|c| c.last_mut()) {
                    cell.push_str(&t);
                }
            }
            Event::Start(Tag::CodeBlock(_)) => {
                in_code = true;
                b.start(BlockKind::Code);
            }
            Event::End(TagEnd::CodeBlock) => {
                in_code = false;
                b.finish();
            }
            Event::Start(Tag::MetadataBlock(_)) => in_metadata = true,
            Event::End(TagEnd::MetadataBlock(_)) => in_metadata = false,
            Event::End(TagEnd::Paragraph | TagEnd::Item | TagEnd::BlockQuote(_)) => b.finish(),
            Event::Start(Tag::Link { .. }) => links += 1,
            Event::End(TagEnd::Link) => links = links.saturating_sub(1),
            Event::Start(Tag::Image { .. }) => in_image = true,
            Event::End(TagEnd::Image) => in_image = false,
            Event::Text(t) if in_metadata || (in_image && links > 0) => drop(t),
            Event::Text(t) if in_code => b.raw(&t),
            Event::Text(t) | Event::Code(t) => {
                if in_h1 {
                    title.get_or_insert_default().push_str(&t);
                }
                b.inline(&t);
            }
            Event::SoftBreak => b.inline(" "),
            Event::HardBreak => b.line_break(),
            Event::TaskListMarker(done) => b.inline(if done { "[x] " } else { "[ ] " }),
            _ => {}
        }
    }
    let title = title
        .map(|t| t.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|t| !t.is_empty())
        .unwrap_or_else(|| fallback_title(name));
    b.build(title, Kind::Markdown)
}

/// Where the source writes a table of contents: a list (with its nested
/// lists) of links to the page's own headings (`- [Usage](#usage)`), as
/// READMEs write by hand or a generator inserts, which would otherwise be a
/// chunk naming every section. A link is an entry when its fragment is a
/// heading's anchor (GitHub's: `#example-size-aware-eviction` for
/// `Example: Size Aware Eviction`) or its label is a heading's text; the
/// list needs `MIN_ENTRIES` of them, at least half its links, and little
/// text outside its links (group labels such as `Troubleshooting`). Its
/// title (`## Table of Contents`) goes with it when the list is all its
/// section holds.
fn contents_lists(source: &str) -> Vec<Range<usize>> {
    let mut lists: Vec<Candidate> = Vec::new();
    let (mut anchors, mut texts) = (HashSet::new(), HashSet::new());
    let mut heading: Option<String> = None;
    let mut depth = 0usize;
    // The heading just read, while no other block followed it; the list
    // whose title it may be, until the next block says.
    let (mut lead, mut pending): (Option<(usize, HeadingLevel)>, Option<HeadingLevel>) = (None, None);
    // Whether each open link goes to this page.
    let mut open: Vec<bool> = Vec::new();
    for (event, at) in Parser::new_ext(source, OPTIONS).into_offset_iter() {
        if let (Event::Start(tag), 0) = (&event, depth) {
            if let Some(level) = pending.take() {
                let next_section = matches!(tag, Tag::Heading { level: next, .. } if *next <= level);
                if let Some(list) = lists.last_mut().filter(|_| !next_section) {
                    list.title = None;
                }
            }
            lead = match tag {
                Tag::Heading { level, .. } => Some((at.start, *level)),
                Tag::List(_) => lead,
                _ => None,
            };
        }
        match event {
            Event::Start(Tag::Heading { .. }) => heading = Some(String::new()),
            Event::End(TagEnd::Heading(_)) => {
                let text = heading.take().unwrap_or_default();
                anchors.insert(anchor(&text));
                texts.insert(squeezed(&text));
            }
            Event::Text(t) | Event::Code(t) if heading.is_some() => heading.get_or_insert_default().push_str(&t),
            Event::Start(Tag::List(_)) => {
                if depth == 0 {
                    let title = lead.take();
                    pending = title.map(|(_, level)| level);
                    lists.push(Candidate { range: at, title: title.map(|(start, _)| start), ..Candidate::default() });
                }
                depth += 1;
            }
            Event::End(TagEnd::List(_)) => depth = depth.saturating_sub(1),
            _ if depth == 0 => {}
            Event::Start(Tag::Link { dest_url, .. }) => {
                let fragment = dest_url.strip_prefix('#');
                if let (Some(f), Some(list)) = (fragment, lists.last_mut()) {
                    list.links.push((f.to_lowercase(), String::new()));
                }
                open.push(fragment.is_some());
            }
            Event::End(TagEnd::Link) => drop(open.pop()),
            Event::Text(t) | Event::Code(t) => {
                let Some(list) = lists.last_mut() else { continue };
                match (open.last(), list.links.last_mut()) {
                    (Some(true), Some((_, label))) => label.push_str(&t),
                    _ => list.outside += t.chars().filter(|c| !c.is_whitespace()).count(),
                }
            }
            Event::Html(t) | Event::InlineHtml(t) => lists.last_mut().into_iter().for_each(|l| l.outside += t.len()),
            _ => {}
        }
    }
    lists
        .into_iter()
        .filter(|list| {
            let entries =
                list.links.iter().filter(|(f, l)| anchors.contains(f) || texts.contains(&squeezed(l))).count();
            let inside: usize = list.links.iter().map(|(_, l)| squeezed(l).chars().count()).sum();
            entries >= MIN_ENTRIES && 2 * entries >= list.links.len() && 5 * list.outside <= inside
        })
        .map(|list| list.title.unwrap_or(list.range.start)..list.range.end)
        .collect()
}

/// A top-level list that may be a table of contents: where it is, where
/// its title starts, its links to this page (fragment, label) and the
/// visible characters outside them.
#[derive(Default)]
struct Candidate {
    range: Range<usize>,
    title: Option<usize>,
    links: Vec<(String, String)>,
    outside: usize,
}

/// A heading's anchor as GitHub (and most Markdown renderers) make it:
/// lower case, spaces as hyphens, punctuation other than `-` and `_` gone.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// Text in lower case without white space or punctuation, to compare a
/// link's label with a heading.
fn squeezed(text: &str) -> String {
    text.chars().filter(|c| c.is_alphanumeric()).flat_map(char::to_lowercase).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn structure_and_inline_markup() {
        let src = "---\nauthor: x\n---\n# Guide\n\nRun `cargo build` *now*.\nThen rest.\n\n## Install\n\n- one\n- two\n\n```rust\nfn main() {\n\n    go();\n}\n```\n";
        let doc = extract("guide.md", src);
        let texts: Vec<(&BlockKind, &str)> = doc.blocks.iter().map(|b| (&b.kind, doc.slice(b))).collect();
        assert_eq!(doc.title, "Guide");
        assert_eq!(
            texts,
            [
                (&BlockKind::Heading { level: 1 }, "Guide"),
                (&BlockKind::Paragraph, "Run cargo build now. Then rest."),
                (&BlockKind::Heading { level: 2 }, "Install"),
                (&BlockKind::ListItem, "one"),
                (&BlockKind::ListItem, "two"),
                (&BlockKind::Code, "fn main() {\n\n    go();\n}"),
            ]
        );
    }

    #[test]
    fn badges_are_not_text_but_pictures_keep_their_alt_text() {
        let src = "# Moka\n\n[![GitHub Actions][ci-badge]][ci]\n[![crates.io release](https://img.shields.io/x.svg)](https://crates.io/x)\n\n\
            A cache. ![the eviction policy](policy.png)\n\n[ci-badge]: https://github.com/x/badge.svg\n[ci]: https://github.com/x\n";
        let doc = extract("README.md", src);
        assert_eq!(doc.text, "Moka\n\nA cache. the eviction policy");
    }

    #[test]
    fn a_list_of_links_to_the_page_s_headings_is_left_out() {
        let src = "# Tool\n\n## Table of Contents\n\n- [Install](#install)\n  - [From source](#from-source)\n\
            - [Usage](#usage)\n\n## Install\n\nRun make.\n\n### From source\n\nClone it.\n\n## Usage\n\n\
            See [Usage](#usage), [Install](#install) and [From source](#from-source).\n\n\
            - [Install](#install): the steps\n- [Usage](#usage)\n- [From source](#from-source)\n\n\
            1. [the steps](#install)\n2. [running it](#usage)\n3. [building](#from-source)\n\n\
            - [Notes](#notes)\n- [Errata](#errata)\n- [Index](#index)\n\n\
            * [Home page](https://example.com)\n* [Docs](https://docs.example.com)\n* [Chat](https://chat.example.com)\n";
        let doc = extract("README.md", src);
        assert_eq!(
            doc.text,
            "Tool\n\nInstall\n\nRun make.\n\nFrom source\n\nClone it.\n\nUsage\n\n\
             See Usage, Install and From source.\n\nInstall: the steps\n\nUsage\n\nFrom source\n\n\
             Notes\n\nErrata\n\nIndex\n\nHome page\n\nDocs\n\nChat",
            "the contents go with their title, and so does a list that only links to sections; a paragraph of links, a list with \
             words of its own, links to anchors that are no headings and a list of other pages stay"
        );
    }

    #[test]
    fn pipe_tables_become_rows_with_their_header() {
        let src =
            "# T\n\nIntro.\n\n| Name | `Code` | Note |\n|---|---|---|\n| a | b \\| c | |\n| d | e | f |\n\nAfter.\n";
        let doc = extract("t.md", src);
        assert_eq!(doc.text, "T\n\nIntro.\n\nName | Code | Note\na | b \\| c\nd | e | f\n\nAfter.");
        let rows: Vec<_> = doc.blocks.iter().filter(|b| matches!(b.kind, BlockKind::TableRow { .. })).collect();
        assert_eq!(rows[0].kind, BlockKind::TableRow { table: 0, row: 1, header: true });
        assert_eq!(rows[2].kind, BlockKind::TableRow { table: 0, row: 3, header: false });
        assert_eq!(doc.tables[0].last_col, 3);
    }
}
