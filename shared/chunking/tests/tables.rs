//! The table chunker's guarantees, checked on every chunk of workbooks made
//! by LibreOffice, real CSV data (palmerpenguins), a real Markdown table
//! (`eval/corpus/ahash-FAQ.md`) and generated HTML/Markdown tables, with the
//! model's own tokenizer:
//! - a chunk holds whole, consecutive rows of one table; a row is cut
//!   (between cells, or inside a cell that alone is too large) only when it
//!   cannot fit under its header;
//! - the header row is repeated at the top of every chunk of its table;
//! - `#char` resolves to the rows part of `content` (content minus the header);
//! - the A1 range covers exactly the chunk's rows (a cut row: exactly its cells);
//! - token counts are measured and within the budget, in both text forms.

use ragpipe_chunking::{ChunkConfig, TableRows, TokenCounter, chunk_document};
use ragpipe_core::{Block, BlockKind, Chunk, Document, Kind};
use ragpipe_embed::{ModelFiles, ModelTokenizer, ModelVariant};
use std::path::PathBuf;

fn tokenizer() -> ModelTokenizer {
    let files = ModelFiles::provisioned(ModelVariant::Fp32).expect("model provisioned");
    ModelTokenizer::load(&files).unwrap()
}

fn open(path: PathBuf) -> Document {
    let name = path.file_name().unwrap().to_string_lossy().to_string();
    let bytes = std::fs::read(&path).unwrap();
    ragpipe_extract::extract(ragpipe_extract::detect(&name, &bytes).unwrap(), &name, &bytes).unwrap()
}

