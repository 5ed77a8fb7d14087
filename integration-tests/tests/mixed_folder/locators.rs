//! The mixed folder's chunks, checked against the documents they came
//! from: each kind's locator (`#page`, `#t`, the A1 range, `#L`, `#char`)
//! names exactly what the chunk holds.

use super::Run;
use ragpipe_core::{BlockKind, Locator};
use serde_json::Value;

/// A document's chunks, each with its locator parsed.
fn located(run: &Run, name: &str) -> Vec<(Value, Locator)> {
    let chunks = run.chunks(name);
    chunks
        .into_iter()
        .map(|c| {
            let loc = Locator::parse(c["locator"].as_str().unwrap()).unwrap();
            (c, loc)
        })
        .collect()
}

/// A word-processor document's chunks slice out of its text by `#char`
/// (a table chunk's rows, under its repeated header line) and carry its
/// title.
pub(super) fn check_word_chunks(run: &Run, name: &str) {
    let doc = run.document(name);
    let chunks = located(run, name);
    let header = "Region | Monthly allowance | Code";
    let mut tables = 0;
    for (c, loc) in &chunks {
        let content = c["content"].as_str().unwrap();
        let sliced = loc.resolve(&doc.text).expect("#char resolves");
        if content.starts_with(header) {
            assert_eq!(content, format!("{header}\n{sliced}"), "{name}: the header over the rows");
            assert_eq!(sliced, "Spain | 40 EUR | RW-ES-01\nGermany | 45 EUR | RW-DE-01");
            tables += 1;
        } else {
            assert_eq!(sliced, content, "{name}: #char slices to content");
        }
        assert!(c["text"].as_str().unwrap().starts_with("Remote Work Policy"), "{name}: {c}");
    }
    assert_eq!(tables, 1, "{name}: {chunks:?}");
}

/// A deck's chunks each stay on one slide, cite it by `#page=N` and slice
/// out of the text by `#char`; the table's chunk repeats its header row.
pub(super) fn check_slide_chunks(run: &Run, name: &str) {
    let doc = run.document(name);
    let chunks = located(run, name);
    let header = "Severity | First response | Resolution target";
    let mut pages = Vec::new();
    for (c, loc) in &chunks {
        let content = c["content"].as_str().unwrap();
        let sliced = loc.resolve(&doc.text).expect("#char resolves");
        let page = loc.page.expect("every chunk of a deck names its slide");
        if content.starts_with(header) {
            assert_eq!(page, 3, "{name}: the table is on slide 3");
            assert_eq!(content, format!("{header}\n{sliced}"), "{name}: the header over the rows");
        } else {
            assert_eq!(sliced, content, "{name}: #char slices to content");
        }
        let start = doc.text.char_indices().nth(loc.chars.start).map_or(doc.text.len(), |(b, _)| b);
        let on_page: Vec<_> =
            doc.blocks.iter().filter(|b| b.range.start >= start && b.range.end <= start + sliced.len()).collect();
        assert!(!on_page.is_empty() && on_page.iter().all(|b| b.page == Some(page)), "{name}: {c}");
        assert!(c["text"].as_str().unwrap().starts_with("Incident Response Review"), "{name}: {c}");
        pages.push(page);
    }
    pages.dedup();
    assert_eq!(pages, [1, 2, 3, 4, 5], "{name}: slides in order, each cited");
}

/// Every chunk repeats its table's header on top of whole rows, and its A1
/// reference names the header row and exactly those rows.
pub(super) fn check_table_chunks(run: &Run, name: &str) {
    let doc = run.document(name);
    let chunks = located(run, name);
    assert!(!chunks.is_empty(), "{name}");
    let mut rows_seen = 0;
    for (c, loc) in &chunks {
        let content = c["content"].as_str().unwrap();
        let rows = loc.resolve(&doc.text).expect("#char resolves");
        let rows_start = doc.text.char_indices().nth(loc.chars.start).map_or(doc.text.len(), |(b, _)| b);
        let rows_end = rows_start + rows.len();
        let blocks: Vec<(u32, u32, bool)> = doc
            .blocks
            .iter()
            .filter(|b| rows_start <= b.range.start && b.range.end <= rows_end)
            .map(|b| match b.kind {
                BlockKind::TableRow { table, row, header } => (table, row, header),
                _ => panic!("{name}: a table chunk holds only rows"),
            })
            .collect();
        let table = blocks[0].0;
        let header: Vec<(u32, &str)> = doc
            .blocks
            .iter()
            .filter_map(|b| match b.kind {
                BlockKind::TableRow { table: t, row, header: true } if t == table => Some((row, doc.slice(b))),
                _ => None,
            })
            .collect();
        let info = &doc.tables[table as usize];
        let (sheet, range) = loc.sheet.clone().expect("sheet and range on every table chunk");
        assert_eq!(sheet, info.sheet);
        let (c1, c2) = (column(info.first_col), column(info.last_col));
        let (r1, r2) = (blocks[0].1, blocks[blocks.len() - 1].1);
        match header.as_slice() {
            [] => {
                assert_eq!(content, rows, "{name}: no header, rows only");
                assert_eq!(range, format!("{c1}{r1}:{c2}{r2}"));
            }
            [(h, line)] => {
                assert_eq!(content, format!("{line}\n{rows}"), "{name}: the header is repeated");
                let want = if h + 1 == r1 {
                    format!("{c1}{h}:{c2}{r2}")
                } else {
                    format!("{c1}{h}:{c2}{h},{c1}{r1}:{c2}{r2}")
                };
                assert_eq!(range, want, "{name}");
            }
            more => panic!("{name}: unexpected header rows {more:?}"),
        }
        assert!(blocks.iter().all(|b| b.0 == table && !b.2), "{name}: data rows of one table");
        rows_seen += blocks.len();
    }
    let data_rows = doc.blocks.iter().filter(|b| matches!(b.kind, BlockKind::TableRow { header: false, .. })).count();
    assert_eq!(rows_seen, data_rows, "{name}: every data row in exactly one chunk");
}

