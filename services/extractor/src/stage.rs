use crate::ExtractorConfig;
use crate::isolate::{IsolateError, Request, extract_isolated};
use crate::speech::{extractor_version, versioned};
use async_trait::async_trait;
use opentelemetry::KeyValue;
use ragpipe_chunking::{TokenCounter, chunk_document};
use ragpipe_core::state::GAVE_UP;
use ragpipe_core::{Chunk, ChunkMessage, EmbedJob, ExtractJob, Job, Kind, SCHEMA_VERSION, Stage};
use ragpipe_extract::detect;
use ragpipe_queue::{Delivery, Handler, Outcome, Queue, Topic};
use ragpipe_source::{ObjectSource, SourceError};
use ragpipe_state::{Extracted, StateStore};
use ragpipe_telemetry::metrics::metrics;
use std::sync::Arc;
use std::time::Instant;
use tracing::Instrument;

/// Everything one extractor worker talks to.
#[derive(Clone)]
pub struct ExtractStage {
    pub source: Arc<dyn ObjectSource>,
    pub state: Arc<dyn StateStore>,
    pub queue: Arc<dyn Queue>,
    pub counter: Arc<dyn TokenCounter>,
    pub config: ExtractorConfig,
    /// `Extract`, or `Transcribe` for the loops that take media off the
    /// extract queue (see [`ExtractStage::transcribing`]).
    pub topic: Topic,
}

/// How an extract job ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExtractOutcome {
    /// Chunks published (count), or nothing to do for a stale job (0).
    Done(usize),
    /// The document ended `failed` with this reason.
    Failed(String),
    /// A transient error; the job should be delivered again.
    Retry(String),
}

#[async_trait]
impl Handler for ExtractStage {
    fn topic(&self) -> Topic {
        self.topic
    }

    async fn handle(&self, delivery: &Delivery) -> Outcome {
        let job = match Job::from_bytes(&delivery.payload) {
            Ok(Job::Extract(job)) => job,
            Ok(_) => return Outcome::Poison("not an extract job".into()),
            Err(reason) => return Outcome::Poison(reason.to_string()),
        };
        // Media to transcribe moves, untouched, to the transcribing loops:
        // by name, before any fetch or state change, so the move is free and
        // the job that arrives there is the one the coordinator sent.
        if self.topic == Topic::Extract && self.transcribes(&job.key) {
            return match self.queue.publish(Topic::Transcribe, delivery.payload.clone()).await {
                Ok(()) => Outcome::Done,
                Err(e) => {
                    Outcome::Retry(format!("document {}: moving it to the transcribe queue: {e}", job.document_id))
                }
            };
        }
        // One span per extraction, continuing the document's trace from the
        // coordinator; the embed jobs published inside carry it on.
        let span = tracing::info_span!(
            "extract_job",
            document.id = %job.document_id,
            generation = job.generation,
            kind = tracing::field::Empty,
            bytes = tracing::field::Empty,
            chunks = tracing::field::Empty,
        );
        ragpipe_telemetry::continue_trace(&span, &delivery.headers);
        match self.process(&job).instrument(span).await {
            ExtractOutcome::Retry(reason) if self.attempts(&job).await >= self.config.max_attempts => {
                let reason = format!("{GAVE_UP} {} attempts: {reason}", self.config.max_attempts);
                match self.fail(&job, Stage::Fetch, reason).await {
                    ExtractOutcome::Retry(reason) => Outcome::Retry(reason),
                    _ => Outcome::Done,
                }
            }
            ExtractOutcome::Retry(reason) => Outcome::Retry(format!("document {}: {reason}", job.document_id)),
            outcome => {
                tracing::debug!(document = %job.document_id, ?outcome, "extract settled");
                Outcome::Done
            }
        }
    }
}

impl ExtractStage {
    /// The same stage serving the transcribe queue.
    pub fn transcribing(self) -> Self {
        ExtractStage { topic: Topic::Transcribe, ..self }
    }

    /// Whether a job of this name goes to the transcribing loops: media
    /// (by extension) while speech recognition is on. Media detected only by
    /// content is transcribed where it is, like any other document.
    fn transcribes(&self, key: &str) -> bool {
        self.config.asr.is_some() && ragpipe_extract::kind_for_name(key) == Some(Kind::Audio)
    }

