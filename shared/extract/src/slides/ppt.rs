//! Legacy PowerPoint 97-2003 decks (`.ppt`, `.pps`): an OLE compound
//! file (opened by `cfb`) whose `PowerPoint Document` stream is a tree of
//! records ([MS-PPT]: an 8-byte header of version and instance, type and
//! length; a container's body is more records).
//!
//! What the last save left is found as PowerPoint finds it: the `Current
//! User` stream points at the newest user edit, and the chain of edits'
//! persist directories maps each object to its place in the stream (an
//! incremental save appends, so older copies of a slide may still be in the
//! file, unreferenced). The slides come in the order of the document's
//! slide list; each slide's drawing holds its shapes in z-order. A shape's
//! text is in its client text box: the characters themselves, or a
//! reference to the slide list's text of that slide (how PowerPoint stores
//! its outline placeholders). Its placeholder says whether it is the title,
//! furniture (date, slide number, footer, header) or words on the slide. A
//! group marked as a table (the `tableProperties` shape property) is read
//! as a table, its cells put in rows and columns by their anchors. The
//! speaker notes come from the notes slide whose atom names the slide. A
//! field (slide number, date, footer) is left out of the text it stands in.
//! The deck is named by its first titled slide (the file's property set,
//! where PowerPoint keeps a title too, is not read).
//!
//! Not read: charts and other embedded OLE objects, pictures, comments.
//! Encrypted decks and PowerPoint 95 files are refused with the reason.

use super::{Role, begin_slide, check_slides};
use crate::word::{Para, Writer, malformed};
use crate::{ExtractError, Limits};
use std::collections::{HashMap, HashSet};
use std::io::{Cursor, Read};

const DOCUMENT: u16 = 0x03E8;
const SLIDE: u16 = 0x03EE;
const NOTES: u16 = 0x03F0;
const NOTES_ATOM: u16 = 0x03F1;
const SLIDE_PERSIST: u16 = 0x03F3;
const PLACEHOLDER: u16 = 0x0BC3;
const OUTLINE_TEXT_REF: u16 = 0x0F9E;
const TEXT_HEADER: u16 = 0x0F9F;
const TEXT_CHARS: u16 = 0x0FA0;
const TEXT_BYTES: u16 = 0x0FA8;
/// Where a field (slide number, date, header, footer) stands in a text:
/// the text holds a `*` there.
const FIELDS: [u16; 6] = [0x0FD8, 0x0FF7, 0x0FF8, 0x0FF9, 0x0FFA, 0x1015];
const SLIDE_LIST: u16 = 0x0FF0;
const USER_EDIT: u16 = 0x0FF5;
const CURRENT_USER: u16 = 0x0FF6;
const PERSIST_DIRECTORY: u16 = 0x1772;
const GROUP: u16 = 0xF003;
const SHAPE: u16 = 0xF004;
const SHAPE_ATOM: u16 = 0xF00A;
const CLIENT_TEXTBOX: u16 = 0xF00D;
const CHILD_ANCHOR: u16 = 0xF00F;
const CLIENT_DATA: u16 = 0xF011;
const TERTIARY_PROPERTIES: u16 = 0xF122;

/// The `tableProperties` shape property: its group is a table.
const TABLE_PROPERTIES: u16 = 0x039F;
/// The shape type of a line (a table's borders).
const LINE: u16 = 20;
/// The `headerToken` of an encrypted deck's current user atom.
const ENCRYPTED: u32 = 0xF3D1_C4DF;
/// Containers nested deeper than this are not read (real drawings nest a
/// few groups; a hostile file could nest thousands).
const MAX_DEPTH: usize = 32;
/// User edits followed back from the newest (a file saved this often is
/// hostile, or its chain loops).
const MAX_EDITS: usize = 4096;

