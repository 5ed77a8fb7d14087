//! OpenDocument text (`content.xml`): `text:h` headings with their outline
//! level, `text:p` paragraphs (list items inside `text:list`), and
//! `table:table` tables whose `table:table-header-rows` are their header.
//! A paragraph styled `Title` (directly or through an automatic style that
//! derives from it) is the document's title line. An embedded chart
//! (`draw:object`) is read from its object's local table
//! ([`crate::chart`]) after the paragraph, or the outermost table, that
//! holds it.
//!
//! Tracked deletions are left out in both of the forms LibreOffice writes:
//! the deleted text kept in the `text:tracked-changes` region, or left in
//! the body between a `text:change-start` and `text:change-end` whose id
//! names a deletion there.

use super::xml::{Flow, attr, reference};
use super::{Held, Para, Writer};
use crate::ExtractError;
use quick_xml::XmlVersion;
use quick_xml::events::Event;
use std::collections::{HashMap, HashSet};

/// Subtrees that are not part of the flow: footnotes and endnotes (their
/// citation mark included), comments, the deleted text tracked changes
/// keep, (in a flat file) the page headers and footers of the master
/// pages, and the tables of contents, indexes and tables of figures the
/// word processor generated ([`super::generated_listing`]; a bibliography
/// is the author's and stays).
#[rustfmt::skip]
const SKIPPED: &[&str] = &[
    "note", "annotation", "tracked-changes", "master-styles", "table-of-content", "alphabetical-index",
    "illustration-index", "table-index", "object-index", "user-index",
];

/// Reads the body of `content` (`part` names it in reasons: `content.xml`,
/// or a flat file's XML).
pub(super) fn read(
    content: &str,
    part: &str,
    objects: &HashMap<String, String>,
    w: &mut Writer<'_>,
) -> Result<(), ExtractError> {
    let mut flow = Flow::new(content, part, SKIPPED);
    let mut held = Held::default();
    let chart = |href: &str, w: &mut Writer<'_>| crate::chart::read_object(href, objects, w);
    // Automatic styles (`P1`) and the style each derives from (`Title`).
    let mut parents: HashMap<String, String> = HashMap::new();
    let (mut lists, mut header_rows) = (0u32, false);
    let deletions = deletions(content, part)?;
    let mut deleting: HashSet<String> = HashSet::new();
    while let Some(event) = flow.next()? {
        match event {
            Event::Start(e) => match e.local_name().as_ref() {
                "style" => derives(&e, &mut parents),
                "h" => {
                    let level = attr(&e, "outline-level").and_then(|l| l.parse::<u8>().ok()).unwrap_or(1);
                    w.start_paragraph(Para::Heading(level.max(1)))?;
                }
                "p" => {
                    // `Title` itself, or an automatic style that derives
                    // from it (a flat file also names the named styles'
                    // parents: `Title` derives from `Heading`).
                    let style = attr(&e, "style-name").unwrap_or_default();
                    let title = style == "Title" || parents.get(&style).is_some_and(|p| p == "Title");
                    // An index's line outside its index (pasted, or the
                    // index unlinked) keeps its style.
                    let generated = super::generated_listing(&style)
                        || parents.get(&style).is_some_and(|p| super::generated_listing(p));
                    let kind = if generated {
                        Para::Generated
                    } else if title {
                        Para::Title
                    } else if lists > 0 {
                        Para::ListItem
                    } else {
                        Para::Body
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
                "change-start" => deleting.extend(attr(&e, "change-id").filter(|id| deletions.contains(id))),
                "change-end" => {
                    if let Some(id) = attr(&e, "change-id") {
                        deleting.remove(&id);
                    }
                }
                _ if !deleting.is_empty() => {}
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
            Event::Text(_) | Event::GeneralRef(_) if !deleting.is_empty() => {}
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

/// The ids of the tracked changes that are deletions (a
/// `text:changed-region` holding a `text:deletion`); empty, without a
/// second pass, when the body marks no change range.
fn deletions(content: &str, part: &str) -> Result<HashSet<String>, ExtractError> {
    let mut ids = HashSet::new();
    if !content.contains("change-start") {
        return Ok(ids);
    }
    let mut reader = quick_xml::Reader::from_str(content);
    let mut region: Option<String> = None;
    loop {
        match reader.read_event().map_err(|e| super::malformed(&format!("{part}: {e}")))? {
            Event::Start(e) if e.local_name().as_ref() == "changed-region" => region = attr(&e, "id"),
            Event::End(e) if e.local_name().as_ref() == "changed-region" => region = None,
            Event::Start(e) | Event::Empty(e) if e.local_name().as_ref() == "deletion" => ids.extend(region.clone()),
            Event::End(e) if e.local_name().as_ref() == "tracked-changes" => break,
            Event::Eof => break,
            _ => {}
        }
    }
    Ok(ids)
}
