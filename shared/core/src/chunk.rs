//! A chunk: the unit that is embedded, stored and cited.

use crate::Locator;
use serde::{Deserialize, Serialize};
use std::ops::Range;

/// One piece of a document. `text` is what the model embeds (contextual header
/// plus content); `content` is the verbatim slice of the canonical text that is
/// quoted back to users. Never quote `text`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Chunk {
    pub index: u32,
    pub text: String,
    pub content: String,
    /// The heading path, e.g. `["Install", "On Linux"]`.
    pub section: Vec<String>,
    /// Byte range of `content` in the canonical text.
    pub bytes: Range<usize>,
    pub locator: Locator,
    /// Word-pieces of `text` including the model's special tokens.
    pub tokens: u32,
    /// Word-pieces spent on the contextual header.
    pub header_tokens: u32,
}
