//! `EdgeStore` against the vector store conformance suite, each check on a
//! fresh store in its own temp dir, plus what only an on-disk engine can get
//! wrong: data must survive a restart and a crash (0.7.0 does not replay its
//! WAL, so every write has to be flushed before it returns), and a directory
//! is owned by one process.

use ragpipe_vectors::conformance::fixture::{chunks_of, direction, doc_id};
use ragpipe_vectors::{Bm25, CollectionSpec, Collections, EdgeCollections, EdgeStore, VectorStore};
use std::path::Path;

fn spec(model: &str) -> CollectionSpec {
    CollectionSpec { model: model.into(), dims: 384, pipeline_version: "1".into() }
}

fn open(root: &Path) -> EdgeStore {
    EdgeStore::open(root, &spec("test-model")).unwrap()
}

fn fresh() -> (tempfile::TempDir, EdgeStore) {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    (dir, store)
}

ragpipe_vectors::vector_store_conformance!(fresh());

#[tokio::test]
async fn writes_and_deletes_survive_reopening() {
    let dir = tempfile::tempdir().unwrap();
    let bm25 = Bm25::new();
    let store = open(dir.path());
    let mut points = chunks_of(&bm25, "a", 1, 3, 0);
    points.extend(chunks_of(&bm25, "a", 2, 2, 10));
    points.extend(chunks_of(&bm25, "b", 1, 4, 20));
    store.upsert(points).await.unwrap();
    store.delete_document(&doc_id("a"), Some(2)).await.unwrap();
    let before = store.chunks(None).await.unwrap();
    assert_eq!(before.len(), 6);
    // The directory is locked by its owner; a second open must fail, not
    // write through a second engine.
    assert!(EdgeStore::open(dir.path(), &spec("test-model")).is_err(), "second open of a locked dir");
    drop(store);

    let store = open(dir.path());
    assert_eq!(store.count(&doc_id("a"), None).await.unwrap(), 2);
    assert_eq!(store.count(&doc_id("a"), Some(1)).await.unwrap(), 0, "a delete was lost");
    assert_eq!(store.count(&doc_id("b"), None).await.unwrap(), 4);
    assert_eq!(store.chunks(None).await.unwrap(), before);
    let top = &store.search_dense(&direction(21), 1).await.unwrap()[0];
    assert_eq!((top.payload.document_id.as_str(), top.payload.chunk_index), (doc_id("b").as_str(), 1));
    let hits = store.search_sparse(&bm25.query("generation"), 10).await.unwrap();
    assert_eq!(hits.len(), 6, "the sparse index was reloaded");

    // Another model's collection under the same root is a separate index.
    let other = EdgeStore::open(dir.path(), &spec("other-model")).unwrap();
    assert_eq!(other.count(&doc_id("b"), None).await.unwrap(), 0);
    assert!(other.chunks(None).await.unwrap().is_empty());
}

/// Set for the child process of `acknowledged_writes_survive_a_crash`.
const CRASH_DIR: &str = "RAGPIPE_TEST_EDGE_CRASH_DIR";
const CRASHED: i32 = 17;

/// A clean drop flushes the engine, so only a process that dies without
/// running destructors shows whether a returned write was really stored.
#[tokio::test]
async fn acknowledged_writes_survive_a_crash() {
    let bm25 = Bm25::new();
    if let Some(dir) = std::env::var_os(CRASH_DIR) {
        let store = open(Path::new(&dir));
        let mut points = chunks_of(&bm25, "a", 1, 3, 0);
        points.extend(chunks_of(&bm25, "b", 1, 4, 20));
        store.upsert(points).await.unwrap();
        store.delete_document(&doc_id("a"), None).await.unwrap();
        std::process::exit(CRASHED);
    }
    let dir = tempfile::tempdir().unwrap();
    let status = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["acknowledged_writes_survive_a_crash", "--exact", "--test-threads=1"])
        .env(CRASH_DIR, dir.path())
        .stdout(std::process::Stdio::null())
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(CRASHED), "the child wrote and exited");
    let store = open(dir.path());
    assert_eq!(store.count(&doc_id("b"), None).await.unwrap(), 4, "an acknowledged upsert was lost");
    assert_eq!(store.count(&doc_id("a"), None).await.unwrap(), 0, "an acknowledged delete was lost");
    assert_eq!(store.search_sparse(&bm25.query("generation"), 10).await.unwrap().len(), 4);
}

#[tokio::test]
async fn collections_conformance() {
    let dir = tempfile::tempdir().unwrap();
    let collections = EdgeCollections { root: dir.path().to_path_buf() };
    ragpipe_vectors::conformance::collections::collections_lifecycle(&collections, "c").await;
}

/// A reader that opened the old collection before a swap holds its lock;
/// the drop waits for it to finish instead of deleting files under it.
#[tokio::test]
async fn a_drop_waits_for_the_last_reader() {
    let dir = tempfile::tempdir().unwrap();
    let collections = std::sync::Arc::new(EdgeCollections { root: dir.path().to_path_buf() });
    let reader = collections.create("old", &spec("m")).await.unwrap();
    let dropping = {
        let collections = collections.clone();
        tokio::spawn(async move { collections.drop_collection("old").await })
    };
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert!(!dropping.is_finished() && dir.path().join("old").is_dir(), "dropped under a reader");
    assert_eq!(reader.count(&doc_id("a"), None).await.unwrap(), 0, "the reader still reads");
    drop(reader);
    dropping.await.unwrap().unwrap();
    assert!(!dir.path().join("old").exists());
}

/// The parts of one process that open the same collection (an ingest's
/// embedder and the search service of `ragpipe serve --folder`) share one
/// handle instead of failing on the directory's lock; once every handle is
/// gone the collection closes, and can be opened again (or dropped).
#[tokio::test]
async fn one_process_shares_one_handle_per_collection() {
    let root = tempfile::tempdir().unwrap();
    let collections = EdgeCollections { root: root.path().to_path_buf() };
    let writer = collections.create("chunks_a", &spec("m")).await.unwrap();
    let reader = collections.open("chunks_a", &spec("m")).await.unwrap().expect("it exists");
    let bm25 = Bm25::new();
    writer.upsert(chunks_of(&bm25, "a", 1, 3, 0)).await.unwrap();
    assert_eq!(reader.count(&doc_id("a"), None).await.unwrap(), 3, "the reader sees the writer's points");
    let other = EdgeCollections { root: root.path().to_path_buf() };
    assert!(other.open("chunks_a", &spec("m")).await.is_ok(), "another wiring of the same process shares it too");
    drop((writer, reader));
    collections.drop_collection("chunks_a").await.unwrap();
    assert!(collections.open("chunks_a", &spec("m")).await.unwrap().is_none(), "closed, then dropped");
}
