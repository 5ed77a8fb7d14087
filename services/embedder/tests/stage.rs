//! The embedder stage over real parts: SQLite state, the qdrant-edge store
//! and the all-MiniLM-L6-v2 model (`eval "$(scripts/provision-model.sh)"`).
//! Documents are put in the state an extractor leaves them in (observed,
//! claimed, extracted), then batches are delivered to `process` the way a
//! broker may deliver them: twice, late, for a generation that moved on.

use ragpipe_core::{
    ChunkMessage, CollectionSpec, DeleteJob, DocState, DocStatus, DocumentId, EmbedJob, Kind, Locator,
    PIPELINE_VERSION, SCHEMA_VERSION,
};
use ragpipe_embed::{Embedder, ModelFiles, ModelVariant, OnnxEmbedder};
use ragpipe_embedder::{EmbedOutcome, EmbedStage, Ports, Targets};
use ragpipe_state::{Extracted, Observation, Observed, SqlStateStore, StateStore};
use ragpipe_vectors::{EdgeStore, VectorStore};
use std::sync::{Arc, OnceLock};

/// Word-pieces each test chunk claims for its contextual header; the state
/// store sums them per stored batch, so a batch recorded twice shows.
const HEADER_TOKENS: u32 = 3;

/// The model, loaded once for the whole test binary.
fn embedder() -> Arc<dyn Embedder> {
    static MODEL: OnceLock<Arc<OnnxEmbedder>> = OnceLock::new();
    MODEL
        .get_or_init(|| {
            let files = ModelFiles::provisioned(ModelVariant::Fp32)
                .expect("model provisioned: eval \"$(scripts/provision-model.sh)\"");
            Arc::new(OnnxEmbedder::load(&files, 0, 1).expect("model loads"))
        })
        .clone()
}

/// Fields drop in order: the stage and the store (which flushes on drop)
/// before the directory they live in.
struct Fixture {
    stage: EmbedStage,
    store: Arc<EdgeStore>,
    state: Arc<SqlStateStore>,
    _dir: tempfile::TempDir,
}

impl Fixture {
    async fn new() -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}", dir.path().join("state.db").display());
        let state = Arc::new(SqlStateStore::connect(&url).await.unwrap());
        let embedder = embedder();
        let spec = CollectionSpec {
            model: embedder.model().into(),
            dims: embedder.dims(),
            pipeline_version: PIPELINE_VERSION.into(),
        };
        let store = Arc::new(EdgeStore::open(&dir.path().join("vectors"), &spec).unwrap());
        let targets = Arc::new(Targets::fixed(store.clone(), spec));
        let stage = EmbedStage::new(Ports { state: state.clone(), targets, embedder });
        Fixture { stage, store, state, _dir: dir }
    }

    /// Sees `name` at version `etag` in sync run `run`; returns the generation
    /// the coordinator would enqueue.
    async fn observe(&self, name: &str, etag: &str, run: i64) -> i64 {
        match self.state.observe(&observed(name, etag), run).await.unwrap() {
            Observation::New { generation } | Observation::Changed { generation } => generation,
            other => panic!("{name} at {etag}: expected a new generation, got {other:?}"),
        }
    }

    /// Claims and extracts a generation into `chunks` chunks cut in batches
    /// of `per_batch`, as the extractor does; returns the embed jobs it
    /// would publish.
    async fn extract(&self, name: &str, generation: i64, chunks: u32, per_batch: u32) -> Vec<EmbedJob> {
        let id = doc_id(name);
        assert!(self.state.begin_extract(&id, generation).await.unwrap());
        let batches = chunks.div_ceil(per_batch);
        let extracted = Extracted {
            kind: Kind::Markdown,
            title: name.into(),
            content_hash: format!("{name}-{generation}"),
            chunks: chunks.into(),
            batches: batches.into(),
            extractor_version: "1".into(),
            warning: None,
        };
        assert!(self.state.set_extracted(&id, generation, &extracted).await.unwrap());
        let all: Vec<ChunkMessage> = (0..chunks).map(|i| chunk(name, generation, i)).collect();
        all.chunks(per_batch as usize)
            .enumerate()
            .map(|(i, group)| EmbedJob {
                schema_version: SCHEMA_VERSION,
                document_id: id.clone(),
                uri: uri(name),
                title: name.into(),
                kind: Kind::Markdown,
                generation,
                batch_index: i as u32,
                batch_count: batches,
                chunk_count: chunks,
                extractor_version: "1".into(),
                chunks: group.to_vec(),
            })
            .collect()
    }

    async fn doc(&self, name: &str) -> DocState {
        self.state.get(&doc_id(name)).await.unwrap().expect("document has state")
    }

    async fn points(&self, name: &str, generation: Option<i64>) -> u64 {
        self.store.count(&doc_id(name), generation).await.unwrap()
    }
}

