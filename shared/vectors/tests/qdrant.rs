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

/// Deletes a test's collection from the server when the test ends (on a
/// thread of its own: a drop cannot await on the test's runtime).
struct Dropped {
    url: String,
    name: String,
}

impl Drop for Dropped {
    fn drop(&mut self) {
        let (url, name) = (self.url.clone(), self.name.clone());
        let deleted = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
            rt.block_on(async { QdrantStore::connect(&url, None).unwrap().delete_collection(name).await.is_ok() })
        });
        let _ = deleted.join();
    }
}

fn unique(what: &str) -> String {
    use std::sync::atomic::{AtomicU32, Ordering};
    static N: AtomicU32 = AtomicU32::new(0);
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
    format!("{what}-{}-{nanos}-{}", std::process::id(), N.fetch_add(1, Ordering::Relaxed))
}

async fn fresh() -> Option<(Dropped, QdrantStore)> {
    let url = server_url();
    let spec = CollectionSpec { model: unique("conformance"), dims: 384, pipeline_version: "1".into() };
    let store = QdrantStore::open(&url, None, &spec, None).await.expect("Qdrant reachable");
    Some((Dropped { url, name: spec.name() }, store))
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
    let mut names: Vec<String> =
        client.list_collections().await.unwrap().collections.into_iter().map(|c| c.name).collect();
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
    store_a.upsert(chunks_of(&Bm25::new(), "only-in-a", 1, 3, 0)).await.unwrap();
    let store_b = b.create(&name, &spec).await.unwrap();
    assert_eq!(store_b.count(&doc_id("only-in-a"), None).await.unwrap(), 0, "B reads none of A's points");
    let query = chunks_of(&Bm25::new(), "only-in-a", 1, 1, 0).remove(0);
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

/// The same points in the embedded store and on the server: a hybrid
/// search (dense + BM25, each engine applying its own IDF) ranks them alike,
/// fused by rank or by score.
/// Every dense similarity differs (a shared axis, weighted per document), so
/// the order has no ties an engine may break its own way.
#[tokio::test]
async fn hybrid_search_ranks_as_the_embedded_store_does() {
    use ragpipe_vectors::conformance::fixture::{point, unit};
    use ragpipe_vectors::retrieval::{Fusion, Mode, SearchOptions, search};
    use ragpipe_vectors::{Bm25, EdgeStore, VectorStore};
    let texts = [
        "The causeway floods two hours before high water.",
        "First aid kits are kept in the kitchen, beside the kettle.",
        "Fire extinguishers hang by every exit and are checked monthly.",
        "The ferry leaves at noon, except on Sundays and bank holidays.",
        "Tide tables for high water are printed every month.",
        "Kitchen rota: whoever cooks does not wash up.",
        "Flood warnings come from the harbour master by radio.",
        "Tap water is safe to drink; the well water is not.",
        "Bicycles are stored in the barn, never in the hall.",
        "The generator runs on diesel; the spare can is in the barn.",
    ];
    let bm25 = Bm25::new();
    let points: Vec<_> = texts
        .iter()
        .enumerate()
        .map(|(i, t)| {
            point(&bm25, &format!("doc{i}"), 1, 0, unit(&[(i * 37 + 5, 1.0), (383, 0.1 + 0.07 * i as f32)]), t)
        })
        .collect();
    let spec = CollectionSpec { model: unique("hybrid"), dims: 384, pipeline_version: "1".into() };
    let url = server_url();
    let server = QdrantStore::open(&url, None, &spec, None).await.unwrap();
    let _cleanup = Dropped { url, name: spec.name() };
    let dir = tempfile::tempdir().unwrap();
    let edge = EdgeStore::open(dir.path(), &spec).unwrap();
    server.upsert(points.clone()).await.unwrap();
    edge.upsert(points).await.unwrap();
    let queries = [
        ("when does the causeway flood at high water", unit(&[(5, 1.0), (5 + 37 * 4, 0.9), (383, 0.5)])),
        ("where is the diesel for the generator kept", unit(&[(5 + 37 * 8, 1.0), (5 + 37 * 9, 0.7), (383, 0.5)])),
        ("is the water safe to drink", unit(&[(5 + 37 * 7, 0.6), (5 + 37 * 2, 1.0), (383, 0.5)])),
    ];
    for (text, vector) in &queries {
        let ranked = |a: ragpipe_vectors::retrieval::Answer| -> Vec<(String, i64)> {
            a.hits.iter().map(|h| (h.payload.document.clone(), (h.score * 1e4).round() as i64)).collect()
        };
        for fusion in [Fusion::Rrf { k: 60.0 }, Fusion::Convex { dense_weight: 0.6 }] {
            let opts = SearchOptions { top_k: 10, mode: Mode::Hybrid, fusion, abstention: None };
            let on_server = ranked(search(&server, &bm25, vector, text, &opts).await.unwrap());
            let embedded = ranked(search(&edge, &bm25, vector, text, &opts).await.unwrap());
            assert_eq!(on_server.len(), texts.len(), "{text}");
            assert_eq!(on_server, embedded, "{text}, {fusion:?}: the same ranking and fused scores");
        }
        let sparse_server = server.search_sparse(&bm25.query(text), 5).await.unwrap();
        let sparse_edge = edge.search_sparse(&bm25.query(text), 5).await.unwrap();
        let scores = |s: &[ragpipe_vectors::Scored]| -> Vec<(uuid::Uuid, i64)> {
            s.iter().map(|h| (h.id, (h.score * 1e3).round() as i64)).collect()
        };
        assert_eq!(scores(&sparse_server), scores(&sparse_edge), "{text}: BM25 with the same IDF");
    }
}

/// Dropping a collection while a search loop reads it: the drop finishes,
/// the searches end in an error (never a hang or a panic), and the
/// collection is gone.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_drop_while_searches_run() {
    use ragpipe_vectors::conformance::fixture::chunks_of;
    use ragpipe_vectors::{Bm25, Collections};
    let url = server_url();
    let namespace = unique("drop").replace('-', "_");
    let collections = QdrantCollections::new(QdrantStore::connect(&url, None).unwrap(), &namespace);
    let spec = CollectionSpec { model: "all-MiniLM-L6-v2".into(), dims: 384, pipeline_version: "1".into() };
    let store = collections.create(&spec.name(), &spec).await.unwrap();
    store.upsert(chunks_of(&Bm25::new(), "a", 1, 50, 0)).await.unwrap();
    let query = chunks_of(&Bm25::new(), "a", 1, 1, 0).remove(0).dense;
    let reader = tokio::spawn(async move {
        let mut answered = 0;
        loop {
            match store.search_dense(&query, 10).await {
                Ok(hits) => {
                    assert_eq!(hits.len(), 10, "a search before the drop sees the whole collection");
                    answered += 1;
                }
                Err(e) => return (answered, e.to_string()),
            }
        }
    });
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    let name = spec.name();
    let dropped = tokio::time::timeout(std::time::Duration::from_secs(30), collections.drop_collection(&name));
    dropped.await.expect("the drop does not wait on readers forever").unwrap();
    let (answered, error) = tokio::time::timeout(std::time::Duration::from_secs(30), reader).await.unwrap().unwrap();
    assert!(answered > 0, "searches ran before the drop");
    assert!(error.contains("Not found") || error.contains("doesn't exist"), "{error}");
    assert!(collections.open(&spec.name(), &spec).await.unwrap().is_none(), "gone");
    let client = QdrantStore::connect(&url, None).unwrap();
    let _ = client.delete_alias(format!("{namespace}_chunks")).await;
}
