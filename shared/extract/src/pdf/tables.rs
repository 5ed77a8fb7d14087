//! Tables laid out on a PDF page: a spreadsheet printed to PDF, a word
//! processor's table. A PDF has no table, only words placed on the page, so
//! without this a table's rows are lines of a paragraph (`SKU-1042 Hydraulic
//! pump seal kit 12.50 10`) and every chunk after the first loses the header
//! that says what the numbers are. A table is found by its geometry:
//!
//! - a **cell** is a run of words whose gaps stay under [`CELL_GAP`] ems (a
//!   word space is a quarter of an em; cells sit apart by their padding);
//! - a table's lines are a [`Run`] of consecutive lines, each close under
//!   the one before (or back up on a row already seen: a wrapped cell is
//!   drawn before the next cell of its row), in one font size class;
//! - its **columns** grow line by line (see [`grid`]): a line of two cells
//!   or more adds its cells' x-intervals, and belongs only while no two of
//!   a line's cells share a column and each cell is aligned (left, right or
//!   centred) with the cells of its column before it; a line of one cell
//!   belongs if it lies inside one column (a wrapped cell's next line). The
//!   first line that does not belong ends the table (the paragraph after
//!   it). The first line is set apart: it joins the table when its cells
//!   fall one to a column, centred over them or not;
//! - it is a table when [`MIN_ROWS`] of its rows hold two cells or more,
//!   its first column is one of keys (short cells, not list markers: a list
//!   with a hanging indent is two columns too), and it is not set in a
//!   monospaced font (a code listing's indentation).
//!
//! Rows are the table's lines top down, lines at one height being one row.
//! A table ruled between its rows (its borders, read from the page's
//! drawing) starts a row after each rule only, so a cell that wraps, a key
//! included, stays whole in its row; an unruled one starts a row at each
//! line with a first cell (a line without one is the rest of a wrapped
//! cell). The first row is the header when its cells are words, none a
//! number. What is not sure to be a table stays as the lines it was:
//! nothing is lost either way.

mod grid;

use super::layout::{Line, Page, Rule};
use grid::Grid;

/// A gap between two words wider than this many ems separates two cells.
const CELL_GAP: f64 = 0.6;

/// Rows of two cells or more a table holds at least (its header counted).
const MIN_ROWS: usize = 3;

/// The farthest apart two rows of one table may be, in ems.
const ROW_GAP: f64 = 2.6;

/// Lines this close in height (in ems) are one row.
const SAME_ROW: f64 = 0.3;

/// Edges within this many ems of each other are aligned.
const ALIGN: f64 = 0.15;

/// The most lines one table is grown to (a page holds far fewer; a hostile
/// one may hold a million).
const MAX_LINES: usize = 4096;

/// How many of the last rows' heights a line may go back up to.
const RECENT_ROWS: usize = 8;

/// The median length of the first column's cells, in characters, above
/// which the block reads as prose set in columns, not as a table.
const KEY_CHARS: usize = 32;

/// A table found on a page: the page's lines it is made of, its rows of cells (one string per column) and where its
/// columns lie across the page.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Found {
    pub lines: std::ops::Range<usize>,
    pub rows: Vec<Vec<String>>,
    pub header: bool,
    pub columns: Vec<(f64, f64)>,
}

impl Found {
    /// Whether this table, at the top of a page, goes on with the table
    /// whose columns ended the page before: it has no header of its own and
    /// its columns lie over those (a long table printed over pages, its
    /// header on the first).
    pub(crate) fn goes_on_from(&self, before: &[(f64, f64)]) -> bool {
        !self.header
            && self.columns.len() == before.len()
            && self.columns.iter().zip(before).all(|(a, b)| a.0 < b.1 && b.0 < a.1)
    }
}

/// A cell of a line: its text and where it lies across the page.
#[derive(Debug, Clone)]
struct Cell {
    text: String,
    x0: f64,
    x1: f64,
}

/// The tables on `page`, in the order of their first lines.
pub(crate) fn find(page: &Page) -> Vec<Found> {
    let cells: Vec<Vec<Cell>> = page.lines.iter().map(cells_of).collect();
    let mut found = Vec::new();
    let mut i = 0;
    while i < page.lines.len() {
        if cells[i].len() < 2 {
            i += 1;
            continue;
        }
        let (table, examined) = table(page, &cells, i);
        found.extend(table);
        // Lines that share the columns of a run found no table will not
        // start one either: each line is looked at a bounded number of times.
        i = examined.max(i + 1);
    }
    found
}

