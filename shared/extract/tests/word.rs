//! Word-processor documents (docx and odt) made by LibreOffice from one
//! source (see `fixtures/word/make.sh`): the same text, headings, list
//! items and table rows from both formats, deleted text and footnotes left
//! out, and precise reasons for broken and oversized files.

mod common;

use ragpipe_core::{Document, Kind};
use ragpipe_extract::{ExtractError, Limits, detect, extract_with};
use std::path::PathBuf;

fn fixture(name: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/word").join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn open_with(name: &str, bytes: &[u8], limits: &Limits) -> Result<Document, ExtractError> {
    extract_with(detect(name, bytes)?, name, bytes, None, limits)
}

fn open(name: &str) -> Document {
    open_with(name, &fixture(name), &Limits::default()).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Every block as `(kind, text)`, the way a chunker sees the document.
fn blocks(doc: &Document) -> Vec<(String, &str)> {
    doc.blocks.iter().map(|b| (common::short_kind(&b.kind), doc.slice(b))).collect()
}

#[test]
fn docx_and_odt_read_as_the_same_document() {
    let expected = [
        ("h1", "Remote Work Policy"),
        ("h1", "Eligibility"),
        ("p", "Remote work requires a signed VPN agreement and the approval of your team lead."),
        ("p", "Contractors & interns are not eligible.\nAsk HR for exceptions."),
        ("h2", "Equipment"),
        ("li", "A company laptop with full-disk encryption."),
        ("li", "A headset for calls longer than one hour."),
        ("h1", "Allowances"),
        ("row 1 header", "Region | Monthly allowance | Code"),
        ("row 2", "Spain | 40 EUR | RW-ES-01"),
        ("row 3", "Germany | 45 EUR | RW-DE-01"),
        // A text box reads once (not again from the drawing's fallback
        // copy), before the paragraph it is anchored in.
        ("p", "Call the IT desk at extension 4242."),
        ("p", "Allowances are paid with the salary of the following month."),
    ];
    for name in ["policy.docx", "policy.odt"] {
        let doc = open(name);
        assert_eq!(doc.kind, Kind::Word, "{name}");
        assert_eq!(doc.title, "Remote Work Policy", "{name}: the title in the file's properties");
        let got = blocks(&doc);
        let got: Vec<(&str, &str)> = got.iter().map(|(k, t)| (k.as_str(), *t)).collect();
        assert_eq!(got, expected, "{name}");
        assert!(!doc.text.contains("never work remotely"), "{name}: deleted text of a tracked change");
        assert!(!doc.text.contains("security handbook"), "{name}: a footnote is not in the flow");
    }
}

#[test]
fn broken_and_oversized_files_fail_with_their_reason() {
    let reason = |name: &str, limits: &Limits| open_with(name, &fixture(name), limits).unwrap_err().to_string();
    let defaults = Limits::default();
    assert_eq!(reason("truncated.docx", &defaults), "malformed document: invalid zip archive (truncated or corrupt)");
    assert_eq!(
        reason("junk.docx", &defaults),
        "malformed document: zip archive holds no word/document.xml or content.xml"
    );
    let small = Limits { max_decompressed_bytes: 16 << 20, ..defaults };
    let bomb = reason("bomb.docx", &small);
    assert!(
        bomb.starts_with("limit exceeded: document inflates to 671") && bomb.ends_with("(max_decompressed_bytes)"),
        "{bomb}"
    );
    let few_rows = Limits { max_rows: 2, ..defaults };
    assert_eq!(reason("policy.odt", &few_rows), "limit exceeded: more than 2 table rows (max_rows)");
    // A docx that is a workbook inside is refused by its content.
    let sheet =
        std::fs::read(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/sheets/book.xlsx")).unwrap();
    let err = open_with("report.docx", &sheet, &defaults).unwrap_err().to_string();
    assert!(err.starts_with("content does not match extension: .docx file holds application/vnd.openxmlformats-officedocument.spreadsheetml"), "{err}");
}

#[test]
fn a_legacy_binary_word_file_is_refused_with_what_to_do() {
    for name in ["policy.doc", "no-extension"] {
        let err = detect(name, &fixture("policy.doc")).unwrap_err().to_string();
        assert_eq!(err, "unsupported type: application/msword (a legacy binary Word file: save it as .docx)", "{name}");
    }
}

#[test]
fn detected_by_content_without_an_extension() {
    for name in ["policy.docx", "policy.odt"] {
        assert_eq!(detect("no-extension", &fixture(name)), Ok(Kind::Word), "{name}");
    }
}