    /// Processes one job. Public so tests can drive a job without a queue.
    pub async fn process(&self, job: &ExtractJob) -> ExtractOutcome {
        let id = &job.document_id;
        match self.state.begin_extract(id, job.generation).await {
            Ok(true) => {}
            Ok(false) => return ExtractOutcome::Done(0),
            Err(e) => return ExtractOutcome::Retry(e.to_string()),
        }
        // Each claim counts an attempt; more than allowed means earlier
        // deliveries never finished (the worker crashed or was killed).
        if self.attempts(job).await > self.config.max_attempts {
            let reason = format!(
                "{GAVE_UP} {} attempts: extraction never finished (the worker stopped each time)",
                self.config.max_attempts
            );
            return self.fail(job, Stage::Extract, reason).await;
        }
        let started = Instant::now();
        let fetch = tracing::info_span!("fetch", key = %job.key);
        let bytes = match self.source.fetch(&job.key, self.config.max_bytes).instrument(fetch).await {
            Ok(b) => b,
            Err(e) if e.is_retryable() => return ExtractOutcome::Retry(e.to_string()),
            Err(e) => return self.fail(job, Stage::Fetch, fetch_reason(&e)).await,
        };
        tracing::Span::current().record("bytes", bytes.len());
        let hash = ragpipe_core::ids::content_hash(&bytes);
        // Detection only reads magic bytes and the name: safe in-process.
        let kind = match detect(&job.key, &bytes) {
            Ok(kind) => kind,
            Err(e) => return self.fail(job, Stage::Extract, e.to_string()).await,
        };
        let sidecar = match kind {
            Kind::Audio => match self.sidecar(&job.key).await {
                Ok(found) => found,
                Err(reason) => return ExtractOutcome::Retry(reason),
            },
            _ => None,
        };
        let asr = self.config.asr.clone();
        // Media without a sidecar is transcribed (or fails): its version names the model.
        let transcribed = kind == Kind::Audio && sidecar.is_none();
        let ocr = self.config.ocr.clone();
        let request = Request { kind, name: &job.key, bytes, sidecar, limits: self.config.limits, asr, ocr };
        tracing::Span::current().record("kind", kind.as_str());
        let extract = tracing::info_span!("extract", kind = kind.as_str());
        let doc = match extract_isolated(&self.config.isolation, request).instrument(extract).await {
            Ok(doc) => doc,
            Err(IsolateError::Failed(reason)) => return self.fail(job, Stage::Extract, reason).await,
            Err(IsolateError::Spawn(reason)) => return ExtractOutcome::Retry(reason),
        };
        // The model that made the text names the version: a transcript's
        // speech model, an OCR'd document's OCR model.
        let version = if doc.ocr_pages.is_empty() {
            extractor_version(self.config.asr.as_ref().filter(|_| transcribed))
        } else {
            versioned(self.config.ocr.as_ref().map(crate::OcrSettings::label))
        };
        let warnings: Vec<String> = ragpipe_core::low_confidence_warning(&doc.ocr_pages)
            .into_iter()
            .chain(doc.warnings.iter().cloned())
            .collect();
        let warning = (!warnings.is_empty()).then(|| warnings.join("; "));
        if let Some(warning) = &warning {
            tracing::warn!(key = %job.key, "{warning}");
        }
        let (counter, cfg) = (Arc::clone(&self.counter), self.config.chunking);
        let cut = tokio::task::spawn_blocking(move || {
            let chunks = chunk_document(&doc, counter.as_ref(), &cfg);
            (doc, chunks)
        })
        .instrument(tracing::info_span!("chunk"))
        .await;
        let (doc, chunks) = match cut {
            Ok(v) => v,
            Err(e) => return self.fail(job, Stage::Chunk, panic_reason(e)).await,
        };
        if chunks.is_empty() {
            return self.fail(job, Stage::Chunk, "no text content".into()).await;
        }
        if chunks.len() > self.config.max_chunks {
            let reason = format!("limit exceeded: more than {} chunks (max_chunks)", self.config.max_chunks);
            return self.fail(job, Stage::Chunk, reason).await;
        }
        tracing::Span::current().record("chunks", chunks.len());
        let kind_label = [KeyValue::new("kind", doc.kind.as_str())];
        metrics().extract_seconds.record(started.elapsed().as_secs_f64(), &kind_label);
        let batch_size = self.config.batch_size.max(1);
        let batches = chunks.len().div_ceil(batch_size);
        let extracted = Extracted {
            kind: doc.kind,
            title: doc.title.clone(),
            content_hash: hash,
            chunks: chunks.len() as i64,
            batches: batches as i64,
            extractor_version: version.clone(),
            warning,
        };
        // Record the expected totals before publishing, so the embedder that
        // stores the last batch can always tell it was the last.
        match self.state.set_extracted(id, job.generation, &extracted).await {
            Ok(true) => {}
            Ok(false) => return ExtractOutcome::Done(0),
            Err(e) => return ExtractOutcome::Retry(e.to_string()),
        }
        for (i, group) in chunks.chunks(batch_size).enumerate() {
            let msg = Job::Embed(EmbedJob {
                schema_version: SCHEMA_VERSION,
                document_id: id.clone(),
                uri: job.uri.clone(),
                title: doc.title.clone(),
                kind: doc.kind,
                generation: job.generation,
                batch_index: i as u32,
                batch_count: batches as u32,
                chunk_count: chunks.len() as u32,
                extractor_version: version.clone(),
                chunks: group.iter().map(to_message).collect(),
            });
            if let Err(e) = self.queue.publish(Topic::Embed, msg.to_bytes()).await {
                return ExtractOutcome::Retry(e.to_string());
            }
        }
        ExtractOutcome::Done(chunks.len())
    }

