//! End-to-end: the `ragpipe` binary on a real folder, in the embedded mode.
//! Covers first ingest (good files indexed, broken ones failed with a reason,
//! the run going on), cited search and abstention, locators that resolve,
//! re-runs that re-embed nothing, and changed and removed files.

use ragpipe_core::Locator;
use ragpipe_integration_tests::ragpipe_bin;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

mod common;

struct Env {
    folder: tempfile::TempDir,
    data: tempfile::TempDir,
}

impl Env {
    fn new() -> Self {
        let folder = tempfile::tempdir().unwrap();
        let samples = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../samples");
        for entry in std::fs::read_dir(samples).unwrap() {
            let path = entry.unwrap().path();
            std::fs::copy(&path, folder.path().join(path.file_name().unwrap())).unwrap();
        }
        std::fs::write(folder.path().join("empty.txt"), b"").unwrap();
        std::fs::write(folder.path().join("binary.txt"), b"\x7fELF\x02\x01\x01\0\0\0\0").unwrap();
        std::fs::write(folder.path().join("setup.exe"), b"MZ\x90\0\x03").unwrap();
        Env { folder, data: tempfile::tempdir().unwrap() }
    }

    /// Runs ragpipe with `args`; returns (exit code, stdout parsed as JSON).
    fn run(&self, args: &[&str]) -> (i32, Value) {
        let mut cmd = Command::new(ragpipe_bin());
        cmd.arg("--data-dir").arg(self.data.path());
        common::run_json(cmd, args)
    }

    fn ingest(&self) -> (i32, Value) {
        self.run(&["ingest", self.folder.path().to_str().unwrap(), "--json"])
    }

    fn file(&self, name: &str) -> PathBuf {
        self.folder.path().join(name)
    }

    fn chunks(&self, name: &str) -> Vec<Value> {
        let (code, json) = self.run(&["chunks", self.file(name).to_str().unwrap(), "--json"]);
        assert_eq!(code, 0);
        json.as_array().unwrap().clone()
    }
}

/// The canonical text of a file, as the extractor makes it.
fn canonical(path: &Path) -> String {
    let name = path.file_name().unwrap().to_string_lossy().to_string();
    let bytes = std::fs::read(path).unwrap();
    let kind = ragpipe_extract::detect(&name, &bytes).unwrap();
    ragpipe_extract::extract(kind, &name, &bytes).unwrap().text
}

fn failure_reason(summary: &Value, file: &str) -> String {
    let f = summary["failed"].as_array().unwrap().iter().find(|f| f["document"].as_str().unwrap().ends_with(file));
    f.unwrap_or_else(|| panic!("{file} not failed: {summary}"))["reason"].as_str().unwrap().to_string()
}