/// Reads a `.ppt` into `w`, a slide a page.
pub(super) fn read(bytes: &[u8], w: &mut Writer<'_>, limits: &Limits) -> Result<(), ExtractError> {
    let deck = crate::unpanicked(|| Deck::open(bytes))
        .map_err(|panic| malformed(&format!("the compound file reader stopped on it: {panic}")))??;
    let document = deck.document()?;
    let slides = slide_list(document, 0);
    check_slides(slides.len(), limits)?;
    let notes = deck.notes_of_slides(document);
    for (i, entry) in slides.iter().enumerate() {
        let number = i as u32 + 1;
        let slide = deck
            .object(entry.persist, SLIDE)
            .ok_or_else(|| malformed(&format!("slide {number}: its record is missing")))?;
        let mut shapes = Vec::new();
        collect(slide, &entry.texts, 0, &mut shapes);
        if shapes.is_empty() {
            // A deck whose drawings hold no text boxes: the outline alone.
            shapes = entry.texts.iter().map(|(kind, text)| Shape::Text(text_role(*kind), text.clone())).collect();
        }
        let title: Vec<&str> = shapes
            .iter()
            .filter_map(|s| match s {
                Shape::Text(Role::Title, t) => Some(t.as_str()),
                _ => None,
            })
            .collect();
        begin_slide(w, number, &title.join(" ").replace(['\r', '\u{b}'], " "))?;
        write(w, &shapes)?;
        if let Some(notes) = notes.get(&entry.slide_id).and_then(|&p| deck.object(p, NOTES)) {
            let mut shapes = Vec::new();
            collect(notes, &[], 0, &mut shapes);
            write(w, &shapes)?;
        }
    }
    Ok(())
}

/// One record: its type, instance, whether it is a container, and its body.
#[derive(Clone, Copy)]
struct Record<'a> {
    kind: u16,
    instance: u16,
    container: bool,
    body: &'a [u8],
}

impl<'a> Record<'a> {
    /// The record whose header starts at `at`, if all of it lies in `bytes`.
    fn at(bytes: &'a [u8], at: usize) -> Option<Record<'a>> {
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
    fn children(self) -> impl Iterator<Item = Record<'a>> {
        let body: &[u8] = if self.container { self.body } else { &[] };
        let mut at = 0;
        std::iter::from_fn(move || {
            let child = Record::at(body, at)?;
            at += 8 + child.body.len();
            Some(child)
        })
    }

    fn child(self, kind: u16) -> Option<Record<'a>> {
        self.children().find(|r| r.kind == kind)
    }

    fn u32_at(self, at: usize) -> Option<u32> {
        Some(u32::from_le_bytes(self.body.get(at..at.checked_add(4)?)?.try_into().ok()?))
    }

    fn i32_at(self, at: usize) -> Option<i32> {
        self.u32_at(at).map(|v| v as i32)
    }

    /// The characters of a text atom: UTF-16LE, or one byte per character
    /// (the low byte of its UTF-16 code unit).
    fn text(self) -> Option<String> {
        match self.kind {
            TEXT_CHARS => {
                let units: Vec<u16> = self.body.chunks_exact(2).map(|c| u16::from_le_bytes([c[0], c[1]])).collect();
                Some(String::from_utf16_lossy(&units))
            }
            TEXT_BYTES => Some(self.body.iter().map(|&b| char::from(b)).collect()),
            _ => None,
        }
    }
}

/// The `PowerPoint Document` stream and where its objects are.
struct Deck {
    stream: Vec<u8>,
    /// Persist id → offset of the object's record, as of the last save.
    directory: HashMap<u32, usize>,
    /// The persist id of the document container.
    document: u32,
}

impl Deck {
    fn open(bytes: &[u8]) -> Result<Deck, ExtractError> {
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
        let mut read = |name: &str| -> Result<Vec<u8>, ExtractError> {
            let mut out = Vec::new();
            let mut stream = file.open_stream(name).map_err(|e| malformed(&format!("{name} stream: {e}")))?;
            stream.read_to_end(&mut out).map_err(|e| malformed(&format!("{name} stream: {e}")))?;
            Ok(out)
        };
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
        Ok(Deck { stream, directory, document })
    }

    /// The record of persist object `id` if it is of `kind`.
    fn object(&self, id: u32, kind: u16) -> Option<Record<'_>> {
        Record::at(&self.stream, *self.directory.get(&id)?).filter(|r| r.kind == kind)
    }

    fn document(&self) -> Result<Record<'_>, ExtractError> {
        self.object(self.document, DOCUMENT).ok_or_else(|| malformed("the document record is missing"))
    }

    /// Each notes slide's persist id, by the id of the slide it belongs to.
    fn notes_of_slides(&self, document: Record<'_>) -> HashMap<u32, u32> {
        slide_list(document, 2)
            .iter()
            .filter_map(|entry| {
                let atom = self.object(entry.persist, NOTES)?.child(NOTES_ATOM)?;
                Some((atom.u32_at(0)?, entry.persist))
            })
            .collect()
    }
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
struct Entry {
    persist: u32,
    slide_id: u32,
    /// The outline texts stored with it, by text type.
    texts: Vec<(u32, String)>,
}

