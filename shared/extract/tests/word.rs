//! Word-processor documents (docx, odt and rtf) made by LibreOffice from one
//! source (see `fixtures/word/make.sh`): the same text, headings, list
//! items and table rows from both formats, deleted text and footnotes left
//! out, and precise reasons for broken and oversized files.

mod common;

use ragpipe_core::{Document, Kind};
use ragpipe_extract::{ExtractError, Limits, detect, extract_with};
use std::path::PathBuf;

fn fixture(name: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/word").join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn open_with(name: &str, bytes: &[u8], limits: &Limits) -> Result<Document, ExtractError> {
    extract_with(detect(name, bytes)?, name, bytes, None, limits)
}

fn open(name: &str) -> Document {
    open_with(name, &fixture(name), &Limits::default()).unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[test]
fn docx_odt_and_rtf_read_as_the_same_document() {
    let expected = [
        ("h1", "Remote Work Policy"),
        ("h1", "Eligibility"),
        ("p", "Remote work requires a signed VPN agreement and the approval of your team lead."),
        ("p", "Contractors & interns are not eligible.\nAsk HR for exceptions."),
        ("h2", "Equipment"),
        ("li", "A company laptop with full-disk encryption."),
        ("li", "A headset for calls longer than one hour."),
        ("h1", "Allowances"),
        ("row 1 header", "Region | Monthly allowance | Code"),
        ("row 2", "Spain | 40 EUR | RW-ES-01"),
        ("row 3", "Germany | 45 EUR | RW-DE-01"),
        // A text box reads once (not again from the drawing's fallback
        // copy), before the paragraph it is anchored in.
        ("p", "Call the IT desk at extension 4242."),
        ("p", "Allowances are paid with the salary of the following month."),
    ];
    for name in ["policy.docx", "policy.odt", "policy.rtf"] {
        let doc = open(name);
        assert_eq!(doc.kind, Kind::Word, "{name}");
        assert_eq!(doc.title, "Remote Work Policy", "{name}: the title in the file's properties");
        let got = common::blocks(&doc);
        assert_eq!(got, common::owned(&expected), "{name}");
        assert!(!doc.text.contains("never work remotely"), "{name}: deleted text of a tracked change");
        assert!(!doc.text.contains("security handbook"), "{name}: a footnote is not in the flow");
    }
}

#[test]
fn broken_and_oversized_files_fail_with_their_reason() {
    let reason = |name: &str, limits: &Limits| open_with(name, &fixture(name), limits).unwrap_err().to_string();
    let defaults = Limits::default();
    assert_eq!(reason("truncated.docx", &defaults), "malformed document: invalid zip archive (truncated or corrupt)");
    assert_eq!(
        reason("junk.docx", &defaults),
        "malformed document: zip archive holds no word/document.xml or content.xml"
    );
    let small = Limits { max_decompressed_bytes: 16 << 20, ..defaults };
    let bomb = reason("bomb.docx", &small);
    assert!(
        bomb.starts_with("limit exceeded: document inflates to 671") && bomb.ends_with("(max_decompressed_bytes)"),
        "{bomb}"
    );
    let few_rows = Limits { max_rows: 2, ..defaults };
    assert_eq!(reason("policy.odt", &few_rows), "limit exceeded: more than 2 table rows (max_rows)");
    // A docx that is a workbook inside is refused by its content.
    let sheet =
        std::fs::read(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/sheets/book.xlsx")).unwrap();
    let err = open_with("report.docx", &sheet, &defaults).unwrap_err().to_string();
    assert!(err.starts_with("content does not match extension: .docx file holds application/vnd.openxmlformats-officedocument.spreadsheetml"), "{err}");
}

#[test]
fn a_legacy_word_97_file_is_read_with_its_headings_and_table() {
    let doc = open("policy.doc");
    assert_eq!((doc.kind, doc.title.as_str()), (Kind::Word, "Remote Work Policy"), "the Title paragraph");
    let got = common::blocks(&doc);
    // What rwml 0.1.5 reads of LibreOffice's .doc: the same headings, text
    // and table as the docx, but it does not model a .doc's tracked changes
    // (the deleted sentence is read) nor, here, its bullet list (read as
    // paragraphs), and the text box comes after its paragraph.
    assert_eq!(
        got,
        common::owned(&[
            ("h1", "Remote Work Policy"),
            ("h1", "Eligibility"),
            (
                "p",
                "Employees may never work remotely.Remote work requires a signed VPN agreement and the approval of your team lead."
            ),
            ("p", "Contractors & interns are not eligible.\nAsk HR for exceptions."),
            ("h2", "Equipment"),
            ("p", "A company laptop with full-disk encryption."),
            ("p", "A headset for calls longer than one hour."),
            ("h1", "Allowances"),
            ("row 1 header", "Region | Monthly allowance | Code"),
            ("row 2", "Spain | 40 EUR | RW-ES-01"),
            ("row 3", "Germany | 45 EUR | RW-DE-01"),
            ("p", "Allowances are paid with the salary of the following month."),
            ("p", "Call the IT desk at extension 4242."),
        ])
    );
    assert!(!doc.text.contains("security handbook"), "a footnote is not in the flow");
    assert_eq!(detect("no-extension", &fixture("policy.doc")), Ok(Kind::Word));
    // Damaged: cut in half, or not a Word file inside the compound file.
    let half = &fixture("policy.doc")[..7168];
    let err = open_with("half.doc", half, &Limits::default()).unwrap_err().to_string();
    assert!(err.starts_with("malformed document: legacy Word file: "), "{err}");
    let sheet =
        std::fs::read(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/sheets/book.xls")).unwrap();
    let err = open_with("book.doc", &sheet, &Limits::default()).unwrap_err().to_string();
    assert!(err.starts_with("content does not match extension: .doc file holds application/vnd.ms-excel"), "{err}");
}

#[test]
fn a_chart_reads_as_a_table_of_its_data_after_its_paragraph() {
    // The docx's chart part caches the values; the odt's chart object holds
    // them in its local table. Both read as the deck readers read charts.
    for name in ["sales.docx", "sales.odt"] {
        let doc = open(name);
        let expected = [
            ("h1", "Sales by region"),
            ("p", "The northern region led every quarter of 2026; the chart below shows units sold."),
            // LibreOffice anchors the chart in the paragraph after it; a
            // chart is read after the paragraph that holds it.
            ("p", "Returns stayed under two percent in both regions."),
            ("p", "Chart: Units sold per quarter"),
            ("row 1 header", "Units sold per quarter | North | South"),
            ("row 2", "Q1 2026 | 410 | 260"),
            ("row 3", "Q2 2026 | 455 | 280"),
            ("row 4", "Q3 2026 | 390 | 310"),
            ("row 5", "Q4 2026 | 520 | 305"),
        ];
        assert_eq!(common::blocks(&doc), common::owned(&expected), "{name}");
        assert_eq!(doc.title, "Regional Sales Report", "{name}");
    }
}

#[test]
fn a_generated_table_of_contents_and_index_are_left_out() {
    // LibreOffice generated both (contents.py), then saved the handbook in
    // each format: the docx's entries are a TOC field's result styled
    // `TOC 1`/`TOC 2` under a `TOC Heading`, the odt's a
    // `text:table-of-content` and a `text:alphabetical-index`, the rtf's
    // and the doc's paragraphs styled `Contents 1` and `Index 1`. Each
    // heading reads once, as the heading.
    let expected = [
        ("h1", "Field Service Handbook"),
        ("p", "This handbook is for technicians who visit customer sites."),
        ("h1", "Before the visit"),
        ("h2", "Scheduling"),
        ("p", "Confirm the appointment window with the customer the day before and note the gate code."),
        ("h2", "Spare parts"),
        ("p", "Load the van with the spare parts the ticket lists, plus two fuses of each rating."),
        ("h1", "On site"),
        ("h2", "Safety"),
        ("p", "Isolate the supply at the breaker and lock it out before opening any cabinet."),
        ("h2", "Diagnosis"),
        ("p", "Read the controller's error log before replacing anything; most faults are a loose sensor cable."),
        ("h1", "After the visit"),
        ("h2", "Reporting"),
        ("p", "File the visit report within twenty-four hours, with photographs of the repaired unit."),
    ];
    for name in ["contents.docx", "contents.odt", "contents.rtf", "contents.doc"] {
        let doc = open(name);
        assert_eq!(common::blocks(&doc), common::owned(&expected), "{name}");
        assert_eq!(doc.title, "Field Service Handbook", "{name}");
    }
}

#[test]
fn detected_by_content_without_an_extension() {
    for name in ["policy.docx", "policy.odt", "policy.rtf"] {
        assert_eq!(detect("no-extension", &fixture(name)), Ok(Kind::Word), "{name}");
    }
    // Word saves RTF under `.doc` when asked to; it is read as what it is.
    assert_eq!(detect("policy.doc", &fixture("policy.rtf")), Ok(Kind::Word));
}

#[test]
fn rtf_in_spanish_keeps_its_accents_headings_and_table() {
    let doc = open("horario.rtf");
    assert_eq!(doc.title, "Horario de atención");
    let got = common::blocks(&doc);
    assert_eq!(
        got,
        common::owned(&[
            ("h1", "Horario de atención"),
            ("p", "La oficina de atención al cliente abre de lunes a viernes; los días festivos permanece cerrada."),
            ("h2", "Teléfonos"),
            ("row 1 header", "Sede | Teléfono | Código"),
            ("row 2", "Málaga | 952 000 111 | SED-MLG-01"),
            ("row 3", "Córdoba | 957 000 222 | SED-COR-02"),
            ("p", "Para reclamaciones, escriba a «atención» — le responderemos en 48 horas."),
        ])
    );
}

#[test]
fn a_damaged_rtf_keeps_what_it_can_read_or_fails_with_its_reason() {
    let rtf = fixture("policy.rtf");
    // Cut mid-table: what came before is read, the open row is kept.
    let cut = &rtf[..rtf.windows(6).position(|w| w == b"RW-ES-").unwrap()];
    let doc = open_with("cut.rtf", cut, &Limits::default()).unwrap();
    assert!(doc.text.contains("Remote work requires a signed VPN agreement"), "{}", doc.text);
    assert!(doc.text.ends_with("Spain | 40 EUR"), "{}", doc.text);
    let err = open_with("notes.rtf", b"{\\rtf1 {\\fonttbl{\\f0 Arial;}}}", &Limits::default()).unwrap_err();
    assert_eq!(err.to_string(), "no text content");
}

/// An RTF document from its source, read through detection as a file is.
fn rtf(source: &str) -> Document {
    open_with("t.rtf", source.as_bytes(), &Limits::default()).unwrap_or_else(|e| panic!("{source}: {e}"))
}

#[test]
fn rtf_unicode_escapes_skip_their_fallback_and_ansi_bytes_follow_the_code_page() {
    let doc = rtf(r"{\rtf1\ansi\ansicpg1252\uc1 Caf\'e9 \u8364?5 {\uc2\u8212\'97\'97} na\u239\'efve\par}");
    assert_eq!(doc.text, "Café €5 — naïve");
    // U+1F600 as its two UTF-16 halves, each with a `?` fallback.
    assert_eq!(rtf(r"{\rtf1 smile \u-10179?\u-8704?\par}").text, "smile \u{1F600}");
    assert_eq!(rtf(r"{\rtf1\ansi\ansicpg1251 \'cf\'f0\'e8\'e2\'e5\'f2\par}").text, "Привет");
}

#[test]
fn rtf_skipped_destinations_hidden_and_deleted_text_stay_out() {
    let doc = rtf(concat!(
        r"{\rtf1{\fonttbl{\f0 Arial;}}{\*\unknownthing secret}{\info{\title Plan}{\author Ann}}",
        r"Kept {\v hidden} {\deleted gone}text{\footnote note}.\par",
        r"{\field{\*\fldinst HYPERLINK x}{\fldrslt link text}}\par}"
    ));
    assert_eq!(doc.title, "Plan");
    assert_eq!(doc.text, "Kept text.\n\nlink text");
}

#[test]
fn rtf_groups_nested_past_the_limit_fail_and_stray_braces_do_not() {
    let limits = Limits { max_nesting: 50, ..Limits::default() };
    let deep = format!("{{\\rtf1 {}x{}}}", "{".repeat(60), "}".repeat(60));
    let err = open_with("deep.rtf", deep.as_bytes(), &limits).unwrap_err();
    assert_eq!(err.to_string(), "limit exceeded: groups nested more than 50 deep (max_nesting)");
    assert_eq!(rtf("{\\rtf1 a}}} b\\").text, "a b");
}
