//! Reading workbooks with calamine. The format comes from the content: a zip
//! holding `xl/workbook.xml` is xlsx/xlsm, `xl/workbook.bin` xlsb,
//! `content.xml` ods; an OLE compound file is xls, or an encrypted OOXML
//! workbook when it holds an `EncryptedPackage` stream; one XML
//! `office:document` is a flat ods (`.fods`, LibreOffice's "Flat XML").
//!
//! xlsx and xlsb sheets are streamed cell by cell (calamine's cell readers),
//! so a sheet never exists as a dense grid; only the shared-string table and
//! our compact [`Grid`] are held. calamine reads xls and ods only as whole
//! ranges, so those cost a dense grid of the used range while read (an xls
//! sheet is at most 65,536 × 256 cells; an ods inflates to at most the
//! checked decompressed size).

use super::grid::Grid;
use super::value::{render, render_ref};
use super::{Budget, malformed};
use crate::{ExtractError, TextBuilder};
use calamine::{Data, Ods, OdsError, Range, Reader, SheetType, Xls, XlsError, Xlsb, XlsbError, Xlsx, XlsxError};
use std::io::Cursor;

const CFB_MAGIC: &[u8] = b"\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    Xlsx,
    Xlsb,
    Xls,
    Ods,
}

/// Reads every worksheet into `b`; returns how many had content.
pub(super) fn read(bytes: &[u8], budget: &mut Budget<'_>, b: &mut TextBuilder) -> Result<usize, ExtractError> {
    if let Some(xml) = super::xml2003::workbook(bytes) {
        return super::xml2003::read(xml, budget, b);
    }
    if let Some(flat) = crate::package::flat_odf(bytes) {
        return read_ods(Ods::new(Cursor::new(super::flat::package(flat?)?)).map_err(ods_error)?, budget, b);
    }
    let cursor = || Cursor::new(bytes);
    let mut written = 0;
    match format(bytes, budget.limits.max_decompressed_bytes)? {
        Format::Xlsx => {
            let mut wb = Xlsx::new(cursor()).map_err(xlsx_error)?;
            for name in worksheets(&wb) {
                let mut grid = Grid::new();
                let mut cells = wb.worksheet_cells_reader(&name).map_err(xlsx_error)?;
                while let Some(cell) = cells.next_cell().map_err(xlsx_error)? {
                    let (row, col) = cell.get_position();
                    grid.push(row, col, |out| render_ref(out, cell.get_value()), budget)?;
                }
                drop(cells);
                written += grid.write(&name, true, b, budget)? as usize;
            }
        }
        Format::Xlsb => {
            let mut wb = Xlsb::new(cursor()).map_err(xlsb_error)?;
            for name in worksheets(&wb) {
                let mut grid = Grid::new();
                let mut cells = wb.worksheet_cells_reader(&name).map_err(xlsb_error)?;
                while let Some(cell) = cells.next_cell().map_err(xlsb_error)? {
                    let (row, col) = cell.get_position();
                    grid.push(row, col, |out| render_ref(out, cell.get_value()), budget)?;
                }
                drop(cells);
                written += grid.write(&name, true, b, budget)? as usize;
            }
        }
        Format::Xls => {
            let mut wb = Xls::new(cursor()).map_err(xls_error)?;
            for name in worksheets(&wb) {
                let range = wb.worksheet_range(&name).map_err(xls_error)?;
                written += write_range(&name, &range, budget, b)? as usize;
            }
        }
        Format::Ods => written += read_ods(Ods::new(cursor()).map_err(ods_error)?, budget, b)?,
    }
    Ok(written)
}

fn read_ods<R: std::io::Read + std::io::Seek>(
    mut wb: Ods<R>,
    budget: &mut Budget<'_>,
    b: &mut TextBuilder,
) -> Result<usize, ExtractError> {
    let mut written = 0;
    for name in worksheets(&wb) {
        let range = wb.worksheet_range(&name).map_err(ods_error)?;
        written += write_range(&name, &range, budget, b)? as usize;
    }
    Ok(written)
}

/// Names of the sheets that hold cells (not charts, dialogs or macros), in
/// workbook order. Hidden sheets are included: their data is part of the file
/// and is what someone searching a corpus may be after.
fn worksheets<R: std::io::Read + std::io::Seek>(wb: &impl Reader<R>) -> Vec<String> {
    wb.sheets_metadata().iter().filter(|s| s.typ == SheetType::WorkSheet).map(|s| s.name.clone()).collect()
}

fn write_range(
    name: &str,
    range: &Range<Data>,
    budget: &mut Budget<'_>,
    b: &mut TextBuilder,
) -> Result<bool, ExtractError> {
    let Some((row0, col0)) = range.start() else {
        return Ok(false);
    };
    let mut grid = Grid::new();
    for (r, c, v) in range.used_cells() {
        grid.push(row0 + r as u32, col0 + c as u32, |out| render(out, v), budget)?;
    }
    grid.write(name, true, b, budget)
}

