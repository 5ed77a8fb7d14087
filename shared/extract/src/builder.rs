//! Writes a canonical text block by block, recording each block's byte range
//! as it is written. Shared by the HTML and Markdown extractors so both follow
//! one set of whitespace rules.

use ragpipe_core::{Block, BlockKind, Document, Kind};

/// Blocks are separated by a blank line; inline runs of whitespace collapse to
/// one space, except inside preformatted blocks, which are kept verbatim.
#[derive(Debug, Default)]
pub struct TextBuilder {
    text: String,
    blocks: Vec<Block>,
    open: Option<(BlockKind, usize)>,
    pending_space: bool,
}

impl TextBuilder {
    pub fn new() -> Self {
        Self::default()
    }

    /// Ends the current block (if any) and starts one of `kind`.
    pub fn start(&mut self, kind: BlockKind) {
        self.finish();
        if !self.text.is_empty() {
            self.text.push_str("\n\n");
        }
        self.open = Some((kind, self.text.len()));
        self.pending_space = false;
    }

    /// Ends the current block; an empty block leaves no trace.
    pub fn finish(&mut self) {
        if let Some((kind, start)) = self.open.take() {
            let end = self.text.trim_end().len().max(start);
            self.text.truncate(end);
            if end > start {
                self.blocks.push(Block { kind, range: start..end, page: None });
            } else {
                let keep = self.text.trim_end_matches('\n').len();
                self.text.truncate(keep);
            }
        }
        self.pending_space = false;
    }

    /// Appends flowing text, collapsing whitespace. Starts a paragraph if no
    /// block is open.
    pub fn inline(&mut self, s: &str) {
        if self.open.is_none() {
            if s.trim().is_empty() {
                return;
            }
            self.start(BlockKind::Paragraph);
        }
        let start = self.open.as_ref().map_or(0, |(_, s)| *s);
        for c in s.chars() {
            if c.is_whitespace() {
                self.pending_space = true;
                continue;
            }
            if self.pending_space && self.text.len() > start && !self.text.ends_with('\n') {
                self.text.push(' ');
            }
            self.pending_space = false;
            self.text.push(c);
        }
    }

    /// Appends text verbatim (preformatted code).
    pub fn raw(&mut self, s: &str) {
        if self.open.is_none() {
            self.start(BlockKind::Code);
        }
        let start = self.open.as_ref().map_or(0, |(_, s)| *s);
        // Leading blank lines of a block carry nothing a reader needs.
        let s = if self.text.len() == start { s.trim_start_matches(['\n', '\r']) } else { s };
        self.text.push_str(&s.replace("\r\n", "\n"));
    }

    /// A hard line break inside a block.
    pub fn line_break(&mut self) {
        if self.open.is_some() {
            let trimmed = self.text.trim_end_matches(' ').len();
            self.text.truncate(trimmed);
            self.text.push('\n');
            self.pending_space = false;
        }
    }

    pub fn is_open(&self) -> bool {
        self.open.is_some()
    }

    pub fn build(mut self, title: String, kind: Kind) -> Document {
        self.finish();
        Document { title, kind, text: self.text, blocks: self.blocks, tables: Vec::new(), duration: None }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_slice_to_block_text() {
        let mut b = TextBuilder::new();
        b.start(BlockKind::Heading { level: 1 });
        b.inline("  Hello\n  world ");
        b.start(BlockKind::Paragraph);
        b.inline("Use ");
        b.inline("cargo");
        b.inline(" build");
        b.inline(".");
        b.start(BlockKind::Paragraph);
        b.start(BlockKind::Code);
        b.raw("\nfn main() {\n    x();\n}\n");
        let doc = b.build("t".into(), Kind::Html);
        let texts: Vec<&str> = doc.blocks.iter().map(|bl| doc.slice(bl)).collect();
        assert_eq!(texts, ["Hello world", "Use cargo build.", "fn main() {\n    x();\n}"]);
        assert_eq!(doc.text, "Hello world\n\nUse cargo build.\n\nfn main() {\n    x();\n}");
    }
}
