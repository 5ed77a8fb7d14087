//! Writes a canonical text block by block, recording each block's byte range
//! as it is written. Shared by the HTML, Markdown and spreadsheet extractors so
//! all follow one set of whitespace rules and one table-row format.

use ragpipe_core::{Block, BlockKind, Document, Kind, Table};

/// Joins the cells of a table row in the canonical text. A `|` inside a cell
/// is written `\|`, so ` | ` (space, pipe, space) only ever separates cells
/// and the table chunker can split a row back into its cells.
pub const CELL_SEPARATOR: &str = " | ";

/// Blocks are separated by a blank line; inline runs of whitespace collapse to
/// one space, except inside preformatted blocks, which are kept verbatim.
#[derive(Debug, Default)]
pub struct TextBuilder {
    text: String,
    blocks: Vec<Block>,
    open: Option<(BlockKind, usize)>,
    pending_space: bool,
    tables: Vec<Table>,
    /// The table rows are being written to: its sheet name and first column,
    /// and its index in `tables` once a row has been written.
    table: Option<(String, u32, Option<u32>)>,
    /// The page (a presentation's slide) blocks written from now on are on.
    page: Option<u32>,
}

impl TextBuilder {
    pub fn new() -> Self {
        Self::default()
    }

    /// Blocks written from now on are on page `page` (1-based; a
    /// presentation's slide number), which chunks cite as `#page=N`.
    pub fn set_page(&mut self, page: u32) {
        self.finish();
        self.page = Some(page);
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
                self.blocks.push(Block { kind, range: start..end, page: self.page });
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

    /// Starts a table: rows written until [`TextBuilder::end_table`] belong
    /// to it. `sheet` is empty for tables inside prose; `first_col` is the
    /// 1-based column of the rows' first cell. The table is only recorded in
    /// [`Document::tables`] once it has a non-empty row.
    pub fn begin_table(&mut self, sheet: &str, first_col: u32) {
        self.finish();
        self.table = Some((sheet.to_string(), first_col, None));
    }

    pub fn end_table(&mut self) {
        self.finish();
        self.table = None;
    }

    /// Writes one row of the open table as a [`BlockKind::TableRow`] line:
    /// cells with whitespace collapsed, `|` escaped, joined by
    /// [`CELL_SEPARATOR`], trailing empty cells dropped. Rows of one table
    /// are separated by a single newline so the table reads as a table; an
    /// all-empty row writes nothing. `row` is the row's 1-based number in its
    /// source. Returns the number of cells written.
    pub fn table_row<'c>(&mut self, row: u32, header: bool, cells: impl IntoIterator<Item = &'c str>) -> usize {
        self.finish();
        let Some((sheet, first_col, index)) = self.table.as_mut() else {
            return 0;
        };
        let cells: Vec<&str> = cells.into_iter().collect();
        let Some(last) = cells.iter().rposition(|c| !c.trim().is_empty()) else {
            return 0;
        };
        let table = *index.get_or_insert_with(|| {
            self.tables.push(Table { sheet: sheet.clone(), first_col: *first_col, last_col: *first_col });
            (self.tables.len() - 1) as u32
        });
        let same_table =
            self.blocks.last().is_some_and(|b| matches!(b.kind, BlockKind::TableRow { table: t, .. } if t == table));
        if same_table {
            self.text.push('\n');
        } else if !self.text.is_empty() {
            self.text.push_str("\n\n");
        }
        let start = self.text.len();
        push_row(&mut self.text, cells[..=last].iter().copied());
        let t = &mut self.tables[table as usize];
        t.last_col = t.last_col.max(t.first_col + last as u32);
        self.blocks.push(Block {
            kind: BlockKind::TableRow { table, row, header },
            range: start..self.text.len(),
            page: self.page,
        });
        last + 1
    }

    /// Bytes of canonical text written so far.
    pub fn text_len(&self) -> usize {
        self.text.len()
    }

    /// Appends another document's blocks as they are (text, kinds, tables),
    /// its headings `shift` levels deeper and on no page: an attachment read
    /// into the message that carries it.
    pub fn append(&mut self, doc: &Document, shift: u8) {
        self.finish();
        self.table = None;
        let first_table = self.tables.len() as u32;
        self.tables.extend(doc.tables.iter().cloned());
        let mut previous: Option<&BlockKind> = None;
        for block in &doc.blocks {
            let same_table = matches!(
                (previous, &block.kind),
                (Some(BlockKind::TableRow { table: a, .. }), BlockKind::TableRow { table: b, .. }) if a == b
            );
            if same_table {
                self.text.push('\n');
            } else if !self.text.is_empty() {
                self.text.push_str("\n\n");
            }
            let start = self.text.len();
            self.text.push_str(doc.slice(block));
            let kind = match block.kind.clone() {
                BlockKind::Heading { level } => BlockKind::Heading { level: level.saturating_add(shift) },
                BlockKind::TableRow { table, row, header } => {
                    BlockKind::TableRow { table: table + first_table, row, header }
                }
                other => other,
            };
            self.blocks.push(Block { kind, range: start..self.text.len(), page: None });
            previous = Some(&block.kind);
        }
    }

    pub fn build(mut self, title: String, kind: Kind) -> Document {
        self.finish();
        Document {
            title,
            kind,
            text: self.text,
            blocks: self.blocks,
            tables: self.tables,
            duration: None,
            regions: Vec::new(),
            ocr_pages: Vec::new(),
            warnings: Vec::new(),
        }
    }
}

/// Appends a row's cells to `out` as one line, joined by [`CELL_SEPARATOR`]
/// (see [`TextBuilder::table_row`], which also drops trailing empty cells).
pub(crate) fn push_row<'c>(out: &mut String, cells: impl IntoIterator<Item = &'c str>) {
    for (i, cell) in cells.into_iter().enumerate() {
        if i > 0 {
            out.push_str(CELL_SEPARATOR);
        }
        push_cell(out, cell);
    }
}

/// Appends a cell's text: whitespace runs (line breaks included, since a row
/// is one line) become one space, and `|` becomes `\|`.
fn push_cell(out: &mut String, cell: &str) {
    for (i, word) in cell.split_whitespace().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        for c in word.chars() {
            if c == '|' {
                out.push('\\');
            }
            out.push(c);
        }
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

    #[test]
    fn table_rows_are_lines_of_escaped_cells() {
        let mut b = TextBuilder::new();
        b.start(BlockKind::Paragraph);
        b.inline("Before.");
        b.begin_table("", 1);
        b.table_row(1, true, ["Name", "Note", ""]);
        b.table_row(2, false, ["", "", ""]);
        b.table_row(3, false, ["a\n b", "x | y", "", " "]);
        b.end_table();
        b.begin_table("", 1);
        b.end_table();
        let doc = b.build("t".into(), Kind::Html);
        assert_eq!(doc.text, "Before.\n\nName | Note\na b | x \\| y");
        assert_eq!(doc.tables, [Table { sheet: String::new(), first_col: 1, last_col: 2 }]);
        let rows: Vec<_> = doc.blocks[1..].iter().map(|b| (b.kind.clone(), doc.slice(b))).collect();
        assert_eq!(
            rows,
            [
                (BlockKind::TableRow { table: 0, row: 1, header: true }, "Name | Note"),
                (BlockKind::TableRow { table: 0, row: 3, header: false }, "a b | x \\| y"),
            ]
        );
    }
}
