//! `[lexical] language`: the BM25 half of hybrid search analyses an index's
//! text in one language (its stop words and stemmer), recorded in the
//! index's pipeline version so documents and questions are always cut the
//! same way; a change applies to the next reindex, like `model.name`. Or
//! `auto`: each document in the language detected in it.

use ragpipe_integration_tests::ragpipe_bin;
use std::path::Path;
use std::process::{Command, Output};

fn ragpipe(data: &Path, config: &Path, args: &[&str]) -> Output {
    Command::new(ragpipe_bin()).arg("--data-dir").arg(data).arg("--config").arg(config).args(args).output().unwrap()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn search(data: &Path, config: &Path, query: &str) -> serde_json::Value {
    let out = ragpipe(data, config, &["search", query, "--json", "--no-threshold"]);
    assert!(out.status.success(), "{}", stderr(&out));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn a_spanish_index_is_analysed_in_spanish_until_a_reindex_says_otherwise() {
    let (folder, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../eval/corpus-es");
    for name in ["man-at.1.txt", "man-chmod.1.txt"] {
        std::fs::copy(corpus.join(name), folder.path().join(name)).unwrap();
    }
    let config = data.path().join("ragpipe.toml");
    std::fs::write(&config, "[lexical]\nlanguage = \"spanish\"\n").unwrap();
    let out = ragpipe(data.path(), &config, &["ingest", folder.path().to_str().unwrap(), "--quiet"]);
    assert!(out.status.success(), "{}", stderr(&out));

    let asked = "¿Qué ficheros deciden qué usuarios pueden utilizar at?";
    let json = search(data.path(), &config, asked);
    assert_eq!(json["index"]["pipeline_version"], "1+bm25-spanish", "{json}");
    assert!(json["index"]["name"].as_str().unwrap().ends_with("_p1-bm25-spanish"), "{json}");
    let hit = at_in_first_three(&json);
    assert!(hit["locator"].as_str().unwrap().starts_with("#char="), "cited: {json}");
    assert_eq!(hit["pipeline_version"], "1+bm25-spanish", "{json}");

    // Back to English: the live index keeps its analysis, and searches read
    // it, until a reindex builds the English one.
    std::fs::write(&config, "[lexical]\nlanguage = \"english\"\n").unwrap();
    let status = ragpipe(data.path(), &config, &["status"]);
    let said = String::from_utf8_lossy(&status.stdout);
    assert!(said.contains("live index: chunks_all-minilm-l6-v2-int8_384d_p1-bm25-spanish"), "{said}");
    assert_eq!(search(data.path(), &config, asked)["index"]["pipeline_version"], "1+bm25-spanish");
    let out = ragpipe(data.path(), &config, &["reindex", "--quiet"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let json = search(data.path(), &config, asked);
    assert_eq!(json["index"]["pipeline_version"], "1", "{json}");
    assert_eq!(at_in_first_three(&json)["pipeline_version"], "1", "{json}");
}

#[test]
fn by_default_each_document_is_analysed_in_its_own_language() {
    let (folder, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let eval = Path::new(env!("CARGO_MANIFEST_DIR")).join("../eval");
    std::fs::copy(eval.join("corpus-es/man-at.1.txt"), folder.path().join("man-at.1.txt")).unwrap();
    std::fs::copy(eval.join("corpus/gzip.1.txt"), folder.path().join("gzip.1.txt")).unwrap();
    // The default: no [lexical] section.
    let config = data.path().join("ragpipe.toml");
    std::fs::write(&config, "").unwrap();
    let out = ragpipe(data.path(), &config, &["ingest", folder.path().to_str().unwrap(), "--quiet"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let said = stderr(&out);
    let hint = "spanish documents are being embedded by all-MiniLM-L6-v2-int8, which reads English only";
    assert_eq!(said.matches(hint).count(), 1, "the English-only model says so, once: {said}");
    assert!(said.contains("multilingual-e5-small"), "{said}");
    assert!(!said.contains("english documents are being embedded"), "{said}");

    let json = search(data.path(), &config, "¿Qué ficheros deciden qué usuarios pueden utilizar at?");
    assert_eq!(json["index"]["pipeline_version"], "1+bm25-auto", "{json}");
    assert!(json["index"]["name"].as_str().unwrap().ends_with("_p1-bm25-auto"), "{json}");
    let hit = at_in_first_three(&json);
    assert_eq!(hit["language"], "spanish", "the Spanish manual page is analysed in Spanish: {json}");
    let json = search(data.path(), &config, "which compression level is the fastest");
    let hits = json["hits"].as_array().unwrap();
    let gzip = hits.iter().find(|h| h["document"].as_str().unwrap().ends_with("gzip.1.txt")).unwrap();
    assert_eq!(gzip["language"], "english", "the English one as an English index would: {json}");
}

/// at(1)'s hit among the first three (chmod(1) speaks of users as often).
fn at_in_first_three(json: &serde_json::Value) -> &serde_json::Value {
    let hits = json["hits"].as_array().unwrap();
    let first = &hits[..hits.len().min(3)];
    first.iter().find(|h| h["document"].as_str().unwrap().ends_with("man-at.1.txt")).unwrap_or_else(|| panic!("{json}"))
}

#[test]
fn a_language_bm25_cannot_analyse_is_refused_at_start() {
    let (folder, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    std::fs::write(folder.path().join("a.md"), "# A\n\nSome text.\n").unwrap();
    let config = data.path().join("ragpipe.toml");
    std::fs::write(&config, "[lexical]\nlanguage = \"klingon\"\n").unwrap();
    let out = ragpipe(data.path(), &config, &["ingest", folder.path().to_str().unwrap(), "--quiet"]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("lexical.language: BM25 has no analysis for \"klingon\""), "{}", stderr(&out));
    // What documents are judged stale against (status, documents, the admin
    // host) is refused the same way, not read as the English pipeline.
    let out = ragpipe(data.path(), &config, &["status"]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("lexical.language: BM25 has no analysis for \"klingon\""), "{}", stderr(&out));
    std::fs::write(&config, "[lexical]\nlanguage = \"Spanish\"\n").unwrap();
    let out = ragpipe(data.path(), &config, &["ingest", folder.path().to_str().unwrap(), "--quiet"]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("lexical.language must be a language's name in lower case"), "{}", stderr(&out));
}