#[test]
fn embedded_ingest_search_and_resync() {
    let env = Env::new();
    let good =
        ["rust-book-hash-maps.html", "cargo-toml-vs-cargo-lock.html", "walkdir-README.md", "dpkg-rootless-builds.txt"];

    // First run: every good file indexed, every bad one failed with its reason.
    let (code, summary) = env.ingest();
    assert_eq!(code, 1, "a run with failures exits 1: {summary}");
    assert_eq!(summary["sync"]["new"], 7, "hidden .sources.md is skipped");
    assert_eq!(summary["indexed"], 4);
    assert_eq!(failure_reason(&summary, "empty.txt"), "empty file");
    assert_eq!(failure_reason(&summary, "binary.txt"), "not a text file: binary content (NUL bytes)");
    assert_eq!(
        failure_reason(&summary, "setup.exe"),
        "unsupported type: application/vnd.microsoft.portable-executable"
    );
    let chunks_total = summary["chunks_stored"].as_i64().unwrap();
    assert!(chunks_total > 20, "{summary}");

    // Every chunk's locator slices the canonical text to its content, within the window.
    let mut counted = 0;
    for name in good {
        let text = canonical(&env.file(name));
        let chunks = env.chunks(name);
        assert!(!chunks.is_empty(), "{name}");
        for c in &chunks {
            let loc = Locator::parse(c["locator"].as_str().unwrap()).unwrap();
            assert_eq!(loc.resolve(&text), c["content"].as_str(), "{name} chunk {}", c["index"]);
            assert!(c["tokens"].as_u64().unwrap() <= 256);
            assert!(c["text"].as_str().unwrap().ends_with(c["content"].as_str().unwrap()));
        }
        counted += chunks.len() as i64;
    }
    assert_eq!(counted, chunks_total, "state counts equal the points in the store");

    // Search cites document, locator and the chunk's own words.
    let (_, hits) = env.run(&["search", "how do I update the value stored under a key in a hash map", "--json"]);
    assert_eq!(hits["abstained"], false);
    let top = &hits["hits"][0];
    assert!(top["document"].as_str().unwrap().ends_with("rust-book-hash-maps.html"), "{hits}");
    let text = canonical(&env.file("rust-book-hash-maps.html"));
    let loc = Locator::parse(top["locator"].as_str().unwrap()).unwrap();
    assert_eq!(loc.resolve(&text), top["content"].as_str());
    assert!(top["distance"].as_f64().unwrap() < 0.6);

    // A question the corpus cannot answer is refused, unless asked not to.
    let off = "what temperature should I bake sourdough bread at";
    let (_, refused) = env.run(&["search", off, "--json"]);
    assert_eq!(refused["abstained"], true, "{refused}");
    assert!(refused["hits"].as_array().unwrap().is_empty());
    let (_, forced) = env.run(&["search", off, "--json", "--no-threshold"]);
    assert_eq!(forced["hits"].as_array().unwrap().len(), 5);

    // Unchanged folder: nothing re-embedded, failed files not retried.
    let (_, again) = env.ingest();
    assert_eq!((again["sync"]["new"].as_i64(), again["sync"]["changed"].as_i64()), (Some(0), Some(0)));
    assert_eq!(again["sync"]["unchanged"], 7);
    assert_eq!(again["chunks_stored"].as_i64(), Some(chunks_total));

    // One file changed, one removed: exactly those are processed.
    let readme = env.file("walkdir-README.md");
    let mut body = std::fs::read_to_string(&readme).unwrap();
    body.push_str("\n\n## Changelog note\n\nThe zebra-striped traversal option was added for this test.\n");
    std::fs::write(&readme, body).unwrap();
    let before_readme = env.chunks("walkdir-README.md").len();
    let removed = env.chunks("cargo-toml-vs-cargo-lock.html").len();
    std::fs::remove_file(env.file("cargo-toml-vs-cargo-lock.html")).unwrap();
    let (_, third) = env.ingest();
    assert_eq!((third["sync"]["changed"].as_i64(), third["sync"]["deleted"].as_i64()), (Some(1), Some(1)), "{third}");
    assert_eq!(third["sync"]["new"], 0);
    let after = env.chunks("walkdir-README.md");
    assert!(
        after.len() >= before_readme && after.len() <= before_readme + 1,
        "old generation gone: {before_readme} -> {}",
        after.len()
    );
    assert!(after.iter().any(|c| { c["content"].as_str().unwrap().contains("zebra-striped traversal") }));
    let expected = chunks_total - removed as i64 - before_readme as i64 + after.len() as i64;
    assert_eq!(third["chunks_stored"].as_i64(), Some(expected));
    let (_, status) = env.run(&["status", "--json"]);
    assert_eq!(status["documents"]["deleted"], 1);
    assert_eq!(status["truncated"], 0);
    assert_eq!(status["chunks"].as_i64(), Some(expected));
}

/// A meeting's captions exported alone (no recording), as Teams and Zoom
/// export them.
const STANDUP: &str = "WEBVTT

00:00:00.000 --> 00:00:04.200
<v Ana>Morning. The database migration is blocked on the schema review.

00:00:04.200 --> 00:00:09.000
<v Ben>I will ask the platform team to approve the review before Thursday.

00:00:09.000 --> 00:00:13.500
<v Ana>Then the release candidate can be cut on Friday afternoon.
";

