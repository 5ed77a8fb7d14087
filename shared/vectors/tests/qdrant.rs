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
    let collections = QdrantCollections::new(client, &prefix);
    ragpipe_vectors::conformance::collections::collections_lifecycle(&collections, &prefix).await;
}

/// The collections and alias a namespace's first index got on the server.
async fn on_server(client: &qdrant_client::Qdrant, namespace: &str) -> (Vec<String>, Option<String>) {
    let mut names: Vec<String> = client.list_collections().await.unwrap().collections.into_iter().map(|c| c.name).collect();
    names.retain(|n| n.starts_with(&format!("{namespace}_")));
    names.sort();
    let aliases = client.list_aliases().await.unwrap().aliases;
    let alias = aliases.into_iter().find(|a| a.alias_name == format!("{namespace}_chunks")).map(|a| a.collection_name);
    (names, alias)
}

/// Two deployments on one server, each with its own namespace, building the
/// same index (same model, dims and pipeline, so the same registry name):
/// neither sees the other's points, each has its stable alias from its
/// first index on, and dropping one's collection leaves the other's.
#[tokio::test]
async fn namespaces_never_share_collections() {
    use ragpipe_vectors::conformance::fixture::{chunks_of, doc_id};
    use ragpipe_vectors::{Bm25, Collections};
    let url = server_url();
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
    let (ns_a, ns_b) = (format!("nsa{nanos}"), format!("nsb{nanos}"));
    let client = QdrantStore::connect(&url, None).expect("Qdrant reachable");
    let (a, b) = (QdrantCollections::new(client.clone(), &ns_a), QdrantCollections::new(client.clone(), &ns_b));
    let spec = CollectionSpec { model: "all-MiniLM-L6-v2".into(), dims: 384, pipeline_version: "1".into() };
    let name = spec.name();

    let store_a = a.create(&name, &spec).await.unwrap();
    store_a.upsert(chunks_of(&Bm25::english(), "only-in-a", 1, 3, 0)).await.unwrap();
    let store_b = b.create(&name, &spec).await.unwrap();
    assert_eq!(store_b.count(&doc_id("only-in-a"), None).await.unwrap(), 0, "B reads none of A's points");
    let query = chunks_of(&Bm25::english(), "only-in-a", 1, 1, 0).remove(0);
    assert!(store_b.search_dense(&query.dense, 10).await.unwrap().is_empty(), "B's search finds nothing of A");
    assert_eq!(store_a.count(&doc_id("only-in-a"), None).await.unwrap(), 3);
    drop((store_a, store_b));

    let (names_a, alias_a) = on_server(&client, &ns_a).await;
    assert_eq!(names_a, [format!("{ns_a}_{name}")]);
    assert_eq!(alias_a.as_deref(), Some(a.physical(&name).as_str()), "the alias names the first index at once");
    let (_, alias_b) = on_server(&client, &ns_b).await;
    assert_eq!(alias_b.as_deref(), Some(b.physical(&name).as_str()));

    a.drop_collection(&name).await.unwrap();
    let kept = b.open(&name, &spec).await.unwrap().expect("B's collection survives A's drop");
    drop(kept);
    b.drop_collection(&name).await.unwrap();
    assert!(on_server(&client, &ns_b).await.0.is_empty(), "the test leaves nothing on the server");
}
