//! E-books made by EbookLib and by LibreOffice's EPUB export (see
//! `fixtures/ebook/make.py`): chapters in spine order with their headings
//! and tables, what is not in the reading order left out, the package's
//! title, and precise reasons for broken, oversized and DRM-locked books.

mod common;

use ragpipe_core::{Document, Kind};
use ragpipe_extract::{ExtractError, Limits, detect, extract_with};
use std::io::{Read, Write};
use std::path::PathBuf;

fn fixture(name: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/ebook").join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn open_with(name: &str, bytes: &[u8], limits: &Limits) -> Result<Document, ExtractError> {
    extract_with(detect(name, bytes)?, name, bytes, None, limits)
}

#[test]
fn chapters_are_read_in_spine_order_with_their_headings_and_tables() {
    let doc = open_with("field-guide.epub", &fixture("field-guide.epub"), &Limits::default()).unwrap();
    assert_eq!(doc.kind, Kind::Ebook);
    assert_eq!(doc.title, "Marsh Station Field Guide");
    let got = common::blocks(&doc);
    assert_eq!(
        got,
        common::owned(&[
            ("h1", "Arrival"),
            ("p", "Sign the station logbook when you arrive and again when you leave."),
            ("h2", "The causeway"),
            (
                "p",
                "The causeway floods two hours before high water; never cross while the red flag flies on the boathouse."
            ),
            // The chapter whose file name has a space.
            ("h1", "The hides"),
            ("p", "Each hide has a key on the green hook in the mud room."),
            ("row 1 header", "Hide | Best for | Walk"),
            ("row 2", "Reedbed | Bitterns at dusk | 15 min"),
            ("row 3", "Seawall | Waders at high tide | 25 min"),
            ("h1", "Records"),
            ("p", "Sightings go into the shared spreadsheet before supper, with species, count, hide and time."),
        ]),
        "the non-linear notes page and the navigation document are left out"
    );
    assert!(doc.blocks.iter().all(|b| b.page.is_none()));
}

#[test]
fn libreoffice_s_export_reads_as_what_it_wrote() {
    let doc = open_with("policy.epub", &fixture("policy.epub"), &Limits::default()).unwrap();
    assert_eq!(doc.title, "Remote Work Policy");
    // LibreOffice 7.4 exports the table without its repeated header row.
    let rows: Vec<&str> = doc
        .blocks
        .iter()
        .filter(|b| matches!(b.kind, ragpipe_core::BlockKind::TableRow { .. }))
        .map(|b| doc.slice(b))
        .collect();
    assert_eq!(rows, ["Spain | 40 EUR | RW-ES-01", "Germany | 45 EUR | RW-DE-01"]);
    assert!(doc.text.ends_with("Allowances are paid with the salary of the following month."), "{}", doc.text);
}

/// Debian's `debian-edu-doc` manuals are zipped with their folder: every
/// entry under `epub/`, no `mimetype` at the root. Read from that folder,
/// such a book is the book; its DRM is still found there.
#[test]
fn a_book_zipped_with_its_folder_is_read_from_that_folder() {
    let book = fixture("field-guide.epub");
    let nested = rebuilt(&book, |name| (name != "mimetype").then(|| format!("epub/{name}")), &[]);
    let (flat, read) = (
        open_with("field-guide.epub", &book, &Limits::default()).unwrap(),
        open_with("field-guide.epub", &nested, &Limits::default()).unwrap(),
    );
    assert_eq!((read.title.as_str(), read.text.as_str()), (flat.title.as_str(), flat.text.as_str()));
    assert_eq!(common::blocks(&read), common::blocks(&flat));
    let locked = with_entry(&nested, "epub/META-INF/encryption.xml", LOCKED);
    let reason = open_with("book.epub", &locked, &Limits::default()).unwrap_err().to_string();
    assert_eq!(reason, "encrypted e-book (DRM)");
    // Without a container anywhere, the reason names what is missing.
    let bare = rebuilt(&book, |name| (!name.ends_with("container.xml")).then(|| name.to_string()), &[]);
    let reason = open_with("book.epub", &bare, &Limits::default()).unwrap_err().to_string();
    assert_eq!(reason, "malformed e-book: no META-INF/container.xml");
}

#[test]
fn detected_by_content_without_an_extension() {
    for name in ["field-guide.epub", "policy.epub"] {
        assert_eq!(detect("no-extension", &fixture(name)), Ok(Kind::Ebook), "{name}");
    }
}

#[test]
fn broken_oversized_and_locked_books_fail_with_their_reason() {
    let defaults = Limits::default();
    let reason = |bytes: &[u8], limits: &Limits| open_with("book.epub", bytes, limits).unwrap_err().to_string();
    let book = fixture("field-guide.epub");
    assert_eq!(
        reason(&book[..book.len() / 2], &defaults),
        "malformed e-book: invalid zip archive (truncated or corrupt)"
    );
    let few = Limits { max_pages: 2, ..defaults };
    assert_eq!(reason(&book, &few), "limit exceeded: 3 chapters exceeds max_pages 2");
    let small = Limits { max_decompressed_bytes: 1024, ..defaults };
    let inflated = reason(&book, &small);
    assert!(inflated.starts_with("limit exceeded: e-book inflates to "), "{inflated}");
    let locked = with_entry(&book, "META-INF/encryption.xml", LOCKED);
    assert_eq!(reason(&locked, &defaults), "encrypted e-book (DRM)");
    let lost = with_entry(&book, "META-INF/container.xml", "<container/>");
    assert_eq!(reason(&lost, &defaults), "malformed e-book: META-INF/container.xml names no package document");
}

/// An `encryption.xml` locking the field guide's last chapter with AES.
const LOCKED: &str = r#"<encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container"
    xmlns:enc="http://www.w3.org/2001/04/xmlenc#"><enc:EncryptedData>
    <enc:EncryptionMethod Algorithm="http://www.w3.org/2001/04/xmlenc#aes128-cbc"/>
    <enc:CipherData><enc:CipherReference URI="EPUB/records.xhtml"/></enc:CipherData>
    </enc:EncryptedData></encryption>"#;

/// `book` with entry `name` added, or replaced by `text`.
fn with_entry(book: &[u8], name: &str, text: &str) -> Vec<u8> {
    rebuilt(book, |entry| (entry != name).then(|| entry.to_string()), &[(name, text)])
}

/// `book`'s entries, each renamed by `rename` or left out (`None`), then
/// `added`.
fn rebuilt(book: &[u8], rename: impl Fn(&str) -> Option<String>, added: &[(&str, &str)]) -> Vec<u8> {
    let mut source = zip::ZipArchive::new(std::io::Cursor::new(book)).unwrap();
    let mut out = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default();
    for i in 0..source.len() {
        let mut entry = source.by_index(i).unwrap();
        let Some(entry_name) = rename(&entry.name().unwrap()) else { continue };
        let mut bytes = Vec::new();
        entry.read_to_end(&mut bytes).unwrap();
        out.start_file(entry_name, options).unwrap();
        out.write_all(&bytes).unwrap();
    }
    for (name, text) in added {
        out.start_file(*name, options).unwrap();
        out.write_all(text.as_bytes()).unwrap();
    }
    out.finish().unwrap().into_inner()
}
