//! Slide decks (pptx, odp and ppt) made by python-pptx and LibreOffice from
//! one source (see `fixtures/slides/make.sh`): the same slides, titles,
//! notes and table rows from four files by two writers, each block on its
//! slide's page, and precise reasons for broken and oversized decks; and
//! legacy decks saved by PowerPoint itself.

mod common;

use ragpipe_core::{Document, Kind};
use ragpipe_extract::{ExtractError, Limits, detect, extract_with};
use std::path::PathBuf;

const DECKS: [&str; 4] = ["review.pptx", "review.odp", "review-lo.pptx", "review.ppt"];

fn fixture(name: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/slides").join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn open_with(name: &str, bytes: &[u8], limits: &Limits) -> Result<Document, ExtractError> {
    extract_with(detect(name, bytes)?, name, bytes, None, limits)
}

/// Every block as `(page, kind, text)`.
fn blocks(doc: &Document) -> Vec<(u32, String, &str)> {
    doc.blocks.iter().map(|b| (b.page.unwrap_or(0), common::short_kind(&b.kind), doc.slice(b))).collect()
}

/// Asserts every block of `doc` as `(page, kind, text)`.
fn assert_blocks(doc: &Document, expected: &[(u32, &str, &str)], what: &str) {
    let got = blocks(doc);
    let got: Vec<(u32, &str, &str)> = got.iter().map(|(p, k, t)| (*p, k.as_str(), *t)).collect();
    assert_eq!(got, expected, "{what}");
}

#[test]
fn pptx_and_odp_read_as_the_same_slides() {
    let expected = [
        (1, "h1", "Incident Response Review"),
        (1, "p", "Platform operations, third quarter"),
        (2, "h1", "Escalation path"),
        (2, "p", "Page the on-call engineer through the paging service within 5 minutes of an alert."),
        (2, "p", "For a severity 1 incident, open a bridge call and name an incident commander."),
        (2, "p", "Post a status update to customers every 30 minutes until it is resolved."),
        // The speaker notes, after the slide's own text, on its page.
        (
            2,
            "p",
            "Remind the team that the incident commander owns customer communication; engineers never email \
             customers directly during an outage.",
        ),
        (3, "h1", "Response targets"),
        (3, "row 1 header", "Severity | First response | Resolution target"),
        (3, "row 2", "SEV-1 | 15 minutes | 4 hours"),
        (3, "row 3", "SEV-2 | 1 hour | 1 business day"),
        (3, "row 4", "SEV-3 | 4 hours | 5 business days"),
        // A slide without a title is named by its number; its text box is
        // inside a group.
        (4, "h1", "Slide 4"),
        (4, "p", "Backups are restored every week into the staging cluster to prove they can be read."),
        (5, "h1", "Lessons learned"),
        (5, "p", "Alert fatigue & noisy monitors hid the first warning.\nThresholds were tuned after the review."),
        (5, "p", "The runbook for the database failover was out of date."),
    ];
    for name in DECKS {
        let doc = open_with(name, &fixture(name), &Limits::default()).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(doc.kind, Kind::Presentation, "{name}");
        assert_eq!(doc.title, "Incident Response Review", "{name}");
        assert_blocks(&doc, &expected, name);
        // LibreOffice's notes pages carry a slide-number field.
        assert!(!doc.text.contains("<number>"), "{name}: furniture is not text");
    }
}

#[test]
fn broken_and_oversized_decks_fail_with_their_reason() {
    let defaults = Limits::default();
    let reason = |name: &str, bytes: &[u8], limits: &Limits| open_with(name, bytes, limits).unwrap_err().to_string();
    let deck = fixture("review.pptx");
    assert_eq!(
        reason("review.pptx", &deck[..deck.len() / 2], &defaults),
        "malformed document: invalid zip archive (truncated or corrupt)"
    );
    let few_slides = Limits { max_pages: 3, ..defaults };
    for name in DECKS {
        assert_eq!(reason(name, &fixture(name), &few_slides), "limit exceeded: 5 slides exceeds max_pages 3");
    }
    let small = Limits { max_decompressed_bytes: 4096, ..defaults };
    let inflated = reason("review.odp", &fixture("review.odp"), &small);
    assert!(
        inflated.starts_with("limit exceeded: presentation inflates to ")
            && inflated.ends_with("(max_decompressed_bytes)"),
        "{inflated}"
    );
    let few_rows = Limits { max_rows: 2, ..defaults };
    assert_eq!(reason("review.pptx", &deck, &few_rows), "limit exceeded: more than 2 table rows (max_rows)");
    // A workbook named .pptx is refused by its content, a word-processor
    // file (a zip to the sniffer) by what its archive lacks.
    let other = |path: &str| std::fs::read(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(path)).unwrap();
    let err = reason("slides.pptx", &other("tests/fixtures/sheets/book.xlsx"), &defaults);
    assert!(err.starts_with("content does not match extension: .pptx file holds application/vnd.openxmlformats-officedocument.spreadsheetml"), "{err}");
    assert_eq!(
        reason("slides.pptx", &other("tests/fixtures/word/policy.docx"), &defaults),
        "malformed document: zip archive holds no ppt/presentation.xml or content.xml"
    );
}

