//! End to end: `ragpipe ingest` on a folder mixing good PDFs, recordings
//! (with transcript sidecars), workbooks, CSV and source code with broken
//! and hostile files. The good ones are indexed with locators that resolve
//! (`#page` is the page the content came from, `#t` spans exactly the
//! chunk's cues, the A1 range names the header and exactly the chunk's rows,
//! `#L` lines hold the chunk's code); every bad one fails with a precise
//! reason; files crafted to make a parser overflow its stack, panic, exhaust
//! memory or spin kill only their extraction child.

use ragpipe_core::{Document, Kind};
use ragpipe_integration_tests::ragpipe_bin;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

mod common;
#[path = "mixed_folder/locators.rs"]
mod locators;
use common::{Page, deflated, one_page_pdf};
use locators::{
    check_audio_chunks, check_code_chunks, check_pdf_chunks, check_pdf_table_chunks, check_slide_chunks,
    check_table_chunks, check_word_chunks,
};

fn fixtures(kind: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/extract/tests/fixtures").join(kind)
}

/// Copies the committed fixtures (not their sources and scripts) into `to`.
fn copy_fixtures(kind: &str, to: &Path) {
    for entry in std::fs::read_dir(fixtures(kind)).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        // Fixture sources (the scripts that write decks, messages and word
        // documents, and the hand-written flat ODT and LaTeX the word and
        // PDF fixtures are made from, which would be one more copy of the
        // same text) are not fixtures.
        const SOURCES: [&str; 10] = [
            "make.sh",
            "make.py",
            "make_msg.py",
            "SOURCES.md",
            "deck.py",
            "sales.py",
            "contents.py",
            "office.py",
            "tables.py",
            "toc.py",
        ];
        if !SOURCES.contains(&name.as_str()) && !name.ends_with(".fodt") && !name.ends_with(".tex") {
            std::fs::copy(&path, to.join(&name)).unwrap();
        }
    }
}

