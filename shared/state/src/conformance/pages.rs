//! Work by the page: keyset pages of documents both ways, every filter,
//! counts, failure groups, batched requeues, and a sync's diff of a listing
//! page at once.

use super::{index, observed};
use crate::{Cursor, DocQuery, KindMatch, OBSERVE_BATCH, REQUEUE_BATCH, Seal, StateStore};
use ragpipe_core::{DocStatus, Kind, Stage};

/// Every URI a query selects, read page by page forwards, then backwards
/// from the last one, in pages of `limit`.
async fn walk(store: &dyn StateStore, q: &DocQuery, limit: usize) -> (Vec<String>, Vec<String>) {
    let (mut forwards, mut cursor) = (Vec::new(), Cursor::Start);
    loop {
        let page = store.page(q, &cursor, limit).await.unwrap();
        assert!(page.documents.len() <= limit);
        forwards.extend(page.documents.iter().map(|d| d.uri.clone()));
        match page.documents.last() {
            Some(last) if page.more => cursor = Cursor::After(last.uri.clone()),
            _ => break,
        }
    }
    let Some(last) = forwards.last() else { return (forwards, Vec::new()) };
    let (mut backwards, mut cursor) = (vec![last.clone()], Cursor::Before(last.clone()));
    loop {
        let page = store.page(q, &cursor, limit).await.unwrap();
        backwards.splice(0..0, page.documents.iter().map(|d| d.uri.clone()));
        match page.documents.first() {
            Some(first) if page.more => cursor = Cursor::Before(first.uri.clone()),
            _ => break,
        }
    }
    (forwards, backwards)
}

/// 23 documents: 0–9 indexed (3 of them under another model), 10–19
/// failed over two reasons, 20–22 queued. The names sort as numbered.
async fn corpus(store: &dyn StateStore) -> Vec<crate::Observed> {
    let docs: Vec<_> =
        (0..23).map(|i| observed(&format!("d{i:02}.{}", if i % 2 == 0 { "md" } else { "pdf" }), "v1")).collect();
    for (i, d) in docs.iter().enumerate() {
        store.observe(d, 1).await.unwrap();
        match i {
            0..10 => index(store, d, 1, 1).await,
            10..20 => {
                store.begin_extract(&d.id, 1).await.unwrap();
                let reason = if i < 16 { "encrypted PDF: 100%_sure" } else { "no text layer (OCR not configured)" };
                store.fail(&d.id, 1, Stage::Extract, reason).await.unwrap();
            }
            _ => {}
        }
    }
    docs
}

fn uris(docs: &[crate::Observed], range: std::ops::Range<usize>) -> Vec<String> {
    docs[range].iter().map(|d| d.uri.clone()).collect()
}

