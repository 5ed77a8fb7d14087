//! The records of a `.ppt`'s `PowerPoint Document` stream ([MS-PPT]: an
//! 8-byte header of version and instance, type and length; a container's
//! body is more records) and where the last save left each object: the
//! `Current User` stream points at the newest user edit, and the chain of
//! edits' persist directories maps each object to its place in the stream
//! (an incremental save appends, so older copies of a slide may still be in
//! the file, unreferenced).

use crate::ExtractError;
use crate::word::malformed;
use std::collections::{HashMap, HashSet};
use std::io::{Cursor, Read};

pub(super) const DOCUMENT: u16 = 0x03E8;
pub(super) const SLIDE: u16 = 0x03EE;
pub(super) const NOTES: u16 = 0x03F0;
const NOTES_ATOM: u16 = 0x03F1;
pub(super) const SLIDE_PERSIST: u16 = 0x03F3;
pub(super) const TEXT_HEADER: u16 = 0x0F9F;
pub(super) const TEXT_CHARS: u16 = 0x0FA0;
pub(super) const TEXT_BYTES: u16 = 0x0FA8;
pub(super) const SLIDE_LIST: u16 = 0x0FF0;
const USER_EDIT: u16 = 0x0FF5;
const CURRENT_USER: u16 = 0x0FF6;
const PERSIST_DIRECTORY: u16 = 0x1772;

/// The `headerToken` of an encrypted deck's current user atom.
const ENCRYPTED: u32 = 0xF3D1_C4DF;
/// User edits followed back from the newest (a file saved this often is
/// hostile, or its chain loops).
const MAX_EDITS: usize = 4096;

/// One record: its type, instance, whether it is a container, and its body.
#[derive(Clone, Copy)]
pub(super) struct Record<'a> {
    pub(super) kind: u16,
    pub(super) instance: u16,
    pub(super) container: bool,
    pub(super) body: &'a [u8],
}

impl<'a> Record<'a> {
    /// The record whose header starts at `at`, if all of it lies in `bytes`.
    pub(super) fn at(bytes: &'a [u8], at: usize) -> Option<Record<'a>> {
        let head = bytes.get(at..at.checked_add(8)?)?;
        let version_instance = u16::from_le_bytes([head[0], head[1]]);
        let len = u32::from_le_bytes([head[4], head[5], head[6], head[7]]) as usize;
        Some(Record {
            kind: u16::from_le_bytes([head[2], head[3]]),
            instance: version_instance >> 4,
            container: version_instance & 0xF == 0xF,
            body: bytes.get(at + 8..(at + 8).checked_add(len)?)?,
        })
    }

    /// The records a container holds, in order, up to the first that does
    /// not fit in it (none for an atom).
    pub(super) fn children(self) -> impl Iterator<Item = Record<'a>> {
        let body: &[u8] = if self.container { self.body } else { &[] };
        let mut at = 0;
        std::iter::from_fn(move || {
            let child = Record::at(body, at)?;
            at += 8 + child.body.len();
            Some(child)
        })
    }

    pub(super) fn child(self, kind: u16) -> Option<Record<'a>> {
        self.children().find(|r| r.kind == kind)
    }

    pub(super) fn u32_at(self, at: usize) -> Option<u32> {
        Some(u32::from_le_bytes(self.body.get(at..at.checked_add(4)?)?.try_into().ok()?))
    }

    pub(super) fn i32_at(self, at: usize) -> Option<i32> {
        self.u32_at(at).map(|v| v as i32)
    }

    /// The characters of a text atom: UTF-16LE, or one byte per character
    /// (the low byte of its UTF-16 code unit).
    pub(super) fn text(self) -> Option<String> {
        match self.kind {
            TEXT_CHARS => Some(crate::text::utf16le(self.body)),
            TEXT_BYTES => Some(crate::text::latin1(self.body)),
            _ => None,
        }
    }
}

/// The `PowerPoint Document` stream and where its objects are.
pub(super) struct Deck {
    stream: Vec<u8>,
    /// Persist id → offset of the object's record, as of the last save.
    directory: HashMap<u32, usize>,
    /// The title in the file's summary properties.
    pub(super) title: Option<String>,
    /// The persist id of the document container.
    document: u32,
}

