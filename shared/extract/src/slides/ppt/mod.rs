//! Legacy PowerPoint 97-2003 decks (`.ppt`, `.pps`): an OLE compound
//! file (opened by `cfb`) whose `PowerPoint Document` stream is a tree of
//! records, read as of the deck's last save ([`stream`]).
//!
//! The slides come in the order of the document's slide list; each slide's
//! drawing holds its shapes in z-order. A shape's text is in its client
//! text box: the characters themselves, or a reference to the slide list's
//! text of that slide (how PowerPoint stores its outline placeholders). Its placeholder says whether it is the title,
//! furniture (date, slide number, footer, header) or words on the slide. A
//! group marked as a table (the `tableProperties` shape property) is read
//! as a table, its cells put in rows and columns by their anchors. The
//! speaker notes come from the notes slide whose atom names the slide. A
//! field (slide number, date, footer) is left out of the text it stands in.
//! The deck is named by the title in its summary properties
//! ([`properties`]), else by its first titled slide.
//!
//! A chart LibreOffice embedded is read as a table of its data
//! ([`objects`]). Not read: other embedded OLE objects (PowerPoint's own
//! charts keep their data in an Excel workbook), pictures, comments.
//! Encrypted decks and PowerPoint 95 files are refused with the reason.

mod objects;
mod properties;
mod stream;

use super::{Role, begin_slide, check_slides};
use crate::word::{Para, Writer, malformed};
use crate::{ExtractError, Limits};
use std::collections::HashSet;
use stream::{Deck, NOTES, Record, SLIDE, TEXT_BYTES, TEXT_CHARS, TEXT_HEADER, slide_list};

const PLACEHOLDER: u16 = 0x0BC3;
const OUTLINE_TEXT_REF: u16 = 0x0F9E;
/// Where a field (slide number, date, header, footer) stands in a text:
/// the text holds a `*` there.
const FIELDS: [u16; 6] = [0x0FD8, 0x0FF7, 0x0FF8, 0x0FF9, 0x0FFA, 0x1015];
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
/// Containers nested deeper than this are not read (real drawings nest a
/// few groups; a hostile file could nest thousands).
const MAX_DEPTH: usize = 32;

/// Reads a `.ppt` into `w`, a slide a page; returns the title its
/// properties name.
pub(super) fn read(bytes: &[u8], w: &mut Writer<'_>, limits: &Limits) -> Result<Option<String>, ExtractError> {
    let deck = crate::unpanicked(|| Deck::open(bytes))
        .map_err(|panic| malformed(&format!("the compound file reader stopped on it: {panic}")))??;
    let document = deck.document()?;
    let slides = slide_list(document, 0);
    check_slides(slides.len(), limits)?;
    let notes = deck.notes_of_slides(document);
    // An object is read where it is first shown, and once (a crafted deck
    // could show one large chart on every slide).
    let objects = objects::list(document);
    let mut shown = HashSet::new();
    let mut object = |id: u32, w: &mut Writer<'_>| match objects.get(&id) {
        Some(&persist) if shown.insert(persist) => objects::write(&deck, persist, w, limits),
        _ => Ok(()),
    };
    // A slide or notes record named twice is read once: no deck does that,
    // and a crafted one could make every slide the same large drawing.
    let mut read_once = HashSet::new();
    for (i, entry) in slides.iter().enumerate() {
        let number = i as u32 + 1;
        let slide = deck
            .object(entry.persist, SLIDE)
            .ok_or_else(|| malformed(&format!("slide {number}: its record is missing")))?;
        if !read_once.insert(slide.body.as_ptr()) {
            continue;
        }
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
        write(w, &shapes, &mut object)?;
        let notes = notes.get(&entry.slide_id).and_then(|&p| deck.object(p, NOTES));
        if let Some(notes) = notes.filter(|n| read_once.insert(n.body.as_ptr())) {
            let mut shapes = Vec::new();
            collect(notes, &[], 0, &mut shapes);
            write(w, &shapes, &mut object)?;
        }
    }
    Ok(deck.title.clone())
}

/// What a slide shows: a text box (paragraphs split by `\r`, lines by
/// `\u{b}`), a table's rows of cells, or an embedded object, by its id.
enum Shape {
    Text(Role, String),
    Table(Vec<Vec<String>>),
    Object(u32),
}

