//! The `StateStore` conformance suite: every adapter must pass it unchanged.
//! Each check takes a fresh, empty store.

mod pages;

pub use pages::{
    documents_are_paged_and_filtered, failures_are_grouped_and_requeued_in_batches,
    pages_are_diffed_as_single_objects_are,
};

use crate::{
    BatchStats, Completion, Cursor, DocQuery, Extracted, IndexState, NewIndex, Observation, Observed, StateStore,
};
use ragpipe_core::{DocStatus, DocumentId, Kind, Stage};

pub(crate) fn observed(name: &str, etag: &str) -> Observed {
    let uri = format!("file:///corpus/{name}");
    Observed { id: DocumentId::from_uri(&uri), uri, key: name.into(), etag: etag.into(), size: 10 }
}

pub(crate) fn extracted(chunks: i64, batches: i64) -> Extracted {
    Extracted {
        kind: Kind::Markdown,
        title: "Doc".into(),
        content_hash: "abc".into(),
        chunks,
        batches,
        extractor_version: "1".into(),
        warning: None,
    }
}

pub(crate) fn completion(chunks: i64) -> Completion {
    Completion { chunks_stored: chunks, model: "m".into(), dims: 384, pipeline_version: "1".into() }
}

/// Drives one document from first sighting to indexed.
pub(crate) async fn index(store: &dyn StateStore, obj: &Observed, run: i64, generation: i64) {
    assert!(store.begin_extract(&obj.id, generation).await.unwrap());
    assert!(store.set_extracted(&obj.id, generation, &extracted(3, 2)).await.unwrap());
    let stats = BatchStats { chunks: 2, tokens: 100, header_tokens: 10, truncated: 0 };
    assert_eq!(store.record_batch(&obj.id, generation, 0, stats).await.unwrap(), 1);
    assert_eq!(store.record_batch(&obj.id, generation, 1, BatchStats { chunks: 1, ..stats }).await.unwrap(), 2);
    assert!(store.complete(&obj.id, generation, &completion(3)).await.unwrap());
    let _ = run;
}

/// New, unchanged, changed and resumed documents are told apart.
pub async fn observe_diffs_versions(store: &dyn StateStore) {
    let a = observed("a.md", "v1");
    let long = std::time::Duration::from_secs(60);
    store.begin_sync(1, "s3://b/p", "host-a:1", long).await.unwrap().expect("the lock is free");
    assert_eq!(store.observe(&a, 1).await.unwrap(), Observation::New { generation: 1 });
    store.finish_sync(1, Ok("{}")).await.unwrap();
    assert_eq!(store.observe(&a, 2).await.unwrap(), Observation::Pending { generation: 1 }, "never finished");
    index(store, &a, 2, 1).await;
    assert_eq!(store.observe(&a, 3).await.unwrap(), Observation::Unchanged);
    let a2 = observed("a.md", "v2");
    assert_eq!(store.observe(&a2, 4).await.unwrap(), Observation::Changed { generation: 2 });
    let doc = store.get(&a.id).await.unwrap().unwrap();
    assert_eq!((doc.status, doc.generation, doc.attempts, doc.etag.as_str()), (DocStatus::Queued, 2, 0, "v2"));
    assert_eq!(doc.chunks_stored, Some(3), "the old count stays until the new generation completes");
}