fn uri(name: &str) -> String {
    format!("file:///corpus/{name}")
}

fn doc_id(name: &str) -> DocumentId {
    DocumentId::from_uri(&uri(name))
}

fn observed(name: &str, etag: &str) -> Observed {
    Observed { id: doc_id(name), uri: uri(name), key: name.into(), etag: etag.into(), size: 100 }
}

fn chunk(name: &str, generation: i64, index: u32) -> ChunkMessage {
    let content = format!("Paragraph {index} of {name}, version {generation}: the embedder stores every chunk once.");
    let text = format!("{name} > Notes\n{content}");
    ChunkMessage {
        index,
        locator: Locator::for_bytes(&content, 0..content.len()),
        text,
        content,
        section: vec!["Notes".into()],
        tokens: 30,
        header_tokens: HEADER_TOKENS,
    }
}

/// Word-pieces the model sees in these jobs' chunks, as the embedder
/// records them for its batches.
fn model_tokens(jobs: &[EmbedJob]) -> i64 {
    let texts: Vec<&str> = jobs.iter().flat_map(|j| j.chunks.iter().map(|c| c.text.as_str())).collect();
    embedder().embed(&texts).unwrap().tokens.iter().sum::<usize>() as i64
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batch_delivered_twice_stores_its_points_once() {
    let f = Fixture::new().await;
    let generation = f.observe("guide.md", "v1", 1).await;
    let jobs = f.extract("guide.md", generation, 5, 3).await;
    assert_eq!(jobs.len(), 2);

    // The first batch, twice: stored both times, recorded once, not complete.
    for _ in 0..2 {
        assert_eq!(f.stage.process(&jobs[0]).await, EmbedOutcome::Stored { chunks: 3, completed: false });
        assert_eq!(f.points("guide.md", None).await, 3);
        assert_eq!(f.doc("guide.md").await.status, DocStatus::Embedding);
    }
    // The last batch completes the document...
    assert_eq!(f.stage.process(&jobs[1]).await, EmbedOutcome::Stored { chunks: 2, completed: true });
    // ...and its redelivery (once more for the first batch too) changes nothing.
    let indexed = f.doc("guide.md").await;
    let totals = f.state.counts().await.unwrap().get(DocStatus::Indexed);
    for job in [&jobs[1], &jobs[0]] {
        assert_eq!(f.stage.process(job).await, EmbedOutcome::Stale);
    }

    assert_eq!(f.points("guide.md", None).await, 5);
    assert_eq!(f.points("guide.md", Some(generation)).await, 5);
    let doc = f.doc("guide.md").await;
    assert_eq!(doc, indexed, "a redelivery after indexing must not touch state");
    assert_eq!(doc.status, DocStatus::Indexed);
    assert_eq!(doc.generation, generation);
    assert_eq!(doc.chunks_stored, Some(5));
    assert_eq!(doc.model.as_deref(), Some(embedder().model()));
    assert_eq!(doc.truncated, 0);
    // Every batch counted exactly once in the generation's totals.
    assert_eq!(totals.documents, 1);
    assert_eq!(totals.chunks, 5);
    assert_eq!(totals.header_tokens, 5 * i64::from(HEADER_TOKENS));
    assert_eq!(totals.tokens, model_tokens(&jobs));
    assert_eq!(f.state.counts().await.unwrap().get(DocStatus::Indexed), totals);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batch_for_an_older_generation_is_stale_and_writes_nothing() {
    let f = Fixture::new().await;
    let first = f.observe("report.md", "v1", 1).await;
    let jobs = f.extract("report.md", first, 2, 2).await;
    // The source changed before the batch arrived: generation 2 is queued.
    let second = f.observe("report.md", "v2", 2).await;
    assert_eq!((first, second), (1, 2));
    let before = f.doc("report.md").await;

    assert_eq!(f.stage.process(&jobs[0]).await, EmbedOutcome::Stale);

    assert_eq!(f.points("report.md", Some(first)).await, 0);
    assert_eq!(f.points("report.md", None).await, 0);
    let after = f.doc("report.md").await;
    assert_eq!(after, before, "a stale batch must not touch state");
    assert_eq!(after.status, DocStatus::Queued);
    assert_eq!(after.generation, second);
    assert_eq!(f.state.counts().await.unwrap().get(DocStatus::Queued).tokens, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_document_re_embedded_as_generation_2_keeps_only_generation_2_points() {
    let f = Fixture::new().await;
    let first = f.observe("faq.md", "v1", 1).await;
    let old = f.extract("faq.md", first, 3, 3).await;
    assert_eq!(f.stage.process(&old[0]).await, EmbedOutcome::Stored { chunks: 3, completed: true });
    assert_eq!(f.points("faq.md", Some(first)).await, 3);

    let second = f.observe("faq.md", "v2", 2).await;
    assert_eq!(second, 2);
    let new = f.extract("faq.md", second, 4, 2).await;
    assert_eq!(f.stage.process(&new[0]).await, EmbedOutcome::Stored { chunks: 2, completed: false });
    // Until generation 2 commits, searches still find generation 1.
    assert_eq!(f.points("faq.md", Some(first)).await, 3);
    assert_eq!(f.points("faq.md", Some(second)).await, 2);

    assert_eq!(f.stage.process(&new[1]).await, EmbedOutcome::Stored { chunks: 2, completed: true });
    assert_eq!(f.points("faq.md", Some(first)).await, 0);
    assert_eq!(f.points("faq.md", Some(second)).await, 4);
    assert_eq!(f.points("faq.md", None).await, 4);
    let doc = f.doc("faq.md").await;
    assert_eq!((doc.status, doc.generation, doc.chunks_stored), (DocStatus::Indexed, second, Some(4)));
    // A late copy of generation 1's batch brings nothing back.
    assert_eq!(f.stage.process(&old[0]).await, EmbedOutcome::Stale);
    assert_eq!(f.points("faq.md", None).await, 4);
    let texts: Vec<String> =
        f.store.chunks(Some(&doc_id("faq.md"))).await.unwrap().into_iter().map(|c| c.content).collect();
    assert_eq!(texts.len(), 4);
    assert!(texts.iter().all(|t| t.contains("version 2")), "{texts:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_delete_job_removes_the_documents_points() {
    let f = Fixture::new().await;
    for name in ["gone.md", "kept.md"] {
        let generation = f.observe(name, "v1", 1).await;
        let jobs = f.extract(name, generation, 3, 3).await;
        assert_eq!(f.stage.process(&jobs[0]).await, EmbedOutcome::Stored { chunks: 3, completed: true });
        assert_eq!(f.points(name, None).await, 3);
    }

    let job = DeleteJob { schema_version: SCHEMA_VERSION, document_id: doc_id("gone.md") };
    assert_eq!(f.stage.delete(&job).await, EmbedOutcome::Deleted);
    assert_eq!(f.points("gone.md", None).await, 0);
    assert!(f.store.chunks(Some(&doc_id("gone.md"))).await.unwrap().is_empty());
    // Other documents keep theirs; deleting again is a no-op.
    assert_eq!(f.points("kept.md", None).await, 3);
    assert_eq!(f.stage.delete(&job).await, EmbedOutcome::Deleted);
    assert_eq!(f.points("gone.md", None).await, 0);
    assert_eq!(f.points("kept.md", None).await, 3);
}
