//! The distributed mode on a real Qdrant server (`RAGPIPE_TEST_QDRANT_URL`,
//! started by `scripts/test.sh`): two extractor and two embedder processes
//! over SeaweedFS, RabbitMQ and PostgreSQL share one namespace's collections
//! on the server; a reindex swaps the `{namespace}_chunks` alias while an
//! application searches through it; `search`, `chunks` and `eval` read the
//! server. Built only with the `server-tests` feature, so a run without a
//! server never counts it as passed.

use ragpipe_core::{DocState, DocumentId};
use ragpipe_vectors::{QdrantStore, VectorStore};
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

mod common;

use common::deployment::{Deployment, FIXTURE_FAILURES, failures, fixture};

fn name(d: &DocState) -> &str {
    d.uri.rsplit('/').next().unwrap()
}

fn server() -> String {
    std::env::var("RAGPIPE_TEST_QDRANT_URL").expect("RAGPIPE_TEST_QDRANT_URL names the Qdrant server under test")
}

/// The collection the namespace's alias points at, read from the server.
async fn aliased(url: &str, alias: &str) -> Option<String> {
    let client = QdrantStore::connect(url, None).unwrap();
    let aliases = client.list_aliases().await.unwrap().aliases;
    aliases.into_iter().find(|a| a.alias_name == alias).map(|a| a.collection_name)
}

/// What an application outside ragpipe sees through the alias while a
/// reindex builds and swaps: every answer must come from a whole collection.
struct Reader {
    searches: usize,
    /// Searches whose count of the document was not the whole document.
    partial: Vec<u64>,
    collections: Vec<String>,
}

