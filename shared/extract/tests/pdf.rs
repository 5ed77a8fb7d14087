//! The PDF extractor on real files made by LibreOffice, LaTeX, qpdf and Ghostscript
//! (`fixtures/pdf/make.sh`): pages, furniture, headings, and a precise reason
//! for every kind of bad file.

mod common;

use common::table_rows;
use ragpipe_core::{BlockKind, Document, Kind};
use ragpipe_extract::{Limits, detect, extract, extract_with};
use std::path::PathBuf;

fn fixture(name: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pdf").join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn handbook() -> Document {
    let bytes = fixture("handbook.pdf");
    assert_eq!(detect("handbook.pdf", &bytes), Ok(Kind::Pdf));
    extract(Kind::Pdf, "handbook.pdf", &bytes).unwrap()
}

/// What each page of handbook.fodt says, in part.
const PAGES: [&[&str]; 3] = [
    &["Arrival and Safety", "signs the station logbook", "The defibrillator hangs"],
    &["Equipment Loans", "Binoculars, spotting scopes", "never an accident."],
    &["Recording Sightings", "shared spreadsheet", "on the first Monday."],
];

#[test]
fn pages_are_form_feed_separated_and_blocks_know_their_page() {
    let doc = handbook();
    assert_eq!(doc.title, "Field Station Handbook", "the title comes from the PDF's Info dictionary");
    let pages: Vec<&str> = doc.text.split('\u{c}').collect();
    assert_eq!(pages.len(), 3);
    for (i, says) in PAGES.iter().enumerate() {
        for s in *says {
            assert!(pages[i].contains(s), "page {} holds {s:?}: {:?}", i + 1, pages[i]);
        }
    }
    // Each block lies inside the `\f`-separated part of its own page.
    let mut page_start = vec![0];
    page_start.extend(doc.text.match_indices('\u{c}').map(|(i, _)| i + 1));
    for b in &doc.blocks {
        let n = b.page.expect("every PDF block has a page") as usize;
        let end = page_start.get(n).map_or(doc.text.len(), |s| s - 1);
        assert!(page_start[n - 1] <= b.range.start && b.range.end <= end, "{:?} on page {n}", doc.slice(b));
    }
    let headings: Vec<(&str, u32)> = doc
        .blocks
        .iter()
        .filter(|b| matches!(b.kind, BlockKind::Heading { level: 1 }))
        .map(|b| (doc.slice(b), b.page.unwrap()))
        .collect();
    assert_eq!(headings, [("Arrival and Safety", 1), ("Equipment Loans", 2), ("Recording Sightings", 3)]);
}

#[test]
fn paragraphs_are_whole_and_furniture_is_gone() {
    let doc = handbook();
    assert!(!doc.text.contains("Northwind Field Station"), "running header removed: {}", doc.text);
    assert!(!doc.text.contains("Page 1 of 3") && !doc.text.contains("of 3"), "footer removed");
    let paragraphs: Vec<&str> =
        doc.blocks.iter().filter(|b| b.kind == BlockKind::Paragraph).map(|b| doc.slice(b)).collect();
    assert_eq!(paragraphs.len(), 7, "{paragraphs:#?}");
    assert!(paragraphs[1].starts_with("Before walking") && paragraphs[1].ends_with("raised on the\nboathouse."));
    assert!(paragraphs.iter().all(|p| !p.contains("\n\n")));
}

/// A justified column hyphenated by LibreOffice (`hyphenated.fodt`): the
/// PDF's paragraphs hold, word for word, what the source's paragraphs say,
/// so no word is left in two halves (`un-` / `available`) and the compounds
/// the source writes with a hyphen (`read-only`, `seventy-two`) keep it.
#[test]
fn words_broken_across_lines_read_whole() {
    let bytes = fixture("hyphenated.pdf");
    let doc = extract(Kind::Pdf, "hyphenated.pdf", &bytes).unwrap();
    let source = String::from_utf8(fixture("hyphenated.fodt")).unwrap();
    let written: Vec<&str> = source
        .split("<text:p text:style-name=\"Standard\">")
        .skip(1)
        .map(|p| p.split("</text:p>").next().unwrap())
        .collect();
    let paragraphs: Vec<&str> =
        doc.blocks.iter().filter(|b| b.kind == BlockKind::Paragraph).map(|b| doc.slice(b)).collect();
    assert_eq!(paragraphs.len(), written.len(), "{paragraphs:#?}");
    for (read, source) in paragraphs.iter().zip(&written) {
        let words = |t: &str| t.split_whitespace().map(str::to_string).collect::<Vec<_>>();
        assert_eq!(words(read), words(source), "{read:?}");
        assert!(read.lines().count() > 4, "laid out on its lines still: {read:?}");
    }
    assert!(!doc.text.lines().any(|l| l.ends_with('-')), "{}", doc.text);
}

