//! Slide decks: Office Open XML presentations (`.pptx`, `.pptm`, `.ppsx`, as
//! PowerPoint, LibreOffice and python-pptx write them), OpenDocument
//! presentations (`.odp`) and legacy PowerPoint 97-2003 decks (`.ppt`,
//! [`ppt`]).
//!
//! Each slide is a page: its blocks carry the slide's 1-based number in the
//! deck, which chunks cite as `#page=N` (the page of the deck printed or
//! saved as PDF), and the prose chunker never lets a chunk span two slides.
//! A slide opens with a level-1 heading, its title (the title placeholder's
//! text, wherever the shape stands in the slide), or `Slide N` when it has
//! none, so every chunk's section path names its slide. Then come the
//! slide's other text in shape order (text boxes and placeholders, shapes in
//! groups, tables with their first row as header, as in the word-processor
//! readers whose [`Writer`] this shares), then its speaker notes.
//!
//! Left out, as they are not the slide's words: slide numbers, dates,
//! footers and headers (placeholders repeated from the master), the slide
//! image of a notes page, comments, and the fallback copy of a drawing.
//! A chart is read from its data, as a table: a pptx's from the values its
//! part caches, after the slide's text, an odp's from its embedded object's
//! local table, where the slide places it ([`crate::chart`]). SmartArt is not read.
//!
//! Hostile input: as for word-processor documents, the archive's declared
//! size is checked before anything is inflated; slides count against
//! [`crate::Limits::max_pages`], table rows against
//! [`crate::Limits::max_rows`].

mod odp;
mod ppt;
mod pptx;

use crate::word::xml::title as properties_title;
use crate::word::{Para, Writer, malformed};
use crate::{ExtractError, Limits};
use ragpipe_core::{Document, Kind};

pub(crate) fn extract(name: &str, bytes: &[u8], limits: &Limits) -> Result<Document, ExtractError> {
    let mut w = Writer::new(limits);
    if bytes.starts_with(crate::COMPOUND_FILE) {
        let title = ppt::read(bytes, &mut w, limits)?;
        return Ok(w.build(title, name, Kind::Presentation));
    }
    if let Some(flat) = crate::package::flat_odf(bytes) {
        let flat = flat?;
        odp::read(flat, "flat XML", &std::collections::HashMap::new(), &mut w, limits)?;
        return Ok(w.build(properties_title(flat), name, Kind::Presentation));
    }
    if !bytes.starts_with(b"PK") {
        return Err(malformed(
            "not a pptx, odp, fodp or ppt file (no zip archive, flat OpenDocument or OLE compound file)",
        ));
    }
    let mut zip = crate::archive::open(bytes, limits.max_decompressed_bytes, "presentation", malformed)?;
    let title = if let Some(presentation) = crate::archive::text(&mut zip, "ppt/presentation.xml", malformed)? {
        pptx::read(&mut zip, &presentation, &mut w, limits)?;
        crate::archive::text(&mut zip, "docProps/core.xml", malformed)?.and_then(|core| properties_title(&core))
    } else if let Some(content) = crate::archive::text(&mut zip, "content.xml", malformed)? {
        let objects = crate::package::embedded_objects(&mut zip)?;
        odp::read(&content, "content.xml", &objects, &mut w, limits)?;
        crate::archive::text(&mut zip, "meta.xml", malformed)?.and_then(|meta| properties_title(&meta))
    } else {
        return Err(malformed("zip archive holds no ppt/presentation.xml or content.xml"));
    };
    Ok(w.build(title, name, Kind::Presentation))
}

/// Fails a deck of more than `max_pages` slides before any is read.
fn check_slides(count: usize, limits: &Limits) -> Result<(), ExtractError> {
    if count > limits.max_pages as usize {
        return Err(ExtractError::Limit(format!("{count} slides exceeds max_pages {}", limits.max_pages)));
    }
    Ok(())
}

/// Starts slide `number`: its page, and its heading (`title`, or `Slide N`
/// for a slide without one). The first titled slide names the deck when
/// its properties do not.
fn begin_slide(w: &mut Writer<'_>, number: u32, title: &str) -> Result<(), ExtractError> {
    w.set_page(number);
    let title = title.split_whitespace().collect::<Vec<_>>().join(" ");
    if title.is_empty() {
        w.start_paragraph(Para::Heading(1))?;
        w.text(&format!("Slide {number}"));
    } else {
        w.start_paragraph(Para::Title)?;
        w.text(&title);
    }
    w.end_paragraph();
    Ok(())
}

/// What the text of a shape is to the reader of a slide.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Role {
    /// The slide's title: written once, as its heading.
    Title,
    /// Words on the slide (or in its notes).
    Text,
    /// Furniture: slide number, date, footer, header, the notes page's
    /// slide image.
    Furniture,
}

/// Reads shapes as slide text or as its title, one of the two per pass.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Pass {
    Title,
    Text,
}

impl Pass {
    /// Whether a paragraph of a shape of `role` is read in this pass.
    fn reads(self, role: Role) -> bool {
        matches!((self, role), (Pass::Title, Role::Title) | (Pass::Text, Role::Text))
    }

    /// Writes text read in this pass: the slide's words into `w`, a title's
    /// into `title` (`None` before the first slide). `"\n"` is a line break.
    fn write(self, w: &mut Writer<'_>, title: Option<&mut String>, s: &str) {
        match (self, title) {
            (Pass::Text, _) if s == "\n" => w.line_break(),
            (Pass::Text, _) => w.text(s),
            (Pass::Title, Some(title)) => title.push_str(s),
            (Pass::Title, None) => {}
        }
    }

    /// Ends a paragraph read in this pass: a title's paragraphs are joined
    /// by line breaks (and later by spaces, in [`begin_slide`]).
    fn end_paragraph(self, w: &mut Writer<'_>, title: Option<&mut String>) {
        match self {
            Pass::Text => w.end_paragraph(),
            Pass::Title => self.write(w, title, "\n"),
        }
    }
}
