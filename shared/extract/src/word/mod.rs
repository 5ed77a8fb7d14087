//! Word-processor documents: Office Open XML (`.docx`, `.docm`, as Word and
//! LibreOffice write them), OpenDocument text (`.odt`), Rich Text Format
//! (`.rtf`) and legacy Word 97-2003 (`.doc`, [`doc`]).
//!
//! The first two are zip archives of XML read as a stream (`quick-xml`), RTF
//! a stream of tokens, so a deep or huge document costs no recursion and
//! nothing is held but the text. Each format's reader ([`docx`], [`odt`],
//! [`rtf`]) turns its elements into the events of
//! a [`Writer`]: paragraphs (heading, list item or body text), line breaks
//! and tables of rows of cells. Headings become
//! [`ragpipe_core::BlockKind::Heading`] blocks (so chunks carry their section
//! path), list items [`ragpipe_core::BlockKind::ListItem`], and tables the
//! same [`ragpipe_core::BlockKind::TableRow`] lines as an HTML table, whose
//! header row every chunk of the table repeats. A table nested in a cell
//! reads as that cell's text.
//!
//! Left out, as a reader of the page would not see them in the flow: deleted
//! text of tracked changes, comments, field codes (their results are kept),
//! and the fallback copy of a drawing's text box. Footnotes, page headers and
//! footers are not read. Nor are the lines a word processor generates for a
//! table of contents, an alphabetical index or a table of figures
//! ([`generated_listing`]): they repeat the document's headings and words
//! beside page numbers, and a chunk of them would stand in the search
//! results for every section it names.
//!
//! Hostile input: the archive's declared size is checked against
//! [`crate::Limits::max_decompressed_bytes`] before anything is inflated, rows
//! count against [`crate::Limits::max_rows`], and paragraphs nested in
//! paragraphs (text boxes) against [`crate::Limits::max_nesting`].

mod doc;
mod docx;
mod odt;
mod rtf;
pub(crate) mod xml;

use crate::{ExtractError, Limits, TextBuilder, fallback_title};
use ragpipe_core::{BlockKind, Document, Kind};

pub(crate) fn extract(name: &str, bytes: &[u8], limits: &Limits) -> Result<Document, ExtractError> {
    let mut w = Writer::new(limits);
    let title = if bytes.starts_with(b"{\\rtf") {
        rtf::read(bytes, limits, &mut w)?
    } else if bytes.starts_with(crate::COMPOUND_FILE) {
        doc::read(bytes, &mut w)?
    } else if bytes.starts_with(b"PK") {
        zipped(bytes, limits, &mut w)?
    } else if let Some(flat) = crate::package::flat_odf(bytes) {
        let flat = flat?;
        // Its charts are inline, not packaged objects: their data tables
        // read as the document's own tables.
        odt::read(flat, "flat XML", &std::collections::HashMap::new(), &mut w)?;
        xml::title(flat)
    } else {
        return Err(malformed(
            "not a docx, odt, fodt, rtf or doc file (no zip archive, flat OpenDocument, RTF header or OLE compound file)",
        ));
    };
    Ok(w.build(title, name, Kind::Word))
}

/// A docx or odt: its body into `w`; returns the title its properties name.
fn zipped(bytes: &[u8], limits: &Limits, w: &mut Writer) -> Result<Option<String>, ExtractError> {
    let mut zip = crate::archive::open(bytes, limits.max_decompressed_bytes, "document", malformed)?;
    if let Some(body) = crate::archive::text(&mut zip, "word/document.xml", malformed)? {
        let styles = crate::archive::text(&mut zip, "word/styles.xml", malformed)?;
        let mut charts = docx::Charts::new();
        for (id, (kind, part)) in crate::package::relationships(&mut zip, "word/document.xml")? {
            if kind == "chart"
                && let Some(xml) = crate::archive::text(&mut zip, &part, malformed)?
            {
                charts.insert(id, (part, xml));
            }
        }
        docx::read(&body, styles.as_deref(), &charts, w)?;
        Ok(crate::archive::text(&mut zip, "docProps/core.xml", malformed)?.and_then(|core| xml::title(&core)))
    } else if let Some(body) = crate::archive::text(&mut zip, "content.xml", malformed)? {
        odt::read(&body, "content.xml", &crate::package::embedded_objects(&mut zip)?, w)?;
        Ok(crate::archive::text(&mut zip, "meta.xml", malformed)?.and_then(|meta| xml::title(&meta)))
    } else {
        Err(malformed("zip archive holds no word/document.xml or content.xml"))
    }
}

/// Charts met inside a paragraph or a table, held until it ends: a chart
/// is written as a paragraph and a table, which cannot stand inside a
/// paragraph or a table's cell.
#[derive(Default)]
pub(crate) struct Held {
    /// How each chart is found (a relationship id, an object's href).
    pub(crate) keys: Vec<String>,
    /// Tables open around the reader.
    pub(crate) tables: u32,
}