/// Pages cover a selection exactly once in either direction, whatever the
/// page size, and every filter narrows it as the admin tools promise.
pub async fn documents_are_paged_and_filtered(store: &dyn StateStore) {
    let docs = corpus(store).await;
    let all = uris(&docs, 0..23);
    for limit in [1, 5, 10, 23, 50] {
        assert_eq!(walk(store, &DocQuery::default(), limit).await, (all.clone(), all.clone()), "limit {limit}");
    }
    let page = store.page(&DocQuery::default(), &Cursor::After(docs[4].uri.clone()), 5).await.unwrap();
    assert_eq!(
        (page.documents.iter().map(|d| d.uri.clone()).collect::<Vec<_>>(), page.more),
        (uris(&docs, 5..10), true)
    );
    let page = store.page(&DocQuery::default(), &Cursor::Before(docs[4].uri.clone()), 5).await.unwrap();
    assert_eq!(
        (page.documents.iter().map(|d| d.uri.clone()).collect::<Vec<_>>(), page.more),
        (uris(&docs, 0..4), false)
    );

    let failed = DocQuery { status: Some(DocStatus::Failed), ..DocQuery::default() };
    assert_eq!(walk(store, &failed, 3).await.0, uris(&docs, 10..20));
    assert_eq!(store.count(&failed).await.unwrap(), 10);
    let reason = |r: &str| DocQuery { reason: Some(r.into()), ..DocQuery::default() };
    assert_eq!(store.count(&reason("ENCRYPTED")).await.unwrap(), 6, "case-insensitive");
    assert_eq!(store.count(&reason("100%_sure")).await.unwrap(), 6);
    assert_eq!(store.count(&reason("%")).await.unwrap(), 6, "a % is a percent sign, not a wildcard");
    assert_eq!(store.count(&reason("_")).await.unwrap(), 6, "an _ is an underscore");
    assert_eq!(store.count(&reason("(OCR not")).await.unwrap(), 4);
    assert_eq!(store.count(&reason("' OR '1'='1")).await.unwrap(), 0);

    // Failed documents were never detected: their kind is the name's.
    let pdf = KindMatch { kind: Kind::Pdf, extensions: vec!["pdf".into()] };
    let pdfs = DocQuery { kind: Some(pdf), ..DocQuery::default() };
    let expected: Vec<String> = (10..23).filter(|i| i % 2 == 1).map(|i| docs[i].uri.clone()).collect();
    assert_eq!(walk(store, &pdfs, 4).await.0, expected, "undetected documents by their extension");
    let md = KindMatch { kind: Kind::Markdown, extensions: vec![] };
    let detected = DocQuery { kind: Some(md), ..DocQuery::default() };
    assert_eq!(walk(store, &detected, 4).await.0, uris(&docs, 0..10), "every indexed one was detected as markdown");

    // Indexed under model "m", pipeline "1", extractor "1".
    let seal = |model: &str| Seal { model: model.into(), pipeline_version: "1".into(), extractor_version: "1".into() };
    let stale = |model: &str| DocQuery { stale_against: Some(seal(model)), ..DocQuery::default() };
    assert_eq!(store.count(&stale("m")).await.unwrap(), 0);
    assert_eq!(walk(store, &stale("other"), 4).await.0, uris(&docs, 0..10));
    let newer = Seal { extractor_version: "2".into(), ..seal("m") };
    assert_eq!(store.count(&DocQuery { stale_against: Some(newer), ..DocQuery::default() }).await.unwrap(), 10);
    // With speech recognition on, documents that were not transcribed keep the plain version and stay current.
    let with_asr = Seal { extractor_version: "1+whisper-base/fp32".into(), ..seal("m") };
    assert_eq!(store.count(&DocQuery { stale_against: Some(with_asr), ..DocQuery::default() }).await.unwrap(), 0);
    let newer_asr = Seal { extractor_version: "2+whisper-base/fp32".into(), ..seal("m") };
    assert_eq!(store.count(&DocQuery { stale_against: Some(newer_asr), ..DocQuery::default() }).await.unwrap(), 10);
    let both = DocQuery { status: Some(DocStatus::Failed), ..stale("other") };
    assert_eq!(store.count(&both).await.unwrap(), 0, "filters narrow together");
}

/// Failure groups are counted by the store, largest first; a batched
/// requeue moves exactly the documents in the status named, once.
pub async fn failures_are_grouped_and_requeued_in_batches(store: &dyn StateStore) {
    let docs = corpus(store).await;
    let groups = store.failure_groups(&DocQuery::default(), 10).await.unwrap();
    let summary: Vec<_> = groups.iter().map(|g| (g.reason.as_str(), g.stage, g.count)).collect();
    assert_eq!(
        summary,
        vec![
            ("encrypted PDF: 100%_sure", Some(Stage::Extract), 6),
            ("no text layer (OCR not configured)", Some(Stage::Extract), 4)
        ]
    );
    assert_eq!(store.failure_groups(&DocQuery::default(), 1).await.unwrap().len(), 1);
    let ocr = DocQuery { reason: Some("ocr".into()), ..DocQuery::default() };
    assert_eq!(store.failure_groups(&ocr, 10).await.unwrap().len(), 1, "groups of the selection only");
    let queued = DocQuery { status: Some(DocStatus::Queued), ..DocQuery::default() };
    assert!(store.failure_groups(&queued, 10).await.unwrap().is_empty(), "no failure is queued");

    let ids: Vec<_> = docs.iter().map(|d| d.id.clone()).collect();
    let requeued = store.requeue_many(&ids, DocStatus::Failed).await.unwrap();
    assert_eq!(requeued.iter().map(|r| r.uri.clone()).collect::<Vec<_>>(), uris(&docs, 10..20));
    assert!(requeued.iter().all(|r| r.generation == 2));
    assert!(store.requeue_many(&ids, DocStatus::Failed).await.unwrap().is_empty(), "once");
    assert_eq!(store.counts().await.unwrap().documents(DocStatus::Queued), 13);

    // More documents than one statement names.
    let many: Vec<_> = (0..REQUEUE_BATCH + 7).map(|i| observed(&format!("m{i:04}.txt"), "v1")).collect();
    for d in &many {
        store.observe(d, 2).await.unwrap();
        store.begin_extract(&d.id, 1).await.unwrap();
        store.fail(&d.id, 1, Stage::Fetch, "gone").await.unwrap();
    }
    let ids: Vec<_> = many.iter().map(|d| d.id.clone()).collect();
    assert_eq!(store.requeue_many(&ids, DocStatus::Failed).await.unwrap().len(), REQUEUE_BATCH + 7);
    assert_eq!(store.counts().await.unwrap().documents(DocStatus::Failed), 0);
}

