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
use quick_xml::events::Event;

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
    let bad = |e: &dyn std::fmt::Display| malformed(format!("XML spreadsheet: {e}"));
    if !xml.trim_end().ends_with("Workbook>") {
        // A cut file would read as a workbook with its last rows missing.
        return Err(bad(&"cut short (it does not end with </Workbook>)"));
    }
    let mut reader = quick_xml::Reader::from_str(xml);
    let mut sheet: Option<(String, Grid)> = None;
    let (mut row, mut col) = (0u32, 0u32);
    let mut cell: Option<(String, Shape, u32)> = None;
    let mut data: Option<String> = None;
    let mut written = 0;
    loop {
        let event = reader.read_event().map_err(|e| bad(&e))?;
        match &event {
            Event::Eof => break,
            Event::Start(e) | Event::Empty(e) => {
                let index = || attr(e, "Index").and_then(|i| i.parse::<u32>().ok()).filter(|&i| i > 0);
                match e.local_name().as_ref() {
                    "Worksheet" => {
                        sheet = Some((attr(e, "Name").unwrap_or_default(), Grid::new()));
                        row = 0;
                    }
                    "Row" => {
                        row = index().unwrap_or(row + 1);
                        col = 0;
                    }
                    "Cell" => {
                        col = index().unwrap_or(col + 1);
                        let across = attr(e, "MergeAcross").and_then(|n| n.parse::<u32>().ok()).unwrap_or(0);
                        if matches!(event, Event::Start(_)) {
                            cell = Some((String::new(), Shape::Text, col));
                        }
                        col = col.saturating_add(across);
                    }
                    "Data" if cell.is_some() => {
                        let kind = attr(e, "Type").unwrap_or_default();
                        if let Some((_, shape, _)) = cell.as_mut() {
                            *shape =
                                if matches!(kind.as_str(), "String" | "Error") { Shape::Text } else { Shape::Value };
                        }
                        data = matches!(event, Event::Start(_)).then(|| kind);
                    }
                    _ => {}
                }
            }
            Event::Text(t) if data.is_some() => push(&mut cell, &t.xml_content(XmlVersion::Implicit1_0)),
            Event::GeneralRef(r) if data.is_some() => push(&mut cell, &reference(r).unwrap_or_default()),
            Event::End(e) => match e.local_name().as_ref() {
                "Data" => {
                    if let (Some(kind), Some((text, ..))) = (data.take(), cell.as_mut()) {
                        *text = rendered(&kind, text);
                    }
                }
                "Cell" => {
                    if row > MAX_ROWS || col > MAX_COLUMNS {
                        return Err(bad(&format!("a cell past Excel's last row or column (row {row}, column {col})")));
                    }
                    if let (Some((text, shape, at)), Some((_, grid))) = (cell.take(), sheet.as_mut()) {
                        let render = |out: &mut String| {
                            out.push_str(&text);
                            Some(shape)
                        };
                        grid.push(row.saturating_sub(1), at - 1, render, budget)?;
                    }
                }
                "Worksheet" => {
                    if let Some((name, grid)) = sheet.take() {
                        written += grid.write(&name, true, b, budget)? as usize;
                    }
                }
                _ => {}
            },
            _ => {}
        }
    }
    Ok(written)
}

fn push(cell: &mut Option<(String, Shape, u32)>, text: &str) {
    if let Some((cell, ..)) = cell.as_mut() {
        cell.push_str(text);
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
