//! Zip containers (OOXML and ODF files) opened with their declared size
//! checked before anything is inflated: the `zip` reader refuses to inflate
//! an entry past its declared size, so the declared sum bounds what a
//! reader of the archive can inflate.

use crate::ExtractError;
use std::io::{Cursor, Read};

pub(crate) type Zip<'b> = zip::ZipArchive<Cursor<&'b [u8]>>;

/// Opens `bytes` as a zip archive whose entries inflate to at most
/// `max_inflated` bytes in all. `what` names the file in reasons ("workbook",
/// "document"); `malformed` makes the format's malformed-file error.
pub(crate) fn open<'b>(
    bytes: &'b [u8],
    max_inflated: u64,
    what: &str,
    malformed: fn(&str) -> ExtractError,
) -> Result<Zip<'b>, ExtractError> {
    let corrupt = "invalid zip archive (truncated or corrupt)";
    let mut zip = zip::ZipArchive::new(Cursor::new(bytes)).map_err(|_| malformed(corrupt))?;
    let mut inflated: u64 = 0;
    for i in 0..zip.len() {
        let entry = zip.by_index_raw(i).map_err(|_| malformed(corrupt))?;
        inflated = inflated.saturating_add(entry.size());
    }
    if inflated > max_inflated {
        return Err(ExtractError::Limit(format!(
            "{what} inflates to {inflated} bytes, more than {max_inflated} (max_decompressed_bytes)"
        )));
    }
    Ok(zip)
}

/// One entry of the archive as UTF-8 text (`None` when there is no such
/// entry); its size is already bounded by [`open`].
pub(crate) fn text(
    zip: &mut Zip<'_>,
    name: &str,
    malformed: fn(&str) -> ExtractError,
) -> Result<Option<String>, ExtractError> {
    let Ok(mut entry) = zip.by_name(name) else { return Ok(None) };
    let mut out = String::new();
    entry.read_to_string(&mut out).map_err(|e| malformed(&format!("{name}: {e}")))?;
    Ok(Some(out))
}