#[test]
fn a_transcript_alone_is_indexed_and_an_edited_sidecar_reaches_its_recording() {
    let env = Env { folder: tempfile::tempdir().unwrap(), data: tempfile::tempdir().unwrap() };
    let put = |name: &str, bytes: &[u8]| std::fs::write(env.file(name), bytes).unwrap();
    put("intro.wav", &common::deployment::fixture("audio", "intro.wav"));
    put("intro.vtt", &common::deployment::fixture("audio", "intro.vtt"));
    put("standup.vtt", STANDUP.as_bytes());

    let (code, summary) = env.ingest();
    assert_eq!(code, 0, "{summary}");
    assert_eq!((summary["sync"]["new"].as_i64(), summary["indexed"].as_i64()), (Some(2), Some(2)), "{summary}");

    let (_, hits) = env.run(&["search", "why is the database migration blocked", "--json"]);
    let top = &hits["hits"][0];
    assert!(top["document"].as_str().unwrap().ends_with("/standup.vtt"), "{hits}");
    let locator = top["locator"].as_str().unwrap();
    assert!(locator.starts_with("#t=0.00,"), "cited by time: {locator}");
    let text = canonical(&env.file("standup.vtt"));
    assert_eq!(Locator::parse(locator).unwrap().resolve(&text), top["content"].as_str());
    assert!(text.starts_with("Ana: Morning. The database migration"), "who speaks is said: {text}");
    let (_, who) = env.run(&["search", "who will ask the platform team to approve", "--json", "--no-threshold"]);
    assert!(who["hits"][0]["content"].as_str().unwrap().contains("Ben: I will ask"), "{who}");

    // The recording's transcript corrected: the recording is read again.
    let vtt = String::from_utf8(common::deployment::fixture("audio", "intro.vtt")).unwrap();
    put("intro.vtt", vtt.replace("The causeway floods before high water.", "The causeway closes at dusk.").as_bytes());
    let (_, again) = env.ingest();
    assert_eq!((again["sync"]["changed"].as_i64(), again["sync"]["unchanged"].as_i64()), (Some(1), Some(1)), "{again}");
    let chunks = env.chunks("intro.wav");
    let said: String = chunks.iter().map(|c| c["content"].as_str().unwrap()).collect();
    assert!(said.contains("closes at dusk") && !said.contains("floods"), "{said}");

    // The recording removed: its transcript is a document of its own.
    std::fs::remove_file(env.file("intro.wav")).unwrap();
    let (_, third) = env.ingest();
    assert_eq!((third["sync"]["new"].as_i64(), third["sync"]["deleted"].as_i64()), (Some(1), Some(1)), "{third}");
    assert_eq!(env.chunks("intro.vtt").len(), 1);
}

