//! What the docx, odt, pptx and odp readers share of XML: names without their prefix,
//! attribute values, entity references and the title in the file's
//! properties.

use super::malformed;
use crate::ExtractError;
use quick_xml::XmlVersion;
use quick_xml::events::{BytesRef, BytesStart, Event};

/// The value of the attribute whose name, without prefix, is `name`.
pub(crate) fn attr(e: &BytesStart<'_>, name: &str) -> Option<String> {
    e.attributes()
        .flatten()
        .find(|a| a.key.local_name().as_ref() == name)
        .and_then(|a| a.normalized_value(XmlVersion::Implicit1_0).ok().map(|v| v.into_owned()))
}

/// The text an entity or character reference stands for (`&amp;`, `&#x2014;`).
pub(crate) fn reference(r: &BytesRef<'_>) -> Option<String> {
    if let Ok(Some(c)) = r.resolve_char_ref() {
        return Some(c.to_string());
    }
    let name = r.xml_content(XmlVersion::Implicit1_0);
    quick_xml::escape::resolve_predefined_entity(&name).map(str::to_string)
}

/// The events of one XML part of the file, without the subtrees of the
/// elements named in `skipped` (by local name) and without the end of file.
pub(crate) struct Flow<'x> {
    reader: quick_xml::Reader<&'x [u8]>,
    part: String,
    skipped: &'static [&'static str],
}

impl<'x> Flow<'x> {
    pub(crate) fn new(xml: &'x str, part: &str, skipped: &'static [&'static str]) -> Self {
        Flow { reader: quick_xml::Reader::from_str(xml), part: part.to_string(), skipped }
    }

    /// The next event in the flow; `None` at the end of the part.
    pub(crate) fn next(&mut self) -> Result<Option<Event<'x>>, ExtractError> {
        let mut depth = 0u32;
        loop {
            let event = self.reader.read_event().map_err(|e| malformed(&format!("{}: {e}", self.part)))?;
            match &event {
                Event::Eof => return Ok(None),
                Event::Start(e) if depth > 0 || self.skipped.contains(&e.local_name().as_ref()) => depth += 1,
                Event::End(_) if depth > 0 => depth -= 1,
                _ if depth > 0 => {}
                _ => return Ok(Some(event)),
            }
        }
    }
}

/// The first `dc:title` of a properties part (`docProps/core.xml` of a
/// docx or pptx, `meta.xml` of an odt or odp), when it says something.
pub(crate) fn title(props: &str) -> Option<String> {
    let mut reader = quick_xml::Reader::from_str(props);
    let mut inside = false;
    let mut title = String::new();
    loop {
        match reader.read_event().ok()? {
            Event::Start(e) if e.local_name().as_ref() == "title" => inside = true,
            Event::End(e) if e.local_name().as_ref() == "title" => break,
            Event::Text(t) if inside => title.push_str(&t.xml_content(XmlVersion::Implicit1_0)),
            Event::GeneralRef(r) if inside => title.push_str(&reference(&r).unwrap_or_default()),
            Event::Eof => break,
            _ => {}
        }
    }
    let title = title.split_whitespace().collect::<Vec<_>>().join(" ");
    (!title.is_empty()).then_some(title)
}