/// A document whose fetch gave up on transient errors (the source was
/// unreachable) is read again by the next sync, one by one or in a page; a
/// failure that is the document's own is not.
pub async fn failed_fetches_are_read_again(store: &dyn StateStore) {
    let long = std::time::Duration::from_secs(60);
    let [a, b, c, d] = ["a.md", "b.md", "c.md", "d.md"].map(|n| observed(n, "v1"));
    store.begin_sync(1, "s3://b/p", "host:1", long).await.unwrap().unwrap();
    let gave_up = format!("{} 5 attempts: reading a.md: connection refused", ragpipe_core::state::GAVE_UP);
    let failures = [
        (&a, Stage::Fetch, gave_up.clone()),
        (&b, Stage::Fetch, "file too large: 9 bytes exceeds the limit of 1 bytes".to_string()),
        (&c, Stage::Extract, "gave up after 5 attempts: extraction never finished".to_string()),
        (&d, Stage::Fetch, gave_up),
    ];
    for (obj, stage, reason) in &failures {
        assert_eq!(store.observe(obj, 1).await.unwrap(), Observation::New { generation: 1 });
        assert!(store.begin_extract(&obj.id, 1).await.unwrap());
        assert!(store.fail(&obj.id, 1, *stage, reason).await.unwrap());
    }
    store.finish_sync(1, Ok("{}")).await.unwrap();

    store.begin_sync(2, "s3://b/p", "host:1", long).await.unwrap().unwrap();
    assert_eq!(store.observe(&a, 2).await.unwrap(), Observation::Unread { generation: 2 });
    let doc = store.get(&a.id).await.unwrap().unwrap();
    assert_eq!((doc.status, doc.attempts, doc.failure_reason), (DocStatus::Queued, 0, None));
    assert_eq!(store.observe(&b, 2).await.unwrap(), Observation::Unchanged, "too large stays failed");
    assert_eq!(store.observe(&c, 2).await.unwrap(), Observation::Unchanged, "a poison file stays failed");
    let page = store.observe_many(&[d.clone(), b.clone(), c.clone()], 2).await.unwrap();
    assert_eq!(page, vec![Observation::Unread { generation: 2 }, Observation::Unchanged, Observation::Unchanged]);
    store.finish_sync(2, Ok("{}")).await.unwrap();
}

/// Documents a run did not see are deleted, once, and come back as a new generation.
pub async fn missing_documents_are_deleted(store: &dyn StateStore) {
    let (a, b) = (observed("a.md", "v1"), observed("b.md", "v1"));
    store.observe(&a, 10).await.unwrap();
    store.observe(&b, 10).await.unwrap();
    assert!(store.mark_missing(10).await.unwrap().is_empty());
    store.observe(&a, 20).await.unwrap();
    assert_eq!(store.mark_missing(20).await.unwrap(), vec![b.id.clone()]);
    assert!(store.mark_missing(20).await.unwrap().is_empty(), "deleted once");
    assert_eq!(store.get(&b.id).await.unwrap().unwrap().status, DocStatus::Deleted);
    assert_eq!(store.observe(&b, 30).await.unwrap(), Observation::Changed { generation: 2 });
}

/// Transitions apply only to the generation they name and only forward.
pub async fn transitions_are_conditional(store: &dyn StateStore) {
    let a = observed("a.md", "v1");
    store.observe(&a, 1).await.unwrap();
    assert!(!store.begin_extract(&a.id, 2).await.unwrap(), "no such generation");
    assert!(store.begin_extract(&a.id, 1).await.unwrap());
    assert!(store.begin_extract(&a.id, 1).await.unwrap(), "a redelivered job may claim again");
    assert_eq!(store.get(&a.id).await.unwrap().unwrap().attempts, 2);
    assert!(!store.complete(&a.id, 1, &completion(1)).await.unwrap(), "not embedding yet");
    assert!(store.set_extracted(&a.id, 1, &extracted(1, 1)).await.unwrap());
    store.record_batch(&a.id, 1, 0, BatchStats::default()).await.unwrap();
    assert!(store.complete(&a.id, 1, &completion(1)).await.unwrap());
    assert!(!store.complete(&a.id, 1, &completion(1)).await.unwrap(), "completes once");
    assert!(!store.fail(&a.id, 1, Stage::Embed, "late").await.unwrap(), "indexed is final for its generation");
    assert!(!store.begin_extract(&a.id, 1).await.unwrap());
}

