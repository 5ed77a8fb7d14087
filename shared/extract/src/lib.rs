//! Extractors: bytes in, one canonical [`Document`] out. Each format keeps the
//! structure the chunkers need (headings, paragraphs, code) as blocks whose
//! byte ranges are recorded while the canonical text is written, so locators
//! are exact by construction. Extraction is synchronous and pure.

mod builder;
mod detect;
mod html;
mod markdown;
mod text;

use ragpipe_core::{Document, Kind};

pub use builder::TextBuilder;
pub use detect::detect;

/// Bumped whenever any extractor's output for the same bytes can change.
pub const EXTRACTOR_VERSION: &str = "1";

/// Why a document could not be extracted. The messages are shown to admins
/// as the failure reason, so they say exactly what is wrong with the file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExtractError {
    #[error("empty file")]
    Empty,
    #[error("unsupported type: {0}")]
    Unsupported(String),
    #[error("not a text file: {0}")]
    NotText(String),
    #[error("no text content")]
    NoText,
    #[error("file too large: {size} bytes exceeds the limit of {limit} bytes")]
    TooLarge { size: u64, limit: u64 },
}

/// Extracts a document of a known kind. `name` is the file name, used as the
/// title when the document has none of its own.
pub fn extract(kind: Kind, name: &str, bytes: &[u8]) -> Result<Document, ExtractError> {
    if bytes.is_empty() {
        return Err(ExtractError::Empty);
    }
    let doc = match kind {
        Kind::Html => html::extract(name, &text::decode(bytes)?),
        Kind::Markdown => markdown::extract(name, &text::decode(bytes)?),
        Kind::Text => text::extract(name, &text::decode(bytes)?),
        other => return Err(ExtractError::Unsupported(other.as_str().to_string())),
    };
    if doc.blocks.iter().all(|b| matches!(b.kind, ragpipe_core::BlockKind::Heading { .. })) {
        return Err(ExtractError::NoText);
    }
    Ok(doc)
}

/// The title to use when a document has none: the file name without extension.
pub(crate) fn fallback_title(name: &str) -> String {
    let base = name.rsplit('/').next().unwrap_or(name);
    base.rsplit_once('.').map_or(base, |(stem, _)| stem).to_string()
}
