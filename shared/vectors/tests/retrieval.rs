//! Hybrid retrieval over a real `EdgeStore`: fusion brings in keyword
//! matches the dense list missed, every hit's distance is 1 - cosine to the
//! query (computed from the stored vector when the dense list lacks it), and
//! the threshold abstains on the best hit's distance.

use ragpipe_core::Abstention;
use ragpipe_vectors::conformance::fixture::{cosine, point, unit};
use ragpipe_vectors::retrieval::{self, Answer, Fusion, Mode, SearchOptions};
use ragpipe_vectors::{Bm25, CollectionSpec, EdgeStore, VectorStore};
use std::collections::HashMap;

/// More fillers than the 50 dense candidates a top-5 search asks for.
const FILLERS: u32 = 60;
const KEYWORD_CHUNK: u32 = FILLERS;

/// Fillers whose similarity to the query axis falls with their index, and a
/// keyword chunk pointing away from it (cosine -0.707): last in the dense
/// ranking, first in BM25 for "zebra".
fn vector_of(chunk: u32) -> Vec<f32> {
    if chunk == KEYWORD_CHUNK {
        unit(&[(0, -1.0), (200, 1.0)])
    } else {
        unit(&[(0, 1.0), (chunk as usize + 1, 0.05 * chunk as f32)])
    }
}

async fn corpus() -> (tempfile::TempDir, EdgeStore) {
    let dir = tempfile::tempdir().unwrap();
    let spec = CollectionSpec { model: "test-model".into(), dims: 384, pipeline_version: "1".into() };
    let store = EdgeStore::open(dir.path(), &spec).unwrap();
    let bm25 = Bm25::new();
    let points = (0..=FILLERS)
        .map(|i| {
            let text =
                if i == KEYWORD_CHUNK { "zebra migration patterns".into() } else { format!("ordinary filler {i}") };
            point(&bm25, "a", 1, i, vector_of(i), &text)
        })
        .collect();
    store.upsert(points).await.unwrap();
    (dir, store)
}

fn options(mode: Mode, threshold: Option<f32>) -> SearchOptions {
    SearchOptions { top_k: 5, mode, fusion: Fusion::Rrf { k: 60.0 }, abstention: threshold.map(Abstention::distance) }
}

async fn search(store: &EdgeStore, query: &[f32], text: &str, opts: SearchOptions) -> Answer {
    retrieval::search(store, &Bm25::new(), query, text, &opts).await.unwrap()
}

/// Every hit's distance is 1 - cosine between the query and its vector.
fn assert_distances(answer: &Answer, query: &[f32]) {
    let vectors: HashMap<u32, Vec<f32>> = (0..=FILLERS).map(|i| (i, vector_of(i))).collect();
    for hit in &answer.hits {
        let expected = 1.0 - cosine(query, &vectors[&hit.payload.chunk_index]);
        assert!(
            (hit.distance - expected).abs() < 1e-4,
            "chunk {}: {} != {expected}",
            hit.payload.chunk_index,
            hit.distance
        );
    }
}

fn chunk_order(answer: &Answer) -> Vec<u32> {
    answer.hits.iter().map(|h| h.payload.chunk_index).collect()
}

#[tokio::test]
async fn dense_mode_ranks_by_distance() {
    let (_dir, store) = corpus().await;
    let query = unit(&[(0, 1.0)]);
    let answer = search(&store, &query, "zebra", options(Mode::Dense, None)).await;
    assert!(!answer.abstained);
    assert_eq!(chunk_order(&answer), [0, 1, 2, 3, 4], "the keyword chunk is dense-only's last");
    assert_eq!(answer.hits.iter().map(|h| h.rank).collect::<Vec<_>>(), [1, 2, 3, 4, 5]);
    assert!(answer.hits[0].distance.abs() < 1e-4);
    for hit in &answer.hits {
        assert!((hit.score - (1.0 - hit.distance)).abs() < 1e-6, "dense score is the similarity");
    }
    assert_distances(&answer, &query);
}

#[tokio::test]
async fn hybrid_mode_fuses_in_the_keyword_match() {
    let (_dir, store) = corpus().await;
    assert_eq!(store.search_dense(&unit(&[(0, 1.0)]), 50).await.unwrap().len(), 50);
    let query = unit(&[(0, 1.0)]);
    let answer = search(&store, &query, "zebra", options(Mode::Hybrid, None)).await;
    // Chunk 0 and the keyword chunk both top one list (1/61 each; the dense
    // list is seen first); the next dense ranks follow.
    assert_eq!(chunk_order(&answer), [0, KEYWORD_CHUNK, 1, 2, 3]);
    assert!((answer.hits[1].score - 1.0 / 61.0).abs() < 1e-6);
    // Outside the 50 dense candidates: its distance comes from its stored
    // vector, not from a placeholder.
    assert!((answer.hits[1].distance - (1.0 + 0.5f32.sqrt())).abs() < 1e-4);
    assert_distances(&answer, &query);
}