/// LibreOffice's table of contents and alphabetical index (`contents.fodt`:
/// tab stops with dot leaders) are the document's navigation: their pages
/// keep their headings and lose their entries, so a question about
/// monitoring finds chapter 3, not the list that names it.
/// LaTeX's `listings` sets each character of code in a cell wider than its
/// glyph, so letters stand apart by more than the gap that tells words in
/// type; a command reads as it was typed, and a space in it stays.
#[test]
fn a_latex_listing_reads_as_typed() {
    let doc = extract(Kind::Pdf, "listing.pdf", &fixture("listing.pdf")).unwrap();
    for line in [
        "LC_ALL=C apt full-upgrade -y",
        "sudo rdiff-backup -r 3D /skole/backup/home0/user /tmp/user_3D",
        "PULSE_DIR = /tmp/pulse-16.1",
        "in /tmp/user_3D, so nothing",
    ] {
        assert!(doc.text.contains(line), "{line:?} in {:?}", doc.text);
    }
    assert!(!doc.text.contains(" - "), "no letter gap read as a space: {:?}", doc.text);
}

/// The article class sets a `\subsubsection` at the body's size: its
/// number, going on from the subsection's, makes it a heading below it.
#[test]
fn a_latex_subsubsection_at_the_body_size_is_a_heading() {
    let doc = extract(Kind::Pdf, "listing.pdf", &fixture("listing.pdf")).unwrap();
    assert_eq!(
        doc.headings(),
        [
            ("1 Backups", 1),
            ("1.1 Restoring a home directory", 2),
            ("1.1.1 From the command line", 3),
            ("1.1.2 From the web interface", 3)
        ]
    );
}

#[test]
fn contents_and_index_entries_are_left_out() {
    let doc = extract(Kind::Pdf, "contents.pdf", &fixture("contents.pdf")).unwrap();
    let pages: Vec<&str> = doc.text.split('\u{c}').collect();
    assert_eq!(pages.len(), 5, "{:?}", doc.text);
    assert_eq!(pages[0].trim(), "Contents");
    assert_eq!(pages[4].trim(), "Index");
    assert!(pages[3].contains("on port 9100, in the Prometheus text format."), "{:?}", pages[3]);
    for (i, page) in pages.iter().enumerate() {
        assert!(!page.contains(". . .") && !page.contains("..."), "page {}: {page:?}", i + 1);
    }
}

/// A table of contents whose page numbers stand at a tab stop with no
/// leader (`toc.py`: the handbook of `word/contents.odt` regenerated so) is
/// navigation too: its page keeps the document's opening and the contents'
/// heading and loses the entries, which before read as a two-column table
/// (`Scheduling | 2`) naming every section on the first page; the headings
/// they list stay on their own pages. Its index, set as Word and LaTeX set
/// one (`lockout, 3` in two columns), goes the same way.
#[test]
fn contents_without_leaders_are_left_out() {
    let doc = extract(Kind::Pdf, "toc.pdf", &fixture("toc.pdf")).unwrap();
    let pages: Vec<&str> = doc.text.split('\u{c}').collect();
    assert_eq!(pages.len(), 5, "{:?}", doc.text);
    assert_eq!(
        pages[0],
        "Field Service Handbook\n\nThis handbook is for technicians who visit customer sites.\n\nTable of Contents"
    );
    assert!(doc.tables.is_empty(), "{:?}", doc.tables);
    for (page, heading) in [(1, "Before the visit"), (1, "Spare parts"), (2, "Diagnosis"), (3, "Reporting")] {
        assert!(pages[page].lines().any(|l| l == heading), "page {}: {:?}", page + 1, pages[page]);
    }
    // The index, `term, page` in two columns with no leader, goes too; its
    // terms stay where the chapters use them.
    assert_eq!(pages[4], "Alphabetical Index");
    assert!(pages[2].contains("error log") && pages[3].contains("visit report"), "{:?}", doc.text);
}

