//! LibreOffice's flat spreadsheet (`.fods`, "Flat XML"): the whole package
//! as one `office:document` element, read by calamine as the package it
//! stands for.

use super::malformed;
use crate::ExtractError;
use quick_xml::events::Event;
use std::io::{Cursor, Write};

/// The manifest calamine looks in (for encrypted entries) of the package a
/// flat ods is read as: one plain `content.xml`.
const MANIFEST: &str = concat!(
    r#"<?xml version="1.0" encoding="UTF-8"?><manifest:manifest"#,
    r#" xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2">"#,
    r#"<manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.spreadsheet"/>"#,
    r#"<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/>"#,
    "</manifest:manifest>"
);

/// A flat ods (its XML text, known by [`crate::package::flat_odf`]) as the
/// package calamine reads: its `office:document` is what
/// `content.xml` holds in the zipped form (calamine looks for the tables and
/// their styles, whatever the root), stored beside the `mimetype` entry and
/// a manifest. The copies cost the file's size twice, which
/// `max_file_bytes` bounds.
pub(super) fn package(xml: &str) -> Result<Vec<u8>, ExtractError> {
    use zip::write::SimpleFileOptions;
    if !xml[..xml.floor_char_boundary(4096)].contains("opendocument.spreadsheet") {
        return Err(malformed("flat XML: not an OpenDocument spreadsheet"));
    }
    if !xml.trim_end().ends_with("</office:document>") {
        // calamine stops at the end of what it has without a word: a cut
        // file would read as a workbook with its last rows missing.
        return Err(malformed("flat XML: cut short (it does not end with </office:document>)"));
    }
    let content = unindented(xml)?;
    let stored = SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    let mut zip = zip::ZipWriter::new(Cursor::new(Vec::with_capacity(content.len() + 1024)));
    let mut put = |name: &str, data: &[u8]| -> zip::result::ZipResult<()> {
        zip.start_file(name, stored)?;
        zip.write_all(data).map_err(Into::into)
    };
    put("mimetype", b"application/vnd.oasis.opendocument.spreadsheet")
        .and_then(|()| put("META-INF/manifest.xml", MANIFEST.as_bytes()))
        .and_then(|()| put("content.xml", &content))
        .map_err(|e| malformed(format!("flat XML: {e}")))?;
    Ok(zip.finish().map_err(|e| malformed(format!("flat XML: {e}")))?.into_inner())
}

/// LibreOffice indents a flat file, and calamine reads a row's cells only
/// when nothing stands between them, not even a line break, as in the
/// zipped form. Whitespace between elements goes; text inside paragraphs
/// (a cell's words) is kept as written.
fn unindented(xml: &str) -> Result<Vec<u8>, ExtractError> {
    let paragraph = |name: &str| matches!(name, "text:p" | "text:h");
    let mut reader = quick_xml::Reader::from_str(xml);
    let mut writer = quick_xml::Writer::new(Vec::with_capacity(xml.len()));
    let mut in_paragraph = 0usize;
    let bad = |e: &dyn std::fmt::Display| malformed(format!("flat XML: {e}"));
    loop {
        let event = reader.read_event().map_err(|e| bad(&e))?;
        match &event {
            Event::Eof => break,
            Event::Start(e) if paragraph(e.name().into_inner()) => in_paragraph += 1,
            Event::End(e) if paragraph(e.name().into_inner()) => in_paragraph = in_paragraph.saturating_sub(1),
            Event::Text(t) if in_paragraph == 0 && t.as_ref().chars().all(|c| c.is_ascii_whitespace()) => continue,
            _ => {}
        }
        writer.write_event(event).map_err(|e| bad(&e))?;
    }
    Ok(writer.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indentation_between_elements_goes_and_a_cells_spaces_stay() {
        let xml = "<table:table-row>\n  <table:table-cell>\n   <text:p> two  words </text:p>\n  </table:table-cell>\n</table:table-row>";
        let out = String::from_utf8(unindented(xml).unwrap()).unwrap();
        assert_eq!(
            out,
            "<table:table-row><table:table-cell><text:p> two  words </text:p></table:table-cell></table:table-row>"
        );
        let bad = unindented("<a><b></a>").unwrap_err().to_string();
        assert!(bad.starts_with("malformed spreadsheet: flat XML: "), "{bad}");
    }
}
