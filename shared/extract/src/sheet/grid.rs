//! One sheet's non-empty cells, held compactly while the sheet is read (all
//! rendered values in one `String`, 20 bytes of position per cell) so memory
//! follows the cells that exist, never the sheet's rectangle: a sheet with
//! one cell in A1 and one in XFD1048576 costs two cells here. Once the sheet
//! is read, its used range is known and it is written to the document as a
//! table.

use super::Budget;
use super::value::Shape;
use crate::{ExtractError, TextBuilder};
use ragpipe_core::BlockKind;
use std::ops::Range;

#[derive(Debug, Default)]
pub(crate) struct Grid {
    values: String,
    cells: Vec<Cell>,
    sorted: bool,
}

#[derive(Debug, Clone, Copy)]
struct Cell {
    row: u32,
    col: u32,
    start: u32,
    end: u32,
    shape: Shape,
}

/// At most this many single-cell rows above a table are read as its title
/// lines rather than its header.
const MAX_TITLE_ROWS: usize = 3;

impl Grid {
    pub(crate) fn new() -> Self {
        Grid { values: String::new(), cells: Vec::new(), sorted: true }
    }

    /// Adds the cell at 0-based (`row`, `col`), rendered by `render` straight
    /// into the value buffer. A cell that renders empty or blank leaves no trace.
    pub(crate) fn push(
        &mut self,
        row: u32,
        col: u32,
        render: impl FnOnce(&mut String) -> Option<Shape>,
        budget: &mut Budget<'_>,
    ) -> Result<(), ExtractError> {
        let start = self.values.len();
        let Some(shape) = render(&mut self.values) else {
            return Ok(());
        };
        if self.values[start..].trim().is_empty() {
            self.values.truncate(start);
            return Ok(());
        }
        let end = u32::try_from(self.values.len())
            .map_err(|_| ExtractError::Limit("a sheet holds more than 4 GiB of cell text".into()))?;
        let last = self.cells.last().map(|c| (c.row, c.col));
        if last.is_none_or(|l| l.0 != row) {
            budget.row()?;
        }
        budget.read_cell()?;
        self.sorted &= last.is_none_or(|l| l < (row, col));
        self.cells.push(Cell { row, col, start: start as u32, end, shape });
        Ok(())
    }

    /// Writes the sheet as a table: a `Sheet: NAME` heading (when `heading`),
    /// title lines, then one row line per non-empty row. Returns false (and
    /// writes nothing) for a sheet without a non-empty cell.
    ///
    /// Header rule: the first non-empty row is the header, except that
    /// - a row holding a single text cell above a row of two or more cells,
    ///   in a table at least two columns wide, is a title line (the report
    ///   title most sheets carry in A1), written as a level-2 heading so it
    ///   names the table in every chunk's context; up to three such rows;
    /// - a row holding no text at all (only numbers, dates, booleans) is data:
    ///   column names are words, so such a sheet has no header row.
    pub(crate) fn write(
        mut self,
        sheet: &str,
        heading: bool,
        b: &mut TextBuilder,
        budget: &mut Budget<'_>,
    ) -> Result<bool, ExtractError> {
        if self.cells.is_empty() {
            return Ok(false);
        }
        if !self.sorted {
            self.cells.sort_by_key(|c| (c.row, c.col));
            self.cells.dedup_by_key(|c| (c.row, c.col));
        }
        let first_col = self.cells.iter().map(|c| c.col).min().unwrap_or(0);
        let last_col = self.cells.iter().map(|c| c.col).max().unwrap_or(0);
        let rows = self.rows();
        let mut at = 0;
        while at < MAX_TITLE_ROWS
            && last_col > first_col
            && at + 1 < rows.len()
            && self.is_title(&rows[at])
            && rows[at + 1].len() >= 2
        {
            at += 1;
        }
        let has_header = self.cells[rows[at].clone()].iter().any(|c| c.shape == Shape::Text);
        if heading {
            b.start(BlockKind::Heading { level: 1 });
            b.inline(&format!("Sheet: {sheet}"));
        }
        for title in &rows[..at] {
            b.start(BlockKind::Heading { level: 2 });
            b.inline(self.value(&self.cells[title.start]));
        }
        b.begin_table(sheet, first_col + 1);
        let mut line: Vec<&str> = Vec::new();
        for (i, row) in rows[at..].iter().enumerate() {
            let cells = &self.cells[row.clone()];
            line.clear();
            for cell in cells {
                line.resize((cell.col - first_col) as usize, "");
                line.push(self.value(cell));
            }
            budget.written_cells(line.len() as u64)?;
            b.table_row(cells[0].row + 1, has_header && i == 0, line.iter().copied());
        }
        b.end_table();
        Ok(true)
    }

    /// The cells of each non-empty row, as index ranges into `cells`.
    fn rows(&self) -> Vec<Range<usize>> {
        let mut rows = Vec::new();
        let mut start = 0;
        for i in 1..=self.cells.len() {
            if i == self.cells.len() || self.cells[i].row != self.cells[start].row {
                rows.push(start..i);
                start = i;
            }
        }
        rows
    }

    fn is_title(&self, row: &Range<usize>) -> bool {
        row.len() == 1 && self.cells[row.start].shape == Shape::Text
    }

    fn value(&self, cell: &Cell) -> &str {
        &self.values[cell.start as usize..cell.end as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Limits;
    use ragpipe_core::Kind;

    fn sheet(cells: &[(u32, u32, &str, Shape)]) -> ragpipe_core::Document {
        let limits = Limits::default();
        let mut budget = Budget::new(&limits);
        let mut grid = Grid::new();
        for &(r, c, v, shape) in cells {
            grid.push(
                r,
                c,
                |out| {
                    out.push_str(v);
                    Some(shape)
                },
                &mut budget,
            )
            .unwrap();
        }
        let mut b = TextBuilder::new();
        grid.write("S", true, &mut b, &mut budget).unwrap();
        b.build("t".into(), Kind::Spreadsheet)
    }

    #[test]
    fn title_rows_become_headings_and_gaps_stay_aligned() {
        use Shape::*;
        let doc = sheet(&[
            (0, 1, "Report", Text),
            (3, 1, "Name", Text),
            (3, 3, "Qty", Text),
            (2, 2, "  ", Text),
            (4, 1, "a", Text),
            (4, 3, "1", Value),
        ]);
        assert_eq!(doc.text, "Sheet: S\n\nReport\n\nName |  | Qty\na |  | 1");
        assert_eq!(doc.tables[0].first_col, 2);
        assert_eq!(doc.tables[0].last_col, 4);
        let kinds: Vec<_> = doc.blocks.iter().map(|b| b.kind.clone()).collect();
        assert_eq!(kinds[1], BlockKind::Heading { level: 2 });
        assert_eq!(kinds[2], BlockKind::TableRow { table: 0, row: 4, header: true });
        assert_eq!(kinds[3], BlockKind::TableRow { table: 0, row: 5, header: false });
    }

    #[test]
    fn numeric_first_row_is_not_a_header() {
        let doc = sheet(&[(0, 0, "1", Shape::Value), (0, 1, "2", Shape::Value), (1, 0, "3", Shape::Value)]);
        assert!(doc.blocks.iter().all(|b| !matches!(b.kind, BlockKind::TableRow { header: true, .. })));
    }
}
