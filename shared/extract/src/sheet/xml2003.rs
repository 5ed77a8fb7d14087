//! Excel's XML Spreadsheet 2003 (SpreadsheetML): one XML file, `Workbook`
//! of `Worksheet`s of `Table`/`Row`/`Cell`/`Data`, which Excel saves as
//! `.xml` and many reporting tools and libraries write as `.xls`. calamine
//! does not read it, so it is read here, each worksheet into the same
//! [`Grid`] as the binary formats.
//!
//! Positions: a row or cell is at the next place unless its `ss:Index`
//! (1-based) moves it on; a cell merged across `ss:MergeAcross` columns
//! takes that many more places. A `Data`'s `ss:Type` says what it holds:
//! `Number`, `DateTime` and `Boolean` are values rendered as the other
//! formats render them, `String` (and `Error`) words.

use super::grid::Grid;
use super::value::{self, Shape};
use super::{Budget, malformed};
use crate::word::xml::{attr, reference};
use crate::{ExtractError, TextBuilder};
use quick_xml::XmlVersion;
use quick_xml::events::{BytesStart, Event};

/// The namespace that marks a SpreadsheetML workbook.
const NAMESPACE: &str = "urn:schemas-microsoft-com:office:spreadsheet";

/// Excel's last row and column: a cell placed past them (by `ss:Index` or
/// `ss:MergeAcross`) is a hostile file, which would otherwise stretch its
/// row's line over millions of empty cells.
const MAX_ROWS: u32 = 1 << 20;
const MAX_COLUMNS: u32 = 1 << 14;

/// The XML text of `bytes` when it is a SpreadsheetML workbook.
pub(crate) fn workbook(bytes: &[u8]) -> Option<&str> {
    let text = std::str::from_utf8(bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes)).ok()?;
    let head = &text[..text.floor_char_boundary(4096)];
    (head.trim_start().starts_with("<?xml") && head.contains(NAMESPACE)).then_some(text)
}

/// Reads every worksheet into `b`; returns how many had content.
pub(super) fn read(xml: &str, budget: &mut Budget<'_>, b: &mut TextBuilder) -> Result<usize, ExtractError> {
    if !xml.trim_end().ends_with("Workbook>") {
        // A cut file would read as a workbook with its last rows missing.
        return Err(bad("cut short (it does not end with </Workbook>)"));
    }
    let mut reader = quick_xml::Reader::from_str(xml);
    let mut at = Place::default();
    let mut written = 0;
    loop {
        match reader.read_event().map_err(bad)? {
            Event::Eof => return Ok(written),
            Event::Start(e) => at.open(&e, true),
            Event::Empty(e) => at.open(&e, false),
            Event::Text(t) => at.text(&t.xml_content(XmlVersion::Implicit1_0)),
            Event::GeneralRef(r) => at.text(&reference(&r).unwrap_or_default()),
            Event::End(e) => written += at.close(e.local_name().as_ref(), budget, b)?,
            _ => {}
        }
    }
}

fn bad(why: impl std::fmt::Display) -> ExtractError {
    malformed(format!("XML spreadsheet: {why}"))
}

/// Where the reader is: the worksheet being read into its grid, the
/// 1-based row and column, the cell open (its text, its shape, its
/// column) and the open `Data`'s type.
#[derive(Default)]
struct Place {
    sheet: Option<(String, Grid)>,
    row: u32,
    col: u32,
    cell: Option<(String, Shape, u32)>,
    data: Option<String>,
}

impl Place {
    /// An element opens; `has_content` is false for an empty one (`<Cell/>`).
    fn open(&mut self, e: &BytesStart<'_>, has_content: bool) {
        let index = || attr(e, "Index").and_then(|i| i.parse::<u32>().ok()).filter(|&i| i > 0);
        match e.local_name().as_ref() {
            "Worksheet" => {
                self.sheet = Some((attr(e, "Name").unwrap_or_default(), Grid::new()));
                self.row = 0;
            }
            "Row" => (self.row, self.col) = (index().unwrap_or(self.row + 1), 0),
            "Cell" => {
                self.col = index().unwrap_or(self.col + 1);
                if has_content {
                    self.cell = Some((String::new(), Shape::Text, self.col));
                }
                let across = attr(e, "MergeAcross").and_then(|n| n.parse::<u32>().ok()).unwrap_or(0);
                self.col = self.col.saturating_add(across);
            }
            "Data" => {
                let kind = attr(e, "Type").unwrap_or_default();
                if let Some((_, shape, _)) = self.cell.as_mut() {
                    *shape = if matches!(kind.as_str(), "String" | "Error") { Shape::Text } else { Shape::Value };
                    self.data = has_content.then_some(kind);
                }
            }
            _ => {}
        }
    }

