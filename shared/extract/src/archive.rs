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

/// A link inside the archive (an OOXML relationship's target, an EPUB
/// manifest's href) as an entry's path: absolute (`/ppt/…`) or relative to
/// the folder of the part it is in (`../notesSlides/…`), never above the root.
pub(crate) fn resolve(dir: &str, target: &str) -> String {
    let mut parts: Vec<&str> = match target.strip_prefix('/') {
        Some(_) => Vec::new(),
        None => dir.split('/').filter(|p| !p.is_empty()).collect(),
    };
    for segment in target.trim_start_matches('/').split('/') {
        match segment {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            s => parts.push(s),
        }
    }
    parts.join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_resolve_against_their_part_s_folder() {
        assert_eq!(resolve("ppt", "slides/slide1.xml"), "ppt/slides/slide1.xml");
        assert_eq!(resolve("ppt/slides", "../notesSlides/notesSlide2.xml"), "ppt/notesSlides/notesSlide2.xml");
        assert_eq!(resolve("ppt/slides", "/ppt/notesSlides/n.xml"), "ppt/notesSlides/n.xml");
        assert_eq!(resolve("ppt", "../../../etc/passwd"), "etc/passwd", "never above the archive's root");
    }
}
