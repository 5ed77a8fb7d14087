//! Outlook messages (`.msg`: MAPI properties in an OLE compound file, as
//! Outlook saves a message), parsed by `msg_parser`.
//!
//! The envelope comes from the sender, the To and Cc recipients and the
//! delivery time (else the submit time, else the transport headers'
//! `Date:`); the body is the plain-text property, unless the HTML one (or
//! the HTML Outlook keeps inside its compressed RTF), read as text, holds
//! more words: Outlook keeps the two in step, but not every program that
//! writes `.msg` files does. Attachments are named by their long file
//! name, else their short or display name, and read as for MIME messages;
//! an embedded Outlook message is named only.

use super::{Attached, Mail, html_text, person, subject};
use crate::{ExtractError, Limits};
use mail_parser::DateTime;
use msg_parser::{Outlook, Person};
use ragpipe_core::Document;

pub(super) fn extract(name: &str, bytes: &[u8], limits: &Limits) -> Result<Document, ExtractError> {
    let mail = crate::unpanicked(|| Outlook::from_slice(bytes).map(|message| mail(&message, limits)))
        .map_err(|why| malformed(&format!("the message parser stopped on it: {why}")))?
        .map_err(|e| malformed(&e.to_string()))?;
    if mail.subject.is_none() && mail.envelope.is_empty() && mail.bodies.is_empty() {
        return Err(malformed("no message properties"));
    }
    Ok(mail.into_document(name, limits))
}

fn mail(message: &Outlook, limits: &Limits) -> Mail {
    let mut mail = Mail { subject: subject(&message.subject), ..Mail::default() };
    mail.field("From", person(&message.sender.name, &message.sender.email));
    mail.field("To", people(&message.to));
    mail.field("Cc", people(&message.cc));
    mail.field("Date", date(message).unwrap_or_default());
    let html = html(&message.html).or_else(|| message.html_from_rtf());
    let words = |s: &str| s.split_whitespace().count();
    let body = match html.map(|h| html_text(&h, limits)) {
        Some(text) if words(&text) > words(&message.body) => text,
        _ => message.body.clone(),
    };
    mail.bodies = Some(body).filter(|b| !b.trim().is_empty()).into_iter().collect();
    mail.attachments = message
        .attachments
        .iter()
        .map(|a| {
            let names = [&a.long_file_name, &a.file_name, &a.display_name];
            let name = names.into_iter().find(|n| !n.trim().is_empty()).map_or("unnamed attachment", |n| n.trim());
            // An embedded Outlook message has no bytes of its own: named only.
            Attached { name: name.to_string(), bytes: a.payload_bytes.clone(), message: false }
        })
        .collect();
    mail
}

/// The HTML body property as text. It is binary by the specification
/// (`PR_HTML`, 0x1013 0102), which `msg_parser` hands over hex-encoded; some
/// writers store it as a string instead.
fn html(property: &str) -> Option<String> {
    let property = property.trim();
    if property.is_empty() {
        return None;
    }
    match hex::decode(property) {
        Ok(bytes) => Some(String::from_utf8_lossy(&bytes).into_owned()),
        Err(_) => Some(property.to_string()),
    }
}

fn malformed(why: &str) -> ExtractError {
    ExtractError::Malformed(format!("malformed Outlook message: {why}"))
}

/// When the message was delivered, else submitted, else the `Date:` of its
/// transport headers (a draft has only those), in RFC 3339.
fn date(message: &Outlook) -> Option<String> {
    let property = [&message.message_delivery_time, &message.client_submit_time].into_iter().find(|d| !d.is_empty());
    property.cloned().or_else(|| DateTime::parse_rfc822(message.headers.date.trim()).map(|d| d.to_rfc3339()))
}

/// Each recipient, comma-separated.
fn people(list: &[Person]) -> String {
    list.iter().map(|p| person(&p.name, &p.email)).filter(|s| !s.is_empty()).collect::<Vec<_>>().join(", ")
}