#[test]
fn text_is_read_whatever_its_name_and_binary_is_refused() {
    let env = Env { folder: tempfile::tempdir().unwrap(), data: tempfile::tempdir().unwrap() };
    let put = |name: &str, bytes: &[u8]| {
        std::fs::create_dir_all(env.file(name).parent().unwrap()).unwrap();
        std::fs::write(env.file(name), bytes).unwrap();
    };
    put("README", b"Release checklist\n\nBefore tagging a release, run the smoke tests against the staging cluster.\n");
    put("config/retention.json", RETENTION.as_bytes());
    put("bin/rotate", b"#!/bin/sh\n# Rotates the nightly backups: keeps seven, deletes older ones.\nfind /backups -mtime +7 -delete\n");
    let notebook =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/extract/tests/fixtures/notebook/returns.ipynb");
    put("analysis/returns.ipynb", &std::fs::read(notebook).unwrap());
    let page =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/extract/tests/fixtures/web-archive/parking.mhtml");
    put("intranet/parking.mhtml", &std::fs::read(page).unwrap());
    let export = |name: &str| {
        std::fs::read(
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/extract/tests/fixtures/exports").join(name),
        )
        .unwrap()
    };
    put("finance/orders.xls", &export("orders.xls"));
    put("finance/orders-tabs.xls", &export("orders-tabs.xls"));
    put("minutes.dat", b"Facilities meeting\n\nThe car park barrier is repaired on Thursday; badges open it again.\n");
    put("blob.bin", &(0..=255u8).cycle().take(4096).collect::<Vec<u8>>());
    put(
        "keys/id_ed25519",
        b"-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU=\n-----END OPENSSH PRIVATE KEY-----\n",
    );

    let (code, summary) = env.ingest();
    assert_eq!(code, 1, "{summary}");
    assert_eq!((summary["sync"]["new"].as_i64(), summary["indexed"].as_i64()), (Some(10), Some(8)), "{summary}");
    assert_eq!(failure_reason(&summary, "blob.bin"), "unsupported type: .bin");
    assert_eq!(failure_reason(&summary, "id_ed25519"), "unsupported type: application/x-x509-ca-cert");

    // A configuration file is code: cited by its lines.
    let (_, hits) = env.run(&["search", "how long are audit logs kept", "--json", "--no-threshold"]);
    let top = &hits["hits"][0];
    assert!(top["document"].as_str().unwrap().ends_with("config/retention.json"), "{hits}");
    assert_eq!(top["kind"], "code");
    let locator = top["locator"].as_str().unwrap();
    assert!(locator.starts_with("#L"), "{locator}");
    let text = canonical(&env.file("config/retention.json"));
    assert_eq!(Locator::parse(locator).unwrap().resolve(&text), top["content"].as_str());

    // Text under no extension, or one ragpipe does not know, is found; the latter is flagged.
    for (question, file) in [
        ("what must run before a release is tagged", "/README"),
        ("when is the car park barrier repaired", "/minutes.dat"),
    ] {
        let (_, hits) = env.run(&["search", question, "--json", "--no-threshold"]);
        assert!(hits["hits"][0]["document"].as_str().unwrap().ends_with(file), "{question}: {hits}");
    }
    // A notebook: its cells and what its code printed, as Markdown.
    let (_, hits) = env.run(&["search", "which return reason was the most common", "--json", "--no-threshold"]);
    let top = &hits["hits"][0];
    assert!(top["document"].as_str().unwrap().ends_with("analysis/returns.ipynb"), "{hits}");
    assert_eq!(top["kind"], "markdown");
    let text = canonical(&env.file("analysis/returns.ipynb"));
    assert_eq!(Locator::parse(top["locator"].as_str().unwrap()).unwrap().resolve(&text), top["content"].as_str());
    assert!(text.contains("damaged in transit: 412 returns (38 %)"), "{text}");

    // A page saved as one MHTML file: its HTML, cited like any page's.
    let (_, hits) =
        env.run(&["search", "when does the car park barrier close on Saturday", "--json", "--no-threshold"]);
    let top = &hits["hits"][0];
    assert!(top["document"].as_str().unwrap().ends_with("intranet/parking.mhtml"), "{hits}");
    assert_eq!(
        (top["kind"].as_str(), top["title"].as_str()),
        (Some("html"), Some("Visitor parking at the Leeds depot"))
    );
    let text = canonical(&env.file("intranet/parking.mhtml"));
    let rows = Locator::parse(top["locator"].as_str().unwrap()).unwrap().resolve(&text).unwrap().to_string();
    let content = top["content"].as_str().unwrap();
    assert!(
        content.starts_with("Day | Barrier opens | Barrier closes\n") && content.ends_with(&rows),
        "a table's header over its rows: {hits}"
    );
    assert!(rows.contains("Saturday | 08:00 | 13:00"), "{rows}");

    // A report exported "for Excel" as a web page or as tab-separated text
    // (named .xls): its rows, under its header, found by the invoice's key.
    let (_, hits) = env.run(&["search", "invoice INV-2024-44", "--json", "--no-threshold"]);
    let top = &hits["hits"][0];
    assert!(
        top["document"]
            .as_str()
            .unwrap()
            .starts_with(&format!("file://{}/finance/orders", env.folder.path().display())),
        "{hits}"
    );
    let content = top["content"].as_str().unwrap();
    assert!(
        content.starts_with("Invoice | Date | Customer | Item | Total\n")
            && content.contains("INV/2024/0044 | 2024-03-11 | Harbour Cafe"),
        "{hits}"
    );

    let (_, page) = env.run(&["documents", "--warned", "--json"]);
    let warned = common::warnings(&page);
    assert_eq!(warned.len(), 3, "{warned:?}");
    assert_eq!(
        (warned[0].0.as_str(), warned[1].0.as_str(), warned[2].0.as_str()),
        ("minutes.dat", "orders-tabs.xls", "orders.xls")
    );
    assert!(warned[0].1.contains("read as plain text: .dat is not a type ragpipe knows"), "{warned:?}");
    assert!(warned[1].1.contains("read as csv: this .xls file holds delimited text"), "{warned:?}");
    assert!(warned[2].1.contains("read as html: this .xls file holds a web page"), "{warned:?}");
    assert_eq!(env.chunks("bin/rotate")[0]["locator"].as_str().map(|l| l.starts_with("#L")), Some(true));
}

