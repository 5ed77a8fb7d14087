//! E-mail made by real tools: MIME messages and a mailbox by Python's
//! `email` and `mailbox` packages (`fixtures/email/make.py`), Outlook
//! messages by Aspose.Email (`make_msg.py`). The envelope, the plain-text
//! body rather than its HTML twin, an HTML-only body read as text,
//! attachments named, the subject as title, one section per message of a
//! mailbox, and a clear reason for a file that is no message.

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

#[test]
fn a_message_reads_as_its_envelope_body_and_attachments() {
    let doc = fixture("outage.eml");
    assert_eq!(doc.kind, Kind::Email);
    assert_eq!(doc.title, "Post-mortem: checkout outage \u{2014} 28 April", "the decoded subject");
    let got = common::blocks(&doc);
    assert_eq!(
        got,
        common::owned(&[
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
            // The attached CSV, read as the table it is.
            ("h1", "Attachment: timeline.csv"),
            ("row 1 header", "time | event"),
            ("row 2", "09:12 | certificate expired"),
            ("row 3", "09:59 | service restored"),
        ])
    );
}

#[test]
fn an_html_only_message_is_read_as_text() {
    let doc = fixture("digest.eml");
    assert_eq!(doc.title, "Weekly platform digest");
    let envelope = "From: Platform bot <bot@example.com>\nTo: engineering@example.com\nDate: 2026-05-01T08:00:00Z";
    assert!(doc.text.starts_with(envelope), "{}", doc.text);
    // Read by the HTML extractor: heading, paragraph and list items stay apart.
    let body = [
        "This week",
        "The staging cluster moves to the new region on Tuesday.",
        "Freeze deploys from 10:00 to 12:00.",
        "Rotate your API tokens.",
    ];
    ends_with_html_blocks(&doc, &body);
}

/// The document ends with `blocks`, an HTML body read block by block,
/// and no markup is left in it.
fn ends_with_html_blocks(doc: &Document, blocks: &[&str]) {
    assert!(doc.text.ends_with(&blocks.join("\n\n")), "{}", doc.text);
    assert!(!doc.text.contains("<li>") && !doc.text.contains("<p>"), "no markup: {}", doc.text);
}

#[test]
fn a_file_that_is_no_message_fails_with_its_reason() {
    let err = open("notes.eml", b"\n\njust some words, no headers\n").unwrap_err();
    assert_eq!(err.to_string(), "malformed e-mail: no message headers");
}

#[test]
fn a_mailbox_reads_each_message_under_its_subject() {
    let doc = fixture("ops-list.mbox");
    assert_eq!(doc.kind, Kind::Email);
    assert_eq!(doc.title, "ops-list", "a mailbox is named by its file");
    let got = common::blocks(&doc);
    assert_eq!(
        got,
        common::owned(&[
            ("h1", "Disk alerts on the build farm"),
            ("p", "From: Li Wei <li@example.com>\nTo: ops-list@example.com\nDate: 2026-05-04T09:00:00Z"),
            (
                "p",
                "Since Friday the build agents page us when /var/cache passes 80 %.\nIs anyone cleaning the sccache \
                 directory?"
            ),
            ("h1", "Re: Disk alerts on the build farm"),
            ("p", "From: Ana Garc\u{ed}a <ana@example.com>\nTo: ops-list@example.com\nDate: 2026-05-04T10:30:00Z"),
            (
                "p",
                "The nightly job that prunes sccache was disabled during the migration.\nFrom now on it runs at 02:00 \
                 and keeps seven days of objects."
            ),
            ("h1", "Message 3"),
            ("p", "From: Platform bot <bot@example.com>\nTo: ops-list@example.com\nDate: 2026-05-05T02:05:00Z"),
            ("p", "Pruned 41 GiB from /var/cache/sccache on 12 agents."),
            ("h1", "Message 4"),
            ("p", "No headers here, only words about the backup rota."),
        ])
    );
}

#[test]
fn a_mailbox_of_one_message_reads_as_that_message() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/email/outage.eml");
    let mut bytes = b"From ana@example.com Tue Apr 28 16:05:00 2026\n".to_vec();
    bytes.extend(std::fs::read(path).unwrap());
    let boxed = open("outage.mbox", &bytes).unwrap();
    let plain = fixture("outage.eml");
    assert_eq!((boxed.title.as_str(), boxed.text.as_str()), (plain.title.as_str(), plain.text.as_str()));
}

#[test]
fn an_outlook_message_reads_as_its_envelope_body_and_attachments() {
    let doc = fixture("access-review.msg");
    assert_eq!(doc.kind, Kind::Email);
    // Aspose.Email, unlicensed, marks what it writes (fixtures/email/make_msg.py).
    assert_eq!(doc.title, "Quarterly access review(Aspose.Email Evaluation)");
    let got = common::blocks(&doc);
    assert_eq!(
        got[0].1,
        "From: Ana Garc\u{ed}a <ana@example.com>\nTo: Managers <managers@example.com>\nCc: Security team \
         <security@example.com>\nDate: 2026-06-01T09:30:00Z"
    );
    let body: Vec<&str> = got[1..].iter().map(|(_, t)| t.as_str()).collect();
    let ours = [
        "Hello managers,",
        "Every manager must confirm who on their team still needs access to the\npayments database by 15 June. \
         Accounts nobody confirms are disabled on 16 June.",
        "The list of accounts is attached.",
        "Attachments: accounts.csv",
        "Attachment: accounts.csv",
        "account | owner\nsvc-payments | ana",
    ];
    // The notice Aspose writes first runs into "Hello managers," as one block.
    assert!(doc.text.ends_with(&ours.join("\n\n")), "{body:#?}");
}