    /// The transcript next to an audio file: `talk.vtt`, else `talk.srt`,
    /// beside `talk.mp3`. Missing is normal; a transient error retries.
    async fn sidecar(&self, key: &str) -> Result<Option<(String, Vec<u8>)>, String> {
        let (dir, file) = key.rsplit_once('/').map_or(("", key), |(d, f)| (d, f));
        let stem = file.rsplit_once('.').map_or(file, |(s, _)| s);
        for ext in SIDECAR_EXTENSIONS {
            let name = if dir.is_empty() { format!("{stem}.{ext}") } else { format!("{dir}/{stem}.{ext}") };
            match self.source.fetch(&name, self.config.max_bytes).await {
                Ok(bytes) => return Ok(Some((name, bytes))),
                Err(e) if e.is_retryable() => return Err(e.to_string()),
                Err(_) => continue,
            }
        }
        Ok(None)
    }

    /// Claims of the job's document so far (0 when unknown).
    async fn attempts(&self, job: &ExtractJob) -> i64 {
        self.state.get(&job.document_id).await.ok().flatten().map_or(0, |d| d.attempts)
    }

    async fn fail(&self, job: &ExtractJob, stage: Stage, reason: String) -> ExtractOutcome {
        tracing::info!(document = %job.document_id, key = %job.key, %reason, "document failed");
        match self.state.fail(&job.document_id, job.generation, stage, &reason).await {
            Ok(applied) => {
                if applied {
                    let kind = ragpipe_extract::kind_for_name(&job.key).map(Kind::as_str);
                    metrics().failed(kind, stage.as_str(), &reason);
                }
                ExtractOutcome::Failed(reason)
            }
            Err(e) => ExtractOutcome::Retry(e.to_string()),
        }
    }
}

fn to_message(c: &Chunk) -> ChunkMessage {
    ChunkMessage {
        index: c.index,
        text: c.text.clone(),
        content: c.content.clone(),
        section: c.section.clone(),
        locator: c.locator.clone(),
        tokens: c.tokens,
        header_tokens: c.header_tokens,
    }
}

/// Why a fetch failed for good, without the key (the document is the key):
/// the same cause reads the same for every document it fails, so `status`
/// counts them as one group.
fn fetch_reason(e: &SourceError) -> String {
    match e {
        SourceError::Read { reason, .. } => reason.clone(),
        other => other.to_string(),
    }
}

/// Transcript sidecars, in the order they are looked for. One beside its
/// recording is not listed as a document of its own (see
/// `ragpipe_source::WithSidecars`); one alone is a transcript document.
pub const SIDECAR_EXTENSIONS: [&str; 2] = ["vtt", "srt"];

/// Turns a panic inside chunking into a failure reason an admin can read.
fn panic_reason(e: tokio::task::JoinError) -> String {
    if !e.is_panic() {
        return "chunking was cancelled".into();
    }
    format!("chunking panicked: {}", ragpipe_extract::panic_message(e.into_panic().as_ref()))
}
