//! `ragpipe reindex` in the embedded mode: a new collection is built while
//! searches keep reading the old one, the swap is atomic (a search loop
//! running through the whole reindex never errors and never sees a mixed or
//! half-built index), an interrupted reindex resumes without redoing
//! finished documents, `--keep-old` keeps the old collection, and
//! `--stale-only` reprocesses only documents whose versions differ.

use ragpipe_integration_tests::ragpipe_bin;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

mod common;

const QUERY: &str = "how do threads share state safely";

fn cmd(data: &Path) -> Command {
    let mut cmd = Command::new(ragpipe_bin());
    cmd.arg("--data-dir").arg(data);
    cmd
}

fn ragpipe(data: &Path, args: &[&str]) -> (i32, Value) {
    common::run_json(cmd(data), args)
}

/// A folder of real documents, large enough that a reindex takes seconds.
fn corpus() -> tempfile::TempDir {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let dir = tempfile::tempdir().unwrap();
    let mut files: Vec<_> = std::fs::read_dir(root.join("samples")).unwrap().map(|e| e.unwrap().path()).collect();
    for name in ["book-ch16-03-shared-state.html", "cargo-reference-profiles.html", "reference-destructors.html"] {
        files.push(root.join("eval/corpus").join(name));
    }
    for f in files {
        std::fs::copy(&f, dir.path().join(f.file_name().unwrap())).unwrap();
    }
    dir
}

/// The pipeline version of an index made by the defaults: this build's,
/// with BM25 reading each document in its own language.
const FIRST: &str = "1+bm25-auto";
/// What `reindex --pipeline-version 2` builds: the label, with the
/// configured lexical analysis kept.
const SECOND: &str = "2+bm25-auto";

/// Every chunk the index holds, by search: (index name, pipeline version of
/// the index, pipeline versions of the hits, number of hits).
fn search_all(data: &Path) -> (String, String, Vec<String>, usize) {
    let (code, out) = ragpipe(data, &["search", QUERY, "--json", "--top-k", "10000", "--no-threshold"]);
    assert_eq!(code, 0, "{out}");
    let hits = out["hits"].as_array().unwrap();
    let mut versions: Vec<String> = hits.iter().map(|h| h["pipeline_version"].as_str().unwrap().to_string()).collect();
    versions.sort();
    versions.dedup();
    let index = &out["index"];
    (index["name"].as_str().unwrap().into(), index["pipeline_version"].as_str().unwrap().into(), versions, hits.len())
}

