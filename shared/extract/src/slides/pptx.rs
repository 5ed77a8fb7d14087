//! Office Open XML presentations: the slides in the order
//! `ppt/presentation.xml` lists them (`p:sldId`, through the part's
//! relationships), each slide's shapes (`p:sp` text bodies of `a:p`
//! paragraphs of `a:t` runs, `a:tbl` tables of `a:tr` rows of `a:tc`
//! cells), its charts (through the slide's relationships, [`super::chart`])
//! and its notes slide's body placeholder. A shape is a title, text
//! or furniture by its placeholder type (`p:ph type`).

use super::{Pass, Role, begin_slide, check_slides};
use crate::archive::Zip;
use crate::word::xml::{Flow, attr, reference};
use crate::word::{Para, Writer, malformed};
use crate::{ExtractError, Limits};
use quick_xml::XmlVersion;
use quick_xml::events::{BytesStart, Event};

/// Subtrees that are not part of what a reader sees: the fallback copy of
/// content written twice for older readers (`mc:Fallback`).
const SKIPPED: &[&str] = &["Fallback"];

pub(super) fn read(
    zip: &mut Zip<'_>,
    presentation: &str,
    w: &mut Writer<'_>,
    limits: &Limits,
) -> Result<(), ExtractError> {
    let rels = crate::package::relationships(zip, "ppt/presentation.xml")?;
    let ids = related_ids(presentation, "ppt/presentation.xml", "sldId")?;
    check_slides(ids.len(), limits)?;
    for (i, id) in ids.iter().enumerate() {
        let number = i as u32 + 1;
        let path = rels
            .get(id)
            .map(|(_, target)| target.clone())
            .ok_or_else(|| malformed(&format!("slide {number}: ppt/presentation.xml names no part for {id}")))?;
        let slide = crate::archive::text(zip, &path, malformed)?
            .ok_or_else(|| malformed(&format!("slide {number}: {path} is missing")))?;
        let mut title = String::new();
        shapes(&slide, &path, Pass::Title, w, &mut title)?;
        begin_slide(w, number, &title)?;
        shapes(&slide, &path, Pass::Text, w, &mut title)?;
        let slide_rels = crate::package::relationships(zip, &path)?;
        for id in related_ids(&slide, &path, "chart")? {
            if let Some((kind, target)) = slide_rels.get(&id)
                && kind == "chart"
                && let Some(chart) = crate::archive::text(zip, target, malformed)?
            {
                crate::chart::read(&chart, target, w)?;
            }
        }
        let notes = slide_rels.into_values().find(|(kind, _)| kind == "notesSlide");
        if let Some((_, notes_path)) = notes
            && let Some(notes) = crate::archive::text(zip, &notes_path, malformed)?
        {
            shapes(&notes, &notes_path, Pass::Text, w, &mut title)?;
        }
    }
    Ok(())
}

/// The relationship ids of the `element`s of a part, in its order: the
/// slides of `ppt/presentation.xml` (`p:sldId`, in show order), the charts
/// of a slide (`c:chart` in a graphic frame).
fn related_ids(xml: &str, part: &str, element: &str) -> Result<Vec<String>, ExtractError> {
    let mut flow = Flow::new(xml, part, SKIPPED);
    let mut ids = Vec::new();
    while let Some(event) = flow.next()? {
        if let Event::Start(e) | Event::Empty(e) = event
            && e.local_name().into_inner() == element
            && let Some(id) = crate::package::relationship_id(&e)
        {
            ids.push(id);
        }
    }
    Ok(ids)
}

/// The role a placeholder type gives its shape.
fn placeholder(kind: Option<&str>) -> Role {
    match kind {
        Some("title" | "ctrTitle") => Role::Title,
        Some("dt" | "ftr" | "hdr" | "sldNum" | "sldImg") => Role::Furniture,
        _ => Role::Text,
    }
}

