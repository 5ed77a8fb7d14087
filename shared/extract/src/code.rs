//! Source code (the extractor issue fills this in with tree-sitter).

/// Extensions read as source code.
pub(crate) fn is_code_extension(ext: &str) -> bool {
    matches!(ext, "rs" | "py" | "go" | "js" | "jsx" | "mjs" | "ts" | "tsx" | "java")
}

use crate::ExtractError;
use ragpipe_core::Document;

/// Filled in by the extractor issue (tree-sitter).
pub(crate) fn extract(_name: &str, _source: &str) -> Result<Document, ExtractError> {
    Err(ExtractError::Unsupported("source code".into()))
}
