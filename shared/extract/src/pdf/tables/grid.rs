//! The columns of a table as its lines are read one by one. A line of two
//! cells or more draws columns (the x-intervals its cells cover, merged
//! with those of the lines before where they overlap) and is admitted only
//! if the table stays one: no two cells of one line in one column, and each
//! cell aligned as its column's cells before it were (its left edge, right
//! edge or centre where one of theirs was: text is set flush left, numbers
//! flush right, headings centred). A line of one cell (a wrapped cell's
//! next line) must lie inside one column. A paragraph flowing around a
//! picture has two runs of words with a gap between them, but they line up
//! with nothing.

/// Distinct edges a column remembers; past that it stops learning new ones.
const MAX_ANCHORS: usize = 64;

#[derive(Debug, Clone, Default)]
struct Column {
    x0: f64,
    x1: f64,
    /// The left edges, right edges and centres of its cells so far.
    anchors: [Vec<f64>; 3],
}

impl Column {
    fn aligned(&self, (x0, x1): (f64, f64), tolerance: f64) -> bool {
        let edges = [x0, x1, (x0 + x1) / 2.0];
        self.anchors.iter().all(Vec::is_empty)
            || self.anchors.iter().zip(edges).any(|(seen, x)| seen.iter().any(|a| (a - x).abs() <= tolerance))
    }

    fn learn(&mut self, (x0, x1): (f64, f64), tolerance: f64) {
        for (seen, x) in self.anchors.iter_mut().zip([x0, x1, (x0 + x1) / 2.0]) {
            if seen.len() < MAX_ANCHORS && !seen.iter().any(|a| (a - x).abs() <= tolerance) {
                seen.push(x);
            }
        }
    }
}

/// Columns grown line by line; see the module's documentation.
#[derive(Debug, Clone)]
pub(super) struct Grid {
    columns: Vec<Column>,
    /// The spans of every admitted line of two cells or more.
    rows: Vec<Vec<(f64, f64)>>,
    tolerance: f64,
}

impl Grid {
    /// A grid whose edges match within `tolerance` points.
    pub(super) fn new(tolerance: f64) -> Self {
        Self { columns: Vec::new(), rows: Vec::new(), tolerance }
    }

    /// The columns' x-intervals, when there are two at least.
    pub(super) fn columns(&self) -> Option<Vec<(f64, f64)>> {
        (self.columns.len() >= 2).then(|| self.columns.iter().map(|c| (c.x0, c.x1)).collect())
    }

    /// Admits a line given by its cells' spans, left to right, if the grid
    /// stays a table's with it; a line refused leaves the grid as it was.
    pub(super) fn admit(&mut self, spans: &[(f64, f64)]) -> bool {
        if spans.len() < 2 {
            return match (self.columns(), spans.first()) {
                (Some(columns), Some(&(x0, x1))) => super::column_of(x0, x1, &columns).is_some(),
                _ => false,
            };
        }
        let (merged, joined) = merge(&self.columns, spans);
        let column = |&(x0, x1): &(f64, f64)| merged.iter().position(|c| c.x0 <= x0 && x1 <= c.x1);
        let distinct = |line: &[(f64, f64)]| {
            let at: Vec<Option<usize>> = line.iter().map(column).collect();
            at.windows(2).all(|w| w[0] < w[1])
        };
        if !distinct(spans) {
            return false;
        }
        if joined && !self.rows.iter().all(|r| distinct(r)) {
            return false;
        }
        let aligned = spans.iter().all(|s| column(s).is_some_and(|k| merged[k].aligned(*s, self.tolerance)));
        if !aligned {
            return false;
        }
        let at: Vec<Option<usize>> = spans.iter().map(column).collect();
        self.columns = merged;
        for (s, k) in spans.iter().zip(at) {
            if let Some(k) = k {
                self.columns[k].learn(*s, self.tolerance);
            }
        }
        self.rows.push(spans.to_vec());
        true
    }
}

/// `columns` with `spans` laid over them: intervals that overlap become one,
/// with the anchors of both. Also tells whether two of the old columns
/// became one (the lines admitted before must then be checked again).
fn merge(columns: &[Column], spans: &[(f64, f64)]) -> (Vec<Column>, bool) {
    let mut all: Vec<(Column, bool)> = columns.iter().map(|c| (c.clone(), true)).collect();
    all.extend(spans.iter().map(|&(x0, x1)| (Column { x0, x1, ..Column::default() }, false)));
    all.sort_by(|a, b| a.0.x0.total_cmp(&b.0.x0));
    let mut out: Vec<(Column, bool)> = Vec::with_capacity(all.len());
    let mut joined = false;
    for (c, old) in all {
        match out.last_mut() {
            Some((last, was_old)) if c.x0 <= last.x1 => {
                joined |= old && *was_old;
                *was_old |= old;
                last.x1 = last.x1.max(c.x1);
                for (into, from) in last.anchors.iter_mut().zip(c.anchors) {
                    into.extend(from);
                }
            }
            _ => out.push((c, old)),
        }
    }
    (out.into_iter().map(|(c, _)| c).collect(), joined)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aligned_lines_are_admitted_and_a_paragraph_around_a_picture_is_not() {
        let mut grid = Grid::new(1.5);
        assert!(grid.admit(&[(56.0, 91.0), (217.0, 264.0), (378.0, 439.0)]));
        assert!(grid.admit(&[(56.0, 112.0), (217.0, 264.0), (378.0, 440.0)]));
        // Flush right numbers, a cell that starts where the column's did.
        assert!(grid.admit(&[(56.0, 80.0), (230.0, 264.0), (378.0, 400.0)]));
        // A wrapped cell's next line inside its column.
        assert!(grid.admit(&[(217.0, 300.0)]));
        // Text flowing around a picture: its second run lines up with nothing.
        assert!(!grid.admit(&[(56.0, 149.0), (416.0, 537.0)]));
        // A line across the columns.
        assert!(!grid.admit(&[(56.0, 500.0)]));
        assert_eq!(grid.columns().unwrap().len(), 3);
    }

    #[test]
    fn two_cells_of_a_line_never_share_a_column() {
        let mut grid = Grid::new(1.5);
        assert!(grid.admit(&[(56.0, 102.0), (127.0, 217.0)]));
        // This line's second cell bridges both columns with its first.
        assert!(!grid.admit(&[(74.0, 79.0), (92.0, 358.0)]));
        assert_eq!(grid.columns().unwrap(), [(56.0, 102.0), (127.0, 217.0)]);
    }
}
