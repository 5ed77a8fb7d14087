//! Web archives (`.mht`, `.mhtml`): a saved page and what it loads, as one
//! MIME message (Chrome's and Edge's "Save as… single file", Word's
//! "Single File Web Page", Internet Explorer's "Web Archive"). The page's
//! HTML part is read as any HTML page; its pictures, styles and scripts,
//! the other parts, are left out.

use crate::{ExtractError, Limits, html};
use mail_parser::{MessageParser, MimeHeaders};
use ragpipe_core::Document;

/// Whether `name` is a web archive's.
pub(crate) fn is_named(name: &str) -> bool {
    matches!(crate::extension(name).as_str(), "mht" | "mhtml")
}

pub(crate) fn extract(name: &str, bytes: &[u8], limits: &Limits) -> Result<Document, ExtractError> {
    let malformed = |why: &str| ExtractError::Malformed(format!("malformed web archive: {why}"));
    let message = MessageParser::default()
        .parse(bytes)
        .filter(|m| m.content_type().is_some())
        .ok_or_else(|| malformed("not a MIME message"))?;
    // The page is the first HTML part (a frame's own page comes later).
    let page = message
        .parts
        .iter()
        .find(|p| p.content_type().is_some_and(|t| t.c_type == "text" && t.subtype() == Some("html")))
        .and_then(|p| p.text_contents())
        .ok_or_else(|| malformed("no HTML page in it"))?;
    html::check_nesting(page, limits.max_nesting)?;
    let mut doc = html::extract(name, page);
    if let Some(subject) = message.subject().filter(|_| doc.title == crate::fallback_title(name)) {
        doc.title = subject.to_string();
    }
    Ok(doc)
}
