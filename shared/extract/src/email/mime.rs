//! E-mail messages (`.eml`, RFC 5322 with MIME), parsed by `mail-parser`.
//!
//! Canonical text: the envelope a reader sees first (`From:`, `To:`, `Cc:`,
//! `Date:`, one line each, as one block), then the message's text bodies
//! (the `text/plain` alternative where there is one, else the HTML one read
//! as text by `mail-parser`), paragraphs at blank lines and lines kept,
//! then one line naming the attachments. The subject is the document's
//! title, so every chunk's header carries it. Attachments are named, not
//! read: a document sent as an attachment is indexed where it is stored.
//!
//! Charsets and transfer encodings (quoted-printable, base64, RFC 2047
//! encoded words) are decoded; `mail-parser` bounds the nesting of
//! messages inside messages.

use crate::{ExtractError, TextBuilder, fallback_title};
use mail_parser::{Address, MessageParser, MimeHeaders};
use ragpipe_core::{BlockKind, Document, Kind};

pub(crate) fn extract(name: &str, bytes: &[u8]) -> Result<Document, ExtractError> {
    let message = MessageParser::default()
        .parse(bytes)
        .filter(|m| !m.headers().is_empty())
        .ok_or_else(|| ExtractError::Malformed("malformed e-mail: no message headers".into()))?;
    let mut b = TextBuilder::new();
    let envelope = [
        ("From", message.from().map(addresses)),
        ("To", message.to().map(addresses)),
        ("Cc", message.cc().map(addresses)),
        ("Date", message.date().map(|d| d.to_rfc3339())),
    ];
    for (field, value) in envelope.iter().filter_map(|(f, v)| v.as_ref().filter(|v| !v.is_empty()).map(|v| (f, v))) {
        if b.is_open() {
            b.line_break();
        } else {
            b.start(BlockKind::Paragraph);
        }
        b.inline(&format!("{field}: {value}"));
    }
    b.finish();
    for i in 0..message.text_body_count() {
        if let Some(body) = message.body_text(i) {
            paragraphs(&mut b, &body);
        }
    }
    let attached: Vec<String> =
        message.attachments().map(|a| a.attachment_name().unwrap_or("unnamed attachment").to_string()).collect();
    if !attached.is_empty() {
        b.start(BlockKind::Paragraph);
        b.inline(&format!("Attachments: {}", attached.join(", ")));
    }
    let title = message
        .subject()
        .map(|s| s.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| fallback_title(name));
    Ok(b.build(title, Kind::Email))
}

/// `Name <address>` for each address, comma-separated.
fn addresses(list: &Address<'_>) -> String {
    let one = |a: &mail_parser::Addr<'_>| match (a.name.as_deref(), a.address.as_deref()) {
        (Some(name), Some(address)) => format!("{name} <{address}>"),
        (Some(only), None) | (None, Some(only)) => only.to_string(),
        (None, None) => String::new(),
    };
    list.iter().map(one).filter(|s| !s.is_empty()).collect::<Vec<_>>().join(", ")
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