impl Deck {
    pub(super) fn open(bytes: &[u8]) -> Result<Deck, ExtractError> {
        let mut file = cfb::CompoundFile::open(Cursor::new(bytes))
            .map_err(|e| malformed(&format!("not a PowerPoint file (OLE compound file: {e})")))?;
        if file.is_stream("EncryptedSummary") {
            return Err(ExtractError::Malformed("encrypted PowerPoint file".into()));
        }
        if !file.is_stream("PowerPoint Document") {
            return Err(if file.is_stream("PP40") || file.is_stream("Header") {
                ExtractError::Unsupported("PowerPoint 95 or older file (save it as .pptx)".into())
            } else {
                malformed("the compound file holds no PowerPoint Document stream")
            });
        }
        let mut read = |name: &str| read_stream(&mut file, name).map_err(|e| malformed(&format!("{name} stream: {e}")));
        // A deck without summary properties (or with broken ones) has no title there.
        let title = read("\u{5}SummaryInformation").ok().and_then(|set| super::properties::title(&set));
        let stream = read("PowerPoint Document")?;
        let user = read("Current User")?;
        let current = Record::at(&user, 0)
            .filter(|r| r.kind == CURRENT_USER)
            .ok_or_else(|| malformed("no current user record (the deck's last save is unknown)"))?;
        if current.u32_at(4) == Some(ENCRYPTED) {
            return Err(ExtractError::Malformed("encrypted PowerPoint file".into()));
        }
        let newest = current.u32_at(8).ok_or_else(|| malformed("current user record cut short"))? as usize;
        let (directory, document) = directory(&stream, newest)?;
        Ok(Deck { stream, directory, document, title })
    }

    /// The record of persist object `id` if it is of `kind`.
    pub(super) fn object(&self, id: u32, kind: u16) -> Option<Record<'_>> {
        Record::at(&self.stream, *self.directory.get(&id)?).filter(|r| r.kind == kind)
    }

    pub(super) fn document(&self) -> Result<Record<'_>, ExtractError> {
        self.object(self.document, DOCUMENT).ok_or_else(|| malformed("the document record is missing"))
    }

    /// Each notes slide's persist id, by the id of the slide it belongs to.
    pub(super) fn notes_of_slides(&self, document: Record<'_>) -> HashMap<u32, u32> {
        slide_list(document, 2)
            .iter()
            .filter_map(|entry| {
                let atom = self.object(entry.persist, NOTES)?.child(NOTES_ATOM)?;
                Some((atom.u32_at(0)?, entry.persist))
            })
            .collect()
    }
}

/// One stream of a compound file, whole.
pub(super) fn read_stream<F: Read + std::io::Seek>(
    file: &mut cfb::CompoundFile<F>,
    name: &str,
) -> std::io::Result<Vec<u8>> {
    let mut out = Vec::new();
    file.open_stream(name)?.read_to_end(&mut out)?;
    Ok(out)
}

/// The persist directory as of the edit at `newest`, merged back through
/// the older edits (a newer entry wins), and the document's persist id.
fn directory(stream: &[u8], newest: usize) -> Result<(HashMap<u32, usize>, u32), ExtractError> {
    let mut directory = HashMap::new();
    let mut document = None;
    let mut seen = HashSet::new();
    let mut at = newest;
    while seen.insert(at) && seen.len() <= MAX_EDITS {
        let Some(edit) = Record::at(stream, at).filter(|r| r.kind == USER_EDIT) else {
            if document.is_none() {
                return Err(malformed(&format!("no user edit at offset {at} (the stream is cut or damaged)")));
            }
            break;
        };
        document = document.or(edit.u32_at(16));
        let listed = edit.u32_at(12).and_then(|o| Record::at(stream, o as usize));
        if let Some(list) = listed.filter(|r| r.kind == PERSIST_DIRECTORY) {
            persist_entries(list, &mut directory);
        }
        match edit.u32_at(8) {
            Some(older) if older != 0 => at = older as usize,
            _ => break,
        }
    }
    Ok((directory, document.ok_or_else(|| malformed("the user edit names no document"))?))
}

