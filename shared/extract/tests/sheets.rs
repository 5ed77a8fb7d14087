//! Spreadsheet and CSV extraction on fixtures made by LibreOffice and a real
//! dataset (see `fixtures/sheets/make.sh`): values read as a person sees them,
//! the same text from xlsx, ods and xls, exact row numbers and used columns,
//! and precise reasons for broken, encrypted and oversized files.

mod common;

use common::table_rows;
use ragpipe_core::{Document, Kind, Table};
use ragpipe_extract::{ExtractError, Limits, detect, extract, extract_with};
use std::path::PathBuf;

fn fixture(name: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/sheets").join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn open(name: &str) -> Document {
    open_with(name, &Limits::default()).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn open_with(name: &str, limits: &Limits) -> Result<Document, ExtractError> {
    let bytes = fixture(name);
    extract_with(detect(name, &bytes)?, name, &bytes, None, limits)
}

fn headings(doc: &Document) -> Vec<(u8, &str)> {
    doc.headings().into_iter().map(|(text, level)| (level, text)).collect()
}

#[test]
fn workbook_values_read_as_a_person_sees_them() {
    let doc = open("book.xlsx");
    assert_eq!(doc.kind, Kind::Spreadsheet);
    assert_eq!(doc.title, "book");
    assert_eq!(
        table_rows(&doc, 0),
        [
            (3, true, "Region | Units | Price | Date | Shipped | Total | Ratio | Note"),
            // integer without .0, ISO date, boolean, formula's cached value,
            // error as Excel writes it, line break inside a cell flattened
            (4, false, "North | 10 | 2.5 | 2024-03-15 | true | 25 | #DIV/0! | Line one line two"),
            // date-time with its time, 7 * 0.1 at 15 significant digits, escaped pipe
            (5, false, "South | 7 | 0.1 | 2024-03-16T14:30:00 | false | 0.7 | 0.7 | a \\| b"),
            // empty cells keep their column; =1/3 as Excel shows it
            (6, false, "East | -3 | 1234567.891 |  |  | -3703703.673 | 0.333333333333333 | spaced out"),
            // a large integer, a small float, a time of day; trailing empty cells dropped
            (7, false, "West | 123456789012 | 0.000125 | 12:30:00"),
        ]
    );
    // The title row above the header names the table; the styled empty cell
    // at J20 and the empty "Empty" sheet leave no trace.
    assert_eq!(
        headings(&doc),
        [(1, "Sheet: Sales Q1"), (2, "Quarterly sales report"), (1, "Sheet: Offset & Gaps"), (1, "Sheet: Numbers")]
    );
    assert_eq!(
        doc.tables,
        [
            Table { sheet: "Sales Q1".into(), first_col: 1, last_col: 8 },
            Table { sheet: "Offset & Gaps".into(), first_col: 3, last_col: 5 },
            Table { sheet: "Numbers".into(), first_col: 1, last_col: 3 },
        ]
    );
    // A table starting at C5 with an empty row inside keeps spreadsheet row numbers.
    assert_eq!(
        table_rows(&doc, 1),
        [
            (5, true, "Code | Name | Qty"),
            (6, false, "X-1 | Widget | 4"),
            (8, false, "X-2 |  | 9"),
            (9, false, "X-3 | Gadget"),
        ]
    );
    // Only numbers in the first row: no header row.
    assert_eq!(table_rows(&doc, 2), [(1, false, "1 | 2 | 3"), (2, false, "4 | 5.5 | 6")]);
}

#[test]
fn xlsx_ods_xls_and_xml_of_one_workbook_read_the_same() {
    let xlsx = open("book.xlsx");
    // book-2003.xml: Excel's XML Spreadsheet 2003, read without calamine.
    for name in ["book.ods", "book.xls", "book-2003.xml"] {
        let other = open(name);
        assert_eq!(other.text, xlsx.text, "{name}");
        assert_eq!(other.blocks, xlsx.blocks, "{name}");
        assert_eq!(other.tables, xlsx.tables, "{name}");
    }
    // Real data: the package's CSV, converted by LibreOffice, reads the same
    // as its tab-separated export.
    let (xlsx, ods, tsv) = (open("penguins.xlsx"), open("penguins.ods"), open("penguins.tsv"));
    assert_eq!(ods.text, xlsx.text);
    assert_eq!(tsv.kind, Kind::Csv);
    assert_eq!(xlsx.text.strip_prefix("Sheet: penguins\n\n"), Some(tsv.text.as_str()));
    let data = table_rows(&tsv, 0);
    assert_eq!(data.len(), 345);
    assert_eq!(
        data[0],
        (1, true, "species | island | bill_length_mm | bill_depth_mm | flipper_length_mm | body_mass_g | sex | year")
    );
    assert_eq!(data[4], (5, false, "Adelie | Torgersen | NA | NA | NA | NA | NA | 2007"));
}

#[test]
fn csv_dialects_are_sniffed() {
    let raw = open("penguins-raw.csv");
    let data = table_rows(&raw, 0);
    assert_eq!(data.len(), 345);
    assert!(data[0].2.starts_with("studyName | Sample Number | Species | Region"), "{}", data[0].2);
    // A quoted field holding the delimiter stays one cell.
    assert!(data[1].2.contains(" | Adult, 1 Egg Stage | N1A1 | "), "{}", data[1].2);
    assert_eq!(raw.tables, [Table { sheet: "penguins-raw".into(), first_col: 1, last_col: 17 }]);

    // LibreOffice's `;` export: blank records skipped, a quoted line break flattened,
    // the title line above the header a heading.
    let semi = open("book-semicolon.csv");
    assert_eq!(headings(&semi), [(2, "Quarterly sales report")]);
    let data = table_rows(&semi, 0);
    assert_eq!(data[0], (3, true, "Region | Units | Price | Date | Shipped | Total | Ratio | Note"));
    assert_eq!(data[1], (4, false, "North | 10 | 2.5 | 2024-03-15 | TRUE | 25 | #DIV/0! | Line one line two"));
    assert_eq!(data[4], (7, false, "West | 123456789012 | 0.000125 | 12:30:00"));
}

#[test]
fn broken_and_hostile_workbooks_fail_with_the_reason() {
    let reason = |name: &str| open_with(name, &Limits::default()).unwrap_err().to_string();
    assert_eq!(reason("encrypted.xlsx"), "encrypted spreadsheet");
    assert_eq!(reason("junk.xlsx"), "malformed spreadsheet: zip archive holds no workbook");
    assert_eq!(reason("truncated.xlsx"), "malformed spreadsheet: invalid zip archive (truncated or corrupt)");
    assert_eq!(reason("empty.xlsx"), "empty file");
    // calamine skips xlsb's compact cell records: refused rather than read with holes.
    assert_eq!(
        reason("book-sheetjs.xlsb"),
        "malformed spreadsheet: xlsb sheet uses compact cell records that cannot be read; save it as xlsx"
    );
    assert_eq!(extract(Kind::Spreadsheet, "empty.xlsx", b"").unwrap_err(), ExtractError::Empty);
    let not_a_workbook = extract(Kind::Spreadsheet, "x.xlsx", b"%PDF-1.7 pretending").unwrap_err();
    assert_eq!(not_a_workbook.to_string(), "malformed spreadsheet: not an xlsx, xlsb, xls or ods file");

    // 83 KB that inflate to 64 MiB: refused before calamine inflates anything.
    let small = Limits { max_decompressed_bytes: 16 << 20, ..Limits::default() };
    let bomb = open_with("bomb.xlsx", &small).unwrap_err().to_string();
    assert!(
        bomb.starts_with("limit exceeded: workbook inflates to 67")
            && bomb.ends_with("more than 16777216 (max_decompressed_bytes)"),
        "{bomb}"
    );
    assert!(open_with("bomb.xlsx", &Limits::default()).is_ok(), "within the default limit it reads");

    let rows = Limits { max_rows: 100, ..Limits::default() };
    for name in ["penguins.xlsx", "penguins.ods", "penguins-raw.csv"] {
        assert_eq!(open_with(name, &rows).unwrap_err().to_string(), "limit exceeded: more than 100 rows (max_rows)");
    }
    let cells = Limits { max_cells: 1000, ..Limits::default() };
    assert_eq!(
        open_with("penguins.xlsx", &cells).unwrap_err().to_string(),
        "limit exceeded: more than 1000 cells (max_cells)"
    );
}

#[test]
fn the_format_comes_from_the_content() {
    // An xlsx saved with an .xls name (a common mislabel) still reads as xlsx.
    let bytes = fixture("book.xlsx");
    let doc = extract(detect("book.xls", &bytes).unwrap(), "book.xls", &bytes).unwrap();
    assert_eq!(doc.text, open("book.xlsx").text);
    // So does an XML Spreadsheet 2003 named .xls, as reporting tools write it.
    let bytes = fixture("book-2003.xml");
    assert_eq!(detect("report.xls", &bytes), Ok(Kind::Spreadsheet));
    let doc = extract(Kind::Spreadsheet, "report.xls", &bytes).unwrap();
    assert_eq!((doc.text, doc.warnings), (open("book.xlsx").text, vec![]));
}