fn sheet(name: &str) -> Document {
    open(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../extract/tests/fixtures/sheets").join(name))
}

fn from_source(name: &str, source: &str) -> Document {
    ragpipe_extract::extract(ragpipe_extract::detect(name, source.as_bytes()).unwrap(), name, source.as_bytes())
        .unwrap()
}

fn cfg(budget: usize, table_rows: TableRows) -> ChunkConfig {
    ChunkConfig { budget, table_rows, ..ChunkConfig::default() }
}

/// `(table, row, header)` of a table-row block.
fn row_of(b: &Block) -> Option<(u32, u32, bool)> {
    match b.kind {
        BlockKind::TableRow { table, row, header } => Some((table, row, header)),
        _ => None,
    }
}

/// The header line(s) of a table with data rows: the text its chunks repeat
/// (a table of header rows only is chunked as plain rows).
fn header_of(doc: &Document, table: u32) -> String {
    let heads: Vec<&Block> = doc.blocks.iter().filter(|b| row_of(b).is_some_and(|r| r.0 == table && r.2)).collect();
    let has_data = doc.blocks.iter().any(|b| row_of(b).is_some_and(|r| r.0 == table && !r.2));
    match (heads.first(), heads.last()) {
        (Some(a), Some(z)) if has_data => doc.text[a.range.start..z.range.end].to_string(),
        _ => String::new(),
    }
}

/// Index of the cell of `line` at byte `at` (cells are joined by ` | `).
fn cell_at(line: &str, at: usize) -> u32 {
    line[..at].matches(" | ").count() as u32
}

/// Parses an A1 reference of one or two areas, `C2:H2,C5:H20` or `C2:H20`,
/// into its areas of (first col, first row, last col, last row).
fn parse_a1(range: &str) -> Vec<(u32, u32, u32, u32)> {
    let cell = |s: &str| {
        let split = s.find(|c: char| c.is_ascii_digit()).unwrap();
        let col = s[..split].bytes().fold(0, |n, b| n * 26 + u32::from(b - b'A' + 1));
        (col, s[split..].parse::<u32>().unwrap())
    };
    range
        .split(',')
        .map(|area| {
            let (a, b) = area.split_once(':').unwrap();
            let ((c1, r1), (c2, r2)) = (cell(a), cell(b));
            (c1, r1, c2, r2)
        })
        .collect()
}

/// The first and last row number of a table's header rows (for a table with data rows).
fn header_rows(doc: &Document, table: u32) -> Option<(u32, u32)> {
    let rows: Vec<u32> = doc.blocks.iter().filter_map(row_of).filter(|r| r.0 == table && r.2).map(|r| r.1).collect();
    Some((*rows.first()?, *rows.last()?)).filter(|_| !header_of(doc, table).is_empty())
}

/// Checks an A1 reference: the header's area over the same columns (merged
/// with the rows' area when adjacent), then exactly the rows `r1..=r2`.
fn check_a1(areas: &[(u32, u32, u32, u32)], cols: (u32, u32), rows: (u32, u32), head: Option<(u32, u32)>, what: &str) {
    let (c1, c2) = cols;
    let want = match head {
        Some((h1, h2)) if h2 + 1 == rows.0 => vec![(c1, h1, c2, rows.1)],
        Some((h1, h2)) => vec![(c1, h1, c2, h2), (c1, rows.0, c2, rows.1)],
        None => vec![(c1, rows.0, c2, rows.1)],
    };
    assert_eq!(areas, want, "{what}: A1 reference");
}

fn check(doc: &Document, chunks: &[Chunk], tok: &ModelTokenizer, cfg: &ChunkConfig) {
    let mut covered = vec![false; doc.blocks.len()];
    for (i, c) in chunks.iter().enumerate() {
        let what = format!("{} chunk {i} at budget {}", doc.title, cfg.budget);
        assert_eq!(c.tokens as usize, tok.count(&c.text) + tok.special_tokens(), "{what}: tokens measured");
        assert!(c.tokens as usize <= cfg.budget, "{what}: {} tokens", c.tokens);
        let slice = &doc.text[c.bytes.clone()];
        assert_eq!(c.locator.resolve(&doc.text), Some(slice), "{what}: #char resolves to the rows");
        // Whole rows inside the chunk, or the one row a piece was cut from.
        let within: Vec<usize> = (0..doc.blocks.len())
            .filter(|&k| {
                let r = &doc.blocks[k].range;
                c.bytes.start <= r.start && r.end <= c.bytes.end
            })
            .collect();
        let inside: Vec<usize> = within.iter().copied().filter(|&k| row_of(&doc.blocks[k]).is_some()).collect();
        assert!(inside.is_empty() || inside.len() == within.len(), "{what}: rows mixed with prose");
        let holder = doc.blocks.iter().position(|b| b.range.start <= c.bytes.start && c.bytes.end <= b.range.end);
        let Some((table, ..)) = inside.first().or(holder.as_ref()).and_then(|&k| row_of(&doc.blocks[k])) else {
            continue; // a prose chunk
        };
        let header = header_of(doc, table);
        let info = &doc.tables[table as usize];
        let a1 = c.locator.sheet.as_ref().map(|(name, range)| {
            assert_eq!(name, &info.sheet, "{what}: sheet name");
            parse_a1(range)
        });
        assert_eq!(a1.is_some(), !info.sheet.is_empty(), "{what}: A1 range for sheets only");
        if !inside.is_empty() {
            let rows: Vec<(u32, u32, bool)> = inside.iter().map(|&k| row_of(&doc.blocks[k]).unwrap()).collect();
            assert!(rows.iter().all(|r| r.0 == table && (!r.2 || header.is_empty())), "{what}: one table's data rows");
            let (first, last) = (&doc.blocks[inside[0]], &doc.blocks[*inside.last().unwrap()]);
            assert_eq!((c.bytes.start, c.bytes.end), (first.range.start, last.range.end), "{what}: whole rows");
            let expected = if header.is_empty() { slice.to_string() } else { format!("{header}\n{slice}") };
            assert_eq!(c.content, expected, "{what}: the header is repeated on top of the rows");
            if let Some(a1) = &a1 {
                let span = (rows[0].1, rows.last().unwrap().1);
                check_a1(a1, (info.first_col, info.last_col), span, header_rows(doc, table), &what);
            }
            inside.iter().for_each(|&k| covered[k] = true);
        } else {
            // A piece of one row: only when the row cannot fit under its header.
            let k = holder.unwrap();
            let row = &doc.blocks[k];
            let line = doc.slice(row);
            let ctx = c.header_tokens as usize + tok.special_tokens();
            assert!(tok.count(line) + tok.count(&header) + ctx > cfg.budget, "{what}: a fitting row was cut");
            let (at, end) = (c.bytes.start - row.range.start, c.bytes.end - row.range.start);
            let (c1, c2) = (cell_at(line, at), cell_at(line, end));
            let starts_on_cell = at == 0 || line[..at].ends_with(" | ");
            let ends_on_cell = end == line.len() || line[end..].starts_with(" | ");
            let head = header.rsplit('\n').next().unwrap();
            let head_cells: Vec<&str> = head.split(" | ").collect();
            if !(starts_on_cell && ends_on_cell) {
                // A piece of a cut cell (the last cell of the piece), which
                // whole cells before it may lead.
                assert!(starts_on_cell || c1 == c2, "{what}: a cut inside a cell stays in that cell");
                let cell = line.split(" | ").nth(c2 as usize).unwrap();
                let name = head_cells.get(c2 as usize).map_or(0, |h| tok.count(h));
                assert!(tok.count(cell) + name + ctx + 1 > cfg.budget, "{what}: a fitting cell was cut");
            }
            let expected: Vec<&str> =
                head_cells.iter().skip(c1 as usize).take((c2 - c1 + 1) as usize).copied().collect();
            let expected = expected.join(" | ");
            let want = if expected.is_empty() { slice.to_string() } else { format!("{expected}\n{slice}") };
            assert_eq!(c.content, want, "{what}: the header's cells over the piece's columns");
            if let Some(a1) = &a1 {
                let r = row_of(row).unwrap().1;
                let head = header_rows(doc, table).filter(|_| !expected.is_empty());
                check_a1(a1, (info.first_col + c1, info.first_col + c2), (r, r), head, &what);
            }
            covered[k] = true;
        }
        match cfg.table_rows {
            TableRows::Readable => assert!(c.text.ends_with(&c.content), "{what}: readable text"),
            TableRows::Linearised if !header.is_empty() => assert!(!c.text.contains(" | "), "{what}: linearised"),
            TableRows::Linearised => {}
        }
    }
    for (k, b) in doc.blocks.iter().enumerate() {
        if let Some((table, _, head)) = row_of(b) {
            let data = !head || header_of(doc, table).is_empty();
            assert!(!data || covered[k], "{}: row {:?} is in a chunk", doc.title, doc.slice(b));
        }
    }
}

#[test]
fn every_chunk_of_workbooks_and_csv_keeps_the_rules() {
    let tok = tokenizer();
    let docs: Vec<Document> = [
        "book.xlsx",
        "book.ods",
        "book.xls",
        "book-semicolon.csv",
        "penguins.xlsx",
        "penguins.tsv",
        "penguins-raw.csv",
    ]
    .into_iter()
    .map(sheet)
    .collect();
    let ahash = open(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../eval/corpus/ahash-FAQ.md"));
    for budget in [256, 128, 64] {
        for form in [TableRows::Readable, TableRows::Linearised] {
            let cfg = cfg(budget, form);
            for doc in docs.iter().chain([&ahash]) {
                check(doc, &chunk_document(doc, &tok, &cfg), &tok, &cfg);
            }
        }
    }
}

#[test]
fn sheet_chunks_repeat_the_header_and_name_their_rows() {
    let tok = tokenizer();
    let doc = sheet("penguins.xlsx");
    let chunks = chunk_document(&doc, &tok, &ChunkConfig::default());
    assert!(chunks.len() >= 8, "{} chunks", chunks.len());
    let header = "species | island | bill_length_mm | bill_depth_mm | flipper_length_mm | body_mass_g | sex | year";
    for c in &chunks {
        assert!(c.content.starts_with(header), "{}", c.content);
        assert!(c.text.starts_with(&format!("penguins > Sheet: penguins\n\n{header}\n")));
        assert_eq!(c.section, ["Sheet: penguins"]);
    }
    let first = chunks[0].locator.to_string();
    assert!(first.starts_with("#sheet=penguins&range=A1:H"), "{first}");
    let last = chunks.last().unwrap().locator.sheet.clone().unwrap().1;
    assert!(last.starts_with("A1:H1,A") && last.ends_with(":H345"), "the header row, then the rows: {last}");

    let linear = chunk_document(&doc, &tok, &cfg(256, TableRows::Linearised));
    assert!(linear[0].text.starts_with(
        "penguins > Sheet: penguins\n\nspecies: Adelie; island: Torgersen; bill_length_mm: 39.1; bill_depth_mm: 18.7"
    ));
    assert_eq!(linear[0].content.lines().next(), Some(header), "content stays the readable table");
}

#[test]
fn workbook_chunks_follow_sheets_and_title_rows() {
    let tok = tokenizer();
    let doc = sheet("book.xlsx");
    let chunks = chunk_document(&doc, &tok, &ChunkConfig::default());
    let shown: Vec<(String, String)> = chunks.iter().map(|c| (c.locator.to_string(), c.section.join(" > "))).collect();
    assert_eq!(shown.len(), 3, "one chunk per sheet: {shown:?}");
    assert!(shown[0].0.starts_with("#sheet=Sales%20Q1&range=A3:H7&char="), "{shown:?}");
    assert_eq!(shown[0].1, "Sheet: Sales Q1 > Quarterly sales report");
    assert!(shown[1].0.starts_with("#sheet=Offset%20%26%20Gaps&range=C5:E9&char="), "{shown:?}");
    // A sheet without a header row: rows alone, no header to repeat.
    assert!(shown[2].0.starts_with("#sheet=Numbers&range=A1:C2&char="), "{shown:?}");
    assert_eq!(chunks[2].content, "1 | 2 | 3\n4 | 5.5 | 6");
    assert!(chunks[0].text.starts_with("book > Sheet: Sales Q1 > Quarterly sales report\n\nRegion | Units |"));
}

#[test]
fn oversized_rows_are_cut_between_cells_and_huge_cells_inside() {
    let tok = tokenizer();
    let note = "The colony was surveyed again after the storm, and every nest was counted twice. ".repeat(30);
    let csv = format!("id,species,note\n1,Adelie,short note\n2,Gentoo,\"{note}\"\n3,Chinstrap,ok\n");
    let doc = from_source("survey.csv", &csv);
    let cfg = cfg(96, TableRows::Readable);
    let chunks = chunk_document(&doc, &tok, &cfg);
    check(&doc, &chunks, &tok, &cfg);
    let ranges: Vec<String> = chunks.iter().map(|c| c.locator.sheet.clone().unwrap().1).collect();
    assert_eq!(ranges[0], "A1:C2");
    // The row's short cells lead the first piece of its long note, so the
    // piece says which penguin it is about; the note's other pieces follow
    // under their column's header, each as many whole sentences as fit.
    assert_eq!(ranges[1], "A1:C1,A3:C3", "{ranges:?}");
    assert!(ranges[2..ranges.len() - 1].iter().all(|r| r == "C1:C1,C3:C3"), "{ranges:?}");
    assert_eq!(ranges.last().unwrap(), "A1:C1,A4:C4");
    assert!(
        chunks[1].content.starts_with("id | species | note\n2 | Gentoo | The colony was surveyed"),
        "{}",
        chunks[1].content
    );
    assert!(chunks[2].content.starts_with("note\nThe colony was surveyed"), "{}", chunks[2].content);
    for piece in &chunks[1..chunks.len() - 2] {
        assert!(piece.content.matches("The colony").count() >= 3, "sentences packed: {}", piece.content);
    }
    // The note's later pieces name their row by its first cell in the
    // embedded text (after the section path, before the content); the
    // pieces that hold that cell, and whole rows, do not repeat it.
    assert!(chunks[2].text.ends_with(&format!("id: 2\n\n{}", chunks[2].content)), "{}", chunks[2].text);
    assert!(chunks[2].header_tokens > 0);
    for whole in [&chunks[0], &chunks[1], chunks.last().unwrap()] {
        assert!(!whole.text.contains("id: "), "{}", whole.text);
    }
}

/// Tables read off PDF pages (LibreOffice's Writer table and a sheet Calc
/// printed over two pages): every chunk keeps the rules, and the rows on
/// the second page go under the header printed on the first only.
#[test]
fn pdf_tables_chunk_under_their_header_on_every_page() {
    let tok = tokenizer();
    let pdf =
        |name: &str| open(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../extract/tests/fixtures/pdf").join(name));
    let (weather, parts) = (pdf("weather.pdf"), pdf("parts.pdf"));
    for budget in [256, 64] {
        let cfg = cfg(budget, TableRows::Readable);
        for doc in [&weather, &parts] {
            check(doc, &chunk_document(doc, &tok, &cfg), &tok, &cfg);
        }
    }
    let chunks = chunk_document(&weather, &tok, &ChunkConfig::default().for_model(&tok));
    let head = "date | precipitation | temp_max | temp_min | wind | weather\n2012/";
    for page in [1, 2] {
        let on_page: Vec<&Chunk> = chunks.iter().filter(|c| c.locator.page == Some(page)).collect();
        assert!(!on_page.is_empty(), "page {page}");
        for c in on_page {
            assert!(c.content.starts_with(head), "page {page}: {:?}", c.content);
        }
    }
    let last = chunks.iter().find(|c| c.content.contains("2012/02/29")).unwrap();
    assert_eq!(last.locator.page, Some(2));
}

#[test]
fn html_tables_chunk_as_tables_inside_their_section() {
    let tok = tokenizer();
    let rows: String =
        (1..=80).map(|i| format!("<tr><td>host-{i}</td><td>10.0.{i}.1</td><td>rack {}</td></tr>", i % 7)).collect();
    let html = format!(
        "<html><head><title>Inventory</title></head><body><h1>Inventory</h1><h2>Hosts</h2>\
         <p>Every host we run, with its address:</p>\
         <table><thead><tr><th>Host</th><th>Address</th><th>Rack</th></tr></thead><tbody>{rows}</tbody></table>\
         <p>Addresses are static.</p></body></html>"
    );
    let doc = from_source("inventory.html", &html);
    assert_eq!(doc.kind, Kind::Html);
    let cfg = ChunkConfig::default().for_model(&tok);
    let chunks = chunk_document(&doc, &tok, &cfg);
    check(&doc, &chunks, &tok, &cfg);
    let table: Vec<&Chunk> = chunks.iter().filter(|c| c.content.starts_with("Host | Address | Rack\n")).collect();
    assert!(table.len() >= 3, "{} table chunks", table.len());
    assert_eq!(chunks[0].content, "Every host we run, with its address:");
    assert_eq!(chunks.last().unwrap().content, "Addresses are static.");
    assert_eq!(table.len(), chunks.len() - 2);
    for c in &table {
        assert!(c.locator.sheet.is_none() && c.locator.to_string().starts_with("#char="));
        // The short paragraph before the table is its caption: every chunk
        // of the table carries it in its header.
        assert!(
            c.text.starts_with(
                "Inventory > Hosts > Every host we run, with its address:\n\nHost | Address | Rack\nhost-"
            ),
            "{}",
            c.text
        );
    }
}

#[test]
fn markdown_tables_chunk_as_tables() {
    let tok = tokenizer();
    let rows: String = (1..=60).map(|i| format!("| `opt-{i}` | {} | Sets option {i}. |\n", i * 3)).collect();
    // A paragraph of more than 20 words before a table is prose, not its
    // caption: the table's chunks do not carry it.
    let intro = "Every option the tool reads from its configuration file, with the value it takes when the file \
                 leaves it out and what it changes.";
    let md = format!("# Options\n\n{intro}\n\n| Name | Default | Meaning |\n|---|--:|---|\n{rows}\nDone.\n");
    let doc = from_source("options.md", &md);
    let cfg = cfg(128, TableRows::Linearised);
    let chunks = chunk_document(&doc, &tok, &cfg);
    check(&doc, &chunks, &tok, &cfg);
    let table: Vec<&Chunk> = chunks.iter().filter(|c| c.content.starts_with("Name | Default | Meaning\n")).collect();
    assert!(table.len() >= 3);
    assert!(
        table[0].text.starts_with("Options\n\nName: opt-1; Default: 3; Meaning: Sets option 1."),
        "{}",
        table[0].text
    );
}
