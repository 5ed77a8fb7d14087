//! How the extractor runs as a service (`ragpipe serve extractor`): its
//! settings read from the global configuration, then as many consume loops
//! as `workers.extractors` over the broker, kept running by the worker
//! runtime (reconnects, probes, stop).

use crate::{ChildLimits, ExtractStage, Isolation};
use ragpipe_config::Config;
use ragpipe_core::TokenCounter;
use ragpipe_extract::Limits;
use ragpipe_queue::{Handler, Queue};
use ragpipe_source::ObjectSource;
use ragpipe_state::StateStore;
use ragpipe_worker::{Role, Stop};
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

/// Limits and sizes of the extractor stage.
#[derive(Debug, Clone)]
pub struct ExtractorConfig {
    /// Largest object fetched, in bytes.
    pub max_bytes: u64,
    /// Chunks per embed job.
    pub batch_size: usize,
    pub chunking: ragpipe_core::ChunkConfig,
    /// What one document may cost to extract (pages, rows, duration …).
    pub limits: Limits,
    /// Where parsers run: a resource-limited child process in production.
    pub isolation: Isolation,
    /// Deliveries of one job before the document is failed instead of
    /// retried: bounds transient errors and workers that die mid-document.
    pub max_attempts: i64,
    /// Chunks one document may have (`limits.max_chunks`).
    pub max_chunks: usize,
    /// Speech recognition for media without a sidecar (`[asr]`; None = off).
    pub asr: Option<crate::AsrSettings>,
    /// OCR for image files and scanned PDFs (`[ocr]`; None = off).
    pub ocr: Option<crate::OcrSettings>,
}

impl ExtractorConfig {
    /// From `[limits]`, `[chunking]` and `[workers]`. Parsers run in a child
    /// that is this very executable, `ragpipe __extract` (the CLI serves it
    /// before starting any thread).
    pub fn from_config(config: &Config) -> std::io::Result<Self> {
        let l = &config.limits;
        Ok(ExtractorConfig {
            max_bytes: l.max_file_bytes,
            batch_size: config.workers.embed_batch,
            chunking: config.chunking,
            limits: Limits {
                max_pages: l.max_pages,
                max_rows: l.max_rows,
                max_cells: l.max_cells,
                max_decompressed_bytes: l.max_decompressed_bytes,
                max_duration_secs: l.max_duration_secs,
                max_text_bytes: l.max_text_mib << 20,
                max_nesting: l.max_nesting,
                max_image_pixels: config.ocr.max_image_megapixels.saturating_mul(1_000_000),
                read_attachments: true,
            },
            isolation: Isolation::ChildProcess {
                program: std::env::current_exe()?,
                args: vec!["__extract".into()],
                limits: ChildLimits {
                    timeout: Duration::from_secs(l.extract_timeout_secs),
                    memory_bytes: l.extract_memory_mib << 20,
                    max_output_bytes: l.extract_output_mib << 20,
                },
            },
            max_attempts: config.workers.max_attempts.max(1),
            max_chunks: l.max_chunks as usize,
            asr: crate::AsrSettings::from_config(config),
            ocr: crate::OcrSettings::from_config(config),
        })
    }
}

impl ExtractorConfig {
    /// The models extraction runs with.
    pub fn models(&self) -> crate::speech::Models<'_> {
        crate::speech::Models { asr: self.asr.as_ref(), ocr: self.ocr.as_ref() }
    }
}

/// What the extractor reads and writes, besides the broker.
#[derive(Clone)]
pub struct Ports {
    pub source: Arc<dyn ObjectSource>,
    pub state: Arc<dyn StateStore>,
    /// The embedding model's tokenizer: chunks are cut to its budget.
    pub counter: Arc<dyn TokenCounter>,
}

impl ExtractStage {
    pub fn new(config: ExtractorConfig, ports: Ports, queue: Arc<dyn Queue>) -> Self {
        ExtractStage {
            source: ports.source,
            state: ports.state,
            queue,
            counter: ports.counter,
            config,
            topic: ragpipe_queue::Topic::Extract,
        }
    }
}

/// Serves extract jobs until `stop`: `workers.extractors` loops on the
/// extract queue and `workers.transcribers` on the transcribe queue, on one
/// broker connection, opened (and reopened when lost) by `connect`.
pub async fn run<C, Fut>(config: &Config, ports: Ports, connect: C, stop: Stop) -> anyhow::Result<()>
where
    C: Fn() -> Fut,
    Fut: Future<Output = anyhow::Result<Arc<dyn Queue>>>,
{
    let settings = ExtractorConfig::from_config(config)?;
    let (extractors, transcribers) = (config.workers.extractors.max(1), config.workers.transcribers.max(1));
    let role = Role {
        name: "extractor",
        workers: extractors + transcribers,
        health_listen: config.workers.health_listen.clone(),
        stuck_after: Duration::from_secs(config.workers.lease_secs.max(1)),
    };
    let make = move |queue: Arc<dyn Queue>| -> Vec<Arc<dyn Handler>> {
        let extract = ExtractStage::new(settings.clone(), ports.clone(), queue);
        let transcribe: Arc<dyn Handler> = Arc::new(extract.clone().transcribing());
        let extract: Arc<dyn Handler> = Arc::new(extract);
        let mut loops = vec![extract; extractors];
        loops.extend(std::iter::repeat_n(transcribe, transcribers));
        loops
    };
    ragpipe_worker::serve(role, connect, make, stop).await
}