#[tokio::test]
async fn threshold_abstains_on_the_best_distance() {
    let (_dir, store) = corpus().await;
    // Distance to chunk 0 is 1 - 1/sqrt(2) = 0.293 for this query.
    let halfway = unit(&[(0, 1.0), (383, 1.0)]);
    for mode in [Mode::Dense, Mode::Hybrid] {
        let near = search(&store, &halfway, "zebra", options(mode, Some(0.35))).await;
        assert!(!near.abstained, "{mode:?}");
        assert_eq!(near.hits[0].payload.chunk_index, 0);
        assert_distances(&near, &halfway);
        let far = search(&store, &halfway, "zebra", options(mode, Some(0.25))).await;
        assert!(far.abstained && far.hits.is_empty(), "{mode:?}: {far:?}");
    }
    // A keyword match does not rescue a query far from everything.
    let unrelated = unit(&[(383, 1.0)]);
    let answer = search(&store, &unrelated, "zebra", options(Mode::Hybrid, Some(0.5))).await;
    assert!(answer.abstained && answer.hits.is_empty());
    let answer = search(&store, &unrelated, "zebra", options(Mode::Hybrid, None)).await;
    assert!(!answer.abstained && answer.hits.len() == 5, "without a threshold there is always an answer");
}

/// Two one-chunk documents, `a` along axis 0 and `b` along axis 1 (and,
/// with `third`, a third along axis 2).
async fn two_documents(third: bool) -> (tempfile::TempDir, EdgeStore) {
    let dir = tempfile::tempdir().unwrap();
    let spec = CollectionSpec { model: "test-model".into(), dims: 384, pipeline_version: "1".into() };
    let store = EdgeStore::open(dir.path(), &spec).unwrap();
    let bm25 = Bm25::new();
    let mut points =
        vec![point(&bm25, "a", 1, 0, unit(&[(0, 1.0)]), "alpha"), point(&bm25, "b", 1, 0, unit(&[(1, 1.0)]), "beta")];
    if third {
        points.push(point(&bm25, "c", 1, 0, unit(&[(2, 1.0)]), "gamma"));
    }
    store.upsert(points).await.unwrap();
    (dir, store)
}

fn rule(threshold: f32, margin_weight: f32) -> SearchOptions {
    SearchOptions {
        top_k: 5,
        mode: Mode::Dense,
        fusion: Fusion::Rrf { k: 60.0 },
        abstention: Some(Abstention { threshold, margin_weight }),
    }
}

#[tokio::test]
async fn a_document_that_stands_out_lifts_a_near_miss_up_to_the_cap() {
    let (_dir, store) = two_documents(false).await;
    // cos to a = 1/sqrt(1 + 1.44) = 0.640: distance 0.360; b is orthogonal
    // (distance 1.0): the margin is 0.640.
    let query = unit(&[(0, 1.0), (383, 1.2)]);
    let plain = search(&store, &query, "", rule(0.3, 0.0)).await;
    assert!(plain.abstained, "0.36 is beyond 0.3 by distance alone");
    assert!((plain.nearest_distance.unwrap() - 0.360).abs() < 1e-3, "{plain:?}");
    assert!((plain.next_document_distance.unwrap() - 1.0).abs() < 1e-4, "{plain:?}");
    assert!((plain.margin() - 0.640).abs() < 1e-3);
    let lifted = search(&store, &query, "", rule(0.3, 1.5)).await;
    assert!(!lifted.abstained && lifted.hits[0].payload.document_id == plain_id("a"), "{lifted:?}");
    // The credit is at most 0.3 x threshold: 0.36 - 0.075 > 0.25.
    assert!(search(&store, &query, "", rule(0.25, 1.5)).await.abstained);

    // Halfway between the two documents: no margin, no credit.
    let between = unit(&[(0, 1.0), (1, 1.0), (383, 0.6)]);
    let answer = search(&store, &between, "", rule(0.3, 1.5)).await;
    assert!(answer.margin() < 1e-4, "{answer:?}");
    assert_eq!(answer.abstained, answer.nearest_distance.unwrap() > 0.3);
}

#[tokio::test]
async fn the_margin_is_measured_to_the_nearest_other_document() {
    let (_dir, store) = two_documents(true).await;
    // a at cos 0.8, c at cos 0.6 (distance 0.4), b orthogonal.
    let query = unit(&[(0, 0.8), (2, 0.6)]);
    let answer = search(&store, &query, "", rule(0.5, 1.5)).await;
    assert!((answer.next_document_distance.unwrap() - 0.4).abs() < 1e-4, "{answer:?}");
    assert!((answer.margin() - 0.2).abs() < 1e-4);
}

fn plain_id(name: &str) -> String {
    ragpipe_vectors::conformance::fixture::doc_id(name).to_string()
}

#[tokio::test]
async fn ties_rank_the_same_whatever_order_the_points_were_written_in() {
    let bm25 = Bm25::new();
    let spec = CollectionSpec { model: "test-model".into(), dims: 384, pipeline_version: "1".into() };
    let mut orders = Vec::new();
    for reversed in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let store = EdgeStore::open(dir.path(), &spec).unwrap();
        // Six chunks alike in every score: same words, same vector.
        let mut points: Vec<_> = ["a", "b", "c", "d", "e", "f"]
            .iter()
            .map(|n| point(&bm25, n, 1, 0, unit(&[(0, 1.0)]), "SKU-1042 in stock"))
            .collect();
        if reversed {
            points.reverse();
        }
        for p in points {
            store.upsert(vec![p]).await.unwrap();
        }
        let answer = search(&store, &unit(&[(0, 1.0)]), "SKU-1042", options(Mode::Hybrid, None)).await;
        orders.push(answer.hits.iter().map(|h| h.payload.document_id.clone()).collect::<Vec<_>>());
    }
    assert_eq!(orders[0].len(), 5);
    assert_eq!(orders[0], orders[1], "ties broken by point id, not by storage order");
}