impl Held {
    /// Writes the held charts with `read`, unless a table is still open.
    pub(crate) fn write<'l>(
        &mut self,
        w: &mut Writer<'l>,
        read: impl Fn(&str, &mut Writer<'l>) -> Result<(), ExtractError>,
    ) -> Result<(), ExtractError> {
        if self.tables == 0 {
            for key in std::mem::take(&mut self.keys) {
                read(&key, w)?;
            }
        }
        Ok(())
    }
}

/// `malformed document: …`, the failure for a file that is not a readable
/// docx, odt, pptx or odp.
pub(crate) fn malformed(reason: &str) -> ExtractError {
    ExtractError::Malformed(format!("malformed document: {reason}"))
}

/// What a paragraph is, as its reader tells from its style.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Para {
    Body,
    /// The document's title line (a `Title` style): a level-1 heading, and
    /// the title when the file's properties name none.
    Title,
    Heading(u8),
    ListItem,
    /// A line of a generated table of contents or index: left out.
    Generated,
}

/// Whether a paragraph style is one a word processor gives the lines it
/// generates for a table of contents, an alphabetical index or a table of
/// figures: Word's `toc 1`, `TOC Heading`, `index 2`, `Index Heading`,
/// `table of figures`; LibreOffice's `Contents 1`, `Contents Heading`,
/// `Illustration Index 1`, … — in any spelling a file uses for a style's name
/// or id (`TOC1`, `Contents_20_1`). An entry style needs its level number,
/// so LibreOffice's `Index` (the family's parent) and `Table Contents` (a
/// table cell's text) stay body text.
pub(crate) fn generated_listing(style: &str) -> bool {
    let name: String = style.replace("_20_", "").to_lowercase().chars().filter(|c| !c.is_whitespace()).collect();
    let base = name.trim_end_matches(|c: char| c.is_ascii_digit());
    let numbered = base.len() < name.len();
    const ENTRIES: [&str; 8] =
        ["toc", "contents", "index", "userindex", "illustrationindex", "figureindex", "tableindex", "objectindex"];
    const WHOLE: [&str; 4] = ["tableoffigures", "tableofauthorities", "toaheading", "indexseparator"];
    (numbered && ENTRIES.contains(&base))
        || base.strip_suffix("heading").is_some_and(|b| ENTRIES.contains(&b))
        || WHOLE.contains(&base)
}

/// Builds the canonical text from a reader's events. Paragraphs are held
/// until they end (a text box's paragraphs open inside another's); inside a
/// table a paragraph's text goes to its cell instead.
pub(crate) struct Writer<'l> {
    b: TextBuilder,
    limits: &'l Limits,
    open: Vec<(Para, String)>,
    /// Tables entered (nested ones count), and the outermost one's rows.
    tables: u32,
    row: Option<(bool, Vec<String>)>,
    rows: u32,
    rows_read: u64,
    title_paragraph: Option<String>,
}

impl<'l> Writer<'l> {
    pub(crate) fn new(limits: &'l Limits) -> Self {
        Writer {
            b: TextBuilder::new(),
            limits,
            open: Vec::new(),
            tables: 0,
            row: None,
            rows: 0,
            rows_read: 0,
            title_paragraph: None,
        }
    }

    /// The document: titled by `title` (the file's properties), else by its
    /// first title paragraph, else by its file name.
    pub(crate) fn build(mut self, title: Option<String>, name: &str, kind: Kind) -> Document {
        let title = title.or(self.title_paragraph.take()).unwrap_or_else(|| fallback_title(name));
        self.b.build(title, kind)
    }

    /// What is written from now on is on page `page` (a slide).
    pub(crate) fn set_page(&mut self, page: u32) {
        self.b.set_page(page);
    }

    pub(crate) fn start_paragraph(&mut self, kind: Para) -> Result<(), ExtractError> {
        if self.open.len() as u32 >= self.limits.max_nesting {
            return Err(ExtractError::Limit(format!(
                "paragraphs nested more than {} deep (max_nesting)",
                self.limits.max_nesting
            )));
        }
        self.open.push((kind, String::new()));
        Ok(())
    }

    /// Text of the innermost open paragraph (outside any, it is dropped:
    /// a stray run is not part of the flow).
    pub(crate) fn text(&mut self, s: &str) {
        if let Some((_, t)) = self.open.last_mut() {
            t.push_str(s);
        }
    }

    pub(crate) fn line_break(&mut self) {
        self.text("\n");
    }

    /// A paragraph's kind, once its properties have been read.
    pub(crate) fn set_kind(&mut self, kind: Para) {
        if let Some((k, _)) = self.open.last_mut() {
            *k = kind;
        }
    }

    pub(crate) fn kind(&self) -> Option<Para> {
        self.open.last().map(|(k, _)| *k)
    }