fn reindex(data: &Path, args: &[&str]) -> Child {
    cmd(data).arg("reindex").args(args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap()
}

fn documents(data: &Path) -> BTreeMap<String, Value> {
    let (_, docs) = ragpipe(data, &["documents", "--json"]);
    docs["documents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["source"].as_str().unwrap().to_string(), d.clone()))
        .collect()
}

#[test]
fn a_reindex_swaps_atomically_while_searches_run() {
    let (folder, data) = (corpus(), tempfile::tempdir().unwrap());
    let (code, first) = ragpipe(data.path(), &["ingest", folder.path().to_str().unwrap(), "--json", "--quiet"]);
    assert_eq!(code, 0, "{first}");
    let (old_name, version, versions, all) = search_all(data.path());
    assert_eq!((version.as_str(), versions), (FIRST, vec![FIRST.to_string()]));
    assert_eq!(all as i64, first["chunks_stored"].as_i64().unwrap(), "the search sees every chunk");

    let mut child = reindex(data.path(), &["--pipeline-version", "2", "--json", "--quiet"]);
    let mut seen = Vec::new();
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        let (name, version, versions, hits) = search_all(data.path());
        assert_eq!(versions, vec![version.clone()], "one search read one index: {name}");
        assert_eq!(hits, all, "never a half-built index ({name}, pipeline {version})");
        seen.push(version);
        assert!(started.elapsed() < Duration::from_secs(300), "reindex did not finish");
    }
    let out = child.wait_with_output().unwrap();
    let summary: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(out.status.success(), "{summary}\n{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(summary["swapped"]["from"], old_name.as_str(), "{summary}");
    assert_eq!(summary["swapped"]["dropped"], true);
    let new_name = summary["swapped"]["to"].as_str().unwrap().to_string();
    assert!(new_name.contains("_p2"), "{new_name}");

    // The label keeps the configured lexical analysis (auto, the default).
    let (name, version, versions, hits) = search_all(data.path());
    assert_eq!(
        (name.as_str(), version.as_str(), versions, hits),
        (new_name.as_str(), SECOND, vec![SECOND.into()], all)
    );
    assert!(seen.iter().filter(|v| *v == FIRST).count() >= 2, "searches ran during the build: {seen:?}");
    let swap = seen.iter().position(|v| v == SECOND).unwrap_or(seen.len());
    assert!(seen[swap..].iter().all(|v| v == SECOND), "once swapped, never the old index again: {seen:?}");

    let docs = documents(data.path());
    assert!(docs.values().all(|d| d["status"] == "indexed" && d["pipeline_version"] == SECOND), "{docs:?}");
    let (_, status) = ragpipe(data.path(), &["status", "--json"]);
    assert_eq!(status["index"]["live"]["name"], new_name.as_str());
    assert_eq!((status["index"]["building"].clone(), status["stale"].clone()), (Value::Null, serde_json::json!([])));
    assert!(!data.path().join("vectors").join(&old_name).exists(), "the old collection is dropped");
}

#[test]
fn an_interrupted_reindex_resumes_keeps_the_old_index_and_reprocesses_stale_documents() {
    let (folder, data) = (corpus(), tempfile::tempdir().unwrap());
    let (code, _) = ragpipe(data.path(), &["ingest", folder.path().to_str().unwrap(), "--json", "--quiet"]);
    assert_eq!(code, 0);
    let (old_name, _, _, all) = search_all(data.path());
    assert!(old_name.contains("int8"), "the default variant: {old_name}");

    // Killed once some documents are done in the new collection.
    let mut child = reindex(data.path(), &["--model", "fp32", "--keep-old", "--quiet"]);
    let started = Instant::now();
    loop {
        let (_, status) = ragpipe(data.path(), &["status", "--json"]);
        let index = &status["index"];
        if index["building"].is_object()
            && index["indexed"].as_i64().unwrap() >= 1
            && index["pending"].as_i64() > Some(0)
        {
            break;
        }
        assert!(child.try_wait().unwrap().is_none(), "the reindex ended before it could be interrupted");
        assert!(started.elapsed() < Duration::from_secs(300));
        std::thread::sleep(Duration::from_millis(50));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let done: Vec<(String, Value)> = documents(data.path())
        .into_iter()
        .filter(|(_, d)| d["status"] == "indexed")
        .map(|(s, d)| (s, d["generation"].clone()))
        .collect();
    assert!(!done.is_empty());

    let (name, version, _, hits) = search_all(data.path());
    assert_eq!((name.as_str(), version.as_str(), hits), (old_name.as_str(), FIRST, all), "the old index serves");
    let refused = cmd(data.path()).args(["reindex", "--pipeline-version", "9"]).output().unwrap();
    let why = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{why}");
    assert!(why.contains("is in progress"), "another target while a build runs: {why}");

    let (code, summary) = ragpipe(data.path(), &["reindex", "--json", "--quiet"]);
    assert_eq!(code, 0, "{summary}");
    let new_name = summary["swapped"]["to"].as_str().unwrap().to_string();
    assert!(!new_name.contains("int8"), "{summary}");
    assert_eq!(summary["swapped"]["dropped"], false, "--keep-old");
    let docs = documents(data.path());
    for (source, generation) in &done {
        assert_eq!(&docs[source]["generation"], generation, "{source} finished before the crash: not redone");
    }
    assert!(docs.values().all(|d| d["model"] == "all-MiniLM-L6-v2"), "{docs:?}");
    let (name, _, _, hits) = search_all(data.path());
    assert_eq!((name.as_str(), hits), (new_name.as_str(), all), "searches use the fp32 index and model");
    let (_, status) = ragpipe(data.path(), &["status", "--json"]);
    assert_eq!(status["index"]["retired"][0]["name"], old_name.as_str());
    assert!(data.path().join("vectors").join(&old_name).is_dir(), "kept");

    // One document recorded by an older extractor: only it is reprocessed, in place.
    let stale = docs.keys().find(|s| s.ends_with("walkdir-README.md")).unwrap().clone();
    mark_extracted_by_old_version(&data.path().join("state.db"), &stale);
    let (_, listed) = ragpipe(data.path(), &["documents", "--stale", "--json"]);
    assert_eq!(listed["documents"].as_array().unwrap().len(), 1, "{listed}");
    let (code, summary) = ragpipe(data.path(), &["reindex", "--stale-only", "--json", "--quiet"]);
    assert_eq!(code, 0, "{summary}");
    assert_eq!(summary["sync"]["resumed"], 1, "{summary}");
    assert!(summary.get("swapped").is_none(), "in place: no new collection");
    let after = documents(data.path());
    let generation = |d: &BTreeMap<String, Value>| d[&stale]["generation"].as_i64().unwrap();
    assert_eq!(generation(&after), generation(&docs) + 1);
    assert_eq!(after[&stale]["extractor_version"], ragpipe_extract::EXTRACTOR_VERSION);
    let (_, listed) = ragpipe(data.path(), &["documents", "--stale", "--json"]);
    assert_eq!(listed["documents"], serde_json::json!([]));
    assert_eq!(search_all(data.path()).0, new_name);
}

fn mark_extracted_by_old_version(db: &Path, uri: &str) {
    use sqlx::Connection;
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(async {
        let mut conn = sqlx::SqliteConnection::connect(&format!("sqlite://{}", db.display())).await.unwrap();
        let r = sqlx::query("UPDATE documents SET extractor_version = '0' WHERE uri = ?")
            .bind(uri)
            .execute(&mut conn)
            .await
            .unwrap();
        assert_eq!(r.rows_affected(), 1);
    });
}