/// A Writer table in a PDF (LibreOffice, `tables.py`) reads as rows of
/// cells under its header, a wrapped cell whole in its row, between the
/// paragraphs around it; before, each row was a line of a paragraph and a
/// wrapped cell's other lines paragraphs of their own.
#[test]
fn a_word_processor_table_reads_as_rows_of_cells() {
    let doc = extract(Kind::Pdf, "parts.pdf", &fixture("parts.pdf")).unwrap();
    assert_eq!(doc.tables.len(), 1, "{:?}", doc.text);
    assert_eq!(
        table_rows(&doc, 0),
        [
            (1, true, "Part number | Description | Unit price | Minimum order"),
            (2, false, "SKU-1042 | Hydraulic pump seal kit | 12.50 | 10"),
            (
                3,
                false,
                "SKU-1043 | Brass coupling for three-quarter inch pipe, nickel plated, sold with two gaskets | 4.75 | 25"
            ),
            (4, false, "SKU-2001 | Pressure gauge 0-10 bar | 38.00 | 2"),
            (5, false, "SKU-2002 | Relief valve | 1,240.00 | 1"),
            // The part number wraps too: the table's borders tell its rows.
            (6, false, "SKU-3001 (replaces SKU-2001) | Pressure gauge 0-16 bar | 41.00 | 2"),
        ]
    );
    let kinds: Vec<(&str, bool)> = doc
        .blocks
        .iter()
        .filter(|b| !matches!(b.kind, BlockKind::TableRow { .. }))
        .map(|b| (doc.slice(b), matches!(b.kind, BlockKind::Heading { .. })))
        .collect();
    assert_eq!(kinds.len(), 3, "{kinds:?}");
    assert_eq!(kinds[0], ("Spare parts price list", true));
    assert!(kinds[1].0.starts_with("The central warehouse keeps"), "{kinds:?}");
    assert!(kinds[2].0.starts_with("Parts not on this list"), "{kinds:?}");
    // The table stands between the paragraphs, as on the page.
    let table_at = doc.text.find("Part number | Description").unwrap();
    assert!(doc.text.find("The central warehouse").unwrap() < table_at);
    assert!(table_at < doc.text.find("Parts not on this list").unwrap());
}

/// A sheet Calc printed over two pages: one table, its header on the first
/// page only, its rows on both, each row on its page.
#[test]
fn a_printed_sheet_is_one_table_over_its_pages() {
    let doc = extract(Kind::Pdf, "weather.pdf", &fixture("weather.pdf")).unwrap();
    assert_eq!(doc.tables.len(), 1, "{:?}", doc.text);
    let rows = table_rows(&doc, 0);
    assert_eq!(rows.len(), 61, "the header and 60 days");
    assert_eq!(rows[0], (1, true, "date | precipitation | temp_max | temp_min | wind | weather"));
    assert_eq!(rows[1], (2, false, "2012/01/01 | 0.0 | 12.8 | 5.0 | 4.7 | drizzle"));
    assert_eq!(rows[60], (61, false, "2012/02/29 | 0.8 | 5.0 | 1.1 | 7.0 | snow"));
    let pages: Vec<u32> = doc.blocks.iter().filter_map(|b| b.page).collect();
    assert!(pages.contains(&1) && pages.contains(&2));
    for b in &doc.blocks {
        let page = doc.text.split('\u{c}').nth(b.page.unwrap() as usize - 1).unwrap();
        assert!(page.contains(doc.slice(b)));
    }
    // The sheet's name printed atop each page and the page numbers are furniture.
    assert!(!doc.text.contains("Seattle weather") && !doc.text.contains("Page 2"), "{:?}", doc.text);
}

#[test]
fn an_owner_password_alone_does_not_stop_reading() {
    let doc = extract(Kind::Pdf, "owner-only.pdf", &fixture("owner-only.pdf")).unwrap();
    assert_eq!(doc.text, handbook().text);
}