async fn read_through_alias(url: String, alias: String, doc: DocumentId, whole: u64, stop: Arc<AtomicBool>) -> Reader {
    let store = QdrantStore::named(QdrantStore::connect(&url, None).unwrap(), &alias);
    let mut reader = Reader { searches: 0, partial: Vec::new(), collections: Vec::new() };
    let probe = vec![0.05_f32; 384];
    while !stop.load(Ordering::Relaxed) {
        let count = store.count(&doc, None).await.unwrap();
        let hits = store.search_dense(&probe, 5).await.unwrap();
        reader.searches += 1;
        if count != whole || hits.is_empty() {
            reader.partial.push(count);
        }
        let now = aliased(&url, &alias).await.unwrap_or_default();
        if reader.collections.last() != Some(&now) {
            reader.collections.push(now);
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    reader
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_extractors_and_two_embedders_share_a_qdrant_server() {
    let url = server();
    let mut dep = Deployment::new().await.on_qdrant(&url);
    // Two embedder processes on two cores: one intra-op thread each.
    dep.configure("[workers]\nembed_batch = 1\n[model]\nthreads = 1\n");
    let files = [
        ("pdf", "handbook.pdf"),
        ("sheets", "book.xlsx"),
        ("sheets", "penguins.tsv"),
        ("code", "hex.rs"),
        ("code", "stack.go"),
        ("audio", "intro.wav"),
        ("audio", "intro.vtt"),
        ("sheets", "truncated.xlsx"),
        ("pdf", "encrypted.pdf"),
    ];
    for (kind, file) in files {
        dep.put(file, fixture(kind, file)).await;
    }
    for role in ["extractor", "extractor", "embedder", "embedder"] {
        dep.start(role);
    }
    let report = dep.sync();
    assert_eq!(report["new"].as_u64(), Some(8), "{report}");
    let docs = dep.settle(8).await;
    assert_eq!(failures(&docs), BTreeMap::from(FIXTURE_FAILURES));
    // Read back from the server while both embedders still run.
    let live = dep.live_collection();
    dep.check_counts(&live, &docs).await;
    let alias = format!("{}_chunks", dep.namespace);
    assert_eq!(aliased(&url, &alias).await, Some(format!("{}_{live}", dep.namespace)), "alias from the first index");

    // The CLI reads the server: search, a document's chunks, eval.
    let (code, found) = common::run_json(dep.command(&[]), &["search", "causeway floods", "--json", "--no-threshold"]);
    assert_eq!(code, 0, "{found}");
    let hits = found["hits"].as_array().unwrap();
    assert!(hits[0]["content"].as_str().is_some_and(|c| c.contains("causeway")), "{found}");
    let bucket = format!("s3://{}/", dep.bucket);
    assert!(hits.iter().all(|h| h["document"].as_str().is_some_and(|d| d.starts_with(&bucket))), "{found}");
    let handbook = docs.iter().find(|d| name(d) == "handbook.pdf").unwrap();
    let (code, chunks) = common::run_json(dep.command(&[]), &["chunks", &handbook.uri, "--json"]);
    assert_eq!(code, 0, "{chunks}");
    let listed = chunks.as_array().map(Vec::len).unwrap_or_default();
    assert_eq!(Some(listed as i64), handbook.chunks_stored, "{chunks}");
    let golden = dep.data.path().join("golden.jsonl");
    let lines = [
        r#"{"id":"q1-doc","qid":"q1","style":"doc","query":"When does the causeway flood?","doc":"handbook.pdf","kind":"pdf","needles":["causeway floods two hours before high water"]}"#,
        r#"{"id":"q2-doc","qid":"q2","style":"doc","query":"Where are the first aid kits kept?","doc":"handbook.pdf","kind":"pdf","needles":["First aid kits are kept in the kitchen"]}"#,
    ];
    std::fs::write(&golden, lines.join("\n")).unwrap();
    let (code, eval) = common::run_json(dep.command(&[]), &["eval", "--golden", golden.to_str().unwrap(), "--json"]);
    assert_eq!(code, 0, "{eval}");
    assert_eq!(eval["overall"]["queries"], 2, "{eval}");
    assert_eq!(eval["overall"]["recall"]["8"]["value"], 1.0, "{eval}");

    // A reindex on the running workers while an application searches
    // through the alias: every answer comes from a whole collection, the
    // alias moves to the new one, the old one is dropped.
    let stop = Arc::new(AtomicBool::new(false));
    let whole = handbook.chunks_stored.unwrap() as u64;
    let reader = tokio::spawn(read_through_alias(url.clone(), alias.clone(), handbook.id.clone(), whole, stop.clone()));
    let (code, report) = common::run_json(dep.command(&[]), &["reindex", "--pipeline-version", "2", "--json"]);
    assert_eq!(code, 1, "two documents fail in the new index too: {report}");
    let new = report["swapped"]["to"].as_str().unwrap().to_string();
    assert!(new.ends_with("_p2-bm25-auto") && report["swapped"]["dropped"] == true, "{report}");
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    stop.store(true, Ordering::Relaxed);
    let reader = reader.await.unwrap();
    assert!(reader.partial.is_empty(), "a search through the alias saw a partial index: {:?}", reader.partial);
    let (old, moved) = (format!("{}_{live}", dep.namespace), format!("{}_{new}", dep.namespace));
    assert_eq!(
        reader.collections,
        [old.clone(), moved.clone()],
        "the reader saw the swap ({} searches)",
        reader.searches
    );
    assert_eq!(aliased(&url, &alias).await, Some(moved));
    let client = QdrantStore::connect(&url, None).unwrap();
    assert!(!client.collection_exists(&old).await.unwrap(), "the old collection is dropped");
    let after = dep.settle(8).await;
    dep.check_counts(&new, &after).await;
    let (_, found) = common::run_json(dep.command(&[]), &["search", "causeway floods", "--json", "--no-threshold"]);
    assert_eq!(found["index"]["pipeline_version"], "2+bm25-auto", "{found}");
    let hits: &Vec<Value> = found["hits"].as_array().unwrap();
    assert!(hits.iter().all(|h| h["pipeline_version"] == "2+bm25-auto"), "{found}");
    for role in ["embedder", "extractor"] {
        dep.stop(role, false);
    }
    dep.remove().await;
    assert!(aliased(&url, &alias).await.is_none(), "the test leaves nothing on the server");
}