/// A batch recorded twice counts once; totals add up on completion.
pub async fn batches_are_idempotent(store: &dyn StateStore) {
    let a = observed("a.md", "v1");
    store.observe(&a, 1).await.unwrap();
    store.begin_extract(&a.id, 1).await.unwrap();
    store.set_extracted(&a.id, 1, &extracted(5, 2)).await.unwrap();
    let stats = BatchStats { chunks: 3, tokens: 300, header_tokens: 30, truncated: 1 };
    assert_eq!(store.record_batch(&a.id, 1, 0, stats).await.unwrap(), 1);
    assert_eq!(store.record_batch(&a.id, 1, 0, stats).await.unwrap(), 1, "redelivery recorded once");
    let last = BatchStats { chunks: 2, tokens: 200, header_tokens: 20, truncated: 0 };
    assert_eq!(store.record_batch(&a.id, 1, 1, last).await.unwrap(), 2);
    assert!(store.complete(&a.id, 1, &completion(5)).await.unwrap());
    let doc = store.get(&a.id).await.unwrap().unwrap();
    assert_eq!((doc.chunks_expected, doc.batches_expected, doc.chunks_stored), (Some(5), Some(2), Some(5)));
    assert_eq!((doc.truncated, doc.model.as_deref(), doc.dims), (1, Some("m"), Some(384)));
    assert_eq!(doc.kind, Some(Kind::Markdown));
    let counts = store.counts().await.unwrap();
    let indexed = counts.get(DocStatus::Indexed);
    assert_eq!((indexed.documents, indexed.chunks, indexed.tokens, indexed.header_tokens), (1, 5, 500, 50));
}

/// Failures keep their stage and reason and are listed by status.
pub async fn failures_are_recorded(store: &dyn StateStore) {
    let (a, b) = (observed("a.md", "v1"), observed("b.bin", "v1"));
    store.observe(&a, 1).await.unwrap();
    store.observe(&b, 1).await.unwrap();
    store.begin_extract(&b.id, 1).await.unwrap();
    assert!(store.fail(&b.id, 1, Stage::Extract, "unsupported type: .bin").await.unwrap());
    let failed_only = DocQuery { status: Some(DocStatus::Failed), ..DocQuery::default() };
    let failed = store.page(&failed_only, &Cursor::Start, 10).await.unwrap().documents;
    assert_eq!(failed.len(), 1);
    assert_eq!(failed[0].failure_reason.as_deref(), Some("unsupported type: .bin"));
    assert_eq!(failed[0].failure_stage, Some(Stage::Extract));
    assert_eq!(store.page(&DocQuery::default(), &Cursor::Start, 10).await.unwrap().documents.len(), 2);
    assert_eq!(store.observe(&b, 2).await.unwrap(), Observation::Unchanged, "a failed file is not retried by itself");
    assert!(store.get(&DocumentId::from_raw("nope")).await.unwrap().is_none());
}

/// An extraction's warning is kept with the indexed document, selected by
/// `warned`, and replaced by the next extraction's (none clears it).
pub async fn warnings_are_kept_until_the_next_extraction(store: &dyn StateStore) {
    let (a, b) = (observed("scan.pdf", "v1"), observed("plain.md", "v1"));
    let warning = "ocr: low confidence on 1 of 2 pages: 2 (0.41)";
    for (doc, warning) in [(&a, Some(warning)), (&b, None)] {
        store.observe(doc, 1).await.unwrap();
        assert!(store.begin_extract(&doc.id, 1).await.unwrap());
        let ex = Extracted { warning: warning.map(String::from), ..extracted(1, 1) };
        assert!(store.set_extracted(&doc.id, 1, &ex).await.unwrap());
    }
    assert_eq!(store.get(&a.id).await.unwrap().unwrap().warning.as_deref(), Some(warning));
    assert_eq!(store.get(&b.id).await.unwrap().unwrap().warning, None);
    let warned = DocQuery { warned: true, ..DocQuery::default() };
    let page = store.page(&warned, &Cursor::Start, 10).await.unwrap().documents;
    assert_eq!(page.iter().map(|d| d.uri.as_str()).collect::<Vec<_>>(), [a.uri.as_str()]);
    assert_eq!(store.count(&warned).await.unwrap(), 1);
    // Extracted again (say with a better model): no warning any more.
    let changed = store.observe(&Observed { etag: "v2".into(), ..a.clone() }, 2).await.unwrap();
    let Observation::Changed { generation } = changed else { panic!("{changed:?}") };
    assert!(store.begin_extract(&a.id, generation).await.unwrap());
    assert!(store.set_extracted(&a.id, generation, &extracted(1, 1)).await.unwrap());
    assert_eq!(store.get(&a.id).await.unwrap().unwrap().warning, None);
    assert_eq!(store.count(&warned).await.unwrap(), 0);
}

