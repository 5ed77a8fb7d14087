//! PDF (pdf-extract), filled in by the extractor issue.

use crate::{ExtractError, Limits};
use ragpipe_core::Document;

pub(crate) fn extract(_name: &str, _bytes: &[u8], _limits: &Limits) -> Result<Document, ExtractError> {
    Err(ExtractError::Unsupported("application/pdf".into()))
}