    pub(crate) fn end_paragraph(&mut self) {
        let Some((kind, text)) = self.open.pop() else { return };
        let block = match kind {
            Para::Generated => return,
            Para::Body => BlockKind::Paragraph,
            Para::ListItem => BlockKind::ListItem,
            Para::Heading(level) => BlockKind::Heading { level: level.clamp(1, 6) },
            Para::Title => BlockKind::Heading { level: 1 },
        };
        if let Some((_, cells)) = self.row.as_mut() {
            if let Some(cell) = cells.last_mut() {
                cell.push(' ');
                cell.push_str(&text);
            }
            return;
        }
        if text.trim().is_empty() {
            return;
        }
        if kind == Para::Title {
            self.title_paragraph.get_or_insert_with(|| one_line(&text));
        }
        let heading = matches!(block, BlockKind::Heading { .. });
        self.b.start(block);
        if heading {
            self.b.inline(&text.replace('\n', " "));
        } else {
            for (i, line) in text.split('\n').filter(|l| !l.trim().is_empty()).enumerate() {
                if i > 0 {
                    self.b.line_break();
                }
                self.b.inline(line);
            }
        }
        self.b.finish();
    }

    pub(crate) fn start_table(&mut self) {
        self.tables += 1;
        if self.tables == 1 {
            self.b.begin_table("", 1);
            self.rows = 0;
        }
    }

    pub(crate) fn end_table(&mut self) {
        self.tables = self.tables.saturating_sub(1);
        if self.tables == 0 {
            self.b.end_table();
        }
    }

    /// A row of the outermost table; `header` when the file marks it as a
    /// heading row repeated on each page.
    pub(crate) fn start_row(&mut self, header: bool) {
        if self.tables == 1 {
            self.row = Some((header, Vec::new()));
        }
    }

    pub(crate) fn mark_header_row(&mut self) {
        if let (1, Some((header, _))) = (self.tables, self.row.as_mut()) {
            *header = true;
        }
    }

    pub(crate) fn start_cell(&mut self) {
        if let (1, Some((_, cells))) = (self.tables, self.row.as_mut()) {
            cells.push(String::new());
        }
    }

    /// Ends a row of the outermost table. Without any row marked as a
    /// heading row, a table's first row is its header (as Word and
    /// LibreOffice draw tables by default).
    pub(crate) fn end_row(&mut self) -> Result<(), ExtractError> {
        if self.tables != 1 {
            return Ok(());
        }
        let Some((marked, cells)) = self.row.take() else { return Ok(()) };
        self.rows_read += 1;
        if self.rows_read > self.limits.max_rows {
            return Err(ExtractError::Limit(format!("more than {} table rows (max_rows)", self.limits.max_rows)));
        }
        self.rows += 1;
        let header = marked || self.rows == 1;
        self.b.table_row(self.rows, header, cells.iter().map(String::as_str));
        Ok(())
    }
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_docx(xml: &str) -> Document {
        let limits = Limits::default();
        let mut w = Writer::new(&limits);
        docx::read(xml, None, &docx::Charts::new(), &mut w).unwrap();
        w.b.build("t".into(), Kind::Word)
    }

    #[test]
    fn generated_listings_are_told_by_their_style_in_any_spelling() {
        for style in [
            "toc 1",
            "TOC 9",
            "TOC2",
            "TOC Heading",
            "index 1",
            "Index Heading",
            "table of figures",
            "Contents 1",
            "Contents_20_2",
            "Contents Heading",
            "Illustration Index 1",
            "Index_20_Separator",
        ] {
            assert!(generated_listing(style), "{style}");
        }
        for style in ["Index", "Table Contents", "Table_20_Contents", "Heading 1", "Normal", "Bibliography 1", "P5"] {
            assert!(!generated_listing(style), "{style}");
        }
    }

    #[test]
    fn entities_are_never_expanded_beyond_xml_s_own() {
        // An external entity and a billion-laughs seed: quick-xml reads no
        // DTD, so both stay unexpanded references and are dropped.
        let xml = r#"<?xml version="1.0"?>
            <!DOCTYPE d [<!ENTITY xxe SYSTEM "file:///etc/passwd"><!ENTITY lol "lol">]>
            <w:document xmlns:w="w"><w:body>
            <w:p><w:r><w:t>before &xxe; &lol; &amp; &#x263A; after</w:t></w:r></w:p>
            </w:body></w:document>"#;
        let doc = read_docx(xml);
        assert_eq!(doc.text, "before & \u{263A} after");
    }

    #[test]
    fn paragraphs_nested_past_the_limit_fail() {
        let limits = Limits { max_nesting: 3, ..Limits::default() };
        let mut w = Writer::new(&limits);
        let deep = format!("<w:body>{}{}</w:body>", "<w:p>".repeat(5), "</w:p>".repeat(5));
        let err = docx::read(&deep, None, &docx::Charts::new(), &mut w).unwrap_err();
        assert_eq!(err.to_string(), "limit exceeded: paragraphs nested more than 3 deep (max_nesting)");
    }
}
