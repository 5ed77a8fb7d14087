//! E-mail messages made by Python's `email` package (see
//! `fixtures/email/make.py`): the envelope, the plain-text body rather than
//! its HTML twin, an HTML-only body read as text, attachments named, the
//! subject as title, and a clear reason for a file that is no message.

mod common;

use ragpipe_core::{Document, Kind};
use ragpipe_extract::{ExtractError, Limits, detect, extract_with};
use std::path::PathBuf;

fn open(name: &str, bytes: &[u8]) -> Result<Document, ExtractError> {
    extract_with(detect(name, bytes)?, name, bytes, None, &Limits::default())
}

fn fixture(name: &str) -> Document {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/email").join(name);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    open(name, &bytes).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn blocks(doc: &Document) -> Vec<(String, &str)> {
    doc.blocks.iter().map(|b| (common::short_kind(&b.kind), doc.slice(b))).collect()
}

#[test]
fn a_message_reads_as_its_envelope_body_and_attachments() {
    let doc = fixture("outage.eml");
    assert_eq!(doc.kind, Kind::Email);
    assert_eq!(doc.title, "Post-mortem: checkout outage \u{2014} 28 April", "the decoded subject");
    let got = blocks(&doc);
    let got: Vec<(&str, &str)> = got.iter().map(|(k, t)| (k.as_str(), *t)).collect();
    assert_eq!(
        got,
        [
            (
                "p",
                "From: Ana Garc\u{ed}a <ana@example.com>\nTo: Platform team <platform@example.com>, On-call \
                 <oncall@example.com>\nCc: Support desk <support@example.com>\nDate: 2026-04-28T16:05:00+02:00"
            ),
            ("p", "Hi all,"),
            (
                "p",
                "The checkout service was down for 47 minutes on 28 April because the payment\ngateway's TLS \
                 certificate expired at 09:12 and nobody was paged."
            ),
            (
                "p",
                "Actions: certificates are now renewed 30 days before expiry, and an alert\nfires 14 days before. \
                 Jos\u{e9} owns the renewal runbook."
            ),
            ("p", "\u{2014} Ana"),
            ("p", "Attachments: timeline.csv"),
        ]
    );
}

#[test]
fn an_html_only_message_is_read_as_text() {
    let doc = fixture("digest.eml");
    assert_eq!(doc.title, "Weekly platform digest");
    let envelope = "From: Platform bot <bot@example.com>\nTo: engineering@example.com\nDate: 2026-05-01T08:00:00Z";
    assert!(doc.text.starts_with(envelope), "{}", doc.text);
    for words in ["This week", "The staging cluster moves to the new region on Tuesday.", "Rotate your API tokens."] {
        assert!(doc.text.contains(words), "{words}: {}", doc.text);
    }
    assert!(!doc.text.contains("<li>") && !doc.text.contains("<p>"), "no markup: {}", doc.text);
}

#[test]
fn a_file_that_is_no_message_fails_with_its_reason() {
    let err = open("notes.eml", b"\n\njust some words, no headers\n").unwrap_err();
    assert_eq!(err.to_string(), "malformed e-mail: no message headers");
}
