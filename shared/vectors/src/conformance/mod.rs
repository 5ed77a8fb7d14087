//! The conformance suite every [`VectorStore`] adapter must pass.
//!
//! The embedder counts what the store holds to decide a document is indexed,
//! deletes older generations after a reindex, and retrieval trusts scores to
//! be cosine similarities of unit vectors; the embedded engine and a Qdrant
//! server must agree on all of it. Each check expects an empty store of its
//! own and panics on failure. Vectors are synthetic unit directions (see
//! [`fixture`]), so every expected similarity is known exactly.
//!
//! Run the whole suite with
//! [`vector_store_conformance!`](crate::vector_store_conformance).

pub mod collections;
pub mod fixture;

use crate::{Bm25, ChunkPayload, SearchFilter, SparseVec, VectorStore};
use fixture::{chunks_of, cosine, direction, doc_id, point};

/// Tolerance for similarities read back from a store (f32, normalised).
pub const EPSILON: f32 = 1e-4;

/// Generates one `#[tokio::test]` per check. `$setup` is evaluated afresh in
/// each test (it may `.await`) and yields `(guard, store)`: the guard is kept
/// alive for the test (a temp dir, a collection to drop), the store is an
/// empty adapter instance with 384-dimensional dense vectors.
#[macro_export]
macro_rules! vector_store_conformance {
    ($setup:expr) => {
        $crate::vector_store_conformance!(@all [checks] $setup);
    };
    // An adapter on an external server: `$setup` is a future resolving to
    // `Some((guard, store))`, or `None` when no server is configured (the
    // caller says so loudly), which passes the checks vacuously.
    (external $setup:expr) => {
        $crate::vector_store_conformance!(@all [external] $setup);
    };
    (@all [$mode:ident] $setup:expr) => {
        $crate::vector_store_conformance!(@ $mode $setup;
            empty_store_answers_empty,
            upsert_then_count,
            reupsert_overwrites_without_duplicating,
            delete_keeps_only_the_given_generation,
            delete_without_generation_removes_the_document,
            search_dense_ranks_by_cosine,
            search_sparse_finds_the_term,
            searches_are_narrowed_by_a_filter,
            dense_vectors_are_unit_and_skip_missing_ids,
            chunks_of_a_document_in_chunk_order,
            chunks_of_the_whole_index,
            optimize_keeps_everything,
        );
    };
    (@external $setup:expr; $($check:ident),* $(,)?) => {
        $(
            #[::tokio::test]
            async fn $check() {
                let Some((_guard, store)) = $setup.await else { return };
                $crate::conformance::$check(&store).await;
            }
        )*
    };
    (@checks $setup:expr; $($check:ident),* $(,)?) => {
        $(
            #[::tokio::test]
            async fn $check() {
                let (_guard, store) = $setup;
                $crate::conformance::$check(&store).await;
            }
        )*
    };
}

async fn count(store: &dyn VectorStore, name: &str, generation: Option<i64>) -> u64 {
    store.count(&doc_id(name), generation).await.unwrap()
}

fn indexes(chunks: &[ChunkPayload]) -> Vec<(String, u32)> {
    chunks.iter().map(|c| (c.document.clone(), c.chunk_index)).collect()
}

/// Reads on an empty store succeed with nothing; an empty upsert and the
/// delete of an unknown document (a redelivered delete job) are no-ops.
pub async fn empty_store_answers_empty(store: &dyn VectorStore) {
    store.upsert(Vec::new()).await.unwrap();
    store.delete_document(&doc_id("never"), None).await.unwrap();
    store.delete_document(&doc_id("never"), Some(1)).await.unwrap();
    assert_eq!(count(store, "never", None).await, 0);
    assert!(store.search_dense(&direction(0), 5).await.unwrap().is_empty());
    let query = Bm25::new().query("invoice revenue");
    assert!(store.search_sparse(&query, 5).await.unwrap().is_empty());
    assert!(store.dense_vectors(&[fixture::point_id_of("never", 1, 0)]).await.unwrap().is_empty());
    assert!(store.chunks(None).await.unwrap().is_empty());
}

