//! Spreadsheets (xlsx, xlsm, xlsb, xls, ods through calamine; Excel's XML
//! Spreadsheet 2003 by [`xml2003`]) and delimited
//! text (csv, tsv through the `csv` crate), turned into tables.
//!
//! Canonical text: for every sheet that has a non-empty cell, a heading line
//! `Sheet: NAME`, any title lines above its table (see [`grid`]), then one
//! line per non-empty row, cells joined by ` | ` from the first to the last
//! used column of the sheet (empty cells in between kept so columns stay
//! aligned, trailing empty cells dropped). Each row line is a
//! [`ragpipe_core::BlockKind::TableRow`] whose `row` is the 1-based
//! spreadsheet row, and each sheet a [`ragpipe_core::Table`] with its used
//! columns, so chunk locators can name exact A1 ranges. A CSV file is one
//! table named after the file, without a heading line.
//!
//! Hostile input: the format is taken from the content, not the extension;
//! zip-based workbooks have their declared uncompressed size checked against
//! [`Limits::max_decompressed_bytes`] before calamine opens them (the `zip`
//! reader refuses to inflate an entry past its declared size, so the sum
//! bounds what calamine can inflate), and rows and cells are counted against
//! [`Limits::max_rows`] and [`Limits::max_cells`] as they are read.

mod delimited;
mod flat;
mod grid;
mod value;
mod workbook;
pub(crate) mod xml2003;

pub(crate) use value::is_number;

use crate::{ExtractError, Limits, TextBuilder, fallback_title};
use ragpipe_core::{Document, Kind};

pub(crate) fn extract(name: &str, bytes: &[u8], limits: &Limits) -> Result<Document, ExtractError> {
    let mut b = TextBuilder::new();
    let mut budget = Budget::new(limits);
    // calamine is known to panic on some malformed files. Aborts (allocation
    // failure) cannot be caught, which is what the size checks before it are for.
    let sheets = crate::unpanicked(|| workbook::read(bytes, &mut budget, &mut b))
        .map_err(|msg| malformed(format!("the spreadsheet parser stopped on it: {msg}")))??;
    if sheets == 0 {
        return Err(ExtractError::NoText);
    }
    Ok(b.build(fallback_title(name), Kind::Spreadsheet))
}

pub(crate) fn extract_csv(name: &str, bytes: &[u8], limits: &Limits) -> Result<Document, ExtractError> {
    let text = crate::text::decode(bytes)?;
    let mut b = TextBuilder::new();
    let mut budget = Budget::new(limits);
    let title = fallback_title(name);
    if !delimited::read(&text, delimited::delimiter(name, &text), &title, &mut budget, &mut b)? {
        return Err(ExtractError::NoText);
    }
    Ok(b.build(title, Kind::Csv))
}

/// `malformed spreadsheet: …`, the failure for a file that is not a readable workbook.
fn malformed(reason: impl std::fmt::Display) -> ExtractError {
    ExtractError::Malformed(format!("malformed spreadsheet: {reason}"))
}

/// Rows and cells counted against the document's limits while it is read.
#[derive(Debug)]
pub(crate) struct Budget<'l> {
    limits: &'l Limits,
    rows: u64,
    read_cells: u64,
    written_cells: u64,
}

impl<'l> Budget<'l> {
    pub(crate) fn new(limits: &'l Limits) -> Self {
        Budget { limits, rows: 0, read_cells: 0, written_cells: 0 }
    }

    /// One more non-empty row.
    pub(crate) fn row(&mut self) -> Result<(), ExtractError> {
        self.rows += 1;
        if self.rows > self.limits.max_rows {
            return Err(ExtractError::Limit(format!("more than {} rows (max_rows)", self.limits.max_rows)));
        }
        Ok(())
    }

    /// One more non-empty cell read.
    pub(crate) fn read_cell(&mut self) -> Result<(), ExtractError> {
        self.read_cells += 1;
        self.check_cells(self.read_cells)
    }

    /// Cells written to the text, the empty ones between used cells included:
    /// a sparse sheet whose used columns lie far apart costs what it renders.
    pub(crate) fn written_cells(&mut self, n: u64) -> Result<(), ExtractError> {
        self.written_cells += n;
        self.check_cells(self.written_cells)
    }

    fn check_cells(&self, n: u64) -> Result<(), ExtractError> {
        if n > self.limits.max_cells {
            return Err(ExtractError::Limit(format!("more than {} cells (max_cells)", self.limits.max_cells)));
        }
        Ok(())
    }
}