#[test]
fn bad_files_fail_with_precise_reasons() {
    let reason = |name: &str| {
        let bytes = fixture(name);
        detect(name, &bytes).and_then(|kind| extract(kind, name, &bytes)).unwrap_err().to_string()
    };
    assert_eq!(reason("encrypted.pdf"), "encrypted PDF");
    assert_eq!(reason("scanned.pdf"), "no text layer: ocr disabled ([ocr] engine = \"off\")");
    assert_eq!(reason("empty.pdf"), "empty file");
    assert_eq!(reason("html.pdf"), "content does not match extension: .pdf file holds text/html, not pdf");
    assert_eq!(reason("truncated.pdf"), "malformed PDF: failed parsing cross reference table: invalid start value");
    let limits = Limits { max_pages: 2, ..Limits::default() };
    let err = extract_with(Kind::Pdf, "handbook.pdf", &fixture("handbook.pdf"), None, &limits).unwrap_err();
    assert_eq!(err.to_string(), "limit exceeded: 3 pages exceeds max_pages 2");
}

/// Records the page images a scanned PDF hands to OCR.
struct Recorder(Vec<ragpipe_ocr::GrayImage>);

impl ragpipe_extract::PageReader for Recorder {
    fn read(&mut self, page: &ragpipe_ocr::GrayImage) -> Result<ragpipe_ocr::PageText, String> {
        self.0.push(page.clone());
        let rect = ragpipe_ocr::Rect { x: 0, y: 0, w: page.width(), h: page.height() };
        let line = ragpipe_ocr::Line { text: "page".into(), confidence: 1.0, rect };
        Ok(ragpipe_ocr::PageText { width: page.width(), height: page.height(), lines: vec![line] })
    }

    fn low_confidence(&self) -> f32 {
        0.0
    }
}

#[test]
fn fax_pages_in_a_pdf_decode_to_the_same_pixels_as_the_fax_tiff() {
    let ocr = ocr_fixtures();
    let pdf = std::fs::read(ocr.join("fax-two-pages.pdf")).unwrap();
    let tiff = std::fs::read(ocr.join("two-pages.tif")).unwrap();
    let mut seen = Recorder(Vec::new());
    let limits = Limits::default();
    let doc =
        ragpipe_extract::extract_scanned(Kind::Pdf, "fax.pdf", &pdf, None, None, Some(&mut seen), &limits).unwrap();
    assert_eq!(doc.text.matches('\u{c}').count(), 1, "two pages");
    let decode = ragpipe_ocr::DecodeLimits { max_pixels: 50_000_000, max_pages: 10 };
    let expected: Vec<_> = ragpipe_ocr::decode_pages(&tiff, decode).unwrap().map(Result::unwrap).collect();
    assert_eq!(seen.0.len(), 2);
    for (got, want) in seen.0.iter().zip(&expected) {
        assert_eq!(got.dimensions(), want.dimensions());
        assert!(got.as_raw() == want.as_raw(), "pixel for pixel the TIFF's page");
        let white = got.pixels().filter(|p| p.0[0] == 255).count();
        assert!(white * 10 > got.as_raw().len() * 8, "white paper, black ink: {white} white pixels");
    }
}

/// The page images a scanned PDF's pages decode to, from the OCR fixtures.
fn scanned_pages(name: &str) -> Vec<ragpipe_ocr::GrayImage> {
    let pdf = std::fs::read(ocr_fixtures().join(name)).unwrap();
    let mut seen = Recorder(Vec::new());
    ragpipe_extract::extract_scanned(Kind::Pdf, name, &pdf, None, None, Some(&mut seen), &Limits::default())
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    seen.0
}

fn ocr_fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../ocr/tests/fixtures")
}

fn scan(name: &str) -> ragpipe_ocr::GrayImage {
    let bytes = std::fs::read(ocr_fixtures().join(name)).unwrap();
    let decode = ragpipe_ocr::DecodeLimits::default();
    ragpipe_ocr::decode_pages(&bytes, decode).unwrap().next().unwrap().unwrap()
}

#[test]
fn fax_group_3_pages_decode_to_the_scan_pixel_for_pixel() {
    // Ghostscript's CCITT Group 3 (K = 0) of eurotext.png.
    let (pages, want) = (scanned_pages("eurotext-g3.pdf"), scan("eurotext.png"));
    assert_eq!(pages.len(), 1);
    assert!(pages[0] == want, "pixel for pixel eurotext.png");
}