/// Counts are exact per document, per generation and in total.
pub async fn upsert_then_count(store: &dyn VectorStore) {
    let bm25 = Bm25::new();
    let mut points = chunks_of(&bm25, "a", 1, 3, 0);
    points.extend(chunks_of(&bm25, "a", 2, 2, 10));
    points.extend(chunks_of(&bm25, "b", 1, 4, 20));
    store.upsert(points).await.unwrap();
    assert_eq!(count(store, "a", None).await, 5);
    assert_eq!(count(store, "a", Some(1)).await, 3);
    assert_eq!(count(store, "a", Some(2)).await, 2);
    assert_eq!(count(store, "a", Some(3)).await, 0);
    assert_eq!(count(store, "b", None).await, 4);
    assert_eq!(count(store, "b", Some(2)).await, 0);
    assert_eq!(count(store, "c", None).await, 0);
}

/// Point ids are deterministic, so a redelivered batch overwrites: the count
/// stays, and the last write's payload and vector win.
pub async fn reupsert_overwrites_without_duplicating(store: &dyn VectorStore) {
    let bm25 = Bm25::new();
    store.upsert(chunks_of(&bm25, "a", 1, 3, 0)).await.unwrap();
    store.upsert(chunks_of(&bm25, "a", 1, 3, 0)).await.unwrap();
    assert_eq!(count(store, "a", None).await, 3);

    let changed = point(&bm25, "a", 1, 1, direction(50), "rewritten content");
    store.upsert(vec![changed.clone()]).await.unwrap();
    assert_eq!(count(store, "a", None).await, 3);
    let chunks = store.chunks(Some(&doc_id("a"))).await.unwrap();
    assert_eq!(chunks[1], changed.payload);
    let top = &store.search_dense(&direction(50), 1).await.unwrap()[0];
    assert_eq!(top.id, changed.id, "the new vector replaced the old one");
}

/// After a reindex the embedder deletes every generation but the new one;
/// other documents are untouched and deleted points are not searchable.
pub async fn delete_keeps_only_the_given_generation(store: &dyn VectorStore) {
    let bm25 = Bm25::new();
    let old = chunks_of(&bm25, "a", 1, 3, 0);
    let mut points = old.clone();
    points.extend(chunks_of(&bm25, "a", 2, 2, 10));
    points.extend(chunks_of(&bm25, "a", 3, 1, 20));
    points.extend(chunks_of(&bm25, "b", 1, 2, 30));
    store.upsert(points).await.unwrap();

    store.delete_document(&doc_id("a"), Some(2)).await.unwrap();
    assert_eq!(count(store, "a", Some(2)).await, 2);
    assert_eq!(count(store, "a", None).await, 2);
    assert_eq!(count(store, "b", None).await, 2, "another document lost points");
    let hits = store.search_dense(&old[0].dense, 10).await.unwrap();
    assert_eq!(hits.len(), 4);
    assert!(hits.iter().all(|h| h.payload.document_id != doc_id("a").as_str() || h.payload.generation == 2));
}

/// Deleting a document without a generation to keep removes all of it.
pub async fn delete_without_generation_removes_the_document(store: &dyn VectorStore) {
    let bm25 = Bm25::new();
    let mut points = chunks_of(&bm25, "a", 1, 3, 0);
    points.extend(chunks_of(&bm25, "a", 2, 2, 10));
    points.extend(chunks_of(&bm25, "b", 1, 2, 30));
    store.upsert(points).await.unwrap();

    store.delete_document(&doc_id("a"), None).await.unwrap();
    assert_eq!(count(store, "a", None).await, 0);
    assert!(store.chunks(Some(&doc_id("a"))).await.unwrap().is_empty());
    assert_eq!(count(store, "b", None).await, 2);
    store.delete_document(&doc_id("a"), None).await.unwrap();
}

/// Dense search returns the nearest first, scores are cosine similarities
/// (a scaled query changes nothing), and hits carry their payloads.
pub async fn search_dense_ranks_by_cosine(store: &dyn VectorStore) {
    let bm25 = Bm25::new();
    let points = chunks_of(&bm25, "a", 1, 8, 0);
    store.upsert(points.clone()).await.unwrap();
    let target = &points[3];
    let query: Vec<f32> = target.dense.iter().map(|x| x * 3.0).collect();

    let hits = store.search_dense(&query, 5).await.unwrap();
    assert_eq!(hits.len(), 5, "limit");
    assert_eq!(hits[0].id, target.id);
    assert_eq!(hits[0].payload, target.payload);
    assert!((hits[0].score - 1.0).abs() < EPSILON, "identical direction scores {}", hits[0].score);
    for pair in hits.windows(2) {
        assert!(pair[0].score >= pair[1].score, "hits out of order");
    }
    for hit in &hits {
        let stored = points.iter().find(|p| p.id == hit.id).expect("a stored point");
        let expected = cosine(&target.dense, &stored.dense);
        assert!((hit.score - expected).abs() < EPSILON, "score {} is not cosine {expected}", hit.score);
        assert_eq!(hit.payload, stored.payload);
    }
}

