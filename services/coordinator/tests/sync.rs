//! Sync runs over a real SQLite state store and the in-process queue, with
//! a source made here that lists whatever a test puts in it, in pages
//! smaller than the listing, and can end a listing in an error or hold it
//! open to make two runs overlap. The jobs a run published are read back
//! from the queue.

use async_trait::async_trait;
use ragpipe_coordinator::{CoordinatorError, SyncOptions, SyncReport, sync_once};
use ragpipe_core::{DocStatus, DocumentId, Job};
use ragpipe_queue::{MemoryQueue, Queue, Topic};
use ragpipe_source::{Listing, ObjectMeta, ObjectSource, SourceError};
use ragpipe_state::{SqlStateStore, StateStore, SyncRunState};
use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use tokio::sync::{Notify, mpsc};

/// Objects in flight between the listing task and the coordinator: far
/// fewer than the large listing, so it streams.
const PAGE: usize = 64;
const ROOT: &str = "mem://bucket";

/// A bucket whose listing is what the test last put in it.
#[derive(Default)]
struct Bucket {
    objects: Mutex<Vec<ObjectMeta>>,
    /// Ends the next listings with this error after the objects.
    fail_with: Mutex<Option<String>>,
    /// When set, a listing signals `started` and waits for `release`
    /// before it sends anything.
    gate: Option<Gate>,
}

#[derive(Clone, Default)]
struct Gate {
    started: Arc<Notify>,
    release: Arc<Notify>,
}

impl Bucket {
    fn with(objects: Vec<ObjectMeta>) -> Bucket {
        Bucket { objects: Mutex::new(objects), ..Bucket::default() }
    }

    fn set(&self, objects: Vec<ObjectMeta>) {
        *self.objects.lock().unwrap() = objects;
    }
}

#[async_trait]
impl ObjectSource for Bucket {
    fn root(&self) -> String {
        ROOT.into()
    }

    fn list(&self) -> Listing {
        let (tx, rx) = mpsc::channel(PAGE);
        let mut objects = self.objects.lock().unwrap().clone();
        objects.sort_by(|a, b| a.key.cmp(&b.key));
        let error = self.fail_with.lock().unwrap().clone();
        let gate = self.gate.clone();
        tokio::spawn(async move {
            if let Some(gate) = gate {
                gate.started.notify_one();
                gate.release.notified().await;
            }
            for meta in objects {
                if tx.send(Ok(meta)).await.is_err() {
                    return;
                }
            }
            if let Some(reason) = error {
                let _ = tx.send(Err(SourceError::List { root: ROOT.into(), reason })).await;
            }
        });
        rx
    }

    async fn fetch(&self, key: &str, _max_bytes: u64) -> Result<Vec<u8>, SourceError> {
        Err(SourceError::NotFound { key: key.into() })
    }
}

fn object(key: &str, etag: &str, size: u64) -> ObjectMeta {
    ObjectMeta { key: key.into(), uri: format!("{ROOT}/{key}"), etag: etag.into(), size }
}

/// Extract jobs as [`Fixture::extract_jobs`] reads them back.
fn jobs(expected: &[(&str, i64)]) -> Vec<(String, i64)> {
    expected.iter().map(|(k, g)| (k.to_string(), *g)).collect()
}

fn id(key: &str) -> DocumentId {
    DocumentId::from_uri(&format!("{ROOT}/{key}"))
}

struct Fixture {
    state: Arc<SqlStateStore>,
    queue: Arc<MemoryQueue>,
    _dir: tempfile::TempDir,
}

