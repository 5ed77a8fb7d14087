//! E-books (`.epub`, EPUB 2 and 3): the package document named by
//! `META-INF/container.xml` lists the book's files (its manifest) and their
//! reading order (its spine; a book zipped with its folder, everything
//! under `epub/`, is read from that folder); each chapter in the spine is XHTML, read by
//! the HTML extractor, its headings, paragraphs, lists and tables kept, one
//! after another in one canonical text cited by `#char`. The title is the
//! package's `dc:title`.
//!
//! Left out: spine items marked `linear="no"` (notes and pop-ups read out of
//! order), the navigation document unless the spine lists it, styles,
//! images and fonts. A book whose chapters are encrypted (DRM, listed in
//! `META-INF/encryption.xml`) fails as such; obfuscated fonts do not count.
//!
//! Hostile input: the archive's declared size is checked before anything is
//! inflated, chapters count against [`Limits::max_pages`] and their nesting
//! against [`Limits::max_nesting`].

use crate::word::xml::{Flow, attr, reference};
use crate::{ExtractError, Limits, TextBuilder, fallback_title};
use quick_xml::XmlVersion;
use quick_xml::events::Event;
use ragpipe_core::{Document, Kind};
use std::collections::HashMap;

pub(crate) fn extract(name: &str, bytes: &[u8], limits: &Limits) -> Result<Document, ExtractError> {
    if !bytes.starts_with(b"PK") {
        return Err(malformed("not an EPUB file (no zip archive)"));
    }
    let mut zip = crate::archive::open(bytes, limits.max_decompressed_bytes, "e-book", malformed)?;
    let root = book_root(&zip).ok_or_else(|| malformed("no META-INF/container.xml"))?;
    let container_path = format!("{root}{CONTAINER}");
    let container = crate::archive::text(&mut zip, &container_path, malformed)?
        .ok_or_else(|| malformed("no META-INF/container.xml"))?;
    let opf_path = first_attr(&container, &container_path, "rootfile", "full-path")?
        .map(|path| format!("{root}{}", path.trim_start_matches('/')))
        .ok_or_else(|| malformed("META-INF/container.xml names no package document"))?;
    let opf = crate::archive::text(&mut zip, &opf_path, malformed)?
        .ok_or_else(|| malformed(&format!("no package document {opf_path}")))?;
    let package = Package::read(&opf, &opf_path)?;
    if package.chapters.len() > limits.max_pages as usize {
        let n = package.chapters.len();
        return Err(ExtractError::Limit(format!("{n} chapters exceeds max_pages {}", limits.max_pages)));
    }
    if let Some(encryption) = crate::archive::text(&mut zip, &format!("{root}META-INF/encryption.xml"), malformed)? {
        let encrypted = encrypted_entries(&encryption)?;
        if package.chapters.iter().any(|c| encrypted.iter().any(|e| c.strip_prefix(&root) == Some(e))) {
            return Err(ExtractError::Malformed("encrypted e-book (DRM)".into()));
        }
    }
    let mut b = TextBuilder::new();
    for path in &package.chapters {
        let Some(xhtml) = crate::archive::text(&mut zip, path, malformed)? else {
            return Err(malformed(&format!("the spine's {path} is not in the archive")));
        };
        crate::html::check_nesting(&xhtml, limits.max_nesting)?;
        b.append(&crate::html::extract(path, &xhtml), 0);
    }
    Ok(b.build(package.title.unwrap_or_else(|| fallback_title(name)), Kind::Ebook))
}

/// Where a book names its package document, under the book's folder.
const CONTAINER: &str = "META-INF/container.xml";

/// The folder the book's files are in: the archive's root, where the
/// standard puts `META-INF/container.xml`, or the one folder holding it when
/// a book's folder was zipped whole (`epub/META-INF/container.xml`,
/// `epub/OEBPS/…`, as Debian's `debian-edu-doc` manuals ship); then every
/// path the book names is under that folder. `None` when no container is
/// anywhere.
fn book_root(zip: &crate::archive::Zip<'_>) -> Option<String> {
    zip.file_names()
        .filter_map(|name| Some(name.ok()?.strip_suffix(CONTAINER)?.to_string()))
        .filter(|root| root.is_empty() || root.ends_with('/'))
        .min_by_key(String::len)
}

fn malformed(reason: &str) -> ExtractError {
    ExtractError::Malformed(format!("malformed e-book: {reason}"))
}

/// The value of attribute `name` on the first `element` of `xml`.
fn first_attr(xml: &str, part: &str, element: &str, name: &str) -> Result<Option<String>, ExtractError> {
    let mut flow = Flow::new(xml, part, &[]);
    while let Some(event) = flow.next()? {
        if let Event::Start(e) | Event::Empty(e) = event
            && e.local_name().as_ref() == element
        {
            return Ok(attr(&e, name));
        }
    }
    Ok(None)
}

/// What the package document says: the title and the chapters' paths in the
/// archive, in reading order.
struct Package {
    title: Option<String>,
    chapters: Vec<String>,
}