/// BM25 search finds the chunks containing a query term (stemmed), ranks
/// the better match first, and returns nothing when no chunk has a term.
pub async fn search_sparse_finds_the_term(store: &dyn VectorStore) {
    let bm25 = Bm25::new();
    let texts = [
        "Invoices are due within thirty days of receipt.",
        "The rabbit queue acknowledges every message it delivers.",
        "Quarterly revenue grew in the northern region.",
        "A message about revenue: invoices paid, revenue booked.",
    ];
    let points: Vec<_> =
        texts.iter().enumerate().map(|(i, t)| point(&bm25, "a", 1, i as u32, direction(i), t)).collect();
    store.upsert(points.clone()).await.unwrap();

    let hits = store.search_sparse(&bm25.query("invoice"), 10).await.unwrap();
    let ids: Vec<_> = hits.iter().map(|h| h.id).collect();
    assert_eq!(ids.len(), 2, "only chunks with the term match");
    assert!(ids.contains(&points[0].id) && ids.contains(&points[3].id));
    assert!(hits.iter().all(|h| h.score > 0.0));

    let hits = store.search_sparse(&bm25.query("rabbit acknowledged"), 10).await.unwrap();
    assert_eq!(hits[0].id, points[1].id);
    assert_eq!(hits[0].payload, points[1].payload);

    let hits = store.search_sparse(&bm25.query("revenue"), 10).await.unwrap();
    assert_eq!(hits.len(), 2);
    assert_eq!(hits[0].id, points[3].id, "twice the term outranks once in a similar length");

    assert!(store.search_sparse(&bm25.query("zebra"), 10).await.unwrap().is_empty());
    assert!(store.search_sparse(&SparseVec::default(), 10).await.unwrap().is_empty());
}

/// A filter narrows both retrievers inside the store: only chunks of the
/// kinds and documents named come back, as many as the limit asks for even
/// when they are far from the query, and the two fields narrow together.
pub async fn searches_are_narrowed_by_a_filter(store: &dyn VectorStore) {
    let bm25 = Bm25::new();
    let mut points = Vec::new();
    for (n, (name, kind)) in [("a", "prose"), ("b", "pdf"), ("c", "prose")].into_iter().enumerate() {
        for mut p in chunks_of(&bm25, name, 1, 6, n * 6) {
            p.payload.kind = kind.into();
            points.push(p);
        }
    }
    store.upsert(points.clone()).await.unwrap();
    let docs = |hits: &[crate::Scored]| {
        let mut d: Vec<String> = hits.iter().map(|h| h.payload.document.clone()).collect();
        d.dedup();
        d
    };
    let (a, b, c) =
        (points[0].payload.document.clone(), points[6].payload.document.clone(), points[12].payload.document.clone());
    // The query points at a's first chunk, not at any of b's.
    let query = points[0].dense.clone();
    let pdf = SearchFilter { kinds: vec!["pdf".into()], ..SearchFilter::default() };
    let hits = store.search_dense_in(&query, 4, &pdf).await.unwrap();
    assert_eq!((hits.len(), docs(&hits)), (4, vec![b.clone()]), "only the PDF's chunks, as many as asked");
    let a_and_c = SearchFilter { documents: vec![a.clone(), c.clone()], ..SearchFilter::default() };
    let hits = store.search_dense_in(&query, 20, &a_and_c).await.unwrap();
    assert_eq!(hits.len(), 12);
    assert!(hits.iter().all(|h| h.payload.document == a || h.payload.document == c));
    let both = SearchFilter { kinds: vec!["pdf".into()], documents: vec![a.clone()] };
    assert!(store.search_dense_in(&query, 5, &both).await.unwrap().is_empty(), "the fields narrow together");
    let any = SearchFilter { kinds: vec!["prose".into(), "pdf".into()], ..SearchFilter::default() };
    assert_eq!(store.search_dense_in(&query, 50, &any).await.unwrap().len(), 18, "any of the kinds");

    let term = bm25.query(&points[7].payload.content);
    let everywhere = store.search_sparse(&term, 50).await.unwrap();
    assert!(!everywhere.is_empty());
    let hits = store.search_sparse_in(&term, 50, &a_and_c).await.unwrap();
    assert!(hits.iter().all(|h| h.payload.document != b), "sparse search is narrowed too");
    let hits = store.search_sparse_in(&term, 50, &pdf).await.unwrap();
    assert!(!hits.is_empty(), "the PDF holds the terms");
    assert!(hits.iter().all(|h| h.payload.document == b));
}

