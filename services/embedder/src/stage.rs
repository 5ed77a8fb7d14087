use crate::hint::LanguageHints;
use crate::{Target, Targets};
use async_trait::async_trait;
use opentelemetry::KeyValue;
use ragpipe_core::{DeleteJob, DocStatus, EmbedJob, Job, Stage, point_id};
use ragpipe_embed::Embedder;
use ragpipe_queue::{Delivery, Handler, Outcome, Topic};
use ragpipe_state::{BatchStats, Completion, StateStore};
use ragpipe_telemetry::metrics::metrics;
use ragpipe_vectors::bm25::Analyses;
use ragpipe_vectors::{ChunkPayload, Point};
use std::sync::Arc;
use std::time::Instant;
use tracing::Instrument;

/// Everything one embedder worker talks to.
pub struct EmbedStage {
    pub state: Arc<dyn StateStore>,
    /// The collection batches go to: the registry's write target.
    pub targets: Arc<Targets>,
    pub embedder: Arc<dyn Embedder>,
    /// BM25 analyses, by the target index's pipeline version.
    pub analyses: Arc<Analyses>,
    /// The languages an English-only model was already told about.
    pub(crate) hints: LanguageHints,
}

/// How an embed or delete job ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EmbedOutcome {
    /// Batch stored; `completed` when it finished its document.
    Stored {
        chunks: usize,
        completed: bool,
    },
    /// Nothing to do: the job is for an older generation or a finished document.
    Stale,
    Deleted,
    Failed(String),
    Retry(String),
}

#[async_trait]
impl Handler for EmbedStage {
    fn topic(&self) -> Topic {
        Topic::Embed
    }

    async fn handle(&self, delivery: &Delivery) -> Outcome {
        let outcome = match Job::from_bytes(&delivery.payload) {
            Ok(Job::Embed(job)) => {
                // Continues the document's trace from the extractor.
                let span = tracing::info_span!(
                    "embed_job",
                    document.id = %job.document_id,
                    generation = job.generation,
                    kind = job.kind.as_str(),
                    batch = job.batch_index,
                    batches = job.batch_count,
                    chunks = job.chunks.len(),
                );
                ragpipe_telemetry::continue_trace(&span, &delivery.headers);
                self.process(&job).instrument(span).await
            }
            Ok(Job::Delete(job)) => {
                let span = tracing::info_span!("delete_job", document.id = %job.document_id);
                ragpipe_telemetry::continue_trace(&span, &delivery.headers);
                self.delete(&job).instrument(span).await
            }
            Ok(Job::Extract(_)) => return Outcome::Poison("extract job on the embed queue".into()),
            Err(reason) => return Outcome::Poison(reason.to_string()),
        };
        match outcome {
            EmbedOutcome::Retry(reason) => Outcome::Retry(reason),
            _ => Outcome::Done,
        }
    }
}

