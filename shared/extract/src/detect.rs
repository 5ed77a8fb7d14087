//! Deciding what a file is. This formats are text, so the extension
//! decides; binary formats arrive with content sniffing in the extractor issue.

use crate::ExtractError;
use ragpipe_core::Kind;

/// Detects the kind of a file from its name.
pub fn detect(name: &str, _bytes: &[u8]) -> Result<Kind, ExtractError> {
    let ext = name.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase()).unwrap_or_default();
    match ext.as_str() {
        "html" | "htm" | "xhtml" => Ok(Kind::Html),
        "md" | "markdown" | "mdown" => Ok(Kind::Markdown),
        "txt" | "text" | "rst" | "log" => Ok(Kind::Text),
        "" => Err(ExtractError::Unsupported("file without extension".into())),
        other => Err(ExtractError::Unsupported(format!(".{other}"))),
    }
}
