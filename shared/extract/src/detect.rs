//! Deciding what a file is, from its content (magic bytes, via `infer`) and
//! its extension together. A file whose content contradicts its extension, or
//! whose type ragpipe cannot read, is refused with a reason that says so.

use crate::ExtractError;
use ragpipe_core::Kind;

/// Detects the kind of a file from its name and first bytes.
pub fn detect(name: &str, bytes: &[u8]) -> Result<Kind, ExtractError> {
    if bytes.is_empty() {
        return Err(ExtractError::Empty);
    }
    let ext = extension(name);
    let by_ext = kind_for_name(name);
    let mime = infer::get(bytes).map(|t| t.mime_type()).or_else(|| mpeg_audio(bytes).then_some("audio/mpeg"));
    let mismatch = |actual: &str, expected: Kind| {
        // Text under a legacy Office name is an export, read as what it holds.
        crate::exports::read_as(&ext, bytes).ok_or_else(|| ExtractError::Mismatch {
            ext: ext.clone(),
            actual: actual.into(),
            expected: expected.as_str(),
        })
    };
    if matches!(ext.as_str(), "xls" | "xml") && crate::sheet::xml2003::workbook(bytes).is_some() {
        // Excel's XML Spreadsheet 2003, saved as .xml by Excel, as .xls by others.
        return Ok(Kind::Spreadsheet);
    }
    match (by_ext, mime) {
        (Some(e), None) if text_like(e) => Ok(e),
        (Some(e), None) => mismatch(sniff_text(bytes), e),
        (Some(e), Some(m)) if kind_for_mime(m) == Some(e) || container_of(e, m) => Ok(e),
        (Some(e), Some(m)) if text_like(e) && m.starts_with("text/") => Ok(e),
        (Some(e), Some(m)) => mismatch(m, e),
        (None, Some("application/zip")) => {
            zipped_kind(bytes).ok_or_else(|| ExtractError::Unsupported("application/zip".into()))
        }
        (None, Some("application/x-ole-storage")) if outlook_message(bytes) => Ok(Kind::Email),
        (None, Some(m)) => kind_for_mime(m).ok_or_else(|| ExtractError::Unsupported(m.into())),
        (None, None) => unnamed_text(&ext, bytes),
    }
}

/// A file whose extension names no type ragpipe reads (or that has none),
/// and whose content has no magic number: read as plain text when the
/// content is text (a `README`, `notes.dat`), refused otherwise. Drawings
/// and lock files are text too, but not documents: they stay refused (PEM
/// keys and certificates have a magic number, `-----BEGIN`).
fn unnamed_text(ext: &str, bytes: &[u8]) -> Result<Kind, ExtractError> {
    if NOT_DOCUMENTS.contains(&ext) || !crate::text::is_text(bytes) {
        let what = if ext.is_empty() { "file without extension".to_string() } else { format!(".{ext}") };
        return Err(ExtractError::Unsupported(what));
    }
    Ok(Kind::Text)
}

/// Text formats that are not documents to read as plain text: drawings and
/// package managers' generated lock files (`Cargo.lock`, `yarn.lock`).
const NOT_DOCUMENTS: &[&str] = &["svg", "svgz", "lock"];

/// Whether `name` has an extension that names no type: a text document so
/// named was read as plain text only because its content is text.
pub(crate) fn unknown_extension(name: &str) -> bool {
    !extension(name).is_empty() && kind_for_name(name).is_none()
}

/// Build and container files named by convention rather than extension.
fn code_by_name(name: &str) -> Option<Kind> {
    const NAMES: &[&str] = &[
        "makefile",
        "gnumakefile",
        "dockerfile",
        "containerfile",
        "jenkinsfile",
        "vagrantfile",
        "gemfile",
        "rakefile",
        "procfile",
        "justfile",
        "brewfile",
    ];
    let base = name.rsplit('/').next().unwrap_or(name).to_ascii_lowercase();
    NAMES.contains(&base.as_str()).then_some(Kind::Code)
}

