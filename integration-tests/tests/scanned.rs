//! End to end: `ragpipe ingest` of scans with OCR on (the default, PP-OCRv6
//! from the provisioning cache, scripts/provision-ocr.sh): a scanned book
//! page in a PDF (JPEG, no text layer), a two-page CCITT G4 TIFF and a
//! 1-bit two-column PNG are indexed; every chunk cites its page and the
//! rectangle it was read from (`&xywh=`, pixels of the page image) and its
//! `#char` range slices to its content; searches find sentences of each
//! scan on the right page, in the right region.

use ragpipe_core::Locator;
use ragpipe_integration_tests::ragpipe_bin;
use serde_json::Value;
use std::path::PathBuf;
use std::process::Command;

mod common;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/ocr/tests/fixtures").join(name)
}

#[test]
fn scans_are_read_indexed_and_found_with_page_and_region() {
    let (folder, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    for (from, to) in [
        ("c03-29.pdf", "huckleberry-p29.pdf"),
        ("two-pages.tif", "recipe-and-pangrams.tif"),
        ("linn.png", "brochure.png"),
    ] {
        std::fs::copy(fixture(from), folder.path().join(to)).unwrap();
    }
    let run = |args: &[&str]| {
        let mut cmd = Command::new(ragpipe_bin());
        cmd.arg("--data-dir").arg(data.path());
        common::run_json(cmd, args)
    };
    let (code, summary) = run(&["ingest", folder.path().to_str().unwrap(), "--json"]);
    assert_eq!(code, 0, "{summary}");
    assert_eq!(summary["indexed"], 3, "{summary}");

    // (file, its pages' sizes in pixels)
    for (name, sizes) in [
        ("huckleberry-p29.pdf", vec![(770, 995)]),
        ("recipe-and-pangrams.tif", vec![(2000, 1432), (1024, 800)]),
        ("brochure.png", vec![(2550, 3300)]),
    ] {
        let path = folder.path().join(name);
        let (code, chunks) = run(&["chunks", path.to_str().unwrap(), "--json"]);
        assert_eq!(code, 0, "{name}: {chunks}");
        let (_, doc) = run(&["text", path.to_str().unwrap(), "--json"]);
        let text = doc["text"].as_str().unwrap();
        let mut pages = std::collections::BTreeSet::new();
        for c in chunks.as_array().unwrap() {
            let loc = Locator::parse(c["locator"].as_str().unwrap()).unwrap();
            let page = loc.page.unwrap_or_else(|| panic!("{name}: no #page in {loc}"));
            let (w, h) = sizes[page as usize - 1];
            let [x, y, rw, rh] = loc.region.unwrap_or_else(|| panic!("{name}: no &xywh in {loc}"));
            assert!(rw > 0 && rh > 0 && x + rw <= w && y + rh <= h, "{name}: {loc} outside the {w} × {h} page");
            assert_eq!(loc.resolve(text), c["content"].as_str(), "{name}: #char slices to the content");
            pages.insert(page);
        }
        assert_eq!(pages.len(), sizes.len(), "{name}: every page has chunks");
    }

    // (query, file, page, a phrase of the hit, the region's top edge lies in this band)
    for (query, file, page, phrase, band) in [
        ("Miss Watson took me in the closet and prayed", "huckleberry-p29.pdf", 1, "closet", 0..700),
        ("the quick brown fox jumps over the lazy dog", "recipe-and-pangrams.tif", 2, "fox", 0..200),
        ("32 track MIDI sequence recorder for musicians", "brochure.png", 1, "MIDI", 0..900),
    ] {
        let (code, hits) = run(&["search", query, "--json", "--top-k", "3"]);
        assert_eq!(code, 0, "{hits}");
        let top: &Value = &hits["hits"][0];
        assert!(top["document"].as_str().unwrap().ends_with(file), "{query}: {hits}");
        // The sentence's own chunk among the first three (a page's other
        // chunk may rank above it).
        let hit = hits["hits"].as_array().unwrap().iter().find(|h| h["content"].as_str().unwrap().contains(phrase));
        let hit = hit.unwrap_or_else(|| panic!("{query}: no hit holds {phrase:?}: {hits}"));
        assert!(hit["document"].as_str().unwrap().ends_with(file), "{query}: {hits}");
        let loc = Locator::parse(hit["locator"].as_str().unwrap()).unwrap();
        assert_eq!(loc.page, Some(page), "{query}: {loc}");
        let [_, y, _, _] = loc.region.unwrap();
        assert!(band.contains(&y), "{query}: {loc} not where the sentence is printed");
    }
}

/// The encodings archive scanners write into PDFs (JBIG2 with shared
/// symbols, CCITT Group 3, JPEG 2000) are read and found; pages read below
/// `[ocr] low_confidence` leave a warning an admin can list with
/// `--warned`, while documents without OCR carry none.
#[test]
fn archive_scan_encodings_are_found_and_low_confidence_pages_are_listed() {
    let (folder, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    for (from, to) in [("linn-jbig2.pdf", "brochure-jbig2.pdf"), ("eurotext-g3.pdf", "pangrams-fax.pdf")] {
        std::fs::copy(fixture(from), folder.path().join(to)).unwrap();
    }
    std::fs::write(folder.path().join("notes.md"), "# Notes\n\nThe sequencer manual is in the brochure.\n").unwrap();
    // A threshold no real scan reaches: every OCR'd page is reported.
    let config = data.path().join("ragpipe.toml");
    std::fs::write(&config, "[ocr]\nlow_confidence = 0.999\n").unwrap();
    let run = |args: &[&str]| {
        let mut cmd = Command::new(ragpipe_bin());
        cmd.arg("--data-dir").arg(data.path()).arg("--config").arg(&config);
        common::run_json(cmd, args)
    };
    let (code, summary) = run(&["ingest", folder.path().to_str().unwrap(), "--json"]);
    assert_eq!(code, 0, "{summary}");
    assert_eq!(summary["indexed"], 3, "{summary}");

    for (query, file, phrase) in [
        ("32 track MIDI sequence recorder for musicians", "brochure-jbig2.pdf", "MIDI"),
        ("the quick brown fox jumps over the lazy dog", "pangrams-fax.pdf", "fox"),
    ] {
        let (code, hits) = run(&["search", query, "--json", "--top-k", "3"]);
        assert_eq!(code, 0, "{hits}");
        let hit = hits["hits"].as_array().unwrap().iter().find(|h| h["content"].as_str().unwrap().contains(phrase));
        let hit = hit.unwrap_or_else(|| panic!("{query}: no hit holds {phrase:?}: {hits}"));
        assert!(hit["document"].as_str().unwrap().ends_with(file), "{query}: {hits}");
        let loc = Locator::parse(hit["locator"].as_str().unwrap()).unwrap();
        assert_eq!(loc.page, Some(1), "{query}: {loc}");
        assert!(loc.region.is_some(), "{query}: {loc}");
    }

    let (code, page) = run(&["documents", "--warned", "--json"]);
    assert_eq!(code, 0, "{page}");
    let warned = common::warnings(&page);
    let names: Vec<&str> = warned.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["brochure-jbig2.pdf", "pangrams-fax.pdf"], "{page}");
    for (name, warning) in &warned {
        assert!(warning.starts_with("\"ocr: low confidence on the page: 1 (0."), "{name}: {warning}");
    }
    let (_, all) = run(&["documents", "--json"]);
    let notes =
        all["documents"].as_array().unwrap().iter().find(|d| d["source"].as_str().unwrap().ends_with("notes.md"));
    assert_eq!(notes.unwrap()["warning"], Value::Null, "{all}");
}