/// A line's words grouped into cells.
fn cells_of(line: &Line) -> Vec<Cell> {
    let mut out: Vec<Cell> = Vec::new();
    for w in &line.words {
        let word = &line.text[w.start..w.end];
        match out.last_mut() {
            Some(cell) if w.x0 - cell.x1 < CELL_GAP * line.size && w.x0 >= cell.x0 => {
                cell.text.push(' ');
                cell.text.push_str(word);
                cell.x1 = cell.x1.max(w.x1);
            }
            _ => out.push(Cell { text: word.to_string(), x0: w.x0, x1: w.x1 }),
        }
    }
    out
}

/// Where a run of lines that could be one table stands, by heights and
/// sizes alone: each line close under the lowest before it, or back up on
/// a recent row's height (a wrapped cell is drawn before the rest of its
/// row), in one font size class.
struct Run {
    size: f64,
    lowest: f64,
    /// The heights of the last rows seen, where a wrapped cell's row goes on.
    recent: std::collections::VecDeque<f64>,
}

impl Run {
    fn new(first: &Line) -> Self {
        Self { size: first.size, lowest: first.y, recent: std::collections::VecDeque::from([first.y]) }
    }

    /// Takes `line` into the run if it continues it.
    fn take(&mut self, line: &Line) -> bool {
        let similar = line.size.max(self.size) <= 1.25 * line.size.min(self.size);
        let back_up = self.recent.iter().any(|&y| (y - line.y).abs() <= SAME_ROW * self.size);
        let below = line.y < self.lowest && self.lowest - line.y <= ROW_GAP * self.size;
        if !similar || !(back_up || below) {
            return false;
        }
        if below {
            self.recent.push_back(line.y);
            if self.recent.len() > RECENT_ROWS {
                self.recent.pop_front();
            }
        }
        self.lowest = self.lowest.min(line.y);
        true
    }
}

/// The table that starts at line `start`, if one does, and the end of the
/// lines examined. The lines after the first are taken one by one while
/// they continue the [`Run`] and the table's [`Grid`] admits them; the
/// first line (a header, whose cells are often centred over flush-left
/// columns) then joins if its cells fall one to a column.
fn table(page: &Page, cells: &[Vec<Cell>], start: usize) -> (Option<Found>, usize) {
    let lines = &page.lines;
    let mut run = Run::new(&lines[start]);
    let mut grid = Grid::new(ALIGN * lines[start].size);
    let mut taken = start + 1;
    for i in start + 1..lines.len().min(start + MAX_LINES) {
        let spans: Vec<(f64, f64)> = cells[i].iter().map(|c| (c.x0, c.x1)).collect();
        if !run.take(&lines[i]) || !grid.admit(&spans) {
            break;
        }
        taken = i + 1;
    }
    let Some(columns) = grid.columns() else { return (None, taken) };
    let at: Vec<Option<usize>> = cells[start].iter().map(|c| column_of(c.x0, c.x1, &columns)).collect();
    let heads = at.iter().all(Option::is_some) && at.windows(2).all(|w| w[0] < w[1]);
    let from = if heads { start } else { start + 1 };
    (build(page, cells, from, taken, &columns), taken)
}

/// The column a cell from `x0` to `x1` belongs to: one whose neighbours it
/// does not reach (a cell may run past its column's other cells into the
/// gutter, as a centred header or a wrapped cell's longer line does, but
/// not over the next column); where two would take it (a cell inside a
/// gutter), the nearer. `None` for a cell across a gutter: a line of prose.
fn column_of(x0: f64, x1: f64, columns: &[(f64, f64)]) -> Option<usize> {
    let centre = (x0 + x1) / 2.0;
    let distance = |k: usize| {
        let (a, b) = columns[k];
        if centre < a {
            a - centre
        } else if centre > b {
            centre - b
        } else {
            0.0
        }
    };
    (0..columns.len())
        .filter(|&k| (k == 0 || x0 >= columns[k - 1].1) && columns.get(k + 1).is_none_or(|next| x1 <= next.0))
        .min_by(|&a, &b| distance(a).total_cmp(&distance(b)))
}