impl Fixture {
    async fn new() -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}", dir.path().join("state.db").display());
        let state = Arc::new(SqlStateStore::connect(&url).await.unwrap());
        // Room for every job of the large listing: the test reads them after the run.
        Fixture { state, queue: Arc::new(MemoryQueue::new(10_000)), _dir: dir }
    }

    async fn sync(&self, source: &Bucket) -> Result<SyncReport, CoordinatorError> {
        sync_once(source, self.state.as_ref(), self.queue.as_ref(), SyncOptions::default()).await
    }

    /// Every job waiting on `topic`, consumed and acked.
    async fn drain(&self, topic: Topic) -> Vec<Job> {
        let waiting = self.queue.depth(topic).await.unwrap();
        let mut consumer = self.queue.consume(topic).await.unwrap();
        let mut jobs = Vec::new();
        for _ in 0..waiting {
            let delivery = consumer.next().await.expect("a waiting message").unwrap();
            jobs.push(Job::from_bytes(&delivery.payload).unwrap());
            delivery.ack().await.unwrap();
        }
        assert_eq!(self.queue.depth(topic).await.unwrap(), 0);
        jobs
    }

    /// Extract jobs published since the last drain, as (key, generation).
    async fn extract_jobs(&self) -> Vec<(String, i64)> {
        let mut jobs: Vec<(String, i64)> = self
            .drain(Topic::Extract)
            .await
            .into_iter()
            .map(|job| match job {
                Job::Extract(j) => {
                    assert_eq!(j.document_id, id(&j.key));
                    (j.key, j.generation)
                }
                other => panic!("not an extract job on the extract topic: {other:?}"),
            })
            .collect();
        jobs.sort();
        jobs
    }

    /// Documents of the delete jobs published since the last drain.
    async fn delete_jobs(&self) -> Vec<DocumentId> {
        self.drain(Topic::Embed)
            .await
            .into_iter()
            .map(|job| match job {
                Job::Delete(j) => j.document_id,
                other => panic!("not a delete job: {other:?}"),
            })
            .collect()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sync_publishes_exactly_the_difference_from_state() {
    let f = Fixture::new().await;
    let bucket = Bucket::with(vec![object("a.md", "v1", 10), object("b.md", "v1", 20), object("c.md", "v1", 30)]);

    // First sight: one extract job per object, generation 1.
    let first = f.sync(&bucket).await.unwrap();
    assert_eq!((first.listed, first.new, first.unchanged, first.changed, first.deleted), (3, 3, 0, 0, 0));
    assert_eq!(f.extract_jobs().await, jobs(&[("a.md", 1), ("b.md", 1), ("c.md", 1)]));
    assert!(f.delete_jobs().await.is_empty());

    // Nothing changed: nothing published.
    let second = f.sync(&bucket).await.unwrap();
    assert_eq!((second.listed, second.new, second.unchanged, second.changed, second.deleted), (3, 0, 3, 0, 0));
    assert!(f.extract_jobs().await.is_empty());
    assert!(f.delete_jobs().await.is_empty());

    // b's etag changed, a's size changed, c is gone.
    bucket.set(vec![object("a.md", "v1", 11), object("b.md", "v2", 20)]);
    let third = f.sync(&bucket).await.unwrap();
    assert_eq!((third.listed, third.new, third.unchanged, third.changed, third.deleted), (2, 0, 0, 2, 1));
    assert_eq!(f.extract_jobs().await, jobs(&[("a.md", 2), ("b.md", 2)]));
    assert_eq!(f.delete_jobs().await, [id("c.md")]);
    let b = f.state.get(&id("b.md")).await.unwrap().unwrap();
    assert_eq!((b.status, b.generation, b.etag.as_str()), (DocStatus::Queued, 2, "v2"));
    assert_eq!(f.state.get(&id("c.md")).await.unwrap().unwrap().status, DocStatus::Deleted);

    // A deletion is published once, not on every later run.
    let fourth = f.sync(&bucket).await.unwrap();
    assert_eq!((fourth.listed, fourth.unchanged, fourth.changed, fourth.deleted), (2, 2, 0, 0));
    assert!(f.extract_jobs().await.is_empty());
    assert!(f.delete_jobs().await.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_listing_larger_than_a_page_is_diffed_completely_each_object_once() {
    const OBJECTS: usize = 2_500;
    let f = Fixture::new().await;
    let keys: Vec<String> = (0..OBJECTS).map(|i| format!("docs/{i:05}.txt")).collect();
    let bucket = Bucket::with(keys.iter().map(|k| object(k, "v1", 100)).collect());

    let report = f.sync(&bucket).await.unwrap();
    assert_eq!((report.listed, report.new, report.deleted), (OBJECTS as u64, OBJECTS as u64, 0));
    let jobs = f.extract_jobs().await;
    assert_eq!(jobs.len(), OBJECTS);
    let published: HashSet<&str> = jobs.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(published, keys.iter().map(String::as_str).collect::<HashSet<_>>(), "every object exactly once");
    assert!(jobs.iter().all(|(_, g)| *g == 1));
    assert_eq!(f.state.counts().await.unwrap().documents(DocStatus::Queued), OBJECTS as i64);

    let again = f.sync(&bucket).await.unwrap();
    assert_eq!((again.listed, again.unchanged, again.new, again.deleted), (OBJECTS as u64, OBJECTS as u64, 0, 0));
    assert!(f.extract_jobs().await.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_listing_that_ends_in_an_error_deletes_nothing() {
    let f = Fixture::new().await;
    let bucket = Bucket::with(["a.md", "b.md", "c.md", "d.md"].map(|k| object(k, "v1", 10)).to_vec());
    assert_eq!(f.sync(&bucket).await.unwrap().new, 4);
    f.extract_jobs().await;
    let before = [f.state.get(&id("c.md")).await.unwrap(), f.state.get(&id("d.md")).await.unwrap()];

    // The listing breaks off after a and b.
    bucket.set(vec![object("a.md", "v1", 10), object("b.md", "v1", 10)]);
    *bucket.fail_with.lock().unwrap() = Some("connection reset".into());
    let err = f.sync(&bucket).await.expect_err("a broken listing fails the run");
    assert!(matches!(err, CoordinatorError::Source(SourceError::List { .. })), "{err:?}");

    let after = [f.state.get(&id("c.md")).await.unwrap(), f.state.get(&id("d.md")).await.unwrap()];
    assert_eq!(after, before, "documents missing from a partial listing keep their state");
    assert!(after.iter().all(|d| d.as_ref().unwrap().status == DocStatus::Queued));
    assert!(f.delete_jobs().await.is_empty());
    assert!(f.extract_jobs().await.is_empty());
    let run = &f.state.sync_runs(1).await.unwrap()[0];
    assert_eq!(run.state, SyncRunState::Failed);
    assert!(run.error.as_deref().unwrap_or_default().contains("connection reset"), "{run:?}");

    // The same listing, complete, is what deletes them.
    *bucket.fail_with.lock().unwrap() = None;
    let report = f.sync(&bucket).await.unwrap();
    assert_eq!((report.listed, report.unchanged, report.deleted), (2, 2, 2));
    let mut deleted = f.delete_jobs().await;
    deleted.sort();
    let mut expected = vec![id("c.md"), id("d.md")];
    expected.sort();
    assert_eq!(deleted, expected);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sync_that_overlaps_a_running_one_is_refused_as_busy() {
    let f = Fixture::new().await;
    let gate = Gate::default();
    let held = Arc::new(Bucket {
        gate: Some(gate.clone()),
        ..Bucket::with(vec![object("a.md", "v1", 10), object("b.md", "v1", 10)])
    });
    let first = tokio::spawn({
        let (source, state, queue) = (held.clone(), f.state.clone(), f.queue.clone());
        async move { sync_once(source.as_ref(), state.as_ref(), queue.as_ref(), SyncOptions::default()).await }
    });
    // The first run holds the lock and is listing.
    gate.started.notified().await;

    let free = Bucket::with(vec![object("a.md", "v1", 10), object("b.md", "v1", 10)]);
    match f.sync(&free).await {
        Err(CoordinatorError::Busy(holder)) => {
            assert_eq!(holder.source, ROOT);
            assert_eq!(holder.state, SyncRunState::Running);
        }
        other => panic!("expected Busy, got {other:?}"),
    }
    assert!(f.extract_jobs().await.is_empty(), "a refused run publishes nothing");

    gate.release.notify_one();
    let report = first.await.unwrap().unwrap();
    assert_eq!(report.new, 2);
    assert_eq!(f.extract_jobs().await.len(), 2);
    // The lock is free again once the first run finished.
    let next = f.sync(&free).await.unwrap();
    assert_eq!((next.listed, next.unchanged), (2, 2));
}