/// The document's slide list of `instance` (0: slides, 2: notes).
fn slide_list(document: Record<'_>, instance: u16) -> Vec<Entry> {
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

/// What a slide shows: a text box (paragraphs split by `\r`, lines by
/// `\u{b}`) or a table's rows of cells.
enum Shape {
    Text(Role, String),
    Table(Vec<Vec<String>>),
}

/// The shapes of a drawing, in order; groups are entered, tables read whole.
fn collect(record: Record<'_>, outline: &[(u32, String)], depth: usize, out: &mut Vec<Shape>) {
    if depth > MAX_DEPTH {
        return;
    }
    for r in record.children() {
        match r.kind {
            GROUP if is_table(r) => out.push(Shape::Table(table(r, outline))),
            SHAPE => out.extend(text_box(r, outline).map(|(role, text)| Shape::Text(role, text))),
            _ if r.container => collect(r, outline, depth + 1, out),
            _ => {}
        }
    }
}

/// A shape's text and its role, if it holds any text.
fn text_box(shape: Record<'_>, outline: &[(u32, String)]) -> Option<(Role, String)> {
    let placeholder = shape.child(CLIENT_DATA).and_then(|d| d.child(PLACEHOLDER)).and_then(|p| p.body.get(4).copied());
    let mut kind = None;
    let mut text = String::new();
    let mut fields = Vec::new();
    for r in shape.child(CLIENT_TEXTBOX)?.children() {
        match r.kind {
            TEXT_HEADER => kind = r.u32_at(0),
            TEXT_CHARS | TEXT_BYTES => text.push_str(&r.text()?),
            OUTLINE_TEXT_REF => {
                if let Some((k, t)) = r.u32_at(0).and_then(|i| outline.get(i as usize)) {
                    kind = Some(*k);
                    text.push_str(t);
                }
            }
            k if FIELDS.contains(&k) => fields.extend(r.u32_at(0)),
            _ => {}
        }
    }
    let text = without_fields(&text, &fields);
    let role = match placeholder.map(placeholder_role) {
        Some(Role::Text) | None => text_role(kind.unwrap_or(4)),
        Some(role) => role,
    };
    (!text.trim().is_empty()).then_some((role, text))
}

/// `text` without the `*` standing for a field at each of `positions`
/// (counted in UTF-16 code units): a field's value is the slide's
/// furniture, not its words.
fn without_fields(text: &str, positions: &[u32]) -> String {
    if positions.is_empty() {
        return text.to_string();
    }
    let units: Vec<u16> = text
        .encode_utf16()
        .enumerate()
        .filter(|&(i, unit)| !(unit == u16::from(b'*') && positions.contains(&(i as u32))))
        .map(|(_, unit)| unit)
        .collect();
    String::from_utf16_lossy(&units)
}

/// The role of a placeholder type ([MS-PPT] PlaceholderEnum).
fn placeholder_role(kind: u8) -> Role {
    match kind {
        0x01 | 0x03 | 0x0D | 0x0F | 0x11 => Role::Title,
        0x05 | 0x07..=0x0B => Role::Furniture,
        _ => Role::Text,
    }
}

/// The role of a text type (TextTypeEnum: 0 title, 6 centred title).
fn text_role(kind: u32) -> Role {
    if matches!(kind, 0 | 6) { Role::Title } else { Role::Text }
}

/// Whether a group's own shape (its first) carries `tableProperties`.
fn is_table(group: Record<'_>) -> bool {
    let Some(properties) = group.child(SHAPE).and_then(|s| s.child(TERTIARY_PROPERTIES)) else { return false };
    (0..usize::from(properties.instance)).any(|i| {
        properties
            .body
            .get(6 * i..6 * i + 2)
            .is_some_and(|id| u16::from_le_bytes([id[0], id[1]]) & 0x3FFF == TABLE_PROPERTIES)
    })
}

/// A table group's cells (its shapes other than lines), in rows by their
/// anchors' top edge and in each row by their left edge.
fn table(group: Record<'_>, outline: &[(u32, String)]) -> Vec<Vec<String>> {
    let mut cells: Vec<(i32, i32, String)> = group
        .children()
        .filter(|r| r.kind == SHAPE)
        .skip(1)
        .filter(|s| s.child(SHAPE_ATOM).is_none_or(|a| a.instance != LINE))
        .filter_map(|s| {
            let anchor = s.child(CHILD_ANCHOR)?;
            let text = text_box(s, outline).map(|(_, t)| t).unwrap_or_default();
            Some((anchor.i32_at(4)?, anchor.i32_at(0)?, text))
        })
        .collect();
    cells.sort_by_key(|(top, left, _)| (*top, *left));
    let mut rows: Vec<(i32, Vec<String>)> = Vec::new();
    for (top, _, text) in cells {
        match rows.last_mut() {
            Some((t, row)) if *t == top => row.push(text),
            _ => rows.push((top, vec![text])),
        }
    }
    rows.into_iter().map(|(_, row)| row).collect()
}

/// Writes the slide's words and tables (titles and furniture left out).
fn write(w: &mut Writer<'_>, shapes: &[Shape]) -> Result<(), ExtractError> {
    for shape in shapes {
        match shape {
            Shape::Text(Role::Text, text) => paragraphs(w, text)?,
            Shape::Table(rows) => {
                w.start_table();
                for row in rows {
                    w.start_row(false);
                    for cell in row {
                        w.start_cell();
                        paragraphs(w, cell)?;
                    }
                    w.end_row()?;
                }
                w.end_table();
            }
            Shape::Text(..) => {}
        }
    }
    Ok(())
}

/// A text box's paragraphs (`\r`) and their line breaks (`\u{b}`).
fn paragraphs(w: &mut Writer<'_>, text: &str) -> Result<(), ExtractError> {
    for paragraph in text.split('\r').filter(|p| !p.trim().is_empty()) {
        w.start_paragraph(Para::Body)?;
        for (i, line) in paragraph.split('\u{b}').enumerate() {
            if i > 0 {
                w.line_break();
            }
            w.text(line);
        }
        w.end_paragraph();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A record's bytes: header, then body.
    fn record(kind: u16, instance: u16, body: &[u8]) -> Vec<u8> {
        let container = [DOCUMENT, SLIDE, SLIDE_LIST, GROUP, SHAPE, CLIENT_TEXTBOX, CLIENT_DATA].contains(&kind);
        let version = if container { 0xF } else { 0 };
        let mut out = Vec::new();
        out.extend((instance << 4 | version).to_le_bytes());
        out.extend(kind.to_le_bytes());
        out.extend((body.len() as u32).to_le_bytes());
        out.extend(body);
        out
    }

    fn words(s: &str) -> Vec<u8> {
        s.encode_utf16().flat_map(u16::to_le_bytes).collect()
    }

    fn u32s(values: &[u32]) -> Vec<u8> {
        values.iter().flat_map(|v| v.to_le_bytes()).collect()
    }

    #[test]
    fn a_placeholder_refers_to_the_outline_text_of_its_slide() {
        // PowerPoint keeps a placeholder's text in the slide list and a
        // reference to it in the shape; a text box holds its own.
        let mut list = record(SLIDE_PERSIST, 0, &u32s(&[7, 0, 2, 256, 0]));
        list.extend(record(TEXT_HEADER, 0, &u32s(&[0])));
        list.extend(record(TEXT_BYTES, 0, b"Quarterly review"));
        list.extend(record(TEXT_HEADER, 0, &u32s(&[1])));
        list.extend(record(TEXT_CHARS, 0, &words("Revenue grew\rCosts fell\u{b}in every region")));
        let document = record(DOCUMENT, 0, &record(SLIDE_LIST, 0, &list));
        let entries = slide_list(Record::at(&document, 0).unwrap(), 0);
        assert_eq!((entries.len(), entries[0].persist, entries[0].slide_id), (1, 7, 256));

        let placeholder = |kind: u8| record(CLIENT_DATA, 0, &record(PLACEHOLDER, 0, &[0, 0, 0, 0, kind, 0, 0, 0]));
        let reference = |i: u32| record(CLIENT_TEXTBOX, 0, &record(OUTLINE_TEXT_REF, 0, &u32s(&[i])));
        let mut title = placeholder(0x0D);
        title.extend(reference(0));
        let mut body = placeholder(0x0E);
        body.extend(reference(1));
        let mut footer = placeholder(0x09);
        footer.extend(record(CLIENT_TEXTBOX, 0, &record(TEXT_CHARS, 0, &words("Confidential"))));
        let mut shapes = record(SHAPE, 0, &footer);
        shapes.extend(record(SHAPE, 0, &title));
        shapes.extend(record(SHAPE, 0, &body));
        let slide = record(SLIDE, 0, &record(GROUP, 0, &shapes));
        let mut got = Vec::new();
        collect(Record::at(&slide, 0).unwrap(), &entries[0].texts, 0, &mut got);
        let got: Vec<(Role, &str)> = got
            .iter()
            .map(|s| match s {
                Shape::Text(role, text) => (*role, text.as_str()),
                Shape::Table(_) => panic!("no table here"),
            })
            .collect();
        assert_eq!(
            got,
            [
                (Role::Furniture, "Confidential"),
                (Role::Title, "Quarterly review"),
                (Role::Text, "Revenue grew\rCosts fell\u{b}in every region"),
            ]
        );
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