/// Rows from lines `start..end`, when they make a table.
fn build(page: &Page, cells: &[Vec<Cell>], start: usize, end: usize, columns: &[(f64, f64)]) -> Option<Found> {
    if start >= end {
        return None;
    }
    let lines = &page.lines;
    let size = lines[start].size;
    // Top down, each line's cells placed in their columns.
    let mut order: Vec<usize> = (start..end).collect();
    order.sort_by(|&a, &b| lines[b].y.total_cmp(&lines[a].y).then(a.cmp(&b)));
    let mut placed: Vec<Vec<String>> = Vec::with_capacity(order.len());
    for &i in &order {
        let mut row = vec![String::new(); columns.len()];
        for cell in &cells[i] {
            join(&mut row[column_of(cell.x0, cell.x1, columns)?], &cell.text);
        }
        placed.push(row);
    }
    let ys: Vec<f64> = order.iter().map(|&i| lines[i].y).collect();
    // The page's rules (bottom up) from just under the table to just over it.
    let (bottom, top) = (ys[ys.len() - 1] - size, ys[0] + size);
    let near = &page.rules[page.rules.partition_point(|r| r.y < bottom)..page.rules.partition_point(|r| r.y <= top)];
    let starts = row_starts(&ys, &placed, &separators(near, columns), size);
    let mut rows: Vec<Vec<String>> = Vec::new();
    for (line, new_row) in placed.into_iter().zip(starts) {
        match rows.last_mut() {
            Some(row) if !new_row => {
                for (into, text) in row.iter_mut().zip(&line) {
                    join(into, text);
                }
            }
            _ => rows.push(line),
        }
    }
    let full = rows.iter().filter(|r| r.iter().filter(|c| !c.is_empty()).count() >= 2).count();
    let monospaced = (start..end).filter(|&i| lines[i].monospaced()).count();
    if full < MIN_ROWS || !keys(&rows) || 2 * monospaced > end - start {
        return None;
    }
    let header = rows[0].iter().filter(|c| !c.is_empty()).count() >= 2
        && rows[0].iter().all(|c| c.is_empty() || (c.chars().any(char::is_alphabetic) && !numeric(c)));
    Some(Found { lines: start..end, rows, header, columns: columns.to_vec() })
}

/// How far past its column's words a cell's border reaches at least (the
/// cell's padding), in points; an underline ends where its words do.
const BORDER_PAST_WORDS: f64 = 1.5;

/// The heights of the rules that could part two rows of a table with these
/// columns, ascending: a cell's border covers a column and reaches past its
/// words on a side, where an underline (a link in a cell) covers only them.
fn separators(rules: &[Rule], columns: &[(f64, f64)]) -> Vec<f64> {
    let border = |r: &Rule, (a, b): (f64, f64)| {
        r.x0 <= a && r.x1 >= b && (a - r.x0 >= BORDER_PAST_WORDS || r.x1 - b >= BORDER_PAST_WORDS)
    };
    let mut ys: Vec<f64> = rules.iter().filter(|r| columns.iter().any(|&c| border(r, c))).map(|r| r.y).collect();
    ys.sort_by(f64::total_cmp);
    ys
}

/// Which of a table's lines (top down, at heights `ys`, with their cells
/// placed in columns) start a row. Lines at one height are one row. A
/// table ruled between its rows (borders: about a rule per row) starts a
/// row after each rule and only there, so a cell that wraps, its first column's included, stays in
/// its row; an unruled one starts a row at each line with a first cell (a
/// line without one is the rest of a wrapped cell).
fn row_starts(ys: &[f64], placed: &[Vec<String>], separators: &[f64], size: f64) -> Vec<bool> {
    let same = |k: usize| k > 0 && (ys[k - 1] - ys[k]).abs() <= SAME_ROW * size;
    // A rule under the line above's descenders and over this one's capitals.
    let ruled_above = |k: usize| {
        let (low, high) = (ys[k] + 0.2 * size, ys[k - 1] - 0.05 * size);
        let from = separators.partition_point(|&y| y <= low);
        separators.get(from).is_some_and(|&y| y < high)
    };
    let by_cells: Vec<bool> = (0..ys.len()).map(|k| k == 0 || (!same(k) && !placed[k][0].is_empty())).collect();
    let boundaries = by_cells.iter().skip(1).filter(|&&b| b).count();
    // Rules inside the table, one per height (a border is often drawn cell
    // by cell): a ruled table has about one per row (some rows wrap), one
    // with a rule under its header alone has one.
    let (low, high) = (ys[ys.len() - 1] + 0.2 * size, ys[0] - 0.05 * size);
    let inside = &separators[separators.partition_point(|&y| y <= low)..separators.partition_point(|&y| y < high)];
    let rules = inside.iter().enumerate().filter(|&(i, &y)| i == 0 || y - inside[i - 1] > 1.0).count();
    if rules >= 2 && 2 * rules >= boundaries {
        (0..ys.len()).map(|k| k == 0 || (!same(k) && ruled_above(k))).collect()
    } else {
        by_cells
    }
}