/// A listing page diffed at once decides what one object at a time would:
/// new, unchanged, changed, pending, failed, deleted and back, unpublished,
/// and pages longer than one statement names.
pub async fn pages_are_diffed_as_single_objects_are(store: &dyn StateStore) {
    use crate::Observation::{Changed, New, Pending, Unchanged, Unpublished};
    let long = std::time::Duration::from_secs(60);
    let v1: Vec<_> = ["a", "b", "c", "d", "e"].iter().map(|n| observed(&format!("{n}.md"), "v1")).collect();
    store.begin_sync(1, "s3://b/p", "host:1", long).await.unwrap().unwrap();
    assert_eq!(store.observe_many(&v1, 1).await.unwrap(), vec![New { generation: 1 }; 5]);
    store.finish_sync(1, Ok("{}")).await.unwrap();
    index(store, &v1[0], 1, 1).await;
    index(store, &v1[1], 1, 1).await;
    store.begin_extract(&v1[2].id, 1).await.unwrap();
    store.fail(&v1[2].id, 1, Stage::Extract, "broken").await.unwrap();

    let f = observed("f.md", "v1");
    let page = [v1[0].clone(), observed("b.md", "v2"), v1[2].clone(), v1[3].clone(), f.clone()];
    store.begin_sync(2, "s3://b/p", "host:1", long).await.unwrap().unwrap();
    let seen = store.observe_many(&page, 2).await.unwrap();
    assert_eq!(
        seen,
        vec![Unchanged, Changed { generation: 2 }, Unchanged, Pending { generation: 1 }, New { generation: 1 }]
    );
    assert_eq!(store.mark_missing(2).await.unwrap(), vec![v1[4].id.clone()], "every object of the page was seen");
    store.finish_sync(2, Ok("{}")).await.unwrap();
    assert_eq!(store.get(&v1[1].id).await.unwrap().unwrap().etag, "v2");

    // Deleted, then listed again; queued by a run that never finished.
    let back = [v1[4].clone(), observed("g.md", "v1")];
    assert_eq!(store.observe_many(&back, 3).await.unwrap(), vec![Changed { generation: 2 }, New { generation: 1 }]);
    let again = store.observe_many(&back, 4).await.unwrap();
    assert_eq!(again, vec![Unpublished { generation: 2 }, Unpublished { generation: 1 }], "run 3 never finished");
    assert_eq!(store.observe_many(&back, 4).await.unwrap(), vec![Pending { generation: 2 }, Pending { generation: 1 }]);

    // More objects than one statement names, listed twice.
    let many: Vec<_> = (0..OBSERVE_BATCH * 2 + 3).map(|i| observed(&format!("m{i:05}.txt"), "v1")).collect();
    let first = store.observe_many(&many, 5).await.unwrap();
    assert!(first.len() == many.len() && first.iter().all(|o| *o == New { generation: 1 }));
    let second = store.observe_many(&many, 5).await.unwrap();
    assert!(second.iter().all(|o| *o == Pending { generation: 1 }), "same run: its own jobs, not unpublished");
    assert_eq!(store.counts().await.unwrap().documents(DocStatus::Queued), many.len() as i64 + 5);
}