impl EmbedStage {
    /// Stores one batch. Public so tests can deliver a job twice.
    pub async fn process(&self, job: &EmbedJob) -> EmbedOutcome {
        let id = &job.document_id;
        match self.state.get(id).await {
            Ok(Some(doc)) if doc.generation == job.generation && doc.status == DocStatus::Embedding => {}
            // Committed, but the worker may have died before it dropped the
            // older generations' points (the job came back unacked): drop them.
            Ok(Some(doc)) if doc.generation == job.generation && doc.status == DocStatus::Indexed => {
                return match self.targets.resolve().await {
                    Ok(target) => match target.store.delete_document(id, Some(job.generation)).await {
                        Ok(()) => EmbedOutcome::Stale,
                        Err(e) => EmbedOutcome::Retry(e.to_string()),
                    },
                    Err(e) => EmbedOutcome::Retry(e.to_string()),
                };
            }
            Ok(_) => return EmbedOutcome::Stale,
            Err(e) => return EmbedOutcome::Retry(e.to_string()),
        }
        let target = match self.targets.resolve().await {
            Ok(t) => t,
            Err(e) => return EmbedOutcome::Retry(e.to_string()),
        };
        if target.spec.model != self.embedder.model() || target.spec.dims != self.embedder.dims() {
            // Another worker (deployed for the new model) must take it.
            return EmbedOutcome::Retry(format!(
                "index {} is sealed to {} ({} dims); this embedder runs {}",
                target.name,
                target.spec.model,
                target.spec.dims,
                self.embedder.model()
            ));
        }
        let bm25 = match self.analyses.for_pipeline(&target.spec.pipeline_version) {
            Ok(bm25) => bm25,
            // An index a newer ragpipe made: a worker of that build must take it.
            Err(e) => return EmbedOutcome::Retry(format!("index {}: {e}", target.name)),
        };
        // Auto: the language of this batch of the document's chunks.
        let contents: Vec<&str> = job.chunks.iter().map(|c| c.content.as_str()).collect();
        let analysis = bm25.for_documents(&contents);
        self.hints.note(self.embedder.model(), analysis.language(), &job.uri);
        let started = Instant::now();
        let texts: Vec<String> = job.chunks.iter().map(|c| c.text.clone()).collect();
        let embedder = Arc::clone(&self.embedder);
        let embedded = tokio::task::spawn_blocking(move || {
            let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
            embedder.embed(&refs)
        })
        .instrument(tracing::info_span!("embed", texts = job.chunks.len()))
        .await;
        let embeddings = match embedded {
            Ok(Ok(e)) => e,
            Ok(Err(e)) => return self.fail(job, Stage::Embed, e.to_string()).await,
            Err(e) => {
                return self.fail(job, Stage::Embed, format!("embedding panicked: {e}")).await;
            }
        };
        let points = job
            .chunks
            .iter()
            .zip(embeddings.vectors)
            .map(|(c, dense)| Point {
                id: point_id(id, job.generation, c.index),
                dense,
                sparse: analysis.document(&c.text),
                payload: ChunkPayload {
                    document_id: id.to_string(),
                    generation: job.generation,
                    chunk_index: c.index,
                    document: job.uri.clone(),
                    title: job.title.clone(),
                    section: c.section.join(" > "),
                    kind: job.kind.as_str().into(),
                    locator: c.locator.to_string(),
                    content: c.content.clone(),
                    text: c.text.clone(),
                    tokens: c.tokens,
                    model: self.embedder.model().into(),
                    pipeline_version: target.spec.pipeline_version.clone(),
                    language: analysis.language().into(),
                },
            })
            .collect();
        if let Err(e) = target.store.upsert(points).instrument(tracing::info_span!("upsert")).await {
            return EmbedOutcome::Retry(e.to_string());
        }
        let m = metrics();
        let tokens: usize = embeddings.tokens.iter().sum();
        m.chunks_embedded.add(job.chunks.len() as u64, &[]);
        m.tokens_embedded.add(tokens as u64, &[]);
        m.embed_batch_seconds
            .record(started.elapsed().as_secs_f64(), &[KeyValue::new("batch_size", job.chunks.len() as i64)]);
        let stats = BatchStats {
            chunks: job.chunks.len() as i64,
            tokens: tokens as i64,
            header_tokens: job.chunks.iter().map(|c| i64::from(c.header_tokens)).sum(),
            truncated: embeddings.truncated as i64,
        };
        let stored = match self.state.record_batch(id, job.generation, job.batch_index, stats).await {
            Ok(n) => n,
            Err(e) => return EmbedOutcome::Retry(e.to_string()),
        };
        let completed = stored >= i64::from(job.batch_count);
        if completed && let Some(retry) = self.complete(job, &target).instrument(tracing::info_span!("commit")).await {
            return retry;
        }
        if completed {
            let attrs = [KeyValue::new("outcome", "indexed"), KeyValue::new("kind", job.kind.as_str())];
            m.documents.add(1, &attrs);
        }
        EmbedOutcome::Stored { chunks: job.chunks.len(), completed }
    }

    /// Finishes a generation: count in the store, commit state, drop old points.
    async fn complete(&self, job: &EmbedJob, target: &Target) -> Option<EmbedOutcome> {
        let id = &job.document_id;
        let counted = match target.store.count(id, Some(job.generation)).await {
            Ok(n) => n as i64,
            Err(e) => return Some(EmbedOutcome::Retry(e.to_string())),
        };
        if counted != i64::from(job.chunk_count) {
            let reason =
                format!("vector store holds {counted} points for this generation, expected {}", job.chunk_count);
            return Some(self.fail(job, Stage::Store, reason).await);
        }
        let completion = Completion {
            chunks_stored: counted,
            model: self.embedder.model().into(),
            dims: self.embedder.dims() as i64,
            pipeline_version: target.spec.pipeline_version.clone(),
        };
        if let Err(e) = self.state.complete(id, job.generation, &completion).await {
            return Some(EmbedOutcome::Retry(e.to_string()));
        }
        // Older generations are deleted only once the new one is committed, so
        // a search never finds a document with no points.
        if let Err(e) = target.store.delete_document(id, Some(job.generation)).await {
            return Some(EmbedOutcome::Retry(e.to_string()));
        }
        None
    }

    /// Deletes a removed document from the write target. During a reindex
    /// the live index keeps it until the swap: nothing but searches touches
    /// the live collection then.
    pub async fn delete(&self, job: &DeleteJob) -> EmbedOutcome {
        let target = match self.targets.resolve().await {
            Ok(t) => t,
            Err(e) => return EmbedOutcome::Retry(e.to_string()),
        };
        match target.store.delete_document(&job.document_id, None).await {
            Ok(()) => EmbedOutcome::Deleted,
            Err(e) => EmbedOutcome::Retry(e.to_string()),
        }
    }

    async fn fail(&self, job: &EmbedJob, stage: Stage, reason: String) -> EmbedOutcome {
        tracing::info!(document = %job.document_id, %reason, "document failed");
        match self.state.fail(&job.document_id, job.generation, stage, &reason).await {
            Ok(applied) => {
                if applied {
                    metrics().failed(Some(job.kind.as_str()), stage.as_str(), &reason);
                }
                EmbedOutcome::Failed(reason)
            }
            Err(e) => EmbedOutcome::Retry(e.to_string()),
        }
    }
}
