//! `QdrantStore` against the vector store conformance suite, on the Qdrant
//! server at `RAGPIPE_TEST_QDRANT_URL` (gRPC, e.g. `http://127.0.0.1:6334`).
//! Built only with the `server-tests` feature, which `scripts/test.sh`
//! turns on when it has started a server (`scripts/qdrant-server.sh`); a run
//! without the variable fails instead of passing checks it did not make.
//! Each check writes to its own uniquely named collection, on a throwaway
//! server whose storage `qdrant-server.sh stop` removes.

use ragpipe_vectors::{CollectionSpec, QdrantCollections, QdrantStore};

fn server_url() -> String {
    std::env::var("RAGPIPE_TEST_QDRANT_URL").expect("RAGPIPE_TEST_QDRANT_URL names the Qdrant server under test")
}

async fn fresh() -> Option<((), QdrantStore)> {
    let url = server_url();
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
    let url = server_url();
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
    let prefix = format!("collections-{}-{nanos}", std::process::id());
    let client = QdrantStore::connect(&url, None).expect("Qdrant reachable");
    let collections = QdrantCollections { client, alias: format!("{prefix}_alias") };
    ragpipe_vectors::conformance::collections::collections_lifecycle(&collections, &prefix).await;
}
