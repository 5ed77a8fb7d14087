//! Office Open XML word processing (`word/document.xml`): `w:p` paragraphs
//! of `w:t` runs, `w:tbl` tables of `w:tr` rows of `w:tc` cells. A
//! paragraph's kind comes from its style (`w:pStyle`, resolved through
//! `word/styles.xml` so a localised or derived heading style still counts),
//! its outline level, or its numbering (a list item). A chart (`c:chart`,
//! through the document's relationships) is read from its part's cached
//! data ([`crate::chart`]) after the paragraph, or the outermost table,
//! that holds it.

use super::xml::{Flow, attr, reference};
use super::{Held, Para, Writer};
use crate::ExtractError;
use quick_xml::XmlVersion;
use quick_xml::events::Event;
use std::collections::HashMap;

/// Subtrees that are not part of what a reader sees: deleted and moved-away
/// text of tracked changes, field codes, and the fallback copy of a drawing.
const SKIPPED: &[&str] = &["del", "moveFrom", "delText", "instrText", "Fallback"];

/// The charts a document's relationships name: relationship id → (part,
/// its XML).
pub(super) type Charts = HashMap<String, (String, String)>;

pub(super) fn read(body: &str, styles: Option<&str>, charts: &Charts, w: &mut Writer<'_>) -> Result<(), ExtractError> {
    let styles = styles.map(Styles::read).unwrap_or_default();
    let mut flow = Flow::new(body, "word/document.xml", SKIPPED);
    let (mut in_text, mut in_props) = (false, false);
    // Charts met but not yet written, until the paragraph or outermost
    // table holding them ends.
    let mut held = Held::default();
    let chart = |id: &str, w: &mut Writer<'_>| match charts.get(id) {
        Some((part, xml)) => crate::chart::read(xml, part, w),
        None => Ok(()),
    };
    while let Some(event) = flow.next()? {
        match event {
            Event::Start(e) => match e.local_name().as_ref() {
                "p" => w.start_paragraph(Para::Body)?,
                "pPr" => in_props = true,
                "t" => in_text = true,
                "chart" => held.keys.extend(crate::package::relationship_id(&e)),
                "tbl" => {
                    held.tables += 1;
                    w.start_table()
                }
                "tr" => w.start_row(false),
                "tc" => w.start_cell(),
                _ => {}
            },
            Event::Empty(e) => match e.local_name().as_ref() {
                "pStyle" if in_props => {
                    if let Some(kind) = attr(&e, "val").and_then(|id| styles.kind(&id)) {
                        w.set_kind(kind);
                    }
                }
                "outlineLvl" if in_props => {
                    if let Some(heading) = outline(&e) {
                        w.set_kind(heading);
                    }
                }
                // Numbering 0 is "no list" (a heading's outline numbering off).
                "numId" if in_props && w.kind() == Some(Para::Body) && attr(&e, "val").is_some_and(|v| v != "0") => {
                    w.set_kind(Para::ListItem)
                }
                "tab" | "ptab" if !in_props => w.text("\t"),
                "br" | "cr" if !in_props => w.line_break(),
                "noBreakHyphen" => w.text("-"),
                "tblHeader" => w.mark_header_row(),
                "tc" => w.start_cell(),
                "chart" => held.keys.extend(crate::package::relationship_id(&e)),
                _ => {}
            },
            Event::End(e) => match e.local_name().as_ref() {
                "p" => {
                    w.end_paragraph();
                    held.write(w, chart)?;
                }
                "pPr" => in_props = false,
                "t" => in_text = false,
                "tbl" => {
                    w.end_table();
                    held.tables = held.tables.saturating_sub(1);
                    held.write(w, chart)?;
                }
                "tr" => w.end_row()?,
                _ => {}
            },
            Event::Text(t) if in_text => w.text(&t.xml_content(XmlVersion::Implicit1_0)),
            Event::GeneralRef(r) if in_text => w.text(&reference(&r).unwrap_or_default()),
            _ => {}
        }
    }
    Ok(())
}

/// Paragraph styles by id: the kind each one's name or outline level says,
/// or the style it is based on.
#[derive(Debug, Default)]
struct Styles {
    by_id: HashMap<String, (Option<Para>, Option<String>)>,
}

