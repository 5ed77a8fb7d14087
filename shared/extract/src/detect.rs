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
    let by_ext = kind_for_extension(&ext);
    let mime = infer::get(bytes).map(|t| t.mime_type()).or_else(|| mpeg_audio(bytes).then_some("audio/mpeg"));
    match (by_ext, mime) {
        (Some(e), None) if text_like(e) => Ok(e),
        (Some(e), None) => Err(ExtractError::Mismatch { ext, actual: sniff_text(bytes).into(), expected: e.as_str() }),
        (Some(e), Some(m)) if kind_for_mime(m) == Some(e) || container_of(e, m) => Ok(e),
        (Some(e), Some(m)) if text_like(e) && m.starts_with("text/") => Ok(e),
        (Some(e), Some(m)) => Err(ExtractError::Mismatch { ext, actual: m.into(), expected: e.as_str() }),
        (None, Some("application/zip")) => {
            zipped_kind(bytes).ok_or_else(|| ExtractError::Unsupported("application/zip".into()))
        }
        (None, Some("application/x-ole-storage")) if outlook_message(bytes) => Ok(Kind::Email),
        (None, Some(m)) => kind_for_mime(m).ok_or_else(|| ExtractError::Unsupported(m.into())),
        (None, None) if ext.is_empty() => Err(ExtractError::Unsupported("file without extension".into())),
        (None, None) => Err(ExtractError::Unsupported(format!(".{ext}"))),
    }
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
/// zip files, `.xls`, `.doc`, `.ppt` and `.msg` are OLE compound files, which sniffing may report
/// as such; the spreadsheet reader then validates the inside.
fn container_of(kind: Kind, mime: &str) -> bool {
    match kind {
        Kind::Spreadsheet | Kind::Word | Kind::Presentation => {
            matches!(mime, "application/zip" | "application/x-ole-storage")
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
    match mimetype.trim() {
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

/// The kind a file name's extension promises (content not checked): what
/// admin tools show for a document that failed before it was detected.
pub fn kind_for_name(name: &str) -> Option<Kind> {
    kind_for_extension(&extension(name))
}

/// The extensions each kind's documents are named with (code aside).
const NAMED: &[(Kind, &[&str])] = &[
    (Kind::Html, &["html", "htm", "xhtml"]),
    (Kind::Markdown, &["md", "markdown", "mdown"]),
    (Kind::Text, &["txt", "text", "rst", "log"]),
    (Kind::Pdf, &["pdf"]),
    (Kind::Image, &["png", "jpg", "jpeg", "tif", "tiff", "webp"]),
    (Kind::Spreadsheet, &["xlsx", "xlsm", "xlsb", "xls", "ods"]),
    (Kind::Csv, &["csv", "tsv"]),
    (Kind::Word, &["docx", "docm", "odt", "rtf", "doc"]),
    (Kind::Presentation, &["pptx", "pptm", "ppsx", "odp", "ppt", "pps"]),
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
        "image/png" | "image/jpeg" | "image/tiff" | "image/webp" => Kind::Image,
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
        assert_eq!(detect("data.xyz", b"hello").unwrap_err().to_string(), "unsupported type: .xyz");
        let mut elf = b"\x7fELF\x02\x01\x01".to_vec();
        elf.resize(64, 0);
        let exe_as_txt = detect("notes.txt", &elf).unwrap_err();
        assert!(exe_as_txt.to_string().starts_with("content does not match extension: .txt file holds application/"));
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
