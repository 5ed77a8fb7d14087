//! Extractors: bytes in, one canonical [`Document`] out. Each format keeps the
//! structure the chunkers need (headings, paragraphs, code) as blocks whose
//! byte ranges are recorded while the canonical text is written, so locators
//! are exact by construction. Extraction is synchronous and pure.

mod archive;
mod audio;
mod builder;
mod bundle;
mod chart;
mod code;
mod detect;
mod email;
mod embedded;
mod epub;
mod exports;
mod html;
mod hyphens;
mod markdown;
mod notebook;
mod ocr;
mod package;
mod pdf;
mod sheet;
mod slides;
mod text;
mod text_sections;
mod web_archive;
mod word;

use ragpipe_core::{Document, Kind};

pub use audio::{Cue, Transcriber};
pub use builder::TextBuilder;
pub use detect::{detect, extension, extensions_of, kind_for_name};
pub use ocr::{NO_TEXT_FOUND, OCR_DISABLED, PageReader};
pub use pdf::NO_TEXT_LAYER;

/// Bumped whenever any extractor's output for the same bytes can change (3:
/// e-mail HTML bodies keep their blocks apart and attachments are read; 4:
/// charts in decks are read as tables; 5: Opus sound and archives are read;
/// 6: transcripts name their speakers, `.ppt` charts and merged cells; 7:
/// text under any name, configuration files as code, Jupyter notebooks and
/// web archives, in archives and mail too, and legacy 8-bit text read as
/// Windows-1252; 8: an OpenDocument text's tracked deletions left in its
/// body stay out, and templates, flat OpenDocument files and GIF and BMP
/// scans are read; 9: a word a PDF or a scan breaks across two lines with a
/// hyphen is read whole, and flat OpenDocument spreadsheets are read; 10:
/// HTML pages lose their navigation bars, ARIA navigation landmarks and
/// heading permalinks, Markdown its badges, a PDF its table of contents'
/// and index's entries, and a code a PDF breaks with a hyphen is joined
/// where the document writes it whole; 11: a word processor's generated
/// table of contents, index and table of figures are left out, and so is
/// an HTML or Markdown page's own table of contents; documents indexed
/// before it are also chunked again by it, so a table cell too large for a
/// chunk is cut into pieces of whole sentences led by its row's key; 12: a
/// table laid out on a PDF page is read as rows of cells, its header over
/// the rows of the pages it goes on to; 13: a PDF's table of contents
/// without dot leaders, and an HTML export's contents written a paragraph
/// per entry, are left out; 14: so is a PDF's back-of-book index set
/// without leaders, `term, 3` in alphabetical order; 15: a PDF's running
/// header goes from a figure's page that holds nothing else and from front
/// matter numbered `ii`, `iii`, and a contents line whose number is set
/// against its title, `12.Upgrades 70`, goes with the rest of its page;
/// a title page's date or author heads no section; an HTML page's banner
/// link above its first heading, Publican's `Download the ebook`, is left
/// out; an EPUB zipped with its folder is read; 16: a PDF's code listing
/// set in fixed columns, LaTeX's `listings`, reads as typed,
/// `full-upgrade`, not `full - upgrade`; 17: a PDF's line at the body's
/// size numbered under a heading, `6.3.6.` under `6.3.`, is a heading;
/// 18: a text file's words broken at a line's end by `man`'s U+2010 are
/// read whole, `configu‐` / `ration`; 19: a text file's large sections
/// named in capitals at the margin, a manual page's `OPTIONS`, are headed;
/// 20: a web page, web archive or text named `.doc` or `.xls`, as
/// programs export for Word and Excel, is read as what it holds, Excel's
/// XML Spreadsheet 2003 is read as a workbook, and an HTML table with no
/// `<th>` is headed by a first row of words over a row holding a number).
pub const EXTRACTOR_VERSION: &str = "20";

/// The first bytes of an OLE compound file: a legacy binary Office file
/// (`.doc`, `.xls`, `.ppt`) or an Outlook `.msg`.
pub(crate) const COMPOUND_FILE: &[u8] = &[0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1];