/// Whether `bytes` start with two consecutive MPEG audio Layer III frames:
/// an MP3 without an ID3 tag. `infer` knows only the ID3 tag and the MPEG-1
/// `FF FB` sync; MPEG-2 and 2.5 (`FF F3`, `FF E3`), a CRC-protected frame
/// (`FF FA`) and every bit rate are MP3 too. One valid header is 4 bytes
/// that noise matches by chance, so the next frame must follow where the
/// first one's length says (or the file end there: a one-frame file).
fn mpeg_audio(bytes: &[u8]) -> bool {
    let Some(len) = mp3_frame_len(bytes) else { return false };
    match bytes.get(len..) {
        Some([]) => true,
        Some(next) => mp3_frame_len(next).is_some(),
        None => false,
    }
}

/// The length in bytes of the Layer III frame whose header starts `b`.
fn mp3_frame_len(b: &[u8]) -> Option<usize> {
    let [0xFF, b1, b2, ..] = *b else { return None };
    let (version, layer) = ((b1 >> 3) & 3, (b1 >> 1) & 3);
    // Sync is 11 bits; version 01 is reserved; layer 01 is Layer III.
    if b1 & 0xE0 != 0xE0 || version == 1 || layer != 1 {
        return None;
    }
    let mpeg1 = version == 3;
    let kbps: [u32; 14] = if mpeg1 {
        [32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320]
    } else {
        [8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160]
    };
    let bitrate = *kbps.get(usize::from(b2 >> 4).checked_sub(1)?)? * 1000;
    let base: [u32; 3] = [44_100, 48_000, 32_000];
    let divisor = match version {
        3 => 1,
        2 => 2,
        _ => 4,
    };
    let rate = *base.get(usize::from((b2 >> 2) & 3))? / divisor;
    let per_frame = if mpeg1 { 144 } else { 72 };
    Some((per_frame * bitrate / rate + u32::from((b2 >> 1) & 1)) as usize)
}

/// Generic containers a format is stored in: OOXML and ODF documents are
/// zip files (or, flat, XML), `.xls`, `.doc`, `.ppt` and `.msg` are OLE compound files, which sniffing may report
/// as such; the spreadsheet reader then validates the inside.
fn container_of(kind: Kind, mime: &str) -> bool {
    match kind {
        // A flat OpenDocument file (`.fods`, `.fodt`, `.fodp`) is XML.
        Kind::Spreadsheet | Kind::Word | Kind::Presentation => {
            matches!(mime, "application/zip" | "application/x-ole-storage" | "text/xml")
        }
        Kind::Ebook => mime == "application/zip",
        Kind::Archive => matches!(mime, "application/zip" | "application/gzip" | "application/x-tar"),
        // An Outlook `.msg`; the e-mail reader tells it from a MIME one.
        Kind::Email => mime == "application/x-ole-storage",
        _ => false,
    }
}

/// What a zip archive without a telling extension holds, by the names of its
/// entries: an OOXML document, deck or workbook, or an ODF one or an EPUB by
/// its `mimetype` entry (a few bytes; no more are read).
fn zipped_kind(bytes: &[u8]) -> Option<Kind> {
    use std::io::Read;
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes)).ok()?;
    if zip.index_for_name("word/document.xml").is_some() {
        return Some(Kind::Word);
    }
    if zip.index_for_name("ppt/presentation.xml").is_some() {
        return Some(Kind::Presentation);
    }
    if zip.index_for_name("xl/workbook.xml").is_some() || zip.index_for_name("xl/workbook.bin").is_some() {
        return Some(Kind::Spreadsheet);
    }
    let mut mimetype = String::new();
    zip.by_name("mimetype").ok()?.take(128).read_to_string(&mut mimetype).ok()?;
    // A template (`…-template`) holds the same body as the document.
    match mimetype.trim().trim_end_matches("-template") {
        "application/vnd.oasis.opendocument.text" => Some(Kind::Word),
        "application/vnd.oasis.opendocument.spreadsheet" => Some(Kind::Spreadsheet),
        "application/vnd.oasis.opendocument.presentation" => Some(Kind::Presentation),
        "application/epub+zip" => Some(Kind::Ebook),
        _ => None,
    }
}

