//! Legacy Word 97-2003 documents (`.doc`: an OLE compound file holding the
//! FIB, the piece table and property runs), decoded by `rwml` into its
//! document model and written as the other readers write: paragraphs by
//! their heading level (outline level or heading style), `Title` style and
//! list membership, tables with their header rows.
//!
//! Left out, as in [`super`]: footnotes, endnotes, comments, headers and
//! footers (the model's regions other than the main text and text boxes),
//! hidden text, deleted text of tracked changes, pictures and charts, and
//! the lines of a generated table of contents or index (by their style).
//! `rwml` is young and parses a binary format: a panic in it is a malformed
//! file, not a crashed worker ([`crate::unpanicked`]).

use super::{Para, Writer, malformed};
use crate::ExtractError;
use rwml::{Block, Paragraph, RevisionKind, SourceRegionKind, Table};

/// Reads a `.doc` into `w`; returns the title its properties name.
pub(crate) fn read(bytes: &[u8], w: &mut Writer) -> Result<Option<String>, ExtractError> {
    let model = crate::unpanicked(|| rwml::Document::open(bytes).map(|d| d.model()))
        .map_err(|panic| malformed(&format!("the .doc parser stopped on it: {panic}")))?
        .map_err(|e| match e {
            rwml::Error::Encrypted { .. } => ExtractError::Malformed("encrypted Word document".into()),
            rwml::Error::NoText => ExtractError::NoText,
            rwml::Error::UnsupportedVersion(_) => ExtractError::Unsupported(format!("{e} (save it as .docx)")),
            e => malformed(&format!("legacy Word file: {e}")),
        })?;
    // Blocks outside the main text and its text boxes (notes, headers,
    // comments) are not part of the page's flow.
    let aside = |i: usize| {
        model.regions.iter().any(|r| {
            (r.block_start..r.block_end).contains(&i)
                && !matches!(r.kind, SourceRegionKind::Main | SourceRegionKind::TextBox)
        })
    };
    for (i, block) in model.blocks.iter().enumerate() {
        if !aside(i) {
            self::block(block, w)?;
        }
    }
    Ok(model.setup.title.map(|t| t.split_whitespace().collect::<Vec<_>>().join(" ")).filter(|t| !t.is_empty()))
}

fn block(block: &Block, w: &mut Writer) -> Result<(), ExtractError> {
    match block {
        Block::Paragraph(p) => paragraph(p, w),
        Block::Table(t) => table(t, w),
        _ => Ok(()),
    }
}

fn paragraph(p: &Paragraph, w: &mut Writer) -> Result<(), ExtractError> {
    let style = p.props.style_name.as_deref().unwrap_or_default();
    let kind = match (p.props.heading_level, &p.props.list) {
        _ if super::generated_listing(style) => Para::Generated,
        (Some(level), _) => Para::Heading(level),
        _ if style.eq_ignore_ascii_case("title") => Para::Title,
        (None, Some(_)) => Para::ListItem,
        (None, None) => Para::Body,
    };
    w.start_paragraph(kind)?;
    for run in &p.runs {
        let deleted = run.revision.as_ref().is_some_and(|r| matches!(r.kind, RevisionKind::Deletion));
        if !run.props.hidden && !deleted {
            // Word's line break inside a paragraph is a vertical tab.
            w.text(&run.text.replace('\u{b}', "\n"));
        }
    }
    w.end_paragraph();
    Ok(())
}

fn table(t: &Table, w: &mut Writer) -> Result<(), ExtractError> {
    w.start_table();
    for (i, row) in t.rows.iter().enumerate() {
        w.start_row(i < t.header_rows || row.cells.iter().any(|c| c.is_header));
        for cell in &row.cells {
            w.start_cell();
            for b in &cell.blocks {
                block(b, w)?;
            }
        }
        w.end_row()?;
    }
    w.end_table();
    Ok(())
}
