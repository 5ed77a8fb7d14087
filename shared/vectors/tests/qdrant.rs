//! `QdrantStore` against the vector store conformance suite, on the Qdrant
//! server at `RAGPIPE_TEST_QDRANT_URL` (gRPC, e.g. `http://127.0.0.1:6334`).
//! No Qdrant server can be installed from the package registries this
//! project builds from, so without that variable every check here is
//! skipped, and says so on stderr (`scripts/test.sh` says it too). Each
//! check writes to its own uniquely named collection, left on the server.

use ragpipe_vectors::{CollectionSpec, QdrantCollections, QdrantStore};

async fn fresh() -> Option<((), QdrantStore)> {
    let Ok(url) = std::env::var("RAGPIPE_TEST_QDRANT_URL") else {
        eprintln!(
            "SKIPPED: RAGPIPE_TEST_QDRANT_URL is not set, so the Qdrant server half of the conformance suite did not run"
        );
        return None;
    };
    use std::sync::atomic::{AtomicU32, Ordering};
    static N: AtomicU32 = AtomicU32::new(0);
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
    let model = format!("conformance-{}-{nanos}-{}", std::process::id(), N.fetch_add(1, Ordering::Relaxed));
    let spec = CollectionSpec { model, dims: 384, pipeline_version: "1".into() };
    Some(((), QdrantStore::open(&url, None, &spec, None).await.expect("Qdrant reachable")))
}

ragpipe_vectors::vector_store_conformance!(external fresh());

#[tokio::test]
async fn collections_conformance() {
    let Ok(url) = std::env::var("RAGPIPE_TEST_QDRANT_URL") else {
        eprintln!("SKIPPED: RAGPIPE_TEST_QDRANT_URL is not set: Qdrant collections conformance did not run");
        return;
    };
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
    let prefix = format!("collections-{}-{nanos}", std::process::id());
    let client = QdrantStore::connect(&url, None).expect("Qdrant reachable");
    let collections = QdrantCollections { client, alias: format!("{prefix}_alias") };
    ragpipe_vectors::conformance::collections::collections_lifecycle(&collections, &prefix).await;
}