#[test]
fn legacy_decks_saved_by_powerpoint() {
    // PowerPoint 2007's own 97-2003 file: one-byte text atoms, a title and
    // an object placeholder (oletools' test data; see make.sh).
    let doc = open_with("embedded.ppt", &fixture("embedded-simple-2007.ppt"), &Limits::default()).unwrap();
    assert_eq!(doc.title, "Embedded Objects");
    let expected = [
        (1, "h1", "Embedded Objects"),
        (1, "p", "This slide contains an embedded object"),
        (1, "p", "It is a simple harmless ASCII text file"),
    ];
    assert_blocks(&doc, &expected, "embedded-simple-2007.ppt");
    // A slide show (`.pps`) is the same file.
    assert_eq!(detect("show.pps", &fixture("review.ppt")), Ok(Kind::Presentation));
    let reason = |name: &str, bytes: &[u8]| open_with(name, bytes, &Limits::default()).unwrap_err().to_string();
    assert_eq!(reason("locked.ppt", &fixture("encrypted.ppt")), "encrypted PowerPoint file");
    let deck = fixture("review.ppt");
    let cut = reason("review.ppt", &deck[..deck.len() / 2]);
    assert!(cut.starts_with("malformed document: "), "{cut}");
    // A Word file named .ppt is refused by its content.
    let other = |path: &str| std::fs::read(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(path)).unwrap();
    let err = reason("slides.ppt", &other("tests/fixtures/word/policy.doc"));
    assert!(err.starts_with("content does not match extension: .ppt file holds"), "{err}");
}

#[test]
fn detected_by_content_without_an_extension() {
    for name in DECKS {
        assert_eq!(detect("no-extension", &fixture(name)), Ok(Kind::Presentation), "{name}");
    }
}

#[test]
fn charts_read_as_tables_of_their_cached_data() {
    let doc = open_with("charts.pptx", &fixture("charts.pptx"), &Limits::default()).unwrap();
    assert_blocks(
        &doc,
        &[
            (1, "h1", "Quarterly support volume"),
            (1, "p", "Chart: Tickets per quarter"),
            (1, "row 1 header", "Tickets per quarter | Tickets opened | Tickets closed"),
            (1, "row 2", "Q1 2026 | 1200 | 1150"),
            (1, "row 3", "Q2 2026 | 1350 | 1300"),
            (1, "row 4", "Q3 2026 | 980 | 1010"),
            (1, "row 5", "Q4 2026 | 1430 | 1400"),
            (2, "h1", "What caused the incidents"),
            (2, "p", "Chart"),
            (2, "row 1 header", "Category | Share of incidents"),
            (2, "row 2", "Configuration change | 45%"),
            (2, "row 3", "Capacity | 30%"),
            (2, "row 4", "Third-party outage | 25%"),
            (3, "h1", "Response time against load"),
            (3, "p", "Chart"),
            (3, "row 1 header", "X | Median response (ms)"),
            (3, "row 2", "100 | 42"),
            (3, "row 3", "200 | 47"),
            (3, "row 4", "400 | 61"),
            (3, "row 5", "800 | 118"),
        ],
        "charts.pptx",
    );
}

/// The blocks of one slide, as `(kind, text)`.
fn on_slide(doc: &Document, page: u32) -> Vec<(String, String)> {
    blocks(doc).into_iter().filter(|b| b.0 == page).map(|(_, k, t)| (k, t.to_string())).collect()
}

#[test]
fn libreoffice_charts_read_as_the_same_tables() {
    let python = open_with("charts.pptx", &fixture("charts.pptx"), &Limits::default()).unwrap();
    for name in ["charts.odp", "charts-lo.pptx", "charts.ppt"] {
        let doc = open_with(name, &fixture(name), &Limits::default()).unwrap();
        // The column and scatter charts as python-pptx wrote them.
        for page in [1, 3] {
            assert_eq!(on_slide(&doc, page), on_slide(&python, page), "{name}: slide {page}");
        }
        // The pie: LibreOffice titles it by its series (so the categories'
        // column is not headed by the title again) and caches the shares
        // unformatted.
        let pie: Vec<String> = on_slide(&doc, 2).into_iter().map(|(_, t)| t).collect();
        assert_eq!(
            pie,
            [
                "What caused the incidents",
                "Chart: Share of incidents",
                "Category | Share of incidents",
                "Configuration change | 0.45",
                "Capacity | 0.3",
                "Third-party outage | 0.25"
            ],
            "{name}"
        );
    }
}

#[test]
fn a_ppt_chart_that_does_not_inflate_is_left_out_and_the_deck_read() {
    // The first chart's storage record (`ExOleObjStg`, compressed:
    // instance 1) with its zlib stream overwritten past the stream's header.
    let mut deck = fixture("charts.ppt");
    let header = [0x10, 0x00, 0x11, 0x10];
    let starts: Vec<usize> = deck.windows(4).enumerate().filter(|(_, w)| *w == header).map(|(i, _)| i).collect();
    assert_eq!(starts.len(), 3, "three charts");
    deck[starts[0] + 16..starts[0] + 48].fill(0x55);
    let doc = open_with("charts.ppt", &deck, &Limits::default()).unwrap();
    assert!(doc.text.contains("Quarterly support volume"), "the slide is read");
    assert!(!doc.text.contains("Tickets opened"), "its chart is not");
    assert!(doc.text.contains("Capacity | 0.3") && doc.text.contains("800 | 118"), "the other charts are");
}