/// Stored vectors come back unit length (cosine stores normalise), in the
/// stored direction; ids that are not stored are left out.
pub async fn dense_vectors_are_unit_and_skip_missing_ids(store: &dyn VectorStore) {
    let bm25 = Bm25::new();
    let mut points = chunks_of(&bm25, "a", 1, 3, 0);
    points[2].dense = points[2].dense.iter().map(|x| x * 2.5).collect();
    store.upsert(points.clone()).await.unwrap();

    let missing = fixture::point_id_of("a", 1, 99);
    let got = store.dense_vectors(&[points[2].id, missing, points[0].id]).await.unwrap();
    let mut ids: Vec<_> = got.iter().map(|(id, _)| *id).collect();
    ids.sort();
    let mut want = vec![points[0].id, points[2].id];
    want.sort();
    assert_eq!(ids, want);
    for (id, v) in &got {
        let stored = points.iter().find(|p| p.id == *id).unwrap();
        assert_eq!(v.len(), fixture::DIMS);
        let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        assert!((norm - 1.0).abs() < EPSILON, "norm {norm}");
        assert!((cosine(v, &stored.dense) - 1.0).abs() < EPSILON, "direction changed");
    }
    assert!(store.dense_vectors(&[]).await.unwrap().is_empty());
}

/// A document's chunks come back complete, exactly as stored, in chunk
/// order whatever the write order, and without other documents' chunks.
pub async fn chunks_of_a_document_in_chunk_order(store: &dyn VectorStore) {
    let bm25 = Bm25::new();
    let a = chunks_of(&bm25, "a", 1, 4, 0);
    let shuffled = vec![a[2].clone(), a[0].clone(), a[3].clone(), a[1].clone()];
    store.upsert(shuffled).await.unwrap();
    store.upsert(chunks_of(&bm25, "b", 1, 3, 10)).await.unwrap();

    let got = store.chunks(Some(&doc_id("a"))).await.unwrap();
    let want: Vec<ChunkPayload> = a.into_iter().map(|p| p.payload).collect();
    assert_eq!(got, want);
}

/// The whole index, past any page size an adapter scrolls with, ordered by
/// document then chunk index.
pub async fn chunks_of_the_whole_index(store: &dyn VectorStore) {
    let bm25 = Bm25::new();
    let mut expected = Vec::new();
    // Written out of document order; 700 points cross 512- and 256-point pages.
    for (n, name) in ["c", "a", "b"].into_iter().enumerate() {
        let points = chunks_of(&bm25, name, 1, 250 - 20 * n as u32, 300 * n);
        expected.extend(points.iter().map(|p| p.payload.clone()));
        store.upsert(points).await.unwrap();
    }
    expected.sort_by(|x, y| (&x.document, x.chunk_index).cmp(&(&y.document, y.chunk_index)));
    let got = store.chunks(None).await.unwrap();
    assert_eq!(got.len(), expected.len());
    assert_eq!(indexes(&got), indexes(&expected));
    assert!(got == expected, "payloads changed on the way through the store");
}

/// Optimising after bulk writes loses nothing and keeps search working.
pub async fn optimize_keeps_everything(store: &dyn VectorStore) {
    let bm25 = Bm25::new();
    let points = chunks_of(&bm25, "a", 1, 40, 0);
    store.upsert(points.clone()).await.unwrap();
    store.delete_document(&doc_id("a"), Some(2)).await.unwrap();
    store.upsert(chunks_of(&bm25, "a", 2, 30, 100)).await.unwrap();
    store.optimize().await.unwrap();
    assert_eq!(count(store, "a", None).await, 30);
    let target = direction(100 + 7);
    assert_eq!(store.search_dense(&target, 1).await.unwrap()[0].payload.chunk_index, 7);
    let hits = store.search_sparse(&bm25.query("chunk generation"), 50).await.unwrap();
    assert_eq!(hits.len(), 30);
}
