//! CSV and TSV. The delimiter is tab for `.tsv`; otherwise it is sniffed from
//! the first lines among `,`, tab, `;` and `|` (semicolons are what
//! spreadsheet applications write where the comma is the decimal separator).
//! Records may have ragged lengths; a quoted field may span lines. The row
//! number of a record is its 1-based record number, which is the row a
//! spreadsheet application shows it on.

use super::Budget;
use super::grid::Grid;
use super::malformed;
use super::value::csv_shape;
use crate::{ExtractError, TextBuilder};

const CANDIDATES: [u8; 4] = [b',', b'\t', b';', b'|'];

/// Lines looked at when sniffing the delimiter.
const SNIFF_LINES: usize = 20;

/// The delimiter of a delimited text file named `name`.
pub(super) fn delimiter(name: &str, text: &str) -> u8 {
    if crate::extension(name) == "tsv" {
        return b'\t';
    }
    sniff(text)
}

/// The candidate with the most lines agreeing on its count per line (the
/// count most lines share, which must be at least one), then the highest such
/// count; `,` when no candidate occurs. Quotes are not parsed here, so a
/// quoted field holding a delimiter or spanning lines only makes its own
/// line disagree, which the majority vote tolerates.
fn sniff(text: &str) -> u8 {
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).take(SNIFF_LINES).collect();
    let score = |d: u8| {
        let mut counts: Vec<usize> = lines.iter().map(|l| l.bytes().filter(|&b| b == d).count()).collect();
        counts.sort_unstable();
        let (mut mode, mut agree) = (0, 0);
        for run in counts.chunk_by(|a, b| a == b) {
            if run.len() >= agree {
                (mode, agree) = (run[0], run.len());
            }
        }
        (mode > 0, agree, mode)
    };
    CANDIDATES.into_iter().filter(|&d| score(d).0).max_by_key(|&d| score(d)).unwrap_or(b',')
}

/// Reads `text` as one table named `sheet`; false when it has no non-empty field.
pub(super) fn read(
    text: &str,
    delimiter: u8,
    sheet: &str,
    budget: &mut Budget<'_>,
    b: &mut TextBuilder,
) -> Result<bool, ExtractError> {
    let mut reader =
        csv::ReaderBuilder::new().delimiter(delimiter).has_headers(false).flexible(true).from_reader(text.as_bytes());
    let mut grid = Grid::new();
    let mut record = csv::StringRecord::new();
    let mut row: u32 = 0;
    loop {
        match reader.read_record(&mut record) {
            Ok(false) => break,
            Ok(true) => {}
            Err(e) => return Err(malformed(format!("csv record {}: {e}", row + 1))),
        }
        for (col, field) in record.iter().enumerate() {
            let col = u32::try_from(col).map_err(|_| ExtractError::Limit("a record with 4 billion fields".into()))?;
            grid.push(
                row,
                col,
                |out| {
                    out.push_str(field);
                    Some(csv_shape(field))
                },
                budget,
            )?;
        }
        row += 1;
    }
    grid.write(sheet, false, b, budget)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sniffs_the_consistent_delimiter() {
        assert_eq!(sniff("a;b;c\n1,5;2;3\n"), b';');
        assert_eq!(sniff("a\tb\n1\t2\n"), b'\t');
        assert_eq!(sniff("name,note\nx,\"a, b\"\n"), b',');
        assert_eq!(sniff("just one column\n"), b',');
        assert_eq!(sniff("t;;\nx;\"multi\nline\";1\na;b;c\n"), b';');
        assert_eq!(delimiter("x.tsv", "a,b\n"), b'\t');
    }
}