/// Whether an OLE compound file is an Outlook message: its directory names
/// the MAPI property stream every `.msg` has.
fn outlook_message(bytes: &[u8]) -> bool {
    holds_utf16(bytes, "__properties_version1.0")
}

/// Whether the UTF-16LE form of `name` (how OLE directory entries store
/// stream names) occurs in `bytes`.
pub(crate) fn holds_utf16(bytes: &[u8], name: &str) -> bool {
    let needle: Vec<u8> = name.encode_utf16().flat_map(u16::to_le_bytes).collect();
    bytes.windows(needle.len()).any(|w| w == needle)
}

/// The lowercase extension of a file name, without the dot.
pub fn extension(name: &str) -> String {
    let base = name.rsplit('/').next().unwrap_or(name);
    base.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase()).unwrap_or_default()
}

/// The kind a file name promises by its extension (or, for `Makefile`,
/// `Dockerfile` and the like, its whole name; content not checked): what
/// admin tools show for a document that failed before it was detected.
pub fn kind_for_name(name: &str) -> Option<Kind> {
    kind_for_extension(&extension(name)).or_else(|| code_by_name(name))
}

/// The extensions each kind's documents are named with (code aside).
const NAMED: &[(Kind, &[&str])] = &[
    (Kind::Html, &["html", "htm", "xhtml", "mht", "mhtml"]),
    (Kind::Markdown, &["md", "markdown", "mdown", "ipynb"]),
    (Kind::Text, &["txt", "text", "rst", "log", "adoc", "asciidoc", "org", "tex", "latex", "textile"]),
    (Kind::Pdf, &["pdf"]),
    (Kind::Image, &["png", "jpg", "jpeg", "tif", "tiff", "webp", "gif", "bmp"]),
    (Kind::Spreadsheet, &["xlsx", "xlsm", "xlsb", "xls", "ods", "xltx", "xltm", "xlt", "ots", "fods"]),
    (Kind::Csv, &["csv", "tsv"]),
    (Kind::Word, &["docx", "docm", "odt", "rtf", "doc", "dotx", "dotm", "dot", "ott", "fodt"]),
    (Kind::Presentation, &["pptx", "pptm", "ppsx", "ppsm", "odp", "ppt", "pps", "potx", "potm", "pot", "otp", "fodp"]),
    (Kind::Email, &["eml", "mbox", "msg"]),
    (Kind::Ebook, &["epub"]),
    (Kind::Transcript, &["vtt", "srt"]),
    (Kind::Archive, &["zip", "tar", "tgz", "gz"]),
    (
        Kind::Audio,
        &["wav", "mp3", "flac", "ogg", "oga", "opus", "m4a", "aac", "mp4", "m4v", "mov", "mkv", "mka", "webm"],
    ),
];

fn kind_for_extension(ext: &str) -> Option<Kind> {
    if let Some((kind, _)) = NAMED.iter().find(|(_, exts)| exts.contains(&ext)) {
        return Some(*kind);
    }
    crate::code::is_code_extension(ext).then_some(Kind::Code)
}

/// The (lowercase) extensions [`kind_for_name`] reads as `kind`: what a
/// filter by kind matches documents by before they were detected.
pub fn extensions_of(kind: Kind) -> Vec<&'static str> {
    match kind {
        Kind::Code => crate::code::EXTENSIONS.to_vec(),
        k => NAMED.iter().filter(|(n, _)| *n == k).flat_map(|(_, exts)| exts.iter().copied()).collect(),
    }
}

