//! OpenDocument text (`content.xml`): `text:h` headings with their outline
//! level, `text:p` paragraphs (list items inside `text:list`), and
//! `table:table` tables whose `table:table-header-rows` are their header.
//! A paragraph styled `Title` (directly or through an automatic style that
//! derives from it) is the document's title line. An embedded chart
//! (`draw:object`) is read from its object's local table
//! ([`crate::chart`]) after the paragraph, or the outermost table, that
//! holds it.

use super::xml::{Flow, attr, reference};
use super::{Held, Para, Writer};
use crate::ExtractError;
use quick_xml::XmlVersion;
use quick_xml::events::Event;
use std::collections::HashMap;

/// Subtrees that are not part of the flow: footnotes and endnotes (their
/// citation mark included), comments, and the deleted text tracked changes
/// keep.
const SKIPPED: &[&str] = &["note", "annotation", "tracked-changes"];

pub(super) fn read(content: &str, objects: &HashMap<String, String>, w: &mut Writer<'_>) -> Result<(), ExtractError> {
    let mut flow = Flow::new(content, "content.xml", SKIPPED);
    let mut held = Held::default();
    let chart = |href: &str, w: &mut Writer<'_>| crate::chart::read_object(href, objects, w);
    // Automatic styles (`P1`) and the style each derives from (`Title`).
    let mut parents: HashMap<String, String> = HashMap::new();
    let (mut lists, mut header_rows) = (0u32, false);
    while let Some(event) = flow.next()? {
        match event {
            Event::Start(e) => match e.local_name().as_ref() {
                "style" => derives(&e, &mut parents),
                "h" => {
                    let level = attr(&e, "outline-level").and_then(|l| l.parse::<u8>().ok()).unwrap_or(1);
                    w.start_paragraph(Para::Heading(level.max(1)))?;
                }
                "p" => {
                    let style = attr(&e, "style-name").map(|s| parents.get(&s).cloned().unwrap_or(s));
                    let kind = match style.as_deref() {
                        Some("Title") => Para::Title,
                        _ if lists > 0 => Para::ListItem,
                        _ => Para::Body,
                    };
                    w.start_paragraph(kind)?;
                }
                "list" => lists += 1,
                "object" => held.keys.extend(attr(&e, "href")),
                "table" => {
                    held.tables += 1;
                    w.start_table()
                }
                "table-header-rows" => header_rows = true,
                "table-row" => w.start_row(header_rows),
                "table-cell" | "covered-table-cell" => w.start_cell(),
                _ => {}
            },
            Event::Empty(e) => match e.local_name().as_ref() {
                "style" => derives(&e, &mut parents),
                "s" | "tab" => w.text(" "),
                "line-break" => w.line_break(),
                "object" => held.keys.extend(attr(&e, "href")),
                "table-cell" | "covered-table-cell" => w.start_cell(),
                _ => {}
            },
            Event::End(e) => match e.local_name().as_ref() {
                "h" | "p" => {
                    w.end_paragraph();
                    held.write(w, chart)?;
                }
                "list" => lists = lists.saturating_sub(1),
                "table" => {
                    w.end_table();
                    held.tables = held.tables.saturating_sub(1);
                    held.write(w, chart)?;
                }
                "table-header-rows" => header_rows = false,
                "table-row" => w.end_row()?,
                _ => {}
            },
            Event::Text(t) => w.text(&t.xml_content(XmlVersion::Implicit1_0)),
            Event::GeneralRef(r) => w.text(&reference(&r).unwrap_or_default()),
            _ => {}
        }
    }
    Ok(())
}

/// Records which style an automatic style (`P1`) derives from.
fn derives(e: &quick_xml::events::BytesStart<'_>, parents: &mut HashMap<String, String>) {
    if let (Some(name), Some(parent)) = (attr(e, "name"), attr(e, "parent-style-name")) {
        parents.insert(name, parent);
    }
}
