//! A page saved by Chromium as one MHTML file (see
//! `fixtures/web-archive/make.py`): read as its HTML page, navigation and
//! footer left out as for any page, the picture and stylesheet beside it
//! not read; and the reasons a broken one fails with.

mod common;

use ragpipe_core::Kind;
use ragpipe_extract::{detect, extract};
use std::path::PathBuf;

fn fixture() -> Vec<u8> {
    std::fs::read(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/web-archive/parking.mhtml")).unwrap()
}

#[test]
fn a_saved_page_reads_as_its_html() {
    let bytes = fixture();
    let kind = detect("intranet/parking.mhtml", &bytes).unwrap();
    assert_eq!(kind, Kind::Html);
    let doc = extract(kind, "intranet/parking.mhtml", &bytes).unwrap();
    assert_eq!(doc.title, "Visitor parking at the Leeds depot");
    let got = common::blocks(&doc);
    assert_eq!(
        got,
        common::owned(&[
            ("h1", "Visitor parking at the Leeds depot"),
            (
                "p",
                "Visitors park in bays 40\u{2013}52 beside the gatehouse. Reception issues a paper permit that goes on the dashboard."
            ),
            ("h2", "Opening hours"),
            ("row 1 header", "Day | Barrier opens | Barrier closes"),
            ("row 2", "Monday to Friday | 07:00 | 19:30"),
            ("row 3", "Saturday | 08:00 | 13:00"),
            ("p", "On Sundays the barrier stays down; call security on extension 4410 to be let in."),
        ])
    );
    assert!(!doc.text.contains("=3D") && !doc.text.contains("iVBOR"), "decoded, and only the page: {}", doc.text);
}

#[test]
fn a_broken_web_archive_fails_with_a_reason() {
    let err = |bytes: &[u8]| extract(Kind::Html, "page.mht", bytes).unwrap_err().to_string();
    assert_eq!(err(b"\x01\x02 not a message"), "malformed web archive: not a MIME message");
    let no_page = b"From: <Saved by Blink>\r\nMIME-Version: 1.0\r\nContent-Type: image/png\r\n\r\nabc";
    assert_eq!(err(no_page), "malformed web archive: no HTML page in it");
}