/// The kind a sniffed MIME type means, for types ragpipe reads.
fn kind_for_mime(mime: &str) -> Option<Kind> {
    Some(match mime {
        "application/pdf" => Kind::Pdf,
        "image/png" | "image/jpeg" | "image/tiff" | "image/webp" | "image/gif" | "image/bmp" => Kind::Image,
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
        | "application/vnd.ms-excel"
        | "application/vnd.oasis.opendocument.spreadsheet" => Kind::Spreadsheet,
        "audio/x-wav" | "audio/wav" | "audio/mpeg" | "audio/x-flac" | "audio/ogg" | "audio/opus" | "audio/m4a"
        | "audio/x-m4a" | "audio/aac" | "video/mp4" | "video/quicktime" | "video/x-m4v" | "video/x-matroska"
        | "video/webm" => Kind::Audio,
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
        | "application/vnd.oasis.opendocument.text"
        | "application/rtf"
        | "application/msword" => Kind::Word,
        "application/vnd.openxmlformats-officedocument.presentationml.presentation"
        | "application/vnd.oasis.opendocument.presentation"
        | "application/vnd.ms-powerpoint" => Kind::Presentation,
        "application/epub+zip" => Kind::Ebook,
        "application/gzip" | "application/x-tar" => Kind::Archive,
        "text/html" => Kind::Html,
        "text/x-shellscript" => Kind::Code,
        _ => return None,
    })
}

/// Formats whose content has no magic number of its own.
fn text_like(kind: Kind) -> bool {
    matches!(kind, Kind::Html | Kind::Markdown | Kind::Text | Kind::Csv | Kind::Code | Kind::Email | Kind::Transcript)
}