/// A failed document is retried as a new generation with attempts reset,
/// exactly once; documents that are not failed are left alone.
pub async fn failed_documents_can_be_retried(store: &dyn StateStore) {
    let (a, b) = (observed("a.md", "v1"), observed("b.bin", "v1"));
    store.observe(&a, 1).await.unwrap();
    store.observe(&b, 1).await.unwrap();
    store.begin_extract(&b.id, 1).await.unwrap();
    store.fail(&b.id, 1, Stage::Extract, "unsupported type: .bin").await.unwrap();
    let retried = store.retry(&b.id).await.unwrap().expect("failed documents can be retried");
    assert_eq!((retried.uri.as_str(), retried.key.as_str(), retried.generation), (b.uri.as_str(), "b.bin", 2));
    let doc = store.get(&b.id).await.unwrap().unwrap();
    assert_eq!((doc.status, doc.generation, doc.attempts, doc.failure_reason), (DocStatus::Queued, 2, 0, None));
    assert_eq!(store.retry(&b.id).await.unwrap(), None, "queued once");
    assert_eq!(store.retry(&a.id).await.unwrap(), None, "a queued document is not failed");
    assert!(!store.begin_extract(&b.id, 1).await.unwrap(), "the old generation's job is stale");
    assert!(store.begin_extract(&b.id, 2).await.unwrap());
}

