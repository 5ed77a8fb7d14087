//! Files exported "for Excel" or "for Word" as text under the binary
//! format's extension (see `fixtures/exports/make.sh`): an HTML table or
//! tab-separated text named `.xls`, an HTML page or a web archive named
//! `.doc`, each read as what it holds, with a warning that says so; the
//! binary formats and other mismatches are as before.

mod common;

use ragpipe_core::Kind;
use ragpipe_extract::{detect, extract};
use std::path::PathBuf;

fn fixture(path: &str) -> Vec<u8> {
    std::fs::read(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(path)).unwrap()
}

/// Detects and extracts `bytes` under `name`: the kind, the document's rows
/// or paragraphs as `common::blocks` shows them, and its warnings.
fn read(name: &str, bytes: &[u8]) -> (Kind, Vec<(String, String)>, Vec<String>) {
    let kind = detect(name, bytes).unwrap();
    let doc = extract(kind, name, bytes).unwrap();
    (kind, common::blocks(&doc), doc.warnings)
}

#[test]
fn a_web_page_or_tab_separated_text_named_xls_is_read_as_its_table() {
    let invoice = "INV/2024/0042 | 2024-03-05 | Leeds Depot | Barrier motor replacement | 3980.5";
    for (file, kind, holds) in
        [("orders.xls", Kind::Html, "a web page"), ("orders-tabs.xls", Kind::Csv, "delimited text")]
    {
        let (read_as, blocks, warnings) = read(&format!("finance/{file}"), &fixture(&format!("exports/{file}")));
        assert_eq!(read_as, kind, "{file}");
        assert_eq!(blocks[0], ("row 1 header".to_string(), "Invoice | Date | Customer | Item | Total".to_string()));
        assert_eq!(blocks[2], ("row 3".to_string(), invoice.to_string()), "{file}");
        assert_eq!(blocks.len(), 6, "{file}: {blocks:?}");
        let said = format!("read as {}: this .xls file holds {holds}, not a spreadsheet file", kind.as_str());
        assert_eq!(warnings, [said]);
    }

    // Under the Excel name a first row of words is the header even over
    // words, as in a sheet (a page needs a number under it), and a first
    // row of numbers is data.
    // Calc's export is such a page: named .html, its header comes by HTML's
    // rule for tables without `<th>` (words over a row holding a number).
    let as_page = extract(Kind::Html, "orders.html", &fixture("exports/orders.xls")).unwrap();
    assert_eq!(common::blocks(&as_page)[0].0, "row 1 header");
    let words = b"<table><tr><td>Site</td><td>Contact</td></tr><tr><td>Leeds</td><td>Ana</td></tr></table>";
    assert_eq!(read("sites.xls", words).1[0].0, "row 1 header");
    assert_eq!(common::blocks(&extract(Kind::Html, "sites.html", words).unwrap())[0].0, "row 1");
    let numbers = b"<table><tr><td>2024</td><td>1,240.00</td></tr><tr><td>2025</td><td>980</td></tr></table>";
    let (_, blocks, _) = read("totals.xls", numbers);
    assert_eq!(blocks[0], ("row 1".to_string(), "2024 | 1,240.00".to_string()));
}

#[test]
fn a_web_page_or_web_archive_named_doc_is_read_as_the_page() {
    let (kind, blocks, warnings) = read("minutes.doc", &fixture("exports/minutes.doc"));
    assert_eq!(kind, Kind::Html);
    assert!(
        blocks.iter().any(|(_, text)| text.starts_with("The barrier motor at the Leeds depot was replaced")),
        "{blocks:?}"
    );
    assert_eq!(warnings, ["read as html: this .doc file holds a web page, not a word file"]);

    // Confluence's "Export to Word": a web archive named .doc reads as the
    // same page it is as .mhtml.
    let archive = fixture("web-archive/parking.mhtml");
    let as_doc = extract(detect("space/parking.doc", &archive).unwrap(), "space/parking.doc", &archive).unwrap();
    let as_mhtml = extract(Kind::Html, "space/parking.mhtml", &archive).unwrap();
    assert_eq!((as_doc.title.as_str(), &as_doc.text), (as_mhtml.title.as_str(), &as_mhtml.text));
    assert_eq!(as_doc.warnings, ["read as html: this .doc file holds a web page, not a word file"]);
}

#[test]
fn office_binaries_are_read_as_before_and_other_mismatches_still_fail() {
    let book = fixture("sheets/book.xls");
    assert_eq!(detect("book.xls", &book), Ok(Kind::Spreadsheet));
    assert!(extract(Kind::Spreadsheet, "book.xls", &book).unwrap().warnings.is_empty());
    // A page named .pdf (a failed download) is not an export: refused.
    let page = fixture("exports/orders.xls");
    let err = detect("orders.pdf", &page).unwrap_err().to_string();
    assert_eq!(err, "content does not match extension: .pdf file holds text/html, not pdf");
    // Nor is a binary file of another kind named .doc.
    let png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x06\0\0\0\x1f\x15\xc4\x89";
    assert!(
        detect("scan.doc", png)
            .unwrap_err()
            .to_string()
            .starts_with("content does not match extension: .doc file holds image/png")
    );
}
