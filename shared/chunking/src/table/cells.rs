//! The cells of a row line. The extractors join a row's cells with ` | ` and
//! write a `|` inside a cell as `\|` (`ragpipe_extract::builder::CELL_SEPARATOR`),
//! so ` | ` only ever separates cells and a line splits back into its cells
//! without ambiguity.

use std::ops::Range;

pub(crate) const SEPARATOR: &str = " | ";

/// Byte ranges of the cells of `line`, empty cells included.
pub(crate) fn spans(line: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start = 0;
    while let Some(i) = line[start..].find(SEPARATOR) {
        out.push(start..start + i);
        start += i + SEPARATOR.len();
    }
    out.push(start..line.len());
    out
}

/// Rows as `Header: value` pairs joined by `; `, one line per row, empty
/// cells left out. `header` is the header line over the same columns as
/// `rows` (its last line when the header spans several); a value whose
/// column has no name is written alone.
pub(crate) fn linearise(header: &str, rows: &str) -> String {
    let header = header.rsplit('\n').next().unwrap_or("");
    let names: Vec<&str> = spans(header).into_iter().map(|r| &header[r]).collect();
    let mut out = String::with_capacity(rows.len() * 2);
    for (i, line) in rows.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let mut first = true;
        for (col, span) in spans(line).into_iter().enumerate() {
            let value = &line[span];
            if value.is_empty() {
                continue;
            }
            if !first {
                out.push_str("; ");
            }
            first = false;
            match names.get(col) {
                Some(name) if !name.is_empty() => {
                    out.push_str(name);
                    out.push_str(": ");
                }
                _ => {}
            }
            out.push_str(value);
        }
    }
    out
}

/// The A1 column letters of a 1-based column: 1 → `A`, 27 → `AA`.
pub(crate) fn column_letters(mut col: u32) -> String {
    let mut letters = Vec::new();
    while col > 0 {
        let rem = (col - 1) % 26;
        letters.push(b'A' + rem as u8);
        col = (col - 1) / 26;
    }
    letters.reverse();
    String::from_utf8(letters).expect("ASCII letters")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_split_at_separators_only() {
        let line = " | a \\| b | c";
        let cells: Vec<&str> = spans(line).into_iter().map(|r| &line[r]).collect();
        assert_eq!(cells, ["", "a \\| b", "c"]);
        assert_eq!(spans("x").len(), 1);
    }

    #[test]
    fn rows_linearise_under_their_header() {
        let text = linearise("Region | Units | ", "North | 10 | x\nSouth |  | y");
        assert_eq!(text, "Region: North; Units: 10; x\nRegion: South; y");
        assert_eq!(linearise("A\nB | C", "1 | 2"), "B: 1; C: 2");
    }

    #[test]
    fn a1_column_letters() {
        assert_eq!(column_letters(1), "A");
        assert_eq!(column_letters(26), "Z");
        assert_eq!(column_letters(27), "AA");
        assert_eq!(column_letters(16_384), "XFD");
    }
}