/// Why a document could not be extracted. The messages are shown to admins
/// as the failure reason, so they say exactly what is wrong with the file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExtractError {
    #[error("empty file")]
    Empty,
    #[error("unsupported type: {0}")]
    Unsupported(String),
    #[error("not a text file: {0}")]
    NotText(String),
    #[error("no text content")]
    NoText,
    #[error("file too large: {size} bytes exceeds the limit of {limit} bytes")]
    TooLarge { size: u64, limit: u64 },
    #[error("content does not match extension: .{ext} file holds {actual}, not {expected}")]
    Mismatch { ext: String, actual: String, expected: &'static str },
    #[error("{0}")]
    Malformed(String),
    #[error("limit exceeded: {0}")]
    Limit(String),
}

/// Explicit limits on what one document may cost to extract; hitting one is
/// a failure whose reason names the limit. They cross the pipe to the
/// extraction child as they are (serde).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Limits {
    pub max_pages: u32,
    pub max_rows: u64,
    pub max_cells: u64,
    /// Bytes a compressed container (xlsx, ods, docx, odt, pptx, odp, an archive) may inflate to.
    pub max_decompressed_bytes: u64,
    pub max_duration_secs: f64,
    /// Bytes of canonical text one document may have.
    pub max_text_bytes: u64,
    /// Elements nested inside each other in an HTML page.
    pub max_nesting: u32,
    /// Pixels of one page image read by OCR (width × height).
    #[serde(default = "default_image_pixels")]
    pub max_image_pixels: u64,
    /// Whether an e-mail's attachments (an archive's files) are read into
    /// it. Off only for a second try of a message whose attachment took
    /// the first one down, and inside an attachment.
    #[serde(default = "yes")]
    pub read_attachments: bool,
}

fn yes() -> bool {
    true
}

fn default_image_pixels() -> u64 {
    50_000_000
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_pages: 5_000,
            max_rows: 1_000_000,
            max_cells: 20_000_000,
            max_decompressed_bytes: 1 << 30,
            max_duration_secs: 6.0 * 3600.0,
            max_text_bytes: 16 << 20,
            max_nesting: 1000,
            max_image_pixels: default_image_pixels(),
            read_attachments: true,
        }
    }
}

/// A transcript file found next to a media file (`talk.vtt` beside `talk.mp3`).
#[derive(Debug, Clone, Copy)]
pub struct Sidecar<'a> {
    pub name: &'a str,
    pub bytes: &'a [u8],
}

/// Extracts a document of a known kind with default limits. `name` is the
/// file name, used as the title when the document has none of its own.
pub fn extract(kind: Kind, name: &str, bytes: &[u8]) -> Result<Document, ExtractError> {
    extract_with(kind, name, bytes, None, &Limits::default())
}

/// Extracts a document, with a transcript sidecar for media and explicit limits.
pub fn extract_with(
    kind: Kind,
    name: &str,
    bytes: &[u8],
    sidecar: Option<Sidecar<'_>>,
    limits: &Limits,
) -> Result<Document, ExtractError> {
    extract_media(kind, name, bytes, sidecar, None, limits)
}

/// [`extract_with`] with speech recognition for media that have no sidecar
/// (`asr` None: such media fail as recognition disabled).
pub fn extract_media(
    kind: Kind,
    name: &str,
    bytes: &[u8],
    sidecar: Option<Sidecar<'_>>,
    asr: Option<&mut dyn Transcriber>,
    limits: &Limits,
) -> Result<Document, ExtractError> {
    extract_scanned(kind, name, bytes, sidecar, asr, None, limits)
}

