//! Markdown through pulldown-cmark: headings open sections, fenced and
//! indented code stay whole and verbatim, inline markup is reduced to its
//! text, pipe tables become table rows (the row above the `---` line is the
//! header). Raw HTML and front matter are not prose and are dropped.

use crate::{TextBuilder, fallback_title};
use pulldown_cmark::{Event, HeadingLevel, Options, Parser, Tag, TagEnd};
use ragpipe_core::{BlockKind, Document, Kind};

pub(crate) fn extract(name: &str, source: &str) -> Document {
    let options = Options::ENABLE_TABLES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_YAML_STYLE_METADATA_BLOCKS
        | Options::ENABLE_TASKLISTS;
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
    for event in Parser::new_ext(source, options) {
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