/// What a string field of a search hit must hold.
#[derive(Debug)]
enum Holds {
    Contains(&'static str),
    EndsWith(&'static str),
    StartsWith(&'static str),
    Is(&'static str),
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

    /// The first hit for `query` holds each `(field, what)` of `checks`.
    fn first_hit_holds(&self, query: &str, checks: &[(&str, Holds)]) {
        let (hit, found) = self.first_hit(query);
        for (key, want) in checks {
            let got = field(&hit, key);
            let holds = match *want {
                Holds::Contains(w) => got.contains(w),
                Holds::EndsWith(w) => got.ends_with(w),
                Holds::StartsWith(w) => got.starts_with(w),
                Holds::Is(w) => got == w,
            };
            assert!(holds, "{query}: {key} {got:?} is not {want:?}: {found}");
        }
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
        "hyphenated.pdf",
        "contents.pdf",
        "parts.pdf",
        "weather.pdf",
        "listing.pdf",
        "toc.pdf",
        "intro.wav",
        "intro-flac.flac",
        "intro-ogg.ogg",
        "intro-mp3.mp3",
        "intro-m4a.m4a",
        "intro-opus.opus",
    ];
    let sheets = [
        "book.xlsx",
        "book.ods",
        "book.xls",
        "book.fods",
        "book-2003.xml",
        "book-semicolon.csv",
        "penguins.xlsx",
        "penguins.ods",
    ];
    let more_sheets = ["penguins.tsv", "penguins-raw.csv"];
    let word = ["policy.docx", "policy.odt", "policy.rtf", "policy.doc"];
    // The handbook with a generated table of contents (tests/word.rs).
    let contents = ["contents.docx", "contents.odt", "contents.rtf", "contents.doc"];
    let decks = ["review.pptx", "review.odp", "review-lo.pptx", "review.ppt"];
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
        + contents.len()
        + 8 // horario.rtf (in Spanish), the chart decks (charts.pptx, .odp, -lo.pptx, .ppt),
            // PowerPoint's embedded-simple-2007.ppt and the documents with a chart (sales.docx, .odt)
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
        ("briefing.mkv", "speech recognition disabled ([asr] model = \"off\")"),
        ("briefing.mp4", "speech recognition disabled ([asr] model = \"off\")"),
        ("briefing.webm", "speech recognition disabled ([asr] model = \"off\")"),
        ("corrupt-header.wav", "corrupt audio: malformed stream: wav: malformed fmt chunk"),
        ("empty.pdf", "empty file"),
        ("empty.xlsx", "empty file"),
        ("encrypted.pdf", "encrypted PDF"),
        ("encrypted.ppt", "encrypted PowerPoint file"),
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
    check_pdf_table_chunks(&run, "weather.pdf");
    for audio in good.iter().filter(|n| !n.ends_with(".pdf")) {
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
    use Holds::{Contains, EndsWith, Is, StartsWith};
    let searches: [(&str, &[(&str, Holds)]); 10] = [
        // A speaker note answers, cited by its slide (the deck is in four
        // files, so, as for the policy below, the rank, not the threshold).
        (
            "who talks to customers while an outage is going on?",
            &[("document", Contains("review")), ("locator", StartsWith("#page=2&char="))],
        ),
        // A message answers by its body, under its subject.
        (
            "why was checkout down in April?",
            &[("document", EndsWith("outage.eml")), ("title", Contains("checkout outage")), ("kind", Is("email"))],
        ),
        // A mailbox answers by one message, under that message's subject.
        (
            "why is the build cache filling up the disks?",
            &[("document", EndsWith("ops-list.mbox")), ("section", Contains("Disk alerts on the build farm"))],
        ),
        // An e-book answers by a row of a chapter's table.
        (
            "which hide is best for bitterns?",
            &[
                ("document", EndsWith("field-guide.epub")),
                ("kind", Is("ebook")),
                ("content", Contains("Reedbed | Bitterns at dusk")),
            ],
        ),
        // An Outlook message answers by its body.
        (
            "when are unconfirmed database accounts switched off?",
            &[("document", EndsWith("access-review.msg")), ("content", Contains("disabled on 16 June"))],
        ),
        // A chart answers by its data, cited by its slide (the deck is in
        // three files: python-pptx's and LibreOffice's odp and pptx).
        (
            "how many support tickets were opened in Q3 2026?",
            &[
                ("document", Contains("/charts")),
                ("content", Contains("Q3 2026 | 980 | 1010")),
                ("locator", StartsWith("#page=1&char=")),
            ],
        ),
        // A chart in a word-processor document answers by its data, found
        // by what its title says (the table's header carries it).
        (
            "how many units did the south region sell in the third quarter of 2026?",
            &[("document", Contains("/sales.")), ("content", Contains("Q3 2026 | 390 | 310"))],
        ),
        // A file inside an archive answers under its path there.
        (
            "how long until the service desk hands out a laptop to remote staff?",
            &[
                ("document", Contains("handbook.")),
                ("kind", Is("archive")),
                ("section", Contains("handbook/policies/remote-work.md")),
                ("content", Contains("within five working days")),
            ],
        ),
        // A justified PDF's words broken across lines are found whole.
        (
            "which replica is promoted when the primary database is unavailable?",
            &[
                ("document", EndsWith("hyphenated.pdf")),
                ("content", Contains("database becomes unavailable,")),
                ("locator", StartsWith("#page=1&char=")),
            ],
        ),
        // A Spanish RTF's table row answers by the names in its cells.
        (
            "¿Qué teléfono tiene la sede de Córdoba?",
            &[("document", EndsWith("horario.rtf")), ("content", Contains("Córdoba | 957 000 222 | SED-COR-02"))],
        ),
    ];
    for (query, checks) in searches {
        run.first_hit_holds(query, checks);
    }
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
