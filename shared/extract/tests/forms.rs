//! Other forms of the same document read exactly as the document does:
//! templates (`.dotx`, `.dot`, `.ott`, `.xltx`, `.xlt`, `.ots`, `.potx`,
//! `.otp`) and flat OpenDocument files (`.fodt`, `.fodp`, `.fods`), LibreOffice's
//! exports of the same sources as the word, sheet and slide fixtures.

use ragpipe_core::Kind;
use ragpipe_extract::{detect, extract};
use std::path::PathBuf;

mod common;

fn fixture(path: &str) -> (String, Vec<u8>) {
    let full = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(path);
    let name = full.file_name().unwrap().to_string_lossy().into_owned();
    (name, std::fs::read(&full).unwrap_or_else(|e| panic!("{path}: {e}")))
}

fn read(path: &str) -> (Kind, Vec<(String, String)>) {
    let (name, bytes) = fixture(path);
    let kind = detect(&name, &bytes).unwrap_or_else(|e| panic!("{path}: {e}"));
    let doc = extract(kind, &name, &bytes).unwrap_or_else(|e| panic!("{path}: {e}"));
    (kind, common::blocks(&doc))
}

#[test]
fn a_template_reads_as_the_document_it_makes() {
    for (template, document, kind) in [
        ("templates/policy.dotx", "word/policy.docx", Kind::Word),
        ("templates/policy.dot", "word/policy.doc", Kind::Word),
        ("templates/policy.ott", "word/policy.odt", Kind::Word),
        ("templates/book.xltx", "sheets/book.xlsx", Kind::Spreadsheet),
        ("templates/book.xlt", "sheets/book.xls", Kind::Spreadsheet),
        ("templates/book.ots", "sheets/book.ods", Kind::Spreadsheet),
        ("templates/review.potx", "slides/review-lo.pptx", Kind::Presentation),
        ("templates/review.otp", "slides/review.odp", Kind::Presentation),
    ] {
        let (template_kind, blocks) = read(template);
        assert_eq!(template_kind, kind, "{template}");
        assert!(blocks.len() > 3, "{template}: {blocks:?}");
        assert_eq!(blocks, read(document).1, "{template} against {document}");
    }
}

#[test]
fn a_template_without_its_extension_is_known_by_its_content() {
    // Renamed or stored without a name: the zip's parts (OOXML) or its
    // `mimetype` entry (ODF, `…-template`) tell what it is.
    for (path, kind) in [
        ("templates/policy.dotx", Kind::Word),
        ("templates/policy.ott", Kind::Word),
        ("templates/book.ots", Kind::Spreadsheet),
        ("templates/review.otp", Kind::Presentation),
    ] {
        let (_, bytes) = fixture(path);
        assert_eq!(detect("upload", &bytes), Ok(kind), "{path}");
    }
}

#[test]
fn a_flat_opendocument_file_reads_as_its_package() {
    for (flat, package, kind) in [
        ("flat-odf/policy.fodt", "word/policy.odt", Kind::Word),
        ("word/policy.fodt", "word/policy.odt", Kind::Word),
        ("flat-odf/review.fodp", "slides/review.odp", Kind::Presentation),
        // (sheets/book.fods, the hand-written source of book.ods, leaves a
        // formula's #DIV/0! uncached; LibreOffice wrote it into book.ods.)
        ("flat-odf/book.fods", "sheets/book.ods", Kind::Spreadsheet),
    ] {
        let (flat_kind, blocks) = read(flat);
        assert_eq!(flat_kind, kind, "{flat}");
        assert!(blocks.len() > 3, "{flat}: {blocks:?}");
        assert_eq!(blocks, read(package).1, "{flat} against {package}");
        let (name, bytes) = fixture(flat);
        let flat_doc = extract(kind, &name, &bytes).unwrap();
        let (name, bytes) = fixture(package);
        let package_doc = extract(kind, &name, &bytes).unwrap();
        assert_eq!(flat_doc.title, package_doc.title, "{flat}");
        assert_eq!(flat_doc.text, package_doc.text, "{flat}");
        assert_eq!(flat_doc.tables, package_doc.tables, "{flat}");
    }
}

#[test]
fn xml_that_is_not_opendocument_or_is_cut_short_is_refused_with_the_reason() {
    let svg = b"<?xml version=\"1.0\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\"><text>hi</text></svg>";
    let err = extract(detect("drawing.fodt", svg).unwrap(), "drawing.fodt", svg).unwrap_err();
    assert!(err.to_string().contains("not a docx, odt, fodt, rtf or doc file"), "{err}");
    // Cut short, a flat file fails naming itself, not a part of a package.
    let (name, bytes) = fixture("flat-odf/policy.fodt");
    let err = extract(Kind::Word, &name, &bytes[..bytes.len() / 2]).unwrap_err();
    assert!(err.to_string().starts_with("malformed document: flat XML: "), "{err}");
    let mut flipped = bytes.clone();
    flipped[bytes.len() / 2] = 0xFF;
    let err = extract(Kind::Word, &name, &flipped).unwrap_err();
    assert!(err.to_string().starts_with("malformed document: flat XML: not UTF-8 text"), "{err}");
    // A flat spreadsheet cut short, and a flat text named as one.
    let (name, bytes) = fixture("flat-odf/book.fods");
    let cut = bytes[..bytes.len() / 2].iter().rposition(|&b| b == b'>').unwrap() + 1;
    let err = extract(Kind::Spreadsheet, &name, &bytes[..cut]).unwrap_err();
    assert_eq!(err.to_string(), "malformed spreadsheet: flat XML: cut short (it does not end with </office:document>)");
    let (_, text) = fixture("flat-odf/policy.fodt");
    let err = extract(detect("policy.fods", &text).unwrap(), "policy.fods", &text).unwrap_err();
    assert_eq!(err.to_string(), "malformed spreadsheet: flat XML: not an OpenDocument spreadsheet");
}
