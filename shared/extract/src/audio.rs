//! Audio (symphonia) with WebVTT/SubRip sidecar transcripts, filled in by the
//! extractor issue.

use crate::{ExtractError, Limits, Sidecar};
use ragpipe_core::Document;

pub(crate) fn extract(
    _name: &str,
    _bytes: &[u8],
    _sidecar: Option<Sidecar<'_>>,
    _limits: &Limits,
) -> Result<Document, ExtractError> {
    Err(ExtractError::Unsupported("audio".into()))
}
