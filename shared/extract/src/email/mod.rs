//! E-mail: MIME messages (`.eml`), mailboxes of them (`.mbox`) and Outlook
//! messages (`.msg`), read into the same canonical text.
//!
//! A message reads as the envelope a reader sees first (`From:`, `To:`,
//! `Cc:`, `Date:`, one line each, as one block; the date in RFC 3339), then
//! its text body (the plain-text one where there is one, else the HTML one
//! read as text by the HTML extractor, blocks kept apart), paragraphs at blank lines and lines kept, then one line
//! naming the attachments. Its subject is the document's title, so every
//! chunk's header carries it. Attachments are named, not read: a document
//! sent as an attachment is indexed where it is stored.

mod mime;
mod outlook;

use crate::{ExtractError, Limits, TextBuilder};
use ragpipe_core::{BlockKind, Document};

/// The first bytes of an OLE compound file, which an Outlook `.msg` is.
const COMPOUND_FILE: &[u8] = &[0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1];

pub(crate) fn extract(name: &str, bytes: &[u8], limits: &Limits) -> Result<Document, ExtractError> {
    if bytes.starts_with(COMPOUND_FILE) {
        outlook::extract(name, bytes, limits)
    } else {
        mime::extract(name, bytes, limits)
    }
}

/// What a reader sees of one message, whichever format held it.
#[derive(Default)]
struct Mail {
    subject: Option<String>,
    /// `From`, `To`, `Cc`, `Date`, each when present and not blank.
    envelope: Vec<(&'static str, String)>,
    bodies: Vec<String>,
    attachments: Vec<String>,
}

impl Mail {
    /// Adds an envelope line, unless its value is blank.
    fn field(&mut self, name: &'static str, value: String) {
        if !value.trim().is_empty() {
            self.envelope.push((name, value));
        }
    }

    /// The envelope block, the bodies' paragraphs and the attachments' line.
    fn write(&self, b: &mut TextBuilder) {
        for (i, (field, value)) in self.envelope.iter().enumerate() {
            if i == 0 {
                b.start(BlockKind::Paragraph);
            } else {
                b.line_break();
            }
            b.inline(&format!("{field}: {value}"));
        }
        b.finish();
        for body in &self.bodies {
            paragraphs(b, body);
        }
        if !self.attachments.is_empty() {
            b.start(BlockKind::Paragraph);
            b.inline(&format!("Attachments: {}", self.attachments.join(", ")));
            b.finish();
        }
    }
}

/// A subject as a title: whitespace collapsed; `None` when blank.
fn subject(raw: &str) -> Option<String> {
    let subject = raw.split_whitespace().collect::<Vec<_>>().join(" ");
    (!subject.is_empty()).then_some(subject)
}

/// `Name <address>`, or whichever of the two there is.
fn person(name: &str, address: &str) -> String {
    match (name.trim(), address.trim()) {
        ("", only) | (only, "") => only.to_string(),
        (name, address) if name == address => address.to_string(),
        (name, address) => format!("{name} <{address}>"),
    }
}

/// An HTML body's text, read by the HTML extractor so that headings,
/// paragraphs and list items stay apart; past `max_nesting`, where that
/// reader would recurse too deep, by `mail-parser`'s flat one.
fn html_text(html: &str, limits: &Limits) -> String {
    match crate::html::check_nesting(html, limits.max_nesting) {
        Ok(()) => crate::html::extract("", html).text,
        Err(_) => mail_parser::decoders::html::html_to_text(html),
    }
}

/// A body's paragraphs (runs of non-blank lines), each line kept.
fn paragraphs(b: &mut TextBuilder, body: &str) {
    let body = body.replace("\r\n", "\n");
    for para in body.split("\n\n").map(str::trim).filter(|p| !p.is_empty()) {
        b.start(BlockKind::Paragraph);
        for (i, line) in para.lines().filter(|l| !l.trim().is_empty()).enumerate() {
            if i > 0 {
                b.line_break();
            }
            b.inline(line);
        }
    }
    b.finish();
}
