//! End to end: `ragpipe ingest` on a folder mixing good PDFs, recordings
//! (with transcript sidecars), workbooks, CSV and source code with broken
//! and hostile files. The good ones are indexed with locators that resolve
//! (`#page` is the page the content came from, `#t` spans exactly the
//! chunk's cues, the A1 range names the header and exactly the chunk's rows,
//! `#L` lines hold the chunk's code); every bad one fails with a precise
//! reason; files crafted to make a parser overflow its stack, panic, exhaust
//! memory or spin kill only their extraction child.

use ragpipe_core::{BlockKind, Document, Kind, Locator};
use ragpipe_integration_tests::ragpipe_bin;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

mod common;
use common::{Page, deflated, one_page_pdf};

fn fixtures(kind: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/extract/tests/fixtures").join(kind)
}

/// Copies the committed fixtures (not their sources and scripts) into `to`.
fn copy_fixtures(kind: &str, to: &Path) {
    for entry in std::fs::read_dir(fixtures(kind)).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        // Fixture sources (a flat ODT, the scripts that write decks and
        // messages) are not fixtures.
        if !matches!(name.as_str(), "make.sh" | "make.py" | "make_msg.py" | "SOURCES.md" | "deck.py")
            && !name.ends_with(".fodt")
        {
            std::fs::copy(&path, to.join(&name)).unwrap();
        }
    }
}

struct Run {
    folder: tempfile::TempDir,
    data: tempfile::TempDir,
}

impl Run {
    fn new(config: &str) -> Self {
        let run = Run { folder: tempfile::tempdir().unwrap(), data: tempfile::tempdir().unwrap() };
        std::fs::write(run.data.path().join("ragpipe.toml"), config).unwrap();
        run
    }

    fn put(&self, name: &str, bytes: &[u8]) {
        std::fs::write(self.folder.path().join(name), bytes).unwrap();
    }

    fn run(&self, args: &[&str]) -> (i32, Value) {
        let mut cmd = Command::new(ragpipe_bin());
        cmd.arg("--data-dir").arg(self.data.path()).arg("--config").arg(self.data.path().join("ragpipe.toml"));
        common::run_json(cmd, args)
    }

    /// The first hit of a search (the threshold off: which document ranks
    /// first is the question), and the whole answer for messages.
    fn first_hit(&self, query: &str) -> (Value, Value) {
        let (_, found) = self.run(&["search", query, "--json", "--no-threshold"]);
        (found["hits"][0].clone(), found)
    }

    fn ingest(&self) -> (i32, Value) {
        self.run(&["ingest", self.folder.path().to_str().unwrap(), "--json"])
    }

    fn chunks(&self, name: &str) -> Vec<Value> {
        let (code, json) = self.run(&["chunks", self.folder.path().join(name).to_str().unwrap(), "--json"]);
        assert_eq!(code, 0, "{name}: {json}");
        json.as_array().unwrap().clone()
    }

    /// The document as the extractor makes it (good files only: in-process).
    fn document(&self, name: &str) -> Document {
        let bytes = std::fs::read(self.folder.path().join(name)).unwrap();
        let kind = ragpipe_extract::detect(name, &bytes).unwrap();
        let stem = name.rsplit_once('.').unwrap().0;
        let sidecar = ["vtt", "srt"].iter().find_map(|ext| {
            let side = format!("{stem}.{ext}");
            std::fs::read(self.folder.path().join(&side)).ok().map(|b| (side, b))
        });
        let side = sidecar
            .as_ref()
            .filter(|_| kind == Kind::Audio)
            .map(|(n, b)| ragpipe_extract::Sidecar { name: n, bytes: b });
        ragpipe_extract::extract_with(kind, name, &bytes, side, &ragpipe_extract::Limits::default()).unwrap()
    }
}