/// Sync runs never overlap: a second run is refused (and told who holds
/// the lock) until the first finishes, or until its lease runs out because
/// its process died, after which the dead run is reported abandoned.
pub async fn sync_runs_never_overlap(store: &dyn StateStore) {
    use crate::SyncRunState;
    use std::time::Duration;
    let long = Duration::from_secs(60);
    store.begin_sync(1, "s3://b/p", "host-a:1", long).await.unwrap().expect("the lock is free");
    let held = store.begin_sync(2, "s3://b/p", "host-b:2", long).await.unwrap().expect_err("run 1 holds the lock");
    assert_eq!((held.run, held.holder.as_str(), held.state), (1, "host-a:1", SyncRunState::Running));
    assert!(store.renew_sync(1, long).await.unwrap());
    store.finish_sync(1, Ok(r#"{"new":3}"#)).await.unwrap();
    // Run 3 takes the lock with a short lease and dies without finishing.
    store.begin_sync(3, "s3://b/p", "host-b:2", Duration::from_millis(30)).await.unwrap().unwrap();
    tokio::time::sleep(Duration::from_millis(80)).await;
    store.begin_sync(4, "s3://b/p", "host-c:3", long).await.unwrap().expect("an expired lock is taken over");
    assert!(!store.renew_sync(3, long).await.unwrap(), "the dead run lost its lock");
    store.finish_sync(4, Err("listing failed: timeout")).await.unwrap();
    let runs = store.sync_runs(10).await.unwrap();
    let states: Vec<_> = runs.iter().map(|r| (r.run, r.state)).collect();
    assert_eq!(
        states,
        [(4, SyncRunState::Failed), (3, SyncRunState::Abandoned), (1, SyncRunState::Finished)],
        "run 2 was refused, so never recorded"
    );
    assert_eq!(runs[2].report.as_deref(), Some(r#"{"new":3}"#));
    assert_eq!(runs[0].error.as_deref(), Some("listing failed: timeout"));
    store.begin_sync(5, "s3://b/p", "host-a:1", long).await.unwrap().expect("a finished run released the lock");
}

/// A document queued by a run that died or failed (its extract job may
/// never have been published) is published again by the next run; one
/// queued by a clean run, or already claimed by a worker, is not.
pub async fn unpublished_documents_are_published_again(store: &dyn StateStore) {
    use std::time::Duration;
    let (a, b, c) = (observed("a.md", "v1"), observed("b.md", "v1"), observed("c.md", "v1"));
    // Run 1 queues a and dies; its lock runs out.
    store.begin_sync(1, "s3://b/p", "host-a:1", Duration::from_millis(30)).await.unwrap().unwrap();
    assert_eq!(store.observe(&a, 1).await.unwrap(), Observation::New { generation: 1 });
    tokio::time::sleep(Duration::from_millis(80)).await;
    // Run 2 sees it unpublished, queues b and fails on the broker.
    store.begin_sync(2, "s3://b/p", "host-b:2", Duration::from_secs(60)).await.unwrap().unwrap();
    assert_eq!(store.observe(&a, 2).await.unwrap(), Observation::Unpublished { generation: 1 });
    assert_eq!(store.observe(&a, 2).await.unwrap(), Observation::Pending { generation: 1 }, "run 2 publishes it");
    assert_eq!(store.observe(&b, 2).await.unwrap(), Observation::New { generation: 1 });
    assert_eq!(store.observe(&b, 2).await.unwrap(), Observation::Pending { generation: 1 }, "its own run publishes");
    store.finish_sync(2, Err("publish: connection reset")).await.unwrap();
    // Run 3 finishes cleanly: what it queued is published; a and b are not
    // yet claimed, b was queued by a failed run.
    store.begin_sync(3, "s3://b/p", "host-b:2", Duration::from_secs(60)).await.unwrap().unwrap();
    assert_eq!(store.observe(&b, 3).await.unwrap(), Observation::Unpublished { generation: 1 });
    assert_eq!(store.observe(&c, 3).await.unwrap(), Observation::New { generation: 1 });
    assert!(store.begin_extract(&a.id, 1).await.unwrap());
    store.finish_sync(3, Ok("{}")).await.unwrap();
    store.begin_sync(4, "s3://b/p", "host-b:2", Duration::from_secs(60)).await.unwrap().unwrap();
    assert_eq!(store.observe(&a, 4).await.unwrap(), Observation::Pending { generation: 1 }, "claimed: not again");
    assert_eq!(store.observe(&b, 4).await.unwrap(), Observation::Pending { generation: 1 }, "run 3 published it");
    assert_eq!(store.observe(&c, 4).await.unwrap(), Observation::Pending { generation: 1 }, "a clean run published");
}

/// Runs every check, each on a fresh store from `fresh`.
#[macro_export]
macro_rules! state_store_conformance {
    ($fresh:expr) => {
        #[tokio::test]
        async fn failed_fetches_are_read_again() {
            let s = $fresh.await;
            $crate::conformance::failed_fetches_are_read_again(&s).await;
        }
        #[tokio::test]
        async fn unpublished_documents_are_published_again() {
            let s = $fresh.await;
            $crate::conformance::unpublished_documents_are_published_again(&s).await;
        }
        #[tokio::test]
        async fn warnings_are_kept_until_the_next_extraction() {
            let s = $fresh.await;
            $crate::conformance::warnings_are_kept_until_the_next_extraction(&s).await;
        }
        #[tokio::test]
        async fn sync_runs_never_overlap() {
            let s = $fresh.await;
            $crate::conformance::sync_runs_never_overlap(&s).await;
        }
        #[tokio::test]
        async fn documents_are_paged_and_filtered() {
            let s = $fresh.await;
            $crate::conformance::documents_are_paged_and_filtered(&s).await;
        }
        #[tokio::test]
        async fn failures_are_grouped_and_requeued_in_batches() {
            let s = $fresh.await;
            $crate::conformance::failures_are_grouped_and_requeued_in_batches(&s).await;
        }
        #[tokio::test]
        async fn pages_are_diffed_as_single_objects_are() {
            let s = $fresh.await;
            $crate::conformance::pages_are_diffed_as_single_objects_are(&s).await;
        }
        #[tokio::test]
        async fn failed_documents_can_be_retried() {
            let s = $fresh.await;
            $crate::conformance::failed_documents_can_be_retried(&s).await;
        }
        #[tokio::test]
        async fn observe_diffs_versions() {
            let s = $fresh.await;
            $crate::conformance::observe_diffs_versions(&s).await;
        }
        #[tokio::test]
        async fn missing_documents_are_deleted() {
            let s = $fresh.await;
            $crate::conformance::missing_documents_are_deleted(&s).await;
        }
        #[tokio::test]
        async fn transitions_are_conditional() {
            let s = $fresh.await;
            $crate::conformance::transitions_are_conditional(&s).await;
        }
        #[tokio::test]
        async fn batches_are_idempotent() {
            let s = $fresh.await;
            $crate::conformance::batches_are_idempotent(&s).await;
        }
        #[tokio::test]
        async fn reindex_builds_then_swaps() {
            let s = $fresh.await;
            $crate::conformance::reindex_builds_then_swaps(&s).await;
        }
        #[tokio::test]
        async fn the_first_model_seals_an_index() {
            let s = $fresh.await;
            $crate::conformance::the_first_model_seals_an_index(&s).await;
        }
        #[tokio::test]
        async fn failures_are_recorded() {
            let s = $fresh.await;
            $crate::conformance::failures_are_recorded(&s).await;
        }
    };
}

/// A claim for extraction holds a lease: while it runs, a sync sees the
/// document as pending; once it ran out (the worker died and its job did not
/// come back) the sync sees it stalled and enqueues it again. A finished or
/// re-extracted document is never stalled. Needs a store whose lease is at
/// most 50 ms (adapters test it with a short lease; not in the macro).
pub async fn expired_extraction_leases_are_stalled(store: &dyn StateStore) {
    let a = observed("a.md", "v1");
    store.observe(&a, 1).await.unwrap();
    assert!(store.begin_extract(&a.id, 1).await.unwrap());
    tokio::time::sleep(std::time::Duration::from_millis(120)).await;
    assert_eq!(store.observe(&a, 2).await.unwrap(), Observation::Stalled { generation: 1 });
    // Claimed again by the re-enqueued job: a fresh lease, pending again.
    assert!(store.begin_extract(&a.id, 1).await.unwrap());
    assert_eq!(store.observe(&a, 3).await.unwrap(), Observation::Pending { generation: 1 });
    // Extracted and waiting for batches: no extraction lease applies.
    assert!(store.set_extracted(&a.id, 1, &extracted(3, 2)).await.unwrap());
    tokio::time::sleep(std::time::Duration::from_millis(120)).await;
    assert_eq!(store.observe(&a, 4).await.unwrap(), Observation::Pending { generation: 1 });
}

fn new_index(name: &str, pipeline: &str) -> NewIndex {
    NewIndex { name: name.into(), model: "m".into(), dims: 384, pipeline_version: pipeline.into(), keep_old: false }
}

/// A reindex queues every live document as a new generation in the same
/// transaction that records the build; the swap waits until none is
/// pending and then retires the old index; one build at a time.
pub async fn reindex_builds_then_swaps(store: &dyn StateStore) {
    assert!(store.adopt_index(&new_index("old", "1")).await.unwrap());
    assert!(!store.adopt_index(&new_index("other", "1")).await.unwrap(), "one live index");
    let (a, b, c) = (observed("a.md", "v1"), observed("b.md", "v1"), observed("c.md", "v1"));
    for o in [&a, &b, &c] {
        store.observe(o, 1).await.unwrap();
    }
    index(store, &a, 1, 1).await;
    assert!(store.begin_extract(&b.id, 1).await.unwrap());
    assert!(store.fail(&b.id, 1, Stage::Extract, "broken").await.unwrap());
    store.observe(&a, 2).await.unwrap();
    store.observe(&b, 2).await.unwrap();
    assert_eq!(store.mark_missing(2).await.unwrap(), vec![c.id.clone()]);

    assert!(store.begin_build(&new_index("new", "2")).await.unwrap());
    assert!(!store.begin_build(&new_index("newer", "3")).await.unwrap(), "one build at a time");
    let indexes = store.indexes().await.unwrap();
    let states: Vec<_> = indexes.iter().map(|i| (i.name.as_str(), i.state, i.documents)).collect();
    assert_eq!(states, [("old", IndexState::Live, 0), ("new", IndexState::Building, 2)]);
    for id in [&a.id, &b.id] {
        let d = store.get(id).await.unwrap().unwrap();
        assert_eq!((d.status, d.generation, d.attempts, d.failure_reason), (DocStatus::Queued, 2, 0, None));
    }
    assert_eq!(store.get(&c.id).await.unwrap().unwrap().status, DocStatus::Deleted, "removed stay removed");
    let queued: Vec<_> = store.queued().await.unwrap().into_iter().map(|r| (r.id, r.generation)).collect();
    assert_eq!(queued, [(a.id.clone(), 2), (b.id.clone(), 2)]);
    assert_eq!(store.pending().await.unwrap(), 2);
    assert!(!store.swap_index("new").await.unwrap(), "documents still pending");

    assert!(!store.complete(&a.id, 1, &completion(3)).await.unwrap(), "the old generation's late batch");
    index(store, &a, 2, 2).await;
    assert!(store.begin_extract(&b.id, 2).await.unwrap());
    assert!(store.fail(&b.id, 2, Stage::Extract, "still broken").await.unwrap());
    store.build_published("new").await.unwrap();
    assert_eq!(store.pending().await.unwrap(), 0);
    assert!(store.swap_index("new").await.unwrap());
    assert!(!store.swap_index("new").await.unwrap(), "swapped once");
    let states: Vec<_> = store.indexes().await.unwrap().into_iter().map(|i| (i.name, i.state, i.published)).collect();
    assert_eq!(states, [("old".into(), IndexState::Retired, false), ("new".into(), IndexState::Live, true)]);

    store.forget_index("new").await.unwrap();
    store.forget_index("old").await.unwrap();
    let names: Vec<_> = store.indexes().await.unwrap().into_iter().map(|i| i.name).collect();
    assert_eq!(names, ["new"], "the live index is never forgotten");

    // --stale-only reprocesses indexed documents in place, once.
    let again = store.requeue(&a.id, DocStatus::Indexed).await.unwrap().expect("indexed");
    assert_eq!(again.generation, 3);
    assert!(store.requeue(&a.id, DocStatus::Indexed).await.unwrap().is_none());
}

/// The first seal recorded on an index stays: a second model cannot
/// overwrite it (it reads the first back and is refused by the caller).
pub async fn the_first_model_seals_an_index(store: &dyn StateStore) {
    assert!(store.adopt_index(&new_index("live", "1")).await.unwrap());
    assert_eq!(store.indexes().await.unwrap()[0].seal, None, "no model used it yet");
    assert_eq!(store.seal_index("live", r#"{"a":1}"#).await.unwrap().as_deref(), Some(r#"{"a":1}"#));
    assert_eq!(store.seal_index("live", r#"{"b":2}"#).await.unwrap().as_deref(), Some(r#"{"a":1}"#), "kept");
    assert_eq!(store.indexes().await.unwrap()[0].seal.as_deref(), Some(r#"{"a":1}"#));
    assert_eq!(store.seal_index("gone", "{}").await.unwrap(), None, "no such index");
}