impl Package {
    fn read(opf: &str, opf_path: &str) -> Result<Package, ExtractError> {
        let dir = opf_path.rsplit_once('/').map_or("", |(dir, _)| dir);
        let mut flow = Flow::new(opf, opf_path, &[]);
        // id -> (path in the archive, media type)
        let mut manifest: HashMap<String, (String, String)> = HashMap::new();
        let mut spine: Vec<String> = Vec::new();
        let (mut title, mut in_title) = (None::<String>, false);
        while let Some(event) = flow.next()? {
            match event {
                Event::Start(e) | Event::Empty(e) => match e.local_name().as_ref() {
                    "title" if title.is_none() => in_title = true,
                    "item" => {
                        if let (Some(id), Some(href)) = (attr(&e, "id"), attr(&e, "href")) {
                            let href = percent_decoded(href.split('#').next().unwrap_or_default());
                            let media = attr(&e, "media-type").unwrap_or_default();
                            manifest.insert(id, (crate::archive::resolve(dir, &href), media));
                        }
                    }
                    "itemref" if attr(&e, "linear").as_deref() != Some("no") => spine.extend(attr(&e, "idref")),
                    _ => {}
                },
                Event::Text(t) if in_title => {
                    title.get_or_insert_default().push_str(&t.xml_content(XmlVersion::Implicit1_0))
                }
                Event::GeneralRef(r) if in_title => {
                    title.get_or_insert_default().push_str(&reference(&r).unwrap_or_default())
                }
                Event::End(e) if e.local_name().as_ref() == "title" => in_title = false,
                _ => {}
            }
        }
        let chapters = spine
            .iter()
            .filter_map(|id| manifest.get(id))
            .filter(|(_, media)| matches!(media.as_str(), "application/xhtml+xml" | "text/html"))
            .map(|(path, _)| path.clone())
            .collect();
        let title = title.map(|t| t.split_whitespace().collect::<Vec<_>>().join(" ")).filter(|t| !t.is_empty());
        Ok(Package { title, chapters })
    }
}

/// The archive paths `META-INF/encryption.xml` lists as encrypted, except
/// those obfuscated by the IDPF's or Adobe's font algorithm (fonts mangled
/// against copying, not DRM: the text stays readable).
fn encrypted_entries(xml: &str) -> Result<Vec<String>, ExtractError> {
    let mut flow = Flow::new(xml, "META-INF/encryption.xml", &[]);
    let (mut out, mut obfuscated) = (Vec::new(), false);
    while let Some(event) = flow.next()? {
        let (Event::Start(e) | Event::Empty(e)) = event else { continue };
        match e.local_name().as_ref() {
            "EncryptedData" => obfuscated = false,
            "EncryptionMethod" => {
                let algorithm = attr(&e, "Algorithm").unwrap_or_default();
                obfuscated = FONT_OBFUSCATION.contains(&algorithm.as_str());
            }
            "CipherReference" if !obfuscated => out.extend(attr(&e, "URI").map(|u| percent_decoded(&u))),
            _ => {}
        }
    }
    Ok(out)
}

/// The font obfuscation algorithms of the IDPF and of Adobe.
const FONT_OBFUSCATION: &[&str] = &["http://www.idpf.org/2008/embedding", "http://ns.adobe.com/pdf/enc#RC"];

/// `%20`-style escapes of an href decoded (EPUB hrefs are URLs); a broken
/// escape is kept as written.
fn percent_decoded(href: &str) -> String {
    percent_encoding::percent_decode_str(href).decode_utf8_lossy().into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hrefs_are_percent_decoded() {
        assert_eq!(percent_decoded("Text/chapter%201.xhtml"), "Text/chapter 1.xhtml");
        assert_eq!(percent_decoded("caf%C3%A9.xhtml"), "café.xhtml");
        assert_eq!(percent_decoded("100%.xhtml"), "100%.xhtml");
    }

    #[test]
    fn the_spine_orders_the_chapters_and_skips_what_is_not_linear() {
        let opf = r#"<package xmlns="http://www.idpf.org/2007/opf" xmlns:dc="http://purl.org/dc/elements/1.1/">
            <metadata><dc:title>Field  Guide &amp; Notes</dc:title></metadata>
            <manifest><item id="b" href="Text/b%20two.xhtml" media-type="application/xhtml+xml"/>
              <item id="a" href="Text/a.xhtml#top" media-type="application/xhtml+xml"/>
              <item id="n" href="notes.xhtml" media-type="application/xhtml+xml"/>
              <item id="css" href="style.css" media-type="text/css"/></manifest>
            <spine><itemref idref="a"/><itemref idref="n" linear="no"/><itemref idref="css"/><itemref idref="b"/></spine>
            </package>"#;
        let p = Package::read(opf, "OEBPS/content.opf").unwrap();
        assert_eq!(p.title.as_deref(), Some("Field Guide & Notes"));
        assert_eq!(p.chapters, ["OEBPS/Text/a.xhtml", "OEBPS/Text/b two.xhtml"]);
    }

    #[test]
    fn obfuscated_fonts_are_not_drm() {
        let xml = r#"<encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container" xmlns:enc="http://www.w3.org/2001/04/xmlenc#">
            <enc:EncryptedData><enc:EncryptionMethod Algorithm="http://www.idpf.org/2008/embedding"/>
              <enc:CipherData><enc:CipherReference URI="fonts/a.otf"/></enc:CipherData></enc:EncryptedData>
            <enc:EncryptedData><enc:EncryptionMethod Algorithm="http://ns.adobe.com/pdf/enc#RC"/>
              <enc:CipherData><enc:CipherReference URI="fonts/b.ttf"/></enc:CipherData></enc:EncryptedData>
            <enc:EncryptedData><enc:EncryptionMethod Algorithm="http://www.w3.org/2001/04/xmlenc#aes128-cbc"/>
              <enc:CipherData><enc:CipherReference URI="OEBPS/ch%201.xhtml"/></enc:CipherData></enc:EncryptedData>
            </encryption>"#;
        assert_eq!(encrypted_entries(xml).unwrap(), ["OEBPS/ch 1.xhtml"]);
    }
}