#[test]
fn mixed_folder_indexes_the_good_and_fails_the_bad_with_reasons() {
    // Recognition off: silent-talk.wav (speech, no sidecar) is the case of a
    // deployment without it (tests/speech.rs covers it on).
    let run = Run::new(
        "[limits]\nextract_memory_mib = 512\nmax_decompressed_bytes = 16777216\n[asr]\nmodel = \"off\"\n[ocr]\nengine = \"off\"\n",
    );
    for kind in ["pdf", "audio", "sheets", "code", "word", "slides", "email", "ebook", "archive"] {
        copy_fixtures(kind, run.folder.path());
    }
    // A form XObject that draws itself: pdf-extract recurses until the
    // stack overflows, which aborts the process.
    run.put("recursive.pdf", &one_page_pdf(Page { content: b"/Fm0 Do", form: Some(b"/Fm0 Do"), ..Page::default() }));
    // `Tj` with a number operand: pdf-extract panics.
    run.put("panic.pdf", &one_page_pdf(Page { content: b"BT /F1 12 Tf 72 700 Td 5 Tj ET", ..Page::default() }));
    // 1.5 GiB of spaces in ~1.5 MB: lopdf inflates it whole; 512 MiB allowed.
    let bomb = deflated(&[b' '; 1 << 20], 1536);
    run.put("bomb.pdf", &one_page_pdf(Page { content: &bomb, compressed: true, ..Page::default() }));
    // Nesting 100k deep in the page dictionary: lopdf 0.42 refuses objects
    // nested over 100 deep, so the page is unreadable but nothing crashes.
    let deep = format!(" /Deep {}{}", "[".repeat(100_000), "]".repeat(100_000));
    run.put("nested.pdf", &one_page_pdf(Page { content: b"BT /F1 12 Tf (x) Tj ET", extra: &deep, ..Page::default() }));
    // A message carrying that self-drawing PDF: the child reading its
    // attachments aborts, so the message is read again without them.
    let mut mail = b"From: keeper@example.com\r\nSubject: Lighthouse log\r\nMIME-Version: 1.0\r\n\
        Content-Type: multipart/mixed; boundary=\"b\"\r\n\r\n--b\r\nContent-Type: text/plain\r\n\r\n\
        The lamp was relit at 21:40 after the storm cut the mains.\r\n--b\r\nContent-Type: application/pdf\r\n\
        Content-Disposition: attachment; filename=\"log.pdf\"\r\nContent-Transfer-Encoding: 8bit\r\n\r\n"
        .to_vec();
    mail.extend(one_page_pdf(Page { content: b"/Fm0 Do", form: Some(b"/Fm0 Do"), ..Page::default() }));
    mail.extend(b"\r\n--b--\r\n");
    run.put("crash-attachment.eml", &mail);

    let (code, summary) = run.ingest();
    assert_eq!(code, 1, "a run with failures exits 1: {summary}");
    let good = [
        "handbook.pdf",
        "owner-only.pdf",
        "intro.wav",
        "intro-flac.flac",
        "intro-ogg.ogg",
        "intro-mp3.mp3",
        "intro-m4a.m4a",
        "intro-opus.opus",
    ];
    let sheets = ["book.xlsx", "book.ods", "book.xls", "book-semicolon.csv", "penguins.xlsx", "penguins.ods"];
    let more_sheets = ["penguins.tsv", "penguins-raw.csv"];
    let word = ["policy.docx", "policy.odt", "policy.rtf", "policy.doc"];
    let decks = ["review.pptx", "review.odp", "review-lo.pptx"];
    let mail = [
        "outage.eml",
        "digest.eml",
        "handover.eml",
        "crash-attachment.eml",
        "ops-list.mbox",
        "access-review.msg",
        "release-notes.msg",
    ];
    let books = ["field-guide.epub", "policy.epub"];
    let archives = ["handbook.zip", "handbook.tar.gz", "notes.txt.gz", "truncated.tar.gz", "truncated.zip"];
    let code: Vec<String> = std::fs::read_dir(fixtures("code"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .filter(|n| n != "SOURCES.md")
        .collect();
    assert_eq!(code.len(), 10, "{code:?}");
    let indexed = good.len()
        + sheets.len()
        + more_sheets.len()
        + code.len()
        + word.len()
        + 4 // horario.rtf (in Spanish) and the chart decks (charts.pptx, .odp, -lo.pptx)
        + decks.len()
        + mail.len()
        + books.len()
        + archives.len();
    assert_eq!(summary["indexed"], indexed, "{summary}");
    let expected: Vec<(&str, &str)> = vec![
        (
            "bomb.docx",
            "limit exceeded: document inflates to 67134339 bytes, more than 16777216 (max_decompressed_bytes)",
        ),
        ("bomb.pdf", "extraction ran out of memory (limit 512 MiB)"),
        (
            "bomb.xlsx",
            "limit exceeded: workbook inflates to 67267093 bytes, more than 16777216 (max_decompressed_bytes)",
        ),
        (
            "book-sheetjs.xlsb",
            "malformed spreadsheet: xlsb sheet uses compact cell records that cannot be read; save it as xlsx",
        ),
        ("book.fods", "unsupported type: text/xml"),
        ("briefing.mkv", "speech recognition disabled ([asr] model = \"off\")"),
        ("briefing.mp4", "speech recognition disabled ([asr] model = \"off\")"),
        ("briefing.webm", "speech recognition disabled ([asr] model = \"off\")"),
        ("corrupt-header.wav", "corrupt audio: malformed stream: wav: malformed fmt chunk"),
        ("empty.pdf", "empty file"),
        ("empty.xlsx", "empty file"),
        ("encrypted.pdf", "encrypted PDF"),
        ("encrypted.xlsx", "encrypted spreadsheet"),
        ("encrypted.zip", "malformed archive: file minutes.txt not read: encrypted"),
        ("html.pdf", "content does not match extension: .pdf file holds text/html, not pdf"),
        ("junk.docx", "malformed document: zip archive holds no word/document.xml or content.xml"),
        ("junk.xlsx", "malformed spreadsheet: zip archive holds no workbook"),
        ("music.wav", "speech recognition disabled ([asr] model = \"off\")"),
        ("nested.pdf", "malformed PDF: no pages"),
        ("noise.wav", "speech recognition disabled ([asr] model = \"off\")"),
        (
            "panic.pdf",
            "corrupt pdf: the pdf parser stopped on it: unexpected Tj operand Operation { operator: \"Tj\", operands: [5] }",
        ),
        (
            "pictures.zip",
            "unsupported type: no document in the archive (1 file: pictures, recordings and other types are named, not read, inside one)",
        ),
        ("rate0.wav", "corrupt audio: sample rate 0"),
        ("recursive.pdf", "extraction crashed: signal 6 (stack overflow)"),
        ("scanned.pdf", "no text layer: ocr disabled ([ocr] engine = \"off\")"),
        ("silence.wav", "speech recognition disabled ([asr] model = \"off\")"),
        ("silent-talk.wav", "speech recognition disabled ([asr] model = \"off\")"),
        ("truncated.docx", "malformed document: invalid zip archive (truncated or corrupt)"),
        ("truncated.mp3", "corrupt audio: truncated: 4.2s of 10.5s decodable"),
        ("truncated.pdf", "malformed PDF: failed parsing cross reference table: invalid start value"),
        ("truncated.xlsx", "malformed spreadsheet: invalid zip archive (truncated or corrupt)"),
    ];
    let got = common::failure_reasons(&summary);
    assert_eq!(got.iter().map(|(d, r)| (d.as_str(), r.as_str())).collect::<Vec<_>>(), expected, "{summary}");
    assert_eq!(summary["sync"]["new"], indexed + expected.len(), "sidecars are not documents");

    // What was left out of a message is its warning.
    let (_, page) = run.run(&["documents", "--warned", "--json"]);
    let warned = common::warnings(&page);
    let names: Vec<&str> = warned.iter().map(|(d, _)| d.as_str()).collect();
    let with_warnings = [
        "crash-attachment.eml",
        "handbook.tar.gz",
        "handbook.zip",
        "handover.eml",
        "truncated.tar.gz",
        "truncated.zip",
    ];
    assert_eq!(names, with_warnings, "{warned:?}");
    assert!(warned[0].1.contains("attachments not read: reading them failed (extraction crashed"), "{warned:?}");
    let secret = "\"file handbook/policies/secret.pdf not read: encrypted PDF\"";
    assert_eq!((warned[1].1.as_str(), warned[2].1.as_str()), (secret, secret));
    assert_eq!(warned[3], ("handover.eml".into(), "\"attachment rota.pdf not read: encrypted PDF\"".into()));
    assert!(warned[4].1.contains("the archive is damaged after"), "{warned:?}");
    assert!(warned[5].1.contains("the archive is damaged after"), "{warned:?}");
    check_pdf_chunks(&run, "handbook.pdf");
    for audio in &good[2..] {
        check_audio_chunks(&run, audio);
    }
    for sheet in sheets.iter().chain(&more_sheets) {
        check_table_chunks(&run, sheet);
    }
    for file in &code {
        check_code_chunks(&run, file);
    }
    for file in &word {
        check_word_chunks(&run, file);
    }
    for file in &decks {
        check_slide_chunks(&run, file);
    }
    // A speaker note answers, cited by its slide (the deck is in three
    // files, so, as for the policy below, the rank, not the threshold).
    let (hit, found) = run.first_hit("who talks to customers while an outage is going on?");
    assert!(field(&hit, "document").contains("review"), "{found}");
    assert!(field(&hit, "locator").starts_with("#page=2&char="), "{found}");
    // A message answers by its body, under its subject.
    let (hit, found) = run.first_hit("why was checkout down in April?");
    assert!(field(&hit, "document").ends_with("outage.eml"), "{found}");
    assert!(field(&hit, "title").contains("checkout outage"), "{found}");
    assert_eq!(hit["kind"], "email", "{found}");
    // A mailbox answers by one message, under that message's subject.
    let (hit, found) = run.first_hit("why is the build cache filling up the disks?");
    assert!(field(&hit, "document").ends_with("ops-list.mbox"), "{found}");
    assert!(field(&hit, "section").contains("Disk alerts on the build farm"), "{found}");
    // An e-book answers by a row of a chapter's table.
    let (hit, found) = run.first_hit("which hide is best for bitterns?");
    assert!(field(&hit, "document").ends_with("field-guide.epub"), "{found}");
    assert_eq!(hit["kind"], "ebook", "{found}");
    assert!(field(&hit, "content").contains("Reedbed | Bitterns at dusk"), "{found}");
    // An Outlook message answers by its body.
    let (hit, found) = run.first_hit("when are unconfirmed database accounts switched off?");
    assert!(field(&hit, "document").ends_with("access-review.msg"), "{found}");
    assert!(field(&hit, "content").contains("disabled on 16 June"), "{found}");
    // A chart answers by its data, cited by its slide (the deck is in three
    // files: python-pptx's and LibreOffice's odp and pptx).
    let (hit, found) = run.first_hit("how many support tickets were opened in Q3 2026?");
    assert!(field(&hit, "document").contains("/charts"), "{found}");
    assert!(field(&hit, "content").contains("Q3 2026 | 980 | 1010"), "{found}");
    assert!(field(&hit, "locator").starts_with("#page=1&char="), "{found}");
    // A file inside an archive answers under its path there.
    let (hit, found) = run.first_hit("how long until the service desk hands out a laptop to remote staff?");
    assert!(field(&hit, "document").contains("handbook."), "{found}");
    assert_eq!(hit["kind"], "archive", "{found}");
    assert!(field(&hit, "section").contains("handbook/policies/remote-work.md"), "{found}");
    assert!(field(&hit, "content").contains("within five working days"), "{found}");
    // A Spanish RTF's table row answers by the names in its cells.
    let (hit, found) = run.first_hit("¿Qué teléfono tiene la sede de Córdoba?");
    assert!(field(&hit, "document").ends_with("horario.rtf"), "{found}");
    assert!(field(&hit, "content").contains("Córdoba | 957 000 222 | SED-COR-02"), "{found}");
    // Which document ranks first, not whether it clears the abstention
    // threshold: the policy is in five files (docx, odt, rtf, doc and
    // LibreOffice's EPUB of it), so its margin over the next document is small, and its
    // distance (0.40-0.52) moves with the CPU's int8 kernel
    // (docs/BENCHMARKS.md, "int8 on a CPU without VNNI").
    let (hit, found) = run.first_hit("what does remote work require");
    let first = field(&hit, "document");
    // The archives hold the policy's .docx too, and a note on remote work.
    let policy =
        ["policy.docx", "policy.odt", "policy.rtf", "policy.doc", "policy.epub", "handbook.zip", "handbook.tar.gz"];
    assert!(policy.iter().any(|p| first.ends_with(p)), "{found}");
}

/// A word-processor document's chunks slice out of its text by `#char`
/// (a table chunk's rows, under its repeated header line) and carry its
/// title.
fn check_word_chunks(run: &Run, name: &str) {
    let doc = run.document(name);
    let chunks = run.chunks(name);
    let header = "Region | Monthly allowance | Code";
    let mut tables = 0;
    for c in &chunks {
        let loc = Locator::parse(c["locator"].as_str().unwrap()).unwrap();
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
fn check_slide_chunks(run: &Run, name: &str) {
    let doc = run.document(name);
    let chunks = run.chunks(name);
    let header = "Severity | First response | Resolution target";
    let mut pages = Vec::new();
    for c in &chunks {
        let loc = Locator::parse(c["locator"].as_str().unwrap()).unwrap();
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
fn check_table_chunks(run: &Run, name: &str) {
    let doc = run.document(name);
    let chunks = run.chunks(name);
    assert!(!chunks.is_empty(), "{name}");
    let mut rows_seen = 0;
    for c in &chunks {
        let loc = Locator::parse(c["locator"].as_str().unwrap()).unwrap();
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
fn check_code_chunks(run: &Run, name: &str) {
    let doc = run.document(name);
    let chunks = run.chunks(name);
    assert!(!chunks.is_empty(), "{name}");
    let lines: Vec<&str> = doc.text.split('\n').collect();
    for c in &chunks {
        let loc = Locator::parse(c["locator"].as_str().unwrap()).unwrap();
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
fn check_pdf_chunks(run: &Run, name: &str) {
    let doc = run.document(name);
    let pages: Vec<&str> = doc.text.split('\u{c}').collect();
    let chunks = run.chunks(name);
    assert!(chunks.len() >= 3, "{name}: one chunk per page at least");
    for c in &chunks {
        let loc = Locator::parse(c["locator"].as_str().unwrap()).unwrap();
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

/// Every chunk's `#t` runs from its first cue's start to its last cue's end.
fn check_audio_chunks(run: &Run, name: &str) {
    let doc = run.document(name);
    let chunks = run.chunks(name);
    assert!(!chunks.is_empty(), "{name}");
    let mut covered = 0;
    for c in &chunks {
        let loc = Locator::parse(c["locator"].as_str().unwrap()).unwrap();
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

#[test]
fn a_spinning_extraction_is_stopped_at_the_time_limit() {
    let run = Run::new("[limits]\nextract_timeout_secs = 1\n");
    // A page that is its own parent: pdf-extract looks up the parent chain
    // for inherited resources forever (a loop, no stack growth).
    let spin = Page { content: b"BT /F1 12 Tf (x) Tj ET", parent: Some("3 0 R"), ..Page::default() };
    run.put("spin.pdf", &one_page_pdf(spin));
    std::fs::copy(fixtures("pdf").join("handbook.pdf"), run.folder.path().join("handbook.pdf")).unwrap();
    let started = std::time::Instant::now();
    let (code, summary) = run.ingest();
    assert_eq!(code, 1, "{summary}");
    assert_eq!(summary["indexed"], 1, "the other document is indexed: {summary}");
    assert_eq!(
        common::failure_reasons(&summary),
        [("spin.pdf".to_string(), "extraction timed out after 1s".to_string())]
    );
    assert!(started.elapsed().as_secs() < 60);
}

/// A string field of a search hit ("" when absent).
fn field<'v>(hit: &'v Value, key: &str) -> &'v str {
    hit[key].as_str().unwrap_or_default()
}
