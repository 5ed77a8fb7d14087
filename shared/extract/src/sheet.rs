//! Spreadsheets (calamine) and CSV/TSV (csv), filled in by the extractor issue.

use crate::{ExtractError, Limits};
use ragpipe_core::Document;

pub(crate) fn extract(_name: &str, _bytes: &[u8], _limits: &Limits) -> Result<Document, ExtractError> {
    Err(ExtractError::Unsupported("spreadsheet".into()))
}

pub(crate) fn extract_csv(_name: &str, _bytes: &[u8], _limits: &Limits) -> Result<Document, ExtractError> {
    Err(ExtractError::Unsupported("text/csv".into()))
}
