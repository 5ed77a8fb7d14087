//! Exports under an Office name. Many programs write "a Word file" or "an
//! Excel file" as text and give it the binary format's extension, because
//! Word and Excel open such files: reporting tools and web applications
//! export a table as an HTML page named `.xls` (Excel's own "Web Page"
//! format), or as tab-separated text named `.xls`; Confluence's "Export to
//! Word" and Word's "Single File Web Page" write a web archive (a MIME
//! message) named `.doc`; "export to Word" buttons write an HTML page named
//! `.doc`. Such a file is read as what it holds, with a warning, instead of
//! being refused as a file whose content contradicts its extension.

use crate::text;
use ragpipe_core::Kind;

/// The legacy binary extensions such exports are named with.
const OFFICE_NAMES: &[&str] = &["doc", "xls"];

/// The kind a file named with a legacy Office extension is read as when
/// its content is text: a web page or web archive as HTML, other text as
/// delimited text (`.xls`) or plain text (`.doc`). None when the extension
/// is not one of them or the content is not text (then it is the binary
/// format, or a file to refuse).
pub(crate) fn read_as(ext: &str, bytes: &[u8]) -> Option<Kind> {
    if !OFFICE_NAMES.contains(&ext) || !text::is_text(bytes) {
        return None;
    }
    let head = head(bytes);
    if is_web_page(&head) || is_mime_message(&head) {
        return Some(Kind::Html);
    }
    // Other markup is a format of its own (Excel's and Word's 2003 XML),
    // not text to read line by line.
    if after_prolog(&head).starts_with('<') {
        return None;
    }
    Some(if ext == "xls" { Kind::Csv } else { Kind::Text })
}

/// Whether a file named with a legacy Office extension holds a MIME
/// message of parts (a web archive) rather than a page: what
/// [`crate::web_archive`] reads. Other names are not looked into.
pub(crate) fn holds_web_archive(name: &str, bytes: &[u8]) -> bool {
    OFFICE_NAMES.contains(&crate::extension(name).as_str()) && is_mime_message(&head(bytes))
}

/// The warning for a file [`read_as`] read as something its name does not
/// say; None when the name says what it is.
pub(crate) fn warning(name: &str, kind: Kind) -> Option<String> {
    let ext = crate::extension(name);
    let named = crate::kind_for_name(name)?;
    if !OFFICE_NAMES.contains(&ext.as_str()) || named == kind {
        return None;
    }
    let holds = match kind {
        Kind::Html => "a web page",
        Kind::Csv => "delimited text",
        _ => "plain text",
    };
    Some(format!("read as {}: this .{ext} file holds {holds}, not a {} file", kind.as_str(), named.as_str()))
}

/// The first 4 KiB as text, lowercase, leading space and byte-order mark gone.
fn head(bytes: &[u8]) -> String {
    let cut = &bytes[..bytes.len().min(4096)];
    let decoded = text::decode(cut).unwrap_or_default();
    decoded.trim_start_matches('\u{feff}').trim_start().to_lowercase()
}

/// An HTML page, as browsers and Office tell one: a doctype, an `html`
/// root, or (reporting tools' bare exports) a table or a `meta` first.
fn is_web_page(head: &str) -> bool {
    let head = after_prolog(head);
    ["<!doctype html", "<html", "<table", "<meta"].iter().any(|p| head.starts_with(p))
}

/// `head` past an XML declaration, processing instructions and comments.
fn after_prolog(mut head: &str) -> &str {
    loop {
        let end = if head.starts_with("<?") {
            "?>"
        } else if head.starts_with("<!--") {
            "-->"
        } else {
            return head;
        };
        head = head.split_once(end).map_or("", |(_, rest)| rest).trim_start();
    }
}

/// A MIME message whose body is parts: headers first, one of them a
/// `MIME-Version` or a multipart `Content-Type`.
fn is_mime_message(head: &str) -> bool {
    let headers = head.split("\n\n").next().unwrap_or("");
    let first = headers.lines().next().unwrap_or("");
    let field = |name: &str| !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
    first.split_once(':').is_some_and(|(name, _)| field(name))
        && headers.lines().any(|l| l.starts_with("mime-version:") || l.starts_with("content-type: multipart/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_under_an_office_name_is_read_as_what_it_holds() {
        let page = b"<!DOCTYPE html><html><body><table><tr><td>SKU-1042</td></tr></table></body></html>";
        assert_eq!(read_as("xls", page), Some(Kind::Html));
        assert_eq!(read_as("xls", b"<table><tr><td>1</td></tr></table>"), Some(Kind::Html));
        let excel_page = b"<html xmlns:x=\"urn:schemas-microsoft-com:office:excel\"><body></body></html>";
        assert_eq!(read_as("xls", excel_page), Some(Kind::Html));
        assert_eq!(
            read_as("doc", b"<?xml version=\"1.0\"?>\n<!-- saved -->\n<html><p>Hi</p></html>"),
            Some(Kind::Html)
        );
        let archive = b"From: <Saved by Blink>\r\nMIME-Version: 1.0\r\nContent-Type: multipart/related; boundary=\"b\"\r\n\r\n--b\r\n";
        assert_eq!(read_as("doc", archive), Some(Kind::Html));
        assert!(holds_web_archive("page.doc", archive));
        assert!(!holds_web_archive("page.html", archive), "only under an Office name");
        assert!(!holds_web_archive("page.doc", page));
        assert!(!holds_web_archive("page.doc", b"<p>MIME-Version: 1.0</p>\n"));
        assert_eq!(read_as("xls", b"SKU\tItem\nSKU-1042\tWidget\n"), Some(Kind::Csv));
        assert_eq!(read_as("doc", b"Minutes of the March meeting.\n"), Some(Kind::Text));
        let utf16: Vec<u8> =
            [0xFF, 0xFE].into_iter().chain("a\tb\n1\t2\n".encode_utf16().flat_map(u16::to_le_bytes)).collect();
        assert_eq!(read_as("xls", &utf16), Some(Kind::Csv), "Excel's \"Unicode Text\"");
    }

    #[test]
    fn other_names_and_binary_or_xml_content_are_not_exports() {
        assert_eq!(read_as("pdf", b"<!DOCTYPE html><html></html>"), None);
        assert_eq!(read_as("xlsx", b"a,b\n1,2\n"), None);
        assert_eq!(read_as("doc", b"\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1\x00\x00\x00\x00"), None);
        let spreadsheet_ml =
            b"<?xml version=\"1.0\"?><Workbook xmlns=\"urn:schemas-microsoft-com:office:spreadsheet\"/>";
        assert_eq!(read_as("xls", spreadsheet_ml), None);
        // A mail header line alone is not a web archive.
        assert!(!holds_web_archive("notes.doc", b"Subject: notes\n\nJust text."));
    }

    #[test]
    fn the_warning_names_what_the_file_holds() {
        assert_eq!(
            warning("q3/report.xls", Kind::Html).as_deref(),
            Some("read as html: this .xls file holds a web page, not a spreadsheet file")
        );
        assert_eq!(
            warning("export.xls", Kind::Csv).as_deref(),
            Some("read as csv: this .xls file holds delimited text, not a spreadsheet file")
        );
        assert_eq!(warning("book.xls", Kind::Spreadsheet), None);
        assert_eq!(warning("page.html", Kind::Html), None);
        assert_eq!(warning("notes.dat", Kind::Text), None);
    }
}
