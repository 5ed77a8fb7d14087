//! E-mail: MIME messages (`.eml`), mailboxes of them (`.mbox`) and Outlook
//! messages (`.msg`), read into the same canonical text.
//!
//! A message reads as the envelope a reader sees first (`From:`, `To:`,
//! `Cc:`, `Date:`, one line each, as one block; the date in RFC 3339), then
//! its text body (the plain-text one where there is one, else the HTML one
//! read as text by the HTML extractor, blocks kept apart), paragraphs at blank lines and lines kept, then one line
//! naming the attachments. Its subject is the document's title, so every
//! chunk's header carries it.
//!
//! Attachments that are documents follow, each read by its own extractor
//! under an `Attachment: NAME` heading (its headings below that, its tables
//! with their header rows), so a policy sent as a PDF is found in the
//! message that carries it, cited by `#char` in the message's text. A
//! forwarded message is read the same way (its own attachments named
//! only); pictures and recordings are named only. An
//! attachment that cannot be read is named in the document's warning; one
//! that takes the whole extraction down (a parser crash, the memory or time
//! limit) makes the extractor read the message again without attachments,
//! so the message itself is never lost to one.

mod mime;
mod outlook;

use crate::embedded::Carried;
use crate::{ExtractError, Limits, TextBuilder, fallback_title};
use ragpipe_core::{BlockKind, Document, Kind};

pub(crate) fn extract(name: &str, bytes: &[u8], limits: &Limits) -> Result<Document, ExtractError> {
    if bytes.starts_with(crate::COMPOUND_FILE) {
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
    attachments: Vec<Attached>,
}

/// A file attached to a message: its name and its bytes, and whether it
/// is a message forwarded inside this one (read as e-mail whatever it is
/// named).
struct Attached {
    name: String,
    bytes: Vec<u8>,
    message: bool,
}

impl Mail {
    /// Adds an envelope line, unless its value is blank.
    fn field(&mut self, name: &'static str, value: String) {
        if !value.trim().is_empty() {
            self.envelope.push((name, value));
        }
    }

    /// The document of a message alone in its file: titled by its subject,
    /// else by the file's name.
    fn into_document(self, name: &str, limits: &Limits) -> Document {
        let mut b = TextBuilder::new();
        let warnings = self.write(&mut b, limits, 0);
        let title = self.subject.unwrap_or_else(|| fallback_title(name));
        Document { warnings, ..b.build(title, Kind::Email) }
    }

    /// The envelope block, the bodies' paragraphs, the attachments' line and
    /// then, each under an `Attachment: NAME` heading one level below the
    /// message's own (`depth`: 0 for a message alone, 1 in a mailbox), the
    /// attachments that are documents. Returns why attachments of kinds
    /// ragpipe reads could not be read.
    fn write(&self, b: &mut TextBuilder, limits: &Limits, depth: u8) -> Vec<String> {
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
        if self.attachments.is_empty() {
            return Vec::new();
        }
        let names: Vec<&str> = self.attachments.iter().map(|a| a.name.as_str()).collect();
        b.start(BlockKind::Paragraph);
        b.inline(&format!("Attachments: {}", names.join(", ")));
        b.finish();
        if !limits.read_attachments {
            return Vec::new();
        }
        let warnings = self.attachments.iter().filter_map(|file| read_attachment(b, file, limits, depth)).collect();
        crate::embedded::capped(warnings, "attachments")
    }
}

/// Reads an attachment that is a document (text, a PDF with a text layer,
/// an office file, a sheet, code, a forwarded message) into the message
/// ([`crate::embedded::read`]); returns why it could not be.
fn read_attachment(b: &mut TextBuilder, file: &Attached, limits: &Limits, depth: u8) -> Option<String> {
    let heading = format!("Attachment: {}", file.name);
    let kind = file.message.then_some(Kind::Email);
    match crate::embedded::read(b, &heading, &file.name, &file.bytes, kind, limits, depth) {
        Carried::Read | Carried::Named => None,
        Carried::Failed(why) => Some(format!("attachment {} not read: {why}", file.name)),
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