/// Appends `text` to a cell, a space between.
fn join(cell: &mut String, text: &str) {
    if text.is_empty() {
        return;
    }
    if !cell.is_empty() {
        cell.push(' ');
    }
    cell.push_str(text);
}

/// Whether the first column's cells are short, as keys and labels are, and
/// not all list markers (a bulleted or numbered list set with a hanging
/// indent is laid out as two columns too).
fn keys(rows: &[Vec<String>]) -> bool {
    let mut lengths: Vec<usize> = rows.iter().map(|r| r[0].chars().count()).filter(|&n| n > 0).collect();
    lengths.sort_unstable();
    let short = lengths.get(lengths.len() / 2).is_some_and(|&m| m <= KEY_CHARS);
    short && !rows.iter().all(|r| r[0].is_empty() || marker(&r[0]))
}

/// A list item's marker: a bullet or dash (`•`, `–`, `*`), or an
/// enumerator (`1.`, `12)`, `a.`, `(iv)`).
fn marker(cell: &str) -> bool {
    let n = cell.chars().count();
    let bullet = n <= 2 && !cell.chars().any(char::is_alphanumeric);
    let inner = cell.trim_start_matches('(').trim_end_matches(['.', ')']);
    let enumerator = n <= 5
        && inner.len() < cell.len()
        && !inner.is_empty()
        && (inner.chars().all(|c| c.is_ascii_digit()) || inner.chars().all(char::is_alphabetic) && inner.len() <= 4);
    bullet || enumerator
}