const RETENTION: &str = r#"{
  "retention": {
    "audit_log_days": 400,
    "audit_log_note": "Audit logs are kept for 400 days, as the SOC 2 auditors require.",
    "backups": { "nightly_copies": 7, "weekly_copies": 8 }
  },
  "owners": ["platform-team@example.com"]
}
"#;

#[test]
fn excluded_files_are_not_documents_and_leave_the_index() {
    let env = Env { folder: tempfile::tempdir().unwrap(), data: tempfile::tempdir().unwrap() };
    let put = |name: &str, text: &str| {
        std::fs::create_dir_all(env.file(name).parent().unwrap()).unwrap();
        std::fs::write(env.file(name), text).unwrap();
    };
    put("guide.md", "# Guide\n\nThe on-call rotation changes every Monday at nine.\n");
    put("web/node_modules/left-pad/README.md", "# left-pad\n\nPads a string on the left with spaces or zeros.\n");
    put("web/yarn.lock", "left-pad@^1.3.0:\n  version \"1.3.0\"\n");
    let excluding = |exclude: &str, args: &[&str]| {
        let mut cmd = Command::new(ragpipe_bin());
        cmd.arg("--data-dir").arg(env.data.path()).env("RAGPIPE_SOURCE_EXCLUDE", exclude);
        let out = cmd.args(args).output().unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).to_string(),
            String::from_utf8_lossy(&out.stderr).to_string(),
        )
    };
    let folder = env.folder.path().to_str().unwrap();

    // Without exclusions the dependency's README is a document (the lock file failed as unsupported).
    let (_, first) = env.ingest();
    assert_eq!((first["sync"]["new"].as_i64(), first["indexed"].as_i64()), (Some(3), Some(2)), "{first}");
    // Excluded, it leaves the index at the next sync, as a removed file would.
    let (code, out, err) = excluding("node_modules, *.lock", &["ingest", folder, "--json"]);
    assert_eq!(code, Some(0), "{out}{err}");
    let second: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        (second["sync"]["deleted"].as_i64(), second["sync"]["unchanged"].as_i64()),
        (Some(2), Some(1)),
        "{second}"
    );
    let (_, hits) = env.run(&["search", "pad a string on the left", "--json", "--no-threshold"]);
    let documents: Vec<&str> =
        hits["hits"].as_array().unwrap().iter().map(|h| h["document"].as_str().unwrap()).collect();
    assert!(documents.iter().all(|d| d.ends_with("/guide.md")), "{hits}");
    let (_, status) = env.run(&["status", "--json"]);
    assert_eq!(status["documents"]["failed"], 0, "the excluded lock file's failure went with it: {status}");

    // A pattern that cannot be read stops the run before anything is listed.
    let (code, _, err) = excluding("!guide.md", &["ingest", folder, "--json"]);
    assert_ne!(code, Some(0));
    assert!(err.contains("source.exclude: \"!guide.md\": negation (`!`) is not supported"), "{err}");
}
