//! Parts of Office Open XML and OpenDocument packages that readers of
//! several kinds follow: an OOXML part's relationships (a slide's or a
//! document's charts, a deck's slides), an ODF file's embedded objects
//! (charts), and the flat (single XML file) form of an ODF document.

use crate::ExtractError;
use crate::archive::Zip;
use crate::word::malformed;
use crate::word::xml::{Flow, attr};
use quick_xml::XmlVersion;
use quick_xml::events::{BytesStart, Event};
use std::collections::HashMap;

/// The `r:id` of an element: the prefixed `id` attribute (a slide id also
/// has an unprefixed numeric `id`).
pub(crate) fn relationship_id(e: &BytesStart<'_>) -> Option<String> {
    e.attributes()
        .flatten()
        .find(|a| a.key.prefix().is_some() && a.key.local_name().as_ref() == "id")
        .and_then(|a| a.normalized_value(XmlVersion::Implicit1_0).ok().map(|v| v.into_owned()))
}

/// The relationships of `part` (from `dir/_rels/name.rels`): id → (type's
/// last path segment, target part's path in the archive). Links to
/// anything outside the archive are left out.
pub(crate) fn relationships(zip: &mut Zip<'_>, part: &str) -> Result<HashMap<String, (String, String)>, ExtractError> {
    let (dir, name) = part.rsplit_once('/').unwrap_or(("", part));
    let rels_path = format!("{dir}/_rels/{name}.rels");
    let Some(xml) = crate::archive::text(zip, &rels_path, malformed)? else { return Ok(HashMap::new()) };
    let mut flow = Flow::new(&xml, &rels_path, &[]);
    let mut out = HashMap::new();
    while let Some(event) = flow.next()? {
        let (Event::Start(e) | Event::Empty(e)) = event else { continue };
        if e.local_name().as_ref() != "Relationship" || attr(&e, "TargetMode").as_deref() == Some("External") {
            continue;
        }
        if let (Some(id), Some(kind), Some(target)) = (attr(&e, "Id"), attr(&e, "Type"), attr(&e, "Target")) {
            let kind = kind.rsplit('/').next().unwrap_or_default().to_string();
            out.insert(id, (kind, crate::archive::resolve(dir, &target)));
        }
    }
    Ok(out)
}

/// The `content.xml` of each object an odp or odt embeds (`Object 1/content.xml`:
/// charts, formulas), by its folder.
pub(crate) fn embedded_objects(zip: &mut Zip<'_>) -> Result<HashMap<String, String>, ExtractError> {
    let names: Vec<String> = zip
        .file_names()
        .flatten()
        .filter_map(|n| n.strip_suffix("/content.xml").map(str::to_string))
        .filter(|dir| !dir.is_empty() && !dir.contains('/'))
        .collect();
    let mut objects = HashMap::new();
    for dir in names {
        if let Some(xml) = crate::archive::text(zip, &format!("{dir}/content.xml"), malformed)? {
            objects.insert(dir, xml);
        }
    }
    Ok(objects)
}

/// A flat OpenDocument file (`.fodt`, `.fodp`: what LibreOffice saves as
/// "Flat XML", the whole package as one `office:document` element, often
/// kept in version control) as its XML text; `None` for anything else
/// (known by its first 4 KiB), an error when it is not UTF-8 as LibreOffice
/// writes it. Its body is the `content.xml` of the zipped form, with the
/// properties (`office:meta`) and styles before it in the same file.
pub(crate) fn flat_odf(bytes: &[u8]) -> Option<Result<&str, ExtractError>> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let head = String::from_utf8_lossy(&bytes[..bytes.len().min(4096)]);
    if !(head.trim_start().starts_with('<') && head.contains("<office:document ")) {
        return None;
    }
    Some(std::str::from_utf8(bytes).map_err(|e| malformed(&format!("flat XML: not UTF-8 text ({e})"))))
}