/// A number as a table writes one: digits with separators, a sign, a unit
/// or currency sign around them.
fn numeric(cell: &str) -> bool {
    cell.chars().any(|c| c.is_ascii_digit()) && cell.chars().all(|c| c.is_ascii_digit() || " .,-+%$€£()".contains(c))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pdf::layout::Word;

    /// A line at height `y` whose cells start at the given x (10 pt type,
    /// words 5 pt a character, one space apart).
    fn line(y: f64, cells: &[(f64, &str)]) -> Line {
        let mut line = Line { y, size: 10.0, ..Line::default() };
        for &(x, cell) in cells {
            let mut x = x;
            for word in cell.split(' ') {
                if !line.text.is_empty() {
                    line.text.push(' ');
                }
                let start = line.text.len();
                line.text.push_str(word);
                let x1 = x + 5.0 * word.len() as f64;
                line.words.push(Word { start, end: line.text.len(), x0: x, x1 });
                x = x1 + 2.5;
            }
        }
        line
    }

    fn page(lines: Vec<Line>) -> Page {
        Page { number: 1, lines, ..Page::default() }
    }

    #[test]
    fn a_printed_sheet_is_a_table_under_its_header() {
        let p = page(vec![
            line(800.0, &[(50.0, "The parts we keep in stock, per unit and before shipping.")]),
            line(770.0, &[(50.0, "Part"), (150.0, "Description"), (400.0, "Price")]),
            line(757.0, &[(50.0, "SKU-1042"), (150.0, "Pump seal kit"), (400.0, "12.50")]),
            line(744.0, &[(50.0, "SKU-1043"), (150.0, "Brass coupling"), (400.0, "4.75")]),
            line(731.0, &[(150.0, "with a long name")]),
            line(718.0, &[(50.0, "SKU-2001"), (150.0, "Gauge"), (400.0, "38.00")]),
            line(700.0, &[(50.0, "Ask the warehouse for parts that are not on this list at all.")]),
        ]);
        let found = find(&p);
        assert_eq!(found.len(), 1);
        let t = &found[0];
        assert_eq!(t.lines, 1..6);
        assert!(t.header);
        assert_eq!(
            t.rows,
            [
                ["Part", "Description", "Price"],
                ["SKU-1042", "Pump seal kit", "12.50"],
                ["SKU-1043", "Brass coupling with a long name", "4.75"],
                ["SKU-2001", "Gauge", "38.00"],
            ]
        );
    }

    #[test]
    fn a_wrapped_cell_drawn_before_the_rest_of_its_row_joins_it() {
        let p = page(vec![
            line(770.0, &[(50.0, "Part"), (150.0, "Description"), (400.0, "Price")]),
            line(757.0, &[(50.0, "SKU-1043"), (150.0, "Brass coupling")]),
            line(744.0, &[(150.0, "with a long name")]),
            line(757.0, &[(400.0, "4.75")]),
            line(731.0, &[(50.0, "SKU-2001"), (150.0, "Gauge"), (400.0, "38.00")]),
        ]);
        let found = find(&p);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].rows[1], ["SKU-1043", "Brass coupling with a long name", "4.75"]);
        assert_eq!(found[0].lines, 0..5);
    }

    #[test]
    fn prose_and_short_runs_are_no_table() {
        // Two columns of prose drawn line by line: long first-column cells.
        let prose = page(vec![
            line(800.0, &[(50.0, "the first column of the page holds"), (320.0, "while the second column")]),
            line(787.0, &[(50.0, "prose that runs along its lines"), (320.0, "holds prose of its own")]),
            line(774.0, &[(50.0, "until the paragraph comes to an end"), (320.0, "and ends where it likes")]),
        ]);
        assert!(find(&prose).is_empty());
        // Two rows are not enough.
        let short =
            page(vec![line(800.0, &[(50.0, "Part"), (150.0, "Price")]), line(787.0, &[(50.0, "A"), (150.0, "1")])]);
        assert!(find(&short).is_empty());
        // A paragraph with a wide gap in one line only.
        let justified = page(vec![
            line(800.0, &[(50.0, "A justified line"), (200.0, "with one wide gap")]),
            line(787.0, &[(50.0, "and then an ordinary line of the same paragraph that runs across")]),
            line(774.0, &[(50.0, "and a third line, again running all the way across the page")]),
        ]);
        assert!(find(&justified).is_empty());
    }

    #[test]
    fn a_list_set_with_a_hanging_indent_is_no_table() {
        for marker in ["•", "–", "1.", "(a)"] {
            let p = page(vec![
                line(770.0, &[(50.0, marker), (70.0, "the first item of the list")]),
                line(757.0, &[(50.0, marker), (70.0, "the second item")]),
                line(744.0, &[(50.0, marker), (70.0, "the third item")]),
            ]);
            assert!(find(&p).is_empty(), "{marker}");
        }
        assert!(marker("iv.") && marker("12)") && !marker("SKU-1") && !marker("Total") && !marker("3.5"));
    }

    #[test]
    fn borders_part_the_rows_of_a_ruled_table_and_first_cells_an_unruled_one() {
        let cells = |cells: &[&str]| cells.iter().map(|c| c.to_string()).collect::<Vec<_>>();
        // A header, a row whose key wraps onto a second line, a third row.
        let ys = [770.0, 757.0, 744.0, 731.0];
        let placed = [
            cells(&["Part", "Price"]),
            cells(&["SKU-3001", "41.00"]),
            cells(&["(obsolete)", ""]),
            cells(&["SKU-1", "2"]),
        ];
        let ruled = [741.0, 767.0];
        assert_eq!(row_starts(&ys, &placed, &ruled, 10.0), [true, true, false, true]);
        assert_eq!(row_starts(&ys, &placed, &[], 10.0), [true, true, true, true]);
        // A header rule alone (a booktabs table) does not rule the rows.
        assert_eq!(row_starts(&ys, &placed, &[767.0], 10.0), [true, true, true, true]);
    }

    #[test]
    fn a_border_reaches_past_its_column_s_words_and_an_underline_does_not() {
        let columns = [(50.0, 100.0), (150.0, 300.0)];
        let rule = |y, x0, x1| Rule { y, x0, x1 };
        // Across the table; around one cell; under a link's words; short.
        let rules =
            [rule(700.0, 45.0, 305.0), rule(650.0, 150.0, 300.0), rule(600.0, 146.0, 304.0), rule(550.0, 60.0, 90.0)];
        assert_eq!(separators(&rules, &columns), [600.0, 700.0]);
    }

    #[test]
    fn numbers_are_no_header() {
        let p = page(vec![
            line(770.0, &[(50.0, "1"), (150.0, "12.50")]),
            line(757.0, &[(50.0, "2"), (150.0, "4.75")]),
            line(744.0, &[(50.0, "3"), (150.0, "38.00")]),
        ]);
        let found = find(&p);
        assert_eq!(found.len(), 1);
        assert!(!found[0].header);
    }
}