/// The shapes of a drawing, in order; groups are entered, tables read whole.
fn collect(record: Record<'_>, outline: &[(u32, String)], depth: usize, out: &mut Vec<Shape>) {
    if depth > MAX_DEPTH {
        return;
    }
    for r in record.children() {
        match r.kind {
            GROUP if is_table(r) => out.push(Shape::Table(table(r, outline))),
            SHAPE => match text_box(r, outline) {
                Some((role, text)) => out.push(Shape::Text(role, text)),
                None => out.extend(embedded(r).map(Shape::Object)),
            },
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

/// A table group's cells (its shapes other than lines) on the grid their
/// anchors draw: a row per top edge, a column per left edge. A merged cell
/// is one shape spanning several rows or columns; it stands in its first
/// slot and leaves the others empty, as a pptx's or an odp's covered cells
/// do, so every row keeps the header's columns.
fn table(group: Record<'_>, outline: &[(u32, String)]) -> Vec<Vec<String>> {
    let cells: Vec<(i32, i32, String)> = group
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
    let edges = |pick: fn(&(i32, i32, String)) -> i32| {
        let mut e: Vec<i32> = cells.iter().map(pick).collect();
        e.sort_unstable();
        e.dedup();
        e
    };
    let (tops, lefts) = (edges(|c| c.0), edges(|c| c.1));
    // Cells scattered over no grid (a crafted group of thousands of
    // staggered shapes) would make a grid of millions of empty slots:
    // those are read row by row instead.
    if tops.len().saturating_mul(lefts.len()) > 2 * cells.len() + 16 {
        return by_rows(cells);
    }
    let mut grid = vec![vec![String::new(); lefts.len()]; tops.len()];
    for (top, left, text) in cells {
        let (Ok(r), Ok(c)) = (tops.binary_search(&top), lefts.binary_search(&left)) else { continue };
        let slot = &mut grid[r][c];
        if !slot.is_empty() {
            slot.push('\r');
        }
        slot.push_str(&text);
    }
    grid
}

/// Cells in rows by their top edge and in each row by their left edge.
fn by_rows(mut cells: Vec<(i32, i32, String)>) -> Vec<Vec<String>> {
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

/// The id of the embedded object a shape shows, if it shows one.
fn embedded(shape: Record<'_>) -> Option<u32> {
    shape.child(CLIENT_DATA)?.child(objects::EX_OBJ_REF)?.u32_at(0)
}

/// Writes the slide's words, tables and embedded objects (through
/// `object`; titles and furniture left out).
fn write(
    w: &mut Writer<'_>,
    shapes: &[Shape],
    object: &mut impl FnMut(u32, &mut Writer<'_>) -> Result<(), ExtractError>,
) -> Result<(), ExtractError> {
    for shape in shapes {
        match shape {
            Shape::Object(id) => object(*id, w)?,
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
    use super::stream::tests::{record, u32s, words};
    use super::stream::{DOCUMENT, SLIDE_LIST, SLIDE_PERSIST};
    use super::*;

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
                Shape::Table(_) | Shape::Object(_) => panic!("only text here"),
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

    /// A table group: the group's own shape, then a cell shape for each
    /// `(left, top, text)`.
    fn table_group(cells: &[(i32, i32, &str)]) -> Vec<u8> {
        let mut shapes = record(SHAPE, 0, &[]);
        for &(left, top, text) in cells {
            let edges: Vec<u8> = [left, top, left + 10, top + 10].iter().flat_map(|v| v.to_le_bytes()).collect();
            let mut shape = record(CHILD_ANCHOR, 0, &edges);
            shape.extend(record(CLIENT_TEXTBOX, 0, &record(TEXT_CHARS, 0, &words(text))));
            shapes.extend(record(SHAPE, 0, &shape));
        }
        record(GROUP, 0, &shapes)
    }

    #[test]
    fn merged_cells_keep_their_rows_on_the_header_s_columns() {
        // "2025" spans two columns; "North" spans two rows, so the last
        // row holds two shapes for three columns.
        let group = table_group(&[
            (100, 50, "Q1"),
            (0, 0, "Region"),
            (100, 0, "2025"),
            (0, 50, "North"),
            (200, 50, "Q2"),
            (200, 100, "7"),
            (100, 100, "5"),
        ]);
        let rows = table(Record::at(&group, 0).unwrap(), &[]);
        assert_eq!(rows, [["Region", "2025", ""], ["North", "Q1", "Q2"], ["", "5", "7"]]);
    }

    #[test]
    fn cells_on_no_grid_are_read_row_by_row() {
        let texts: Vec<String> = (0..40).map(|i| format!("cell {i}")).collect();
        let cells: Vec<(i32, i32, &str)> =
            texts.iter().enumerate().map(|(i, t)| (i as i32, i as i32, t.as_str())).collect();
        let rows = table(Record::at(&table_group(&cells), 0).unwrap(), &[]);
        assert_eq!(rows.len(), 40);
        assert!(rows.iter().zip(&texts).all(|(row, text)| row == std::slice::from_ref(text)));
    }

    #[test]
    fn a_slide_record_named_twice_is_read_once() {
        // One slide record, listed as three slides of a deck whose
        // compound file is written here by `cfb`.
        let body = record(CLIENT_TEXTBOX, 0, &record(TEXT_BYTES, 0, b"Only once"));
        let slide = record(SLIDE, 0, &record(SHAPE, 0, &body));
        let list: Vec<u8> = (0..3).flat_map(|_| record(SLIDE_PERSIST, 0, &u32s(&[2, 0, 0, 256, 0]))).collect();
        let document = record(DOCUMENT, 0, &record(SLIDE_LIST, 0, &list));
        let mut stream = slide.clone();
        stream.extend(&document);
        let directory_at = stream.len() as u32;
        stream.extend(record(0x1772, 0, &u32s(&[1 | 2 << 20, slide.len() as u32, 0])));
        let edit_at = stream.len() as u32;
        stream.extend(record(0x0FF5, 0, &u32s(&[0, 0, 0, directory_at, 1, 3, 0])));
        let user = record(0x0FF6, 0, &u32s(&[20, 0xE391_C05F, edit_at, 0, 0]));
        let mut file = cfb::CompoundFile::create(std::io::Cursor::new(Vec::new())).unwrap();
        for (name, bytes) in [("PowerPoint Document", &stream), ("Current User", &user)] {
            std::io::Write::write_all(&mut file.create_stream(name).unwrap(), bytes).unwrap();
        }
        let bytes = file.into_inner().into_inner();
        let limits = Limits::default();
        let mut w = Writer::new(&limits);
        read(&bytes, &mut w, &limits).unwrap();
        let doc = w.build(None, "twice.ppt", ragpipe_core::Kind::Presentation);
        assert_eq!(doc.text, "Slide 1\n\nOnly once");
    }
}