    /// Text inside a `Data` (a rich cell's `Font` runs included).
    fn text(&mut self, text: &str) {
        if let (Some(_), Some((cell, ..))) = (&self.data, self.cell.as_mut()) {
            cell.push_str(text);
        }
    }

    /// An element closes; returns 1 when it was a worksheet with content.
    fn close(&mut self, name: &str, budget: &mut Budget<'_>, b: &mut TextBuilder) -> Result<usize, ExtractError> {
        match name {
            "Data" => {
                if let (Some(kind), Some((text, ..))) = (self.data.take(), self.cell.as_mut()) {
                    *text = rendered(&kind, text);
                }
            }
            "Cell" => {
                let (row, col) = (self.row, self.col);
                if row > MAX_ROWS || col > MAX_COLUMNS {
                    return Err(bad(format!("a cell past Excel's last row or column (row {row}, column {col})")));
                }
                if let (Some((text, shape, at)), Some((_, grid))) = (self.cell.take(), self.sheet.as_mut()) {
                    let render = |out: &mut String| {
                        out.push_str(&text);
                        Some(shape)
                    };
                    grid.push(row.saturating_sub(1), at - 1, render, budget)?;
                }
            }
            "Worksheet" => {
                if let Some((name, grid)) = self.sheet.take() {
                    return Ok(grid.write(&name, true, b, budget)? as usize);
                }
            }
            _ => {}
        }
        Ok(0)
    }
}

/// A `Data`'s text as the other formats render a value of its type.
fn rendered(kind: &str, text: &str) -> String {
    let mut out = String::new();
    match kind {
        "Number" => match text.trim().parse::<f64>() {
            Ok(f) => value::float(&mut out, f).map_or_else(|_| text.to_string(), |()| out),
            Err(_) => text.to_string(),
        },
        // `2024-03-16T14:30:00.000`; a time alone is written on Excel's day 0.
        "DateTime" => {
            let iso = text.trim().strip_suffix(".000").unwrap_or(text.trim());
            match iso.split_once('T') {
                Some(("1899-12-31", time)) => time.to_string(),
                _ => value::iso_datetime(&mut out, iso).map_or_else(|_| text.to_string(), |()| out),
            }
        }
        "Boolean" => (if text.trim() == "1" { "true" } else { "false" }).to_string(),
        _ => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Limits;

    fn sheet_text(xml: &str) -> String {
        let mut b = TextBuilder::new();
        let limits = Limits::default();
        let mut budget = Budget::new(&limits);
        read(xml, &mut budget, &mut b).unwrap();
        b.build("t".into(), ragpipe_core::Kind::Spreadsheet).text
    }

    #[test]
    fn cells_land_at_their_index_and_values_render_as_in_a_workbook() {
        let xml = r#"<?xml version="1.0"?><Workbook xmlns="urn:schemas-microsoft-com:office:spreadsheet"
            xmlns:ss="urn:schemas-microsoft-com:office:spreadsheet"><Worksheet ss:Name="Q1"><Table>
            <Row><Cell><Data ss:Type="String">Day</Data></Cell><Cell><Data ss:Type="String">Units</Data></Cell><Cell><Data ss:Type="String">Open</Data></Cell></Row>
            <Row><Cell ss:MergeAcross="1"><Data ss:Type="DateTime">2024-03-15T00:00:00.000</Data></Cell><Cell><Data ss:Type="Boolean">1</Data></Cell></Row>
            <Row ss:Index="5"><Cell ss:Index="2"><Data ss:Type="Number">3980.50</Data></Cell><Cell><Data ss:Type="String">A &amp; B</Data></Cell></Row>
            </Table></Worksheet></Workbook>"#;
        assert_eq!(sheet_text(xml), "Sheet: Q1\n\nDay | Units | Open\n2024-03-15 |  | true\n | 3980.5 | A & B");
        let mut b = TextBuilder::new();
        let limits = Limits::default();
        let cut = read(&xml[..xml.len() - 40], &mut Budget::new(&limits), &mut b).unwrap_err().to_string();
        assert_eq!(cut, "malformed spreadsheet: XML spreadsheet: cut short (it does not end with </Workbook>)");
        let far = xml.replace(r#"<Cell ss:Index="2">"#, r#"<Cell ss:Index="4000000000">"#);
        let err = read(&far, &mut Budget::new(&limits), &mut b).unwrap_err().to_string();
        assert!(err.ends_with("a cell past Excel's last row or column (row 5, column 4000000000)"), "{err}");
    }
}