/// [`extract_media`] with OCR for image files and PDF pages without a
/// text layer (`ocr` None: such documents fail as OCR disabled).
pub fn extract_scanned(
    kind: Kind,
    name: &str,
    bytes: &[u8],
    sidecar: Option<Sidecar<'_>>,
    asr: Option<&mut dyn Transcriber>,
    ocr: Option<&mut dyn PageReader>,
    limits: &Limits,
) -> Result<Document, ExtractError> {
    if bytes.is_empty() {
        return Err(ExtractError::Empty);
    }
    let mut doc = match kind {
        Kind::Html if web_archive::is_named(name) || exports::holds_web_archive(name, bytes) => {
            web_archive::extract(name, bytes, limits)?
        }
        Kind::Html => {
            let source = text::decode(bytes)?;
            html::check_nesting(&source, limits.max_nesting)?;
            html::extract(name, &source)
        }
        Kind::Markdown if extension(name) == "ipynb" => notebook::extract(name, &text::decode(bytes)?)?,
        Kind::Markdown => markdown::extract(name, &text::decode(bytes)?),
        Kind::Text if detect::unknown_extension(name) => {
            let mut doc = text::extract(name, &text::decode(bytes)?);
            doc.warnings.push(format!("read as plain text: .{} is not a type ragpipe knows", extension(name)));
            doc
        }
        Kind::Text => text::extract(name, &text::decode(bytes)?),
        Kind::Pdf => pdf::extract(name, bytes, ocr, limits)?,
        Kind::Image => ocr::extract_image(name, bytes, ocr, limits)?,
        Kind::Spreadsheet => sheet::extract(name, bytes, limits)?,
        Kind::Csv => sheet::extract_csv(name, bytes, limits)?,
        Kind::Code => code::extract(name, &text::decode(bytes)?)?,
        Kind::Audio => audio::extract(name, bytes, sidecar, asr, limits)?,
        Kind::Transcript => audio::transcript(name, bytes)?,
        Kind::Word => word::extract(name, bytes, limits)?,
        Kind::Presentation => slides::extract(name, bytes, limits)?,
        Kind::Email => email::extract(name, bytes, limits)?,
        Kind::Ebook => epub::extract(name, bytes, limits)?,
        Kind::Archive => bundle::extract(name, bytes, limits)?,
    };
    doc.warnings.extend(exports::warning(name, kind));
    if doc.blocks.iter().all(|b| matches!(b.kind, ragpipe_core::BlockKind::Heading { .. })) {
        return Err(ExtractError::NoText);
    }
    if doc.text.len() as u64 > limits.max_text_bytes {
        return Err(ExtractError::Limit(format!("canonical text over {} (max_text_mib)", mib(limits.max_text_bytes))));
    }
    Ok(doc)
}

/// The length in seconds of a media file, decoded whole (so a damaged file
/// fails here with the reason extraction would give): what the extraction
/// child measures before a transcription's limits are set.
pub fn media_duration(name: &str, bytes: &[u8], limits: &Limits) -> Result<f64, ExtractError> {
    if bytes.is_empty() {
        return Err(ExtractError::Empty);
    }
    audio::duration(name, bytes, limits)
}

/// A byte count as a person reads it in a reason: `16 MiB`, `1.5 MiB`.
pub(crate) fn mib(bytes: u64) -> String {
    let m = bytes as f64 / (1u64 << 20) as f64;
    if m.fract() == 0.0 { format!("{m:.0} MiB") } else { format!("{m:.1} MiB") }
}

/// The title to use when a document has none: the file name without extension.
pub(crate) fn fallback_title(name: &str) -> String {
    let base = name.rsplit('/').next().unwrap_or(name);
    base.rsplit_once('.').map_or(base, |(stem, _)| stem).to_string()
}

/// Runs a parser that is known to panic on some damaged files: a panic is
/// returned as its message (a malformed file, not a crashed worker). Aborts
/// (stack overflow, allocation failure) cannot be caught; the extraction
/// child's limits are for those.
pub(crate) fn unpanicked<T>(parse: impl FnOnce() -> T) -> Result<T, String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(parse)).map_err(|panic| panic_message(panic.as_ref()))
}

/// The message of a caught panic's payload (`panic!` with a literal or a
/// formatted string), for failure reasons an admin can read.
pub fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    let msg = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into());
    // One line: an assertion's `left: … right: …` lines become one reason.
    msg.split_whitespace().collect::<Vec<_>>().join(" ")
}