/// Adds a persist directory atom's entries (a run of ids from a start id,
/// each with its offset) that no newer edit gave.
fn persist_entries(list: Record<'_>, directory: &mut HashMap<u32, usize>) {
    let mut at = 0;
    while let Some(head) = list.u32_at(at) {
        let (first, count) = (head & 0x000F_FFFF, head >> 20);
        for i in 0..count {
            let Some(offset) = list.u32_at(at + 4 + 4 * i as usize) else { return };
            directory.entry(first + i).or_insert(offset as usize);
        }
        at += 4 + 4 * count as usize;
    }
}

/// A slide (or notes slide) as the document's list names it.
pub(super) struct Entry {
    pub(super) persist: u32,
    pub(super) slide_id: u32,
    /// The outline texts stored with it, by text type.
    pub(super) texts: Vec<(u32, String)>,
}

/// The document's slide list of `instance` (0: slides, 2: notes).
pub(super) fn slide_list(document: Record<'_>, instance: u16) -> Vec<Entry> {
    let mut entries: Vec<Entry> = Vec::new();
    let Some(list) = document.children().find(|r| r.kind == SLIDE_LIST && r.instance == instance) else {
        return entries;
    };
    let mut kind = 4;
    for r in list.children() {
        match r.kind {
            SLIDE_PERSIST => entries.push(Entry {
                persist: r.u32_at(0).unwrap_or_default(),
                slide_id: r.u32_at(12).unwrap_or_default(),
                texts: Vec::new(),
            }),
            TEXT_HEADER => kind = r.u32_at(0).unwrap_or(4),
            TEXT_CHARS | TEXT_BYTES => {
                if let (Some(entry), Some(text)) = (entries.last_mut(), r.text()) {
                    entry.texts.push((kind, text));
                }
            }
            _ => {}
        }
    }
    entries
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// A record's bytes: header, then body.
    pub(in crate::slides::ppt) fn record(kind: u16, instance: u16, body: &[u8]) -> Vec<u8> {
        // Containers: the document, slide and list, and the drawing's group,
        // shape, text box and client data (0xF003, 0xF004, 0xF00D, 0xF011).
        let container = [DOCUMENT, SLIDE, SLIDE_LIST, 0xF003, 0xF004, 0xF00D, 0xF011].contains(&kind);
        let version = if container { 0xF } else { 0 };
        let mut out = Vec::new();
        out.extend((instance << 4 | version).to_le_bytes());
        out.extend(kind.to_le_bytes());
        out.extend((body.len() as u32).to_le_bytes());
        out.extend(body);
        out
    }

    pub(in crate::slides::ppt) fn words(s: &str) -> Vec<u8> {
        s.encode_utf16().flat_map(u16::to_le_bytes).collect()
    }

    pub(in crate::slides::ppt) fn u32s(values: &[u32]) -> Vec<u8> {
        values.iter().flat_map(|v| v.to_le_bytes()).collect()
    }

    #[test]
    fn the_newest_edit_decides_where_an_object_is() {
        // An incremental save appends a new copy of object 2 and an edit
        // whose directory points at it, chained to the first save's.
        let mut stream = vec![0u8; 16];
        let first_directory = stream.len();
        stream.extend(record(PERSIST_DIRECTORY, 0, &u32s(&[1 | 2 << 20, 100, 200])));
        let first_edit = stream.len();
        stream.extend(record(USER_EDIT, 0, &u32s(&[0, 0, 0, first_directory as u32, 1, 3, 0])));
        let second_directory = stream.len();
        stream.extend(record(PERSIST_DIRECTORY, 0, &u32s(&[2 | 1 << 20, 300])));
        let second_edit = stream.len();
        stream.extend(record(USER_EDIT, 0, &u32s(&[0, 0, first_edit as u32, second_directory as u32, 1, 3, 0])));
        let (objects, document) = directory(&stream, second_edit).unwrap();
        assert_eq!(document, 1);
        assert_eq!((objects[&1], objects[&2]), (100, 300));
        // An edit chain that loops ends; an offset past the stream fails.
        let mut looped = stream.clone();
        let at = second_edit + 8 + 8;
        looped[at..at + 4].copy_from_slice(&(second_edit as u32).to_le_bytes());
        assert_eq!(directory(&looped, second_edit).unwrap().0[&2], 300);
        assert!(directory(&stream, stream.len() + 40).unwrap_err().to_string().contains("no user edit at offset"));
    }
}