impl Styles {
    fn read(xml: &str) -> Styles {
        let mut by_id = HashMap::new();
        let mut reader = quick_xml::Reader::from_str(xml);
        let mut current: Option<(String, Option<Para>, Option<String>)> = None;
        while let Ok(event) = reader.read_event() {
            match event {
                Event::Start(e) if e.local_name().as_ref() == "style" => {
                    current = attr(&e, "styleId").map(|id| (id, None, None));
                }
                Event::Empty(e) => {
                    let Some((_, kind, based)) = current.as_mut() else { continue };
                    match e.local_name().as_ref() {
                        "name" => *kind = kind.or(attr(&e, "val").and_then(|n| named(&n))),
                        "basedOn" => *based = attr(&e, "val"),
                        "outlineLvl" => *kind = outline(&e).or(*kind),
                        _ => {}
                    }
                }
                Event::End(e) if e.local_name().as_ref() == "style" => {
                    if let Some((id, kind, based)) = current.take() {
                        by_id.insert(id, (kind, based));
                    }
                }
                Event::Eof => break,
                _ => {}
            }
        }
        Styles { by_id }
    }

    /// The kind of paragraphs of style `id`, following `basedOn` a few
    /// steps; an unknown id is read by its own name (`Heading2`).
    fn kind(&self, id: &str) -> Option<Para> {
        let mut id = id.to_string();
        for _ in 0..8 {
            match self.by_id.get(&id) {
                Some((Some(kind), _)) => return Some(*kind),
                Some((None, Some(based))) => id = based.clone(),
                Some((None, None)) => return None,
                None => return named(&id),
            }
        }
        None
    }
}

/// The heading a `w:outlineLvl` makes of a paragraph (levels 0–8; 9 is body
/// text).
fn outline(e: &quick_xml::events::BytesStart<'_>) -> Option<Para> {
    let level = attr(e, "val")?.parse::<u8>().ok().filter(|l| *l < 9)?;
    Some(Para::Heading(level + 1))
}

/// The kind a built-in style name says: `heading 1` … `heading 9` (or
/// `Heading1`), `Title`, `List Paragraph` / `List Bullet` / …, a generated
/// table of contents' or index's lines (`toc 1`, `TOC Heading`, `index 1`).
fn named(name: &str) -> Option<Para> {
    if super::generated_listing(name) {
        return Some(Para::Generated);
    }
    let lower = name.to_lowercase().replace(' ', "");
    if let Some(level) = lower.strip_prefix("heading").and_then(|l| l.parse::<u8>().ok()) {
        return Some(Para::Heading(level));
    }
    match lower.as_str() {
        "title" => Some(Para::Title),
        l if l.starts_with("list") => Some(Para::ListItem),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn styles_resolve_through_their_base_and_name() {
        let xml = r#"<w:styles xmlns:w="w">
            <w:style w:type="paragraph" w:styleId="berschrift1"><w:name w:val="heading 1"/></w:style>
            <w:style w:type="paragraph" w:styleId="Custom"><w:name w:val="My heading"/><w:basedOn w:val="berschrift1"/></w:style>
            <w:style w:type="paragraph" w:styleId="Outline"><w:name w:val="Plain"/><w:pPr><w:outlineLvl w:val="2"/></w:pPr></w:style>
            <w:style w:type="paragraph" w:styleId="Normal"><w:name w:val="Normal"/></w:style>
        </w:styles>"#;
        let styles = Styles::read(xml);
        assert_eq!(styles.kind("berschrift1"), Some(Para::Heading(1)));
        assert_eq!(styles.kind("Custom"), Some(Para::Heading(1)), "derived from a heading");
        assert_eq!(styles.kind("Outline"), Some(Para::Heading(3)), "by outline level");
        assert_eq!(styles.kind("Normal"), None);
        assert_eq!(styles.kind("Heading2"), Some(Para::Heading(2)), "unknown id read by its name");
        assert_eq!(styles.kind("ListBullet"), Some(Para::ListItem));
        assert_eq!(styles.kind("TOC2"), Some(Para::Generated), "a table of contents' entry");
    }
}