/// A coarse description of content with no magic number, for error messages.
fn sniff_text(bytes: &[u8]) -> &'static str {
    let head = String::from_utf8_lossy(&bytes[..bytes.len().min(512)]).to_ascii_lowercase();
    let head = head.trim_start();
    if head.starts_with("<!doctype html") || head.starts_with("<html") {
        "text/html"
    } else if bytes.iter().take(4096).any(|&b| b == 0) {
        "application/octet-stream"
    } else {
        "text/plain"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_and_extension_together() {
        assert_eq!(detect("a.md", b"# Title"), Ok(Kind::Markdown));
        assert_eq!(detect("a.pdf", b"%PDF-1.7\n..."), Ok(Kind::Pdf));
        assert_eq!(detect("noext", b"%PDF-1.7\n..."), Ok(Kind::Pdf));
        assert_eq!(detect("a.txt", b""), Err(ExtractError::Empty));
        let html_as_pdf = detect("report.pdf", b"<!DOCTYPE html><html><body>hi</body></html>").unwrap_err();
        assert_eq!(html_as_pdf.to_string(), "content does not match extension: .pdf file holds text/html, not pdf");
        let exe = detect("setup.exe", b"MZ\x90\x00\x03\x00\x00\x00\x04\x00\x00\x00\xff\xff").unwrap_err();
        assert_eq!(exe.to_string(), "unsupported type: application/vnd.microsoft.portable-executable");
        let mut elf = b"\x7fELF\x02\x01\x01".to_vec();
        elf.resize(64, 0);
        let exe_as_txt = detect("notes.txt", &elf).unwrap_err();
        assert!(exe_as_txt.to_string().starts_with("content does not match extension: .txt file holds application/"));
    }

    #[test]
    fn text_under_any_name_is_read_binary_is_not() {
        assert_eq!(detect("data.xyz", b"hello"), Ok(Kind::Text));
        // GIF and BMP scans are images, named or not.
        assert_eq!(detect("scan.gif", b"GIF89a\x00\x04\x20\x03"), Ok(Kind::Image));
        assert_eq!(detect("scan", b"GIF89a\x00\x04\x20\x03"), Ok(Kind::Image));
        assert_eq!(detect("fax.bmp", b"BM\x3e\x90\x01\x00\x00\x00\x00\x00\x3e\x00\x00\x00\x28\x00"), Ok(Kind::Image));
        assert_eq!(detect("README", b"Install it with make.\n"), Ok(Kind::Text));
        assert_eq!(detect("docs/Makefile", b"all:\n\tcc -o a a.c\n"), Ok(Kind::Code));
        assert_eq!(detect("bin/deploy", b"#!/bin/sh\nexec ragpipe serve\n"), Ok(Kind::Code));
        assert_eq!(detect("config.json", b"{\"a\": 1}"), Ok(Kind::Code));
        assert_eq!(detect("pom.xml", b"<?xml version=\"1.0\"?><project/>"), Ok(Kind::Code));
        assert_eq!(detect("guide.adoc", b"= Guide\n\nText."), Ok(Kind::Text));
        let latin1 = b"Caf\xe9 cr\xe8me, na\xefve r\xe9sum\xe9.\n";
        assert_eq!(detect("menu.dat", latin1), Ok(Kind::Text), "legacy 8-bit text");
        let utf16: Vec<u8> =
            [0xFF, 0xFE].into_iter().chain("notes".encode_utf16().flat_map(u16::to_le_bytes)).collect();
        assert_eq!(detect("notes.nfo2", &utf16), Ok(Kind::Text));
        // Binary content without a magic number stays refused by its name.
        let noise: Vec<u8> = (0..4096u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
        assert_eq!(detect("blob.xyz", &noise).unwrap_err().to_string(), "unsupported type: .xyz");
        assert_eq!(detect("blob", &noise).unwrap_err().to_string(), "unsupported type: file without extension");
        let controls = b"\x01\x02\x03\x04 mostly control bytes \x05\x06\x07\x08\x0e\x0f\x10\x11";
        assert!(detect("record.dat", controls).is_err());
        // Text that is not a document.
        let key = b"-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----\n";
        assert_eq!(detect("id_ed25519", key).unwrap_err().to_string(), "unsupported type: application/x-x509-ca-cert");
        assert!(detect("Cargo.lock", b"version = 4\n").is_err());
        assert_eq!(
            detect("logo.svg", b"<svg xmlns=\"http://www.w3.org/2000/svg\"/>").unwrap_err().to_string(),
            "unsupported type: .svg"
        );
        // Flat OpenDocument files are read by their kind's reader.
        assert_eq!(detect("policy.fodt", b"<?xml version=\"1.0\"?><office:document/>"), Ok(Kind::Word));
        assert_eq!(detect("book.fods", b"<?xml version=\"1.0\"?><office:document/>"), Ok(Kind::Spreadsheet));
        assert_eq!(kind_for_name("ci/Dockerfile"), Some(Kind::Code), "what an admin sees before detection");
        assert!(unknown_extension("data.xyz"));
        assert!(!unknown_extension("README") && !unknown_extension("a.txt"));
    }

    /// Frames of `n` bytes each starting with the 4-byte header `h`.
    fn frames(h: [u8; 4], n: usize, count: usize) -> Vec<u8> {
        let mut frame = h.to_vec();
        frame.resize(n, 0x55);
        frame.repeat(count)
    }

    #[test]
    fn mp3_without_id3_is_audio_by_its_frames() {
        // MPEG-1 Layer III, 128 kbps, 44.1 kHz: 417-byte frames.
        let mpeg1 = frames([0xFF, 0xFB, 0x90, 0x64], 417, 3);
        assert_eq!(detect("a.mp3", &mpeg1), Ok(Kind::Audio));
        // MPEG-2 Layer III, 64 kbps, 22.05 kHz (`FF F3`): 208-byte frames.
        let mpeg2 = frames([0xFF, 0xF3, 0x80, 0xC4], 208, 3);
        assert_eq!(detect("voicemail.mp3", &mpeg2), Ok(Kind::Audio));
        assert_eq!(detect("no-extension", &mpeg2), Ok(Kind::Audio), "detected by content alone");
        // A header followed by noise where the next frame should be is not MP3.
        let mut lone = mpeg2[..208].to_vec();
        lone.extend_from_slice(b"not a frame at all");
        assert!(detect("a.mp3", &lone).is_err());
        // Layer bits 00 are ADTS AAC, not MP3.
        assert!(mp3_frame_len(&[0xFF, 0xF1, 0x50, 0x80]).is_none());
    }
}