/// Tells the format from the content and, for zip containers, checks the
/// declared uncompressed size before anything is inflated.
fn format(bytes: &[u8], max_inflated: u64) -> Result<Format, ExtractError> {
    if bytes.starts_with(CFB_MAGIC) {
        return if crate::detect::holds_utf16(bytes, "EncryptedPackage") { Err(encrypted()) } else { Ok(Format::Xls) };
    }
    if !bytes.starts_with(b"PK") {
        return Err(malformed("not an xlsx, xlsb, xls or ods file"));
    }
    let mut zip = crate::archive::open(bytes, max_inflated, "workbook", |r| malformed(r))?;
    let has = |name: &str| zip.index_for_name(name).is_some();
    if has("xl/workbook.xml") {
        Ok(Format::Xlsx)
    } else if has("xl/workbook.bin") {
        check_xlsb_cells(&mut zip)?;
        Ok(Format::Xlsb)
    } else if has("content.xml") {
        Ok(Format::Ods)
    } else {
        Err(malformed("zip archive holds no workbook"))
    }
}

/// calamine 0.38 reads an xlsb cell only from the full cell records and
/// skips the compact ones (`BrtShort*`, record types 0x0C–0x10, which carry
/// no column and follow another cell of the row; SheetJS writes them), so such
/// a sheet would be indexed with most of its cells silently missing. Refused
/// instead, with a reason that says so.
fn check_xlsb_cells(zip: &mut zip::ZipArchive<Cursor<&[u8]>>) -> Result<(), ExtractError> {
    let sheets: Vec<String> = zip
        .file_names()
        .filter_map(Result::ok)
        .filter(|n| n.starts_with("xl/worksheets/") && n.ends_with(".bin"))
        .map(|n| n.into_owned())
        .collect();
    for name in sheets {
        let entry = zip.by_name(&name).map_err(|e| malformed(format!("{name}: {e}")))?;
        if has_short_cells(std::io::BufReader::new(entry)) {
            return Err(malformed("xlsb sheet uses compact cell records that cannot be read; save it as xlsx"));
        }
    }
    Ok(())
}

/// Walks the records of an xlsb sheet stream (MS-XLSB 2.1.4: a type of up to
/// two and a size of up to four 7-bit groups, then the payload) up to the end
/// of its cell data.
fn has_short_cells(mut r: impl std::io::Read) -> bool {
    const END_SHEET_DATA: u64 = 0x0092;
    loop {
        let (Some(typ), Some(len)) = (varint(&mut r, 2), varint(&mut r, 4)) else {
            return false;
        };
        if (0x0C..=0x10).contains(&typ) {
            return true;
        }
        let skipped = std::io::copy(&mut std::io::Read::take(&mut r, len), &mut std::io::sink()).unwrap_or(0);
        if typ == END_SHEET_DATA || skipped < len {
            return false;
        }
    }
}

fn varint(r: &mut impl std::io::Read, max_bytes: u32) -> Option<u64> {
    let mut value = 0u64;
    for i in 0..max_bytes {
        let mut byte = [0u8];
        r.read_exact(&mut byte).ok()?;
        value |= u64::from(byte[0] & 0x7F) << (7 * i);
        if byte[0] & 0x80 == 0 {
            break;
        }
    }
    Some(value)
}

fn encrypted() -> ExtractError {
    ExtractError::Malformed("encrypted spreadsheet".into())
}

fn xlsx_error(e: XlsxError) -> ExtractError {
    if matches!(e, XlsxError::Password) { encrypted() } else { malformed(e) }
}

fn xlsb_error(e: XlsbError) -> ExtractError {
    if matches!(e, XlsbError::Password) { encrypted() } else { malformed(e) }
}

fn xls_error(e: XlsError) -> ExtractError {
    if matches!(e, XlsError::Password) { encrypted() } else { malformed(e) }
}

fn ods_error(e: OdsError) -> ExtractError {
    if matches!(e, OdsError::Password) { encrypted() } else { malformed(e) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compact_cell_records_are_spotted_in_the_cell_data() {
        // BrtRowHdr (type 0x00, 3 bytes), BrtCellIsst (0x07, 2 bytes),
        // BrtEndSheetData (0x92, two type bytes), then a record past the data.
        let full: &[u8] = &[0x00, 0x03, 1, 2, 3, 0x07, 0x02, 9, 9, 0x92, 0x01, 0x00, 0x0D, 0x00];
        assert!(!has_short_cells(full));
        // BrtShortIsst (0x0D) inside the cell data.
        let short: &[u8] = &[0x00, 0x03, 1, 2, 3, 0x0D, 0x02, 9, 9, 0x92, 0x01, 0x00];
        assert!(has_short_cells(short));
        assert!(!has_short_cells(&[0x07, 0x7F][..]), "a truncated stream ends the walk");
    }
}
