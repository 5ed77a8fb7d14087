//! MIME messages (`.eml`, RFC 5322) and mailboxes (`.mbox`: messages one
//! after another, each opened by a `From ` line), parsed by `mail-parser`.
//!
//! Charsets and transfer encodings (quoted-printable, base64, RFC 2047
//! encoded words) are decoded; `mail-parser` bounds the nesting of messages
//! inside messages. Of a message's alternatives the `text/plain` one is
//! read, else the HTML one.
//!
//! A mailbox of several messages is one document titled by its file name;
//! each message is a section opened by a level-1 heading, its subject (or
//! `Message N` without one), so no chunk spans two messages and each names
//! its message. A message of a mailbox that does not parse as one keeps its
//! words, as text: one bad message costs neither the others nor its own
//! words. A mailbox of one message reads as that message.

use super::{Attached, Mail, html_text, paragraphs, person, subject};
use crate::{ExtractError, Limits, TextBuilder, fallback_title};
use mail_parser::mailbox::mbox::MessageIterator;
use mail_parser::{Address, Message, MessageParser, MimeHeaders, PartType};
use ragpipe_core::{BlockKind, Document, Kind};

pub(super) fn extract(name: &str, bytes: &[u8], limits: &Limits) -> Result<Document, ExtractError> {
    let start = bytes.trim_ascii_start();
    if start.starts_with(b"From ") {
        let messages: Vec<Vec<u8>> = MessageIterator::new(start)
            .map(|m| m.map(|m| m.unwrap_contents()))
            .collect::<Result<_, _>>()
            .map_err(|e| ExtractError::Malformed(format!("malformed mailbox: {e}")))?;
        if messages.len() > 1 {
            return Ok(mailbox(name, &messages, limits));
        }
        if let Some(only) = messages.first() {
            return one_message(name, only, limits);
        }
    }
    one_message(name, bytes, limits)
}

/// A file holding one message: its subject is the title.
fn one_message(name: &str, bytes: &[u8], limits: &Limits) -> Result<Document, ExtractError> {
    let mail =
        parse(bytes, limits).ok_or_else(|| ExtractError::Malformed("malformed e-mail: no message headers".into()))?;
    Ok(mail.into_document(name, limits))
}

/// A mailbox of several messages, each a section headed by its subject.
fn mailbox(name: &str, messages: &[Vec<u8>], limits: &Limits) -> Document {
    let mut b = TextBuilder::new();
    let mut warnings = Vec::new();
    for (i, bytes) in messages.iter().enumerate() {
        let mail = parse(bytes, limits);
        b.start(BlockKind::Heading { level: 1 });
        b.inline(&mail.as_ref().and_then(|m| m.subject.clone()).unwrap_or_else(|| format!("Message {}", i + 1)));
        b.finish();
        match mail {
            Some(mail) => warnings.extend(mail.write(&mut b, limits, 1)),
            None => paragraphs(&mut b, &String::from_utf8_lossy(bytes)),
        }
    }
    Document { warnings, ..b.build(fallback_title(name), Kind::Email) }
}

/// The message in `bytes`; `None` when it has no headers.
fn parse(bytes: &[u8], limits: &Limits) -> Option<Mail> {
    let message = MessageParser::default().parse(bytes).filter(|m| !m.headers().is_empty())?;
    Some(mail(&message, limits))
}

fn mail(message: &Message<'_>, limits: &Limits) -> Mail {
    let mut mail = Mail { subject: message.subject().and_then(subject), ..Mail::default() };
    for (field, list) in [("From", message.from()), ("To", message.to()), ("Cc", message.cc())] {
        mail.field(field, list.map(addresses).unwrap_or_default());
    }
    mail.field("Date", message.date().map(|d| d.to_rfc3339()).unwrap_or_default());
    mail.bodies = message
        .text_body
        .iter()
        .filter_map(|&id| match &message.part(id)?.body {
            PartType::Text(text) => Some(text.to_string()),
            PartType::Html(html) => Some(html_text(html, limits)),
            _ => None,
        })
        .collect();
    mail.attachments = message
        .attachments()
        .map(|a| match &a.body {
            // A forwarded message without a file name is named by its subject.
            PartType::Message(inner) => Attached {
                name: a.attachment_name().map(str::to_string).unwrap_or_else(|| {
                    format!("message \"{}\"", inner.subject().and_then(subject).unwrap_or_default())
                }),
                bytes: a.contents().to_vec(),
                message: true,
            },
            _ => Attached {
                name: a.attachment_name().unwrap_or("unnamed attachment").to_string(),
                bytes: a.contents().to_vec(),
                message: false,
            },
        })
        .collect();
    mail
}

/// Each address of a header, comma-separated.
fn addresses(list: &Address<'_>) -> String {
    let one = |a: &mail_parser::Addr<'_>| person(a.name.as_deref().unwrap_or(""), a.address.as_deref().unwrap_or(""));
    list.iter().map(one).filter(|s| !s.is_empty()).collect::<Vec<_>>().join(", ")
}