#[test]
fn an_outlook_message_with_only_html_is_read_as_text() {
    let doc = fixture("release-notes.msg");
    assert!(doc.title.starts_with("Release 4.2 notes"), "{}", doc.title);
    assert!(
        doc.text.starts_with("From: Release bot <releases@example.com>\nTo: engineering@example.com"),
        "{}",
        doc.text
    );
    // The HTML body, which holds more words than the plain one Aspose wrote.
    let body = [
        "Release 4.2",
        "Exports to Parquet are now streamed, so a 10 GB export no longer needs 10 GB of memory.",
        "Fixed: time zones in scheduled reports.",
    ];
    ends_with_html_blocks(&doc, &body);
}

#[test]
fn a_compound_file_that_is_no_outlook_message_fails_with_its_reason() {
    let word = std::fs::read(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/word/policy.doc")).unwrap();
    let err = open("policy.msg", &word).unwrap_err().to_string();
    assert!(err.starts_with("malformed Outlook message: ") || err.contains("application/msword"), "{err}");
    let msg = std::fs::read(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/email/access-review.msg"))
        .unwrap();
    let err = open("truncated.msg", &msg[..msg.len() / 2]).unwrap_err().to_string();
    assert!(err.starts_with("malformed Outlook message: "), "{err}");
}

#[test]
fn an_html_body_nested_past_the_limit_is_still_read() {
    let n = 100_000;
    let html = format!("<html><body>{}deep words{}</body></html>", "<div>".repeat(n), "</div>".repeat(n));
    let message = format!("From: a@example.com\r\nSubject: nested\r\nContent-Type: text/html\r\n\r\n{html}\r\n");
    let doc = open("nested.eml", message.as_bytes()).unwrap();
    assert!(doc.text.ends_with("deep words"), "{}", &doc.text[..doc.text.len().min(200)]);
}

#[test]
fn attached_documents_are_read_into_the_message_and_the_rest_named() {
    let doc = fixture("handover.eml");
    assert_eq!(doc.title, "Field station handover");
    let names = "Attachments: handbook.pdf, rota.pdf, message \"Weekly platform digest\"";
    let (head, attached) = doc.text.split_once("\n\nAttachment: handbook.pdf\n\n").expect("the PDF is read");
    let (handbook, forwarded) = attached
        .split_once("\n\nAttachment: message \"Weekly platform digest\"\n\n")
        .expect("the forwarded message is read, after the PDF");
    assert!(head.ends_with(names), "{head}");
    let pdf = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pdf/handbook.pdf");
    let alone = open("handbook.pdf", &std::fs::read(pdf).unwrap()).unwrap();
    // As it reads alone, but for the form feed between pages: in the message
    // its blocks are on no page, so a blank line parts them.
    assert_eq!(handbook, alone.text.replace('\u{c}', "\n\n"), "the attachment reads as it does alone");
    // Its headings sit one level under the attachment's, on no page.
    let headings = doc.headings();
    for (text, level) in &headings {
        assert_eq!(*level == 1, text.starts_with("Attachment: "), "{headings:?}");
    }
    assert!(doc.blocks.iter().all(|b| b.page.is_none()));
    // The encrypted PDF costs only itself, and says so.
    assert_eq!(doc.warnings, ["attachment rota.pdf not read: encrypted PDF"]);
    // The forwarded message reads as it does alone.
    assert_eq!(forwarded, fixture("digest.eml").text);
}

#[test]
fn attachments_are_left_out_when_the_limits_say_so() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/email/handover.eml");
    let bytes = std::fs::read(path).unwrap();
    let limits = Limits { read_attachments: false, ..Limits::default() };
    let doc = extract_with(Kind::Email, "handover.eml", &bytes, None, &limits).unwrap();
    assert!(doc.text.ends_with("Attachments: handbook.pdf, rota.pdf, message \"Weekly platform digest\""));
    assert!(doc.warnings.is_empty());
}

#[test]
fn an_outlook_message_is_detected_without_its_extension() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    for name in ["access-review.msg", "release-notes.msg"] {
        let bytes = std::fs::read(dir.join("email").join(name)).unwrap();
        assert_eq!(detect("no-extension", &bytes), Ok(Kind::Email), "{name}");
    }
    // Another compound file is not taken for one: a Word 97 file is read as
    // what it is.
    let word = std::fs::read(dir.join("word/policy.doc")).unwrap();
    assert_eq!(detect("no-extension", &word), Ok(Kind::Word));
}