/// Every chunk's `#L` lines hold exactly its code, cut only at line ends.
pub(super) fn check_code_chunks(run: &Run, name: &str) {
    let doc = run.document(name);
    let chunks = located(run, name);
    assert!(!chunks.is_empty(), "{name}");
    let lines: Vec<&str> = doc.text.split('\n').collect();
    for (c, loc) in &chunks {
        let content = c["content"].as_str().unwrap();
        assert_eq!(loc.resolve(&doc.text), Some(content), "{name}: #char slices to content");
        let (from, to) = loc.lines.expect("#L on every code chunk");
        assert_eq!(lines[from as usize - 1..to as usize].join("\n"), content, "{name}: {loc}");
    }
}

/// The A1 letters of a 1-based column (up to ZZ, enough for the fixtures).
fn column(col: u32) -> String {
    let letter = |n: u32| char::from(b'A' + n as u8);
    if col <= 26 {
        letter(col - 1).to_string()
    } else {
        format!("{}{}", letter((col - 1) / 26 - 1), letter((col - 1) % 26))
    }
}

/// Every chunk cites the page its content is on, never crosses a page, and
/// carries no running header or footer.
pub(super) fn check_pdf_chunks(run: &Run, name: &str) {
    let doc = run.document(name);
    let pages: Vec<&str> = doc.text.split('\u{c}').collect();
    let chunks = located(run, name);
    assert!(chunks.len() >= 3, "{name}: one chunk per page at least");
    for (c, loc) in &chunks {
        let content = c["content"].as_str().unwrap();
        assert_eq!(loc.resolve(&doc.text), Some(content), "#char slices to content");
        assert!(!content.contains('\u{c}'), "a chunk never crosses a page");
        let page = loc.page.expect("#page on every PDF chunk") as usize;
        let before = doc.text.chars().take(loc.chars.start).filter(|&c| c == '\u{c}').count();
        assert_eq!(before + 1, page, "{content:?} is on page {}", before + 1);
        assert!(pages[page - 1].contains(content));
        assert!(!content.contains("Northwind Field Station") && !content.contains("of 3"));
        assert!(c["text"].as_str().unwrap().starts_with("Field Station Handbook > "), "{c}");
    }
}

/// A sheet printed to PDF over two pages: every chunk is rows of its table
/// under the header printed on the first page only, cites the page its rows
/// are on, and `#char` slices to those rows.
pub(super) fn check_pdf_table_chunks(run: &Run, name: &str) {
    let doc = run.document(name);
    let chunks = located(run, name);
    let header = "date | precipitation | temp_max | temp_min | wind | weather";
    let mut pages = std::collections::BTreeSet::new();
    for (c, loc) in &chunks {
        let content = c["content"].as_str().unwrap();
        let sliced = loc.resolve(&doc.text).expect("#char resolves");
        assert_eq!(content, format!("{header}\n{sliced}"), "{name}: the header over the rows");
        let page = loc.page.expect("#page on every PDF chunk") as usize;
        assert_eq!(doc.text.split('\u{c}').nth(page - 1).map(|p| p.contains(sliced)), Some(true), "{loc}");
        pages.insert(page);
    }
    assert_eq!(pages.into_iter().collect::<Vec<_>>(), [1, 2], "{name}");
}

/// Every chunk's `#t` runs from its first cue's start to its last cue's end.
pub(super) fn check_audio_chunks(run: &Run, name: &str) {
    let doc = run.document(name);
    let chunks = located(run, name);
    assert!(!chunks.is_empty(), "{name}");
    let mut covered = 0;
    for (c, loc) in &chunks {
        let content = c["content"].as_str().unwrap();
        let bytes = doc.text.find(content).unwrap();
        assert_eq!(loc.resolve(&doc.text), Some(content), "{name}: #char slices to content");
        let cues: Vec<(f64, f64)> = doc
            .blocks
            .iter()
            .filter(|b| b.range.start < bytes + content.len() && bytes < b.range.end)
            .map(|b| match b.kind {
                BlockKind::Cue { start, end } => (start, end),
                _ => panic!("{name}: not a cue"),
            })
            .collect();
        let (start, end) = loc.time.expect("#t on every audio chunk");
        assert!((start - cues[0].0).abs() < 0.006 && (end - cues[cues.len() - 1].1).abs() < 0.006, "{name}: {loc}");
        covered += cues.len();
    }
    assert_eq!(covered, doc.blocks.len(), "{name}: every cue in exactly one chunk");
}
