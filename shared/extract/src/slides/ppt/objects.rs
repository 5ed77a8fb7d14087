//! The OLE objects a `.ppt` embeds (charts, mostly). The shape that shows
//! one names it by id (an `ExObjRefAtom` in its client data); the
//! document's object list maps that id to the persist object holding the
//! object's storage (`ExOleObjStg`, zlib-compressed or not), itself an OLE
//! compound file.
//!
//! Read: a chart LibreOffice saved, whose storage keeps the chart's
//! OpenDocument package in `package_stream`; its data is written as a table
//! by the chart reader that reads an odp's charts. An object that cannot
//! be opened (damaged, or of another kind) is left out and the slide read
//! on: the deck's own text does not depend on it.

use super::stream::{Deck, Record, read_stream};
use crate::word::{Writer, malformed};
use crate::{ExtractError, Limits};
use std::collections::HashMap;
use std::io::{Cursor, Read};

/// In a shape's client data: the id of the object the shape shows.
pub(super) const EX_OBJ_REF: u16 = 0x0BC1;
const EX_OBJ_LIST: u16 = 0x0409;
const EX_OLE_EMBED: u16 = 0x0FCC;
const EX_OLE_OBJ_ATOM: u16 = 0x0FC3;
const EX_OLE_OBJ_STG: u16 = 0x1011;
/// The `ExOleObjStg` instance of a zlib-compressed storage.
const COMPRESSED: u16 = 1;

/// The deck's embedded objects: the persist id of each one's storage, by
/// the object's id.
pub(super) fn list(document: Record<'_>) -> HashMap<u32, u32> {
    document
        .children()
        .filter(|r| r.kind == EX_OBJ_LIST)
        .flat_map(|list| list.children())
        .filter(|r| r.kind == EX_OLE_EMBED)
        .filter_map(|embed| {
            let atom = embed.child(EX_OLE_OBJ_ATOM)?;
            Some((atom.u32_at(8)?, atom.u32_at(16)?))
        })
        .collect()
}

/// Writes what the object stored as persist object `persist` holds: a
/// chart's data as a table; nothing for an object of another kind or one
/// that cannot be opened.
pub(super) fn write(deck: &Deck, persist: u32, w: &mut Writer<'_>, limits: &Limits) -> Result<(), ExtractError> {
    let Some(storage) = deck.object(persist, EX_OLE_OBJ_STG) else { return Ok(()) };
    let Some(file) = storage_bytes(storage, limits.max_decompressed_bytes) else { return Ok(()) };
    let package = crate::unpanicked(|| {
        let mut file = cfb::CompoundFile::open(Cursor::new(&file)).ok()?;
        read_stream(&mut file, "package_stream").ok()
    });
    let Ok(Some(package)) = package else { return Ok(()) };
    let Ok(mut zip) = crate::archive::open(&package, limits.max_decompressed_bytes, "embedded object", malformed)
    else {
        return Ok(());
    };
    let Ok(Some(xml)) = crate::archive::text(&mut zip, "content.xml", malformed) else { return Ok(()) };
    // A limit reached is the deck's; a chart that does not parse is left out.
    match crate::chart::read_odf(&xml, "content.xml", w) {
        Err(ExtractError::Limit(why)) => Err(ExtractError::Limit(why)),
        _ => Ok(()),
    }
}

/// The storage's compound file: the record's body, inflated when it is
/// compressed (a 4-byte size, then a zlib stream) up to `max` bytes.
fn storage_bytes(storage: Record<'_>, max: u64) -> Option<Vec<u8>> {
    if storage.instance != COMPRESSED {
        return Some(storage.body.to_vec());
    }
    let declared = u64::from(storage.u32_at(0)?);
    if declared > max {
        return None;
    }
    let mut out = Vec::new();
    flate2::read::ZlibDecoder::new(storage.body.get(4..)?).take(declared).read_to_end(&mut out).ok()?;
    Some(out)
}