#[test]
fn jbig2_pages_with_shared_symbols_decode_to_the_scan() {
    // OCRmyPDF's JBIG2 of linn.png: symbol coding through JBIG2Globals,
    // lossy (poppler's decode differs from linn.png in the same 0.41 % of
    // pixels, and from ours in none).
    let (pages, want) = (scanned_pages("linn-jbig2.pdf"), scan("linn.png"));
    assert_eq!(pages.len(), 1);
    assert_eq!(pages[0].dimensions(), want.dimensions());
    let differ = pages[0].as_raw().iter().zip(want.as_raw()).filter(|(a, b)| a != b).count();
    assert!(differ * 200 < want.as_raw().len(), "{differ} pixels differ from linn.png");
    let ink = pages[0].as_raw().iter().filter(|&&p| p == 0).count();
    assert!(ink * 20 > want.as_raw().iter().filter(|&&p| p == 0).count() * 19, "the ink is there: {ink} black");
}

#[test]
fn a_jpeg_2000_page_decodes_to_the_scan_within_its_compression() {
    let (pages, want) = (scanned_pages("eurotext-jpx.pdf"), scan("eurotext.png"));
    assert_eq!(pages.len(), 1);
    assert_eq!(pages[0].dimensions(), want.dimensions());
    // Lossy (ImageMagick's JPEG 2000 at quality 30): close on average,
    // and black where the scan is black.
    let diff: u64 = pages[0].as_raw().iter().zip(want.as_raw()).map(|(&a, &b)| u64::from(a.abs_diff(b))).sum();
    let mean = diff as f64 / want.as_raw().len() as f64;
    assert!(mean < 12.0, "mean difference {mean:.1} grey levels");
    let ink = want.as_raw().iter().zip(pages[0].as_raw()).filter(|(w, _)| **w == 0);
    let (n, dark) = ink.fold((0, 0), |(n, d), (_, &g)| (n + 1, d + usize::from(g < 128)));
    assert!(dark * 10 > n * 9, "{dark} of {n} ink pixels stay dark");
}

/// The fixture with every 7th byte of the first 4 KB of its page image's
/// data overwritten, as a bad disk or a botched copy leaves it (lengths intact).
fn damaged(name: &str, marker: &[u8]) -> Vec<u8> {
    let mut pdf = std::fs::read(ocr_fixtures().join(name)).unwrap();
    let at = pdf.windows(marker.len()).position(|w| w == marker).unwrap();
    let data = at + pdf[at..].windows(6).position(|w| w == b"stream").unwrap() + 8;
    for (n, i) in (data + 20..data + 4000).step_by(7).enumerate() {
        pdf[i] = (n as u8).wrapping_mul(151) ^ 0x5a;
    }
    pdf
}

#[test]
fn damaged_page_images_fail_with_the_encoding_named_or_decode_as_viewers_show_them() {
    let limits = Limits::default();
    let pdf = damaged("eurotext-jpx.pdf", b"JPXDecode");
    let err =
        ragpipe_extract::extract_scanned(Kind::Pdf, "jpx.pdf", &pdf, None, None, Some(&mut Recorder(vec![])), &limits)
            .expect_err("a JPEG 2000 codestream with damaged markers");
    assert!(err.to_string().starts_with("unsupported image: JPEG 2000 data that does not decode"), "{err}");
    // Fax and JBIG2 decoders recover (as viewers do): the page keeps its
    // size, and OCR reads what survived.
    for (name, marker) in [("eurotext-g3.pdf", &b"CCITTFaxDecode"[..]), ("linn-jbig2.pdf", &b"JBIG2Decode"[..])] {
        let mut seen = Recorder(Vec::new());
        let pdf = damaged(name, marker);
        ragpipe_extract::extract_scanned(Kind::Pdf, name, &pdf, None, None, Some(&mut seen), &limits).expect(name);
        let png = if name.starts_with("linn") { "linn.png" } else { "eurotext.png" };
        assert_eq!(seen.0.iter().map(|p| p.dimensions()).collect::<Vec<_>>(), [scan(png).dimensions()], "{name}");
    }
}
