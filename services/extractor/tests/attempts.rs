//! Bounded attempts: a job whose fetch keeps failing with a transient error
//! is retried, then its document ends `failed` with the last reason instead
//! of circulating forever; a job delivered again after its worker died
//! counts as an attempt too. The first is no verdict on the document (the
//! next sync reads it again); the second is (it stays failed).

use async_trait::async_trait;
use ragpipe_chunking::{ChunkConfig, TokenCounter};
use ragpipe_core::{DocStatus, DocumentId, ExtractJob, Job, SCHEMA_VERSION};
use ragpipe_extract::Limits;
use ragpipe_extractor::{ExtractOutcome, ExtractStage, ExtractorConfig, Isolation, Ports};
use ragpipe_queue::{Activity, MemoryQueue, Queue, Topic};
use ragpipe_source::{Listing, ObjectSource, SourceError};
use ragpipe_state::{Observation, Observed, SqlStateStore, StateStore};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// A source whose every read fails with a transient error.
struct Unreachable(AtomicUsize);

#[async_trait]
impl ObjectSource for Unreachable {
    fn root(&self) -> String {
        "s3://flaky/".into()
    }
    fn list(&self) -> Listing {
        tokio::sync::mpsc::channel(1).1
    }
    async fn fetch(&self, key: &str, _max: u64) -> Result<Vec<u8>, SourceError> {
        self.0.fetch_add(1, Ordering::SeqCst);
        Err(SourceError::Read { key: key.into(), reason: "connection reset by peer".into(), retryable: true })
    }
}

struct Words;

impl TokenCounter for Words {
    fn count(&self, text: &str) -> usize {
        text.split_whitespace().count()
    }
    fn special_tokens(&self) -> usize {
        2
    }
}

async fn setup(dir: &tempfile::TempDir) -> (Arc<SqlStateStore>, ExtractJob) {
    let url = format!("sqlite://{}", dir.path().join("state.db").display());
    let state = Arc::new(SqlStateStore::connect(&url).await.unwrap());
    let uri = "s3://flaky/a.md".to_string();
    let id = DocumentId::from_uri(&uri);
    state.observe(&object(&id), 1).await.unwrap();
    let job = ExtractJob { schema_version: SCHEMA_VERSION, document_id: id, uri, key: "a.md".into(), generation: 1 };
    (state, job)
}

/// The listed object `a.md`, as every sync sees it.
fn object(id: &DocumentId) -> Observed {
    Observed { id: id.clone(), uri: "s3://flaky/a.md".into(), key: "a.md".into(), etag: "e1".into(), size: 5 }
}

fn extractor(state: Arc<SqlStateStore>, queue: Arc<MemoryQueue>, source: Arc<Unreachable>) -> Arc<ExtractStage> {
    let config = ExtractorConfig {
        max_bytes: 1 << 20,
        batch_size: 8,
        chunking: ChunkConfig::default(),
        limits: Limits::default(),
        isolation: Isolation::InProcess,
        max_attempts: 3,
        max_chunks: 10_000,
        asr: None,
        ocr: None,
    };
    Arc::new(ExtractStage::new(config, Ports { source, state, counter: Arc::new(Words) }, queue))
}

#[tokio::test]
async fn transient_failures_end_failed_with_the_last_reason_after_max_attempts() {
    let dir = tempfile::tempdir().unwrap();
    let (state, job) = setup(&dir).await;
    let queue = Arc::new(MemoryQueue::new(16));
    let source = Arc::new(Unreachable(AtomicUsize::new(0)));
    queue.publish(Topic::Extract, Job::Extract(job.clone()).to_bytes()).await.unwrap();
    let stage = extractor(state.clone(), queue.clone(), source.clone());
    let consumed = queue.clone();
    let worker = tokio::spawn(async move {
        ragpipe_queue::consume(consumed.as_ref(), stage.as_ref(), &Activity::default(), std::future::pending()).await
    });
    let doc = loop {
        let doc = state.get(&job.document_id).await.unwrap().unwrap();
        if doc.status == DocStatus::Failed {
            break doc;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    };
    queue.close(Topic::Extract);
    worker.await.unwrap().unwrap();
    assert_eq!(source.0.load(Ordering::SeqCst), 3, "fetched once per attempt");
    assert_eq!(doc.attempts, 3);
    assert_eq!(doc.failure_reason.as_deref(), Some("gave up after 3 attempts: reading a.md: connection reset by peer"));
    // The source was unreachable, the file never read: the next sync reads
    // it again, as a new generation with its attempts reset.
    assert_eq!(state.observe(&object(&job.document_id), 2).await.unwrap(), Observation::Unread { generation: 2 });
    assert_eq!(state.get(&job.document_id).await.unwrap().unwrap().attempts, 0);
}

#[tokio::test]
async fn a_job_whose_workers_kept_dying_is_failed_on_its_next_delivery() {
    let dir = tempfile::tempdir().unwrap();
    let (state, job) = setup(&dir).await;
    // Three claims that never finished: each worker died holding the job.
    for _ in 0..3 {
        assert!(state.begin_extract(&job.document_id, 1).await.unwrap());
    }
    let source = Arc::new(Unreachable(AtomicUsize::new(0)));
    let ex = extractor(state.clone(), Arc::new(MemoryQueue::new(4)), source.clone());
    let outcome = ex.process(&job).await;
    let reason = "gave up after 3 attempts: extraction never finished (the worker stopped each time)";
    assert_eq!(outcome, ExtractOutcome::Failed(reason.into()));
    assert_eq!(source.0.load(Ordering::SeqCst), 0, "not fetched again");
    let doc = state.get(&job.document_id).await.unwrap().unwrap();
    assert_eq!((doc.status, doc.failure_reason.as_deref()), (DocStatus::Failed, Some(reason)));
    // A file that stops its workers stays failed until it changes.
    assert_eq!(state.observe(&object(&job.document_id), 2).await.unwrap(), Observation::Unchanged);
}
