//! Archives (zip, gzip'd tar, one gzip'd file): each document inside is
//! read by its own extractor under a heading of its path, the rest are
//! named, and a file that cannot be read costs neither the archive nor the
//! others. Fixtures: `fixtures/archive/make.sh` (zip, tar, gzip).

use ragpipe_core::{Document, Kind};
use ragpipe_extract::{ExtractError, Limits, detect, extract_with};

mod common;

fn fixture(name: &str) -> Vec<u8> {
    let path = format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn read(name: &str, limits: &Limits) -> Result<Document, ExtractError> {
    let bytes = fixture(&format!("archive/{name}"));
    extract_with(detect(name, &bytes)?, name, &bytes, None, limits)
}

fn open(name: &str) -> Document {
    read(name, &Limits::default()).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn headings(doc: &Document, level: &str) -> Vec<String> {
    common::blocks(doc).into_iter().filter(|(k, _)| k == level).map(|(_, t)| t).collect()
}

const LISTED: &str = "Files: handbook/policies/remote-work.md, handbook/policies/policy.docx, \
    handbook/policies/secret.pdf, handbook/reports/sales.csv, handbook/reports/handbook.pdf, \
    handbook/media/silence.wav, handbook/media/.keep, handbook/nested/inner.zip";

#[test]
fn a_zip_and_a_tarball_read_their_documents_under_their_paths() {
    let zip = open("handbook.zip");
    assert_eq!((zip.kind, zip.title.as_str()), (Kind::Archive, "handbook"));
    let paths = [
        "handbook/policies/remote-work.md",
        "handbook/policies/policy.docx",
        "handbook/reports/sales.csv",
        "handbook/reports/handbook.pdf",
        "handbook/nested/inner.zip",
    ];
    assert_eq!(headings(&zip, "h1"), paths, "one heading per document read, in the archive's order");
    let blocks = common::blocks(&zip);
    assert!(blocks.contains(&("h2".into(), "Remote work".into())), "the file's own headings nest below its path");
    let vpn = "Remote work requires a signed VPN agreement with the security team.";
    assert!(blocks.contains(&("p".into(), vpn.into())));
    assert_eq!(blocks.last().unwrap(), &("p".to_string(), LISTED.to_string()), "every file is named, read or not");

    // The .docx reads as it does alone, one heading level down.
    let docx = fixture("word/policy.docx");
    let alone = extract_with(Kind::Word, "policy.docx", &docx, None, &Limits::default()).unwrap();
    let shifted: Vec<(String, String)> = common::blocks(&alone)
        .into_iter()
        .map(|(k, t)| match k.strip_prefix('h').and_then(|l| l.parse::<u8>().ok()) {
            Some(level) => (format!("h{}", level + 1), t),
            None => (k, t),
        })
        .collect();
    let at = blocks.iter().position(|b| b.1 == "handbook/policies/policy.docx").unwrap() + 1;
    assert_eq!(blocks[at..at + shifted.len()], shifted[..]);

    // The CSV keeps its header row over its rows.
    let header = blocks.iter().position(|(k, t)| k.ends_with("header") && t.starts_with("Region | Units"));
    let header = header.expect("the CSV's header row");
    assert!(blocks[header + 1].1.starts_with("North | 10 | 2.5"), "{:?}", blocks[header + 1]);

    // Named only: a recording, an empty file, and what the zip inside the
    // zip holds; an encrypted PDF is named and its reason kept.
    let inner = blocks.iter().position(|b| b.1 == "handbook/nested/inner.zip").unwrap();
    assert_eq!(blocks[inner + 1], ("p".to_string(), "Files: inner.txt".to_string()));
    assert!(!zip.text.contains("Inner notes"), "the zip inside the zip is named, not read");
    assert_eq!(zip.warnings, ["file handbook/policies/secret.pdf not read: encrypted PDF"]);

    let tar = open("handbook.tar.gz");
    assert_eq!(tar.text, zip.text, "the same files in the same order read the same from a tarball");
    assert_eq!(tar.blocks, zip.blocks);
    assert_eq!((tar.title.as_str(), tar.warnings), ("handbook", zip.warnings));
}

#[test]
fn a_damaged_tarball_keeps_the_files_before_the_damage() {
    let doc = open("truncated.tar.gz");
    let read = headings(&doc, "h1");
    assert_eq!(read[..2], ["handbook/policies/remote-work.md", "handbook/policies/policy.docx"], "{read:?}");
    assert!(!read.contains(&"handbook/reports/handbook.pdf".to_string()), "{read:?}");
    // The cut falls inside the third file, the encrypted PDF.
    let damaged = "the archive is damaged after 2 files: handbook/policies/secret.pdf: ";
    assert_eq!(doc.warnings.len(), 1, "{:?}", doc.warnings);
    assert!(doc.warnings[0].starts_with(damaged), "{:?}", doc.warnings);
}

#[test]
fn a_zip_cut_short_is_read_from_its_files_headers() {
    let doc = open("truncated.zip");
    let read = headings(&doc, "h1");
    let whole = open("handbook.zip");
    assert_eq!(read[..2], headings(&whole, "h1")[..2], "{read:?}");
    assert!(!read.contains(&"handbook/nested/inner.zip".to_string()), "{read:?}");
    let last = doc.warnings.last().unwrap();
    assert!(last.starts_with("the archive is damaged after"), "{:?}", doc.warnings);
    // With no file before the cut, the reason is the zip's.
    let head = &fixture("archive/handbook.zip")[..40];
    let reason = extract_with(Kind::Archive, "cut.zip", head, None, &Limits::default()).unwrap_err();
    assert_eq!(reason.to_string(), "malformed archive: invalid zip archive (truncated or corrupt)");
}

#[test]
fn one_gzip_compressed_file_reads_as_the_file() {
    let doc = open("notes.txt.gz");
    assert_eq!(doc.title, "notes");
    assert_eq!(headings(&doc, "h1"), ["notes.txt"]);
    assert!(doc.text.contains("retries a failed upload three times"), "{}", doc.text);
}

#[test]
fn an_archive_with_nothing_readable_fails_with_the_reason() {
    let reason = |name: &str| read(name, &Limits::default()).unwrap_err().to_string();
    assert_eq!(reason("encrypted.zip"), "malformed archive: file minutes.txt not read: encrypted");
    assert_eq!(
        reason("pictures.zip"),
        "unsupported type: no document in the archive (1 file: pictures, recordings and other types are named, not read, inside one)"
    );
    let small = Limits { max_decompressed_bytes: 100_000, ..Limits::default() };
    let limit = |name: &str| read(name, &small).unwrap_err().to_string();
    assert_eq!(
        limit("handbook.zip"),
        "limit exceeded: archive inflates to 158802 bytes, more than 100000 (max_decompressed_bytes)"
    );
    assert_eq!(
        limit("handbook.tar.gz"),
        "limit exceeded: archive inflates to more than 100000 bytes (max_decompressed_bytes)"
    );
}

#[test]
fn inside_another_file_an_archive_is_named_not_read() {
    let inner = Limits { read_attachments: false, ..Limits::default() };
    let doc = read("handbook.zip", &inner).unwrap();
    assert_eq!(common::blocks(&doc), common::owned(&[("p", LISTED)]));
    assert!(doc.warnings.is_empty(), "{:?}", doc.warnings);
}

#[test]
fn archives_are_detected_by_content_and_extension() {
    let (zip, tgz, gz) =
        (fixture("archive/handbook.zip"), fixture("archive/handbook.tar.gz"), fixture("archive/notes.txt.gz"));
    assert_eq!(detect("handbook.zip", &zip), Ok(Kind::Archive));
    assert_eq!(detect("handbook.tgz", &tgz), Ok(Kind::Archive));
    assert_eq!(detect("notes.txt.gz", &gz), Ok(Kind::Archive));
    assert_eq!(detect("no-extension", &tgz), Ok(Kind::Archive), "gzip is known by its magic bytes");
    // A zip without an extension stays unread: a .jar or a .whl is one too.
    assert_eq!(detect("plugin.jar", &zip), Err(ExtractError::Unsupported("application/zip".into())));
    assert!(matches!(detect("handbook.zip", &fixture("word/policy.doc")), Err(ExtractError::Mismatch { .. })));
}

fn gzip(data: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut z = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    z.write_all(data).unwrap();
    z.finish().unwrap()
}

#[test]
fn a_gzip_bomb_stops_at_the_limit_and_a_gzip_in_a_gzip_is_not_unpacked() {
    let bomb = gzip(&vec![b' '; 1 << 20]);
    let small = Limits { max_decompressed_bytes: 100_000, ..Limits::default() };
    let reason = extract_with(Kind::Archive, "spaces.txt.gz", &bomb, None, &small).unwrap_err().to_string();
    assert_eq!(reason, "limit exceeded: archive inflates to more than 100000 bytes (max_decompressed_bytes)");
    // A gzip that holds a gzip could hold itself: one level is unpacked.
    let twice = gzip(&gzip(b"Nested notes."));
    assert_eq!(detect("notes.txt.gz.gz", &twice), Ok(Kind::Archive));
    let reason = extract_with(Kind::Archive, "notes.txt.gz.gz", &twice, None, &Limits::default()).unwrap_err();
    assert_eq!(
        reason.to_string(),
        "malformed archive: file notes.txt.gz not read: unsupported type: gzip-compressed file inside another file (one level is unpacked)"
    );
}