/// Reads the shapes of one slide or notes part: in [`Pass::Title`] the
/// title's paragraphs into `title`, in [`Pass::Text`] every other
/// paragraph and table into `w`.
fn shapes(xml: &str, part: &str, pass: Pass, w: &mut Writer<'_>, title: &mut String) -> Result<(), ExtractError> {
    let mut flow = Flow::new(xml, part, SKIPPED);
    // The role of each open shape; text outside any (a table's graphic
    // frame) is slide text.
    let mut roles: Vec<Role> = Vec::new();
    // Whether each open paragraph is read in this pass.
    let mut paragraphs: Vec<bool> = Vec::new();
    let mut in_text = false;
    while let Some(event) = flow.next()? {
        let role = roles.last().copied().unwrap_or(Role::Text);
        let reading = paragraphs.last().copied().unwrap_or(false);
        match event {
            Event::Start(e) => match e.local_name().as_ref() {
                "sp" => roles.push(Role::Text),
                "ph" => set_role(&mut roles, &e),
                "p" => {
                    let read = pass.reads(role);
                    if read && pass == Pass::Text {
                        w.start_paragraph(Para::Body)?;
                    }
                    paragraphs.push(read);
                }
                "t" => in_text = true,
                // LibreOffice writes a break with its run properties inside.
                "br" if reading => pass.write(w, Some(&mut *title), "\n"),
                "tbl" if pass == Pass::Text => w.start_table(),
                "tr" if pass == Pass::Text => w.start_row(false),
                "tc" if pass == Pass::Text => w.start_cell(),
                _ => {}
            },
            Event::Empty(e) => match e.local_name().as_ref() {
                "ph" => set_role(&mut roles, &e),
                "br" if reading => pass.write(w, Some(&mut *title), "\n"),
                "tc" if pass == Pass::Text => w.start_cell(),
                _ => {}
            },
            Event::End(e) => match e.local_name().as_ref() {
                "sp" => {
                    roles.pop();
                }
                // Ends a paragraph read in this pass (each start pushed whether it is).
                "p" if paragraphs.pop() == Some(true) => pass.end_paragraph(w, Some(&mut *title)),
                "t" => in_text = false,
                "tbl" if pass == Pass::Text => w.end_table(),
                "tr" if pass == Pass::Text => w.end_row()?,
                _ => {}
            },
            Event::Text(t) if in_text && reading => {
                pass.write(w, Some(&mut *title), &t.xml_content(XmlVersion::Implicit1_0))
            }
            Event::GeneralRef(r) if in_text && reading => {
                pass.write(w, Some(&mut *title), &reference(&r).unwrap_or_default())
            }
            _ => {}
        }
    }
    Ok(())
}

fn set_role(roles: &mut [Role], e: &BytesStart<'_>) {
    if let Some(role) = roles.last_mut() {
        *role = placeholder(attr(e, "type").as_deref());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text_of(slide: &str) -> (String, String) {
        let limits = Limits::default();
        let mut w = Writer::new(&limits);
        let mut title = String::new();
        shapes(slide, "s.xml", Pass::Title, &mut w, &mut title).unwrap();
        shapes(slide, "s.xml", Pass::Text, &mut w, &mut title).unwrap();
        (title, w.build(Some("t".into()), "s.pptx", ragpipe_core::Kind::Presentation).text)
    }

    #[test]
    fn furniture_is_left_out_and_the_title_read_apart() {
        let slide = r#"<p:sld xmlns:p="p" xmlns:a="a"><p:cSld><p:spTree>
            <p:sp><p:nvSpPr><p:nvPr><p:ph type="sldNum" idx="12"/></p:nvPr></p:nvSpPr>
              <p:txBody><a:p><a:fld type="slidenum"><a:t>7</a:t></a:fld></a:p></p:txBody></p:sp>
            <p:sp><p:nvSpPr><p:nvPr><p:ph idx="1"/></p:nvPr></p:nvSpPr>
              <p:txBody><a:p><a:r><a:t>Rotate keys &amp; tokens</a:t></a:r><a:br/><a:r><a:t>every 90 days</a:t></a:r></a:p></p:txBody></p:sp>
            <p:sp><p:nvSpPr><p:nvPr><p:ph type="title"/></p:nvPr></p:nvSpPr>
              <p:txBody><a:p><a:r><a:t>Secrets</a:t></a:r></a:p><a:p><a:r><a:t>policy</a:t></a:r></a:p></p:txBody></p:sp>
            <p:sp><p:nvSpPr><p:nvPr><p:ph type="ftr" idx="11"/></p:nvPr></p:nvSpPr>
              <p:txBody><a:p><a:r><a:t>Confidential</a:t></a:r></a:p></p:txBody></p:sp>
            <mc:AlternateContent xmlns:mc="mc"><mc:Choice Requires="x"><p:sp><p:txBody><a:p><a:r><a:t>once</a:t></a:r></a:p></p:txBody></p:sp></mc:Choice>
              <mc:Fallback><p:sp><p:txBody><a:p><a:r><a:t>once</a:t></a:r></a:p></p:txBody></p:sp></mc:Fallback></mc:AlternateContent>
            </p:spTree></p:cSld></p:sld>"#;
        let (title, text) = text_of(slide);
        assert_eq!(title.split_whitespace().collect::<Vec<_>>().join(" "), "Secrets policy");
        assert_eq!(text, "Rotate keys & tokens\nevery 90 days\n\nonce");
    }
}
