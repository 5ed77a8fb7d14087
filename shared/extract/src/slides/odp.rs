//! OpenDocument presentations (`content.xml`): `draw:page` slides whose
//! frames and shapes hold `text:p` / `text:h` paragraphs (bullets read as
//! paragraphs, as the pptx reader reads them) and `table:table` tables, and whose `presentation:notes`
//! hold the speaker notes. A frame is a title, text or furniture by its
//! `presentation:class`. A chart (an embedded object, `draw:object`) is read
//! from its own `content.xml` where the slide places it.

use super::{Pass, Role, begin_slide, check_slides};
use crate::word::xml::{Flow, attr, reference};
use crate::word::{Para, Writer};
use crate::{ExtractError, Limits};
use quick_xml::XmlVersion;
use quick_xml::events::{BytesStart, Event};
use std::collections::HashMap;

/// Subtrees that are not part of the slides' words: comments, footnotes and
/// the deleted text tracked changes keep.
const SKIPPED: &[&str] = &["annotation", "note", "tracked-changes"];

/// Elements that are shapes: each opens a role (by its class) for the text
/// inside it.
const SHAPES: &[&str] = &["frame", "custom-shape", "rect", "ellipse", "polygon", "path", "caption", "page-thumbnail"];

/// Reads the slides of `content.xml` (or of a flat file's XML: `part` names
/// it in reasons); `objects` holds the `content.xml` of
/// each embedded object by its folder (`Object 1`), for the charts.
pub(super) fn read(
    content: &str,
    part: &str,
    objects: &HashMap<String, String>,
    w: &mut Writer<'_>,
    limits: &Limits,
) -> Result<(), ExtractError> {
    let mut titles: Vec<String> = Vec::new();
    walk((content, part), objects, Pass::Title, w, &mut titles)?;
    check_slides(titles.len(), limits)?;
    walk((content, part), objects, Pass::Text, w, &mut titles)
}

/// One pass over every slide: in [`Pass::Title`] each slide's title into
/// `titles`, in [`Pass::Text`] each slide's heading, then its other text
/// into `w`.
fn walk(
    (content, part): (&str, &str),
    objects: &HashMap<String, String>,
    pass: Pass,
    w: &mut Writer<'_>,
    titles: &mut Vec<String>,
) -> Result<(), ExtractError> {
    let mut flow = Flow::new(content, part, SKIPPED);
    let mut slide = 0usize;
    let mut roles: Vec<Role> = Vec::new();
    let mut paragraphs: Vec<bool> = Vec::new();
    while let Some(event) = flow.next()? {
        let role = roles.last().copied().unwrap_or(Role::Text);
        let reading = paragraphs.last().copied().unwrap_or(false);
        match event {
            Event::Start(e) => match e.local_name().as_ref() {
                "page" => enter_slide(&mut slide, pass, w, titles)?,
                name if SHAPES.contains(&name) => roles.push(class(&e)),
                "p" | "h" => {
                    let read = slide > 0 && pass.reads(role);
                    if read && pass == Pass::Text {
                        w.start_paragraph(Para::Body)?;
                    }
                    paragraphs.push(read);
                }
                "object" if pass == Pass::Text && slide > 0 => {
                    crate::chart::read_object(&attr(&e, "href").unwrap_or_default(), objects, w)?
                }
                "table" if pass == Pass::Text => w.start_table(),
                "table-row" if pass == Pass::Text => w.start_row(false),
                "table-cell" | "covered-table-cell" if pass == Pass::Text => w.start_cell(),
                _ => {}
            },
            Event::Empty(e) => match e.local_name().as_ref() {
                "page" => enter_slide(&mut slide, pass, w, titles)?,
                "object" if pass == Pass::Text && slide > 0 => {
                    crate::chart::read_object(&attr(&e, "href").unwrap_or_default(), objects, w)?
                }
                "s" | "tab" if reading => pass.write(w, titles.last_mut(), " "),
                "line-break" if reading => pass.write(w, titles.last_mut(), "\n"),
                "table-cell" | "covered-table-cell" if pass == Pass::Text => w.start_cell(),
                _ => {}
            },
            Event::End(e) => match e.local_name().as_ref() {
                name if SHAPES.contains(&name) => {
                    roles.pop();
                }
                // Ends a paragraph read in this pass (each start pushed whether it is).
                "p" | "h" if paragraphs.pop() == Some(true) => pass.end_paragraph(w, titles.last_mut()),
                "table" if pass == Pass::Text => w.end_table(),
                "table-row" if pass == Pass::Text => w.end_row()?,
                _ => {}
            },
            Event::Text(t) if reading => pass.write(w, titles.last_mut(), &t.xml_content(XmlVersion::Implicit1_0)),
            Event::GeneralRef(r) if reading => pass.write(w, titles.last_mut(), &reference(&r).unwrap_or_default()),
            _ => {}
        }
    }
    Ok(())
}

/// Counts a `draw:page`: in the title pass a title to fill, in the text
/// pass its heading.
fn enter_slide(
    slide: &mut usize,
    pass: Pass,
    w: &mut Writer<'_>,
    titles: &mut Vec<String>,
) -> Result<(), ExtractError> {
    *slide += 1;
    match pass {
        Pass::Title => {
            titles.push(String::new());
            Ok(())
        }
        Pass::Text => begin_slide(w, *slide as u32, titles.get(*slide - 1).map(String::as_str).unwrap_or_default()),
    }
}

/// The role a shape's `presentation:class` gives it.
fn class(e: &BytesStart<'_>) -> Role {
    match attr(e, "class").as_deref() {
        Some("title") => Role::Title,
        Some("page-number" | "footer" | "date-time" | "header" | "page" | "handout") => Role::Furniture,
        _ => Role::Text,
    }
}
