//! Telemetry is really emitted: the coordinator, extractor and embedder
//! stages run over the in-process queue (which carries trace headers as the
//! broker does), SQLite, qdrant-edge and the real model, with OpenTelemetry's
//! in-memory exporters installed. One trace follows each document from
//! `enqueue` through `extract_job` to every `embed_job`, with the fetch,
//! extract, chunk, embed, upsert and commit spans inside; the metrics count
//! documents by outcome and kind, chunks, tokens and failures by class.

use opentelemetry::trace::{SpanId, TraceId};
use opentelemetry_sdk::metrics::data::{AggregatedMetrics, MetricData, ResourceMetrics};
use opentelemetry_sdk::metrics::{InMemoryMetricExporter, PeriodicReader, SdkMeterProvider};
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider, SpanData};
use ragpipe_chunking::ChunkConfig;
use ragpipe_coordinator::{SyncOptions, sync_once};
use ragpipe_embed::{ModelFiles, ModelTokenizer, ModelVariant, OnnxEmbedder};
use ragpipe_embedder::{EmbedStage, Targets};
use ragpipe_extract::Limits;
use ragpipe_extractor::{ExtractStage, ExtractorConfig, Isolation};
use ragpipe_queue::{Activity, Handler, MemoryQueue, Topic};
use ragpipe_source::FolderSource;
use ragpipe_state::SqlStateStore;
use ragpipe_vectors::{CollectionSpec, EdgeStore};
use std::sync::Arc;
use tracing_subscriber::layer::SubscriberExt;

fn attr(span: &SpanData, key: &str) -> Option<String> {
    span.attributes.iter().find(|kv| kv.key.as_str() == key).map(|kv| kv.value.to_string())
}

/// Sum of a u64 counter's points whose attributes include all of `with`.
fn counter(metrics: &[ResourceMetrics], name: &str, with: &[(&str, &str)]) -> u64 {
    let mut total = 0;
    for rm in metrics {
        for scope in rm.scope_metrics() {
            for m in scope.metrics().filter(|m| m.name() == name) {
                if let AggregatedMetrics::U64(MetricData::Sum(sum)) = m.data() {
                    for p in sum.data_points() {
                        let has = |(k, v): &(&str, &str)| {
                            p.attributes().any(|kv| kv.key.as_str() == *k && kv.value.to_string() == *v)
                        };
                        if with.iter().all(has) {
                            total = p.value();
                        }
                    }
                }
            }
        }
    }
    total
}

fn histogram_count(metrics: &[ResourceMetrics], name: &str) -> u64 {
    let mut count = 0;
    for rm in metrics {
        for scope in rm.scope_metrics() {
            for m in scope.metrics().filter(|m| m.name() == name) {
                if let AggregatedMetrics::F64(MetricData::Histogram(h)) = m.data() {
                    count = h.data_points().map(|p| p.count()).sum();
                }
            }
        }
    }
    count
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_trace_follows_each_document_across_the_stages_and_metrics_are_recorded() {
    let spans = InMemorySpanExporter::default();
    let tracer = SdkTracerProvider::builder().with_simple_exporter(spans.clone()).build();
    let metric_exporter = InMemoryMetricExporter::default();
    let meter =
        SdkMeterProvider::builder().with_reader(PeriodicReader::builder(metric_exporter.clone()).build()).build();
    opentelemetry::global::set_meter_provider(meter.clone());
    let subscriber = tracing_subscriber::registry().with(ragpipe_telemetry::span_layer(&tracer, "ragpipe-test"));
    tracing::subscriber::set_global_default(subscriber).unwrap();

    let (folder, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let long: String =
        (0..12).map(|i| format!("## Pier {i}\n\nThe ferry calls at pier {i} twice a day.\n\n")).collect();
    std::fs::write(folder.path().join("ferries.md"), format!("# Ferries\n\n{long}")).unwrap();
    std::fs::write(folder.path().join("empty.txt"), "").unwrap();

    let files = ModelFiles::provisioned(ModelVariant::Fp32).expect("model provisioned: scripts/provision-model.sh");
    let embedder = Arc::new(OnnxEmbedder::load(&files, 0, 1).unwrap());
    let tokenizer = Arc::new(ModelTokenizer::load(&files).unwrap());
    let url = format!("sqlite://{}", data.path().join("state.db").display());
    let state = Arc::new(SqlStateStore::connect(&url).await.unwrap());
    let spec = CollectionSpec { model: "all-MiniLM-L6-v2".into(), dims: 384, pipeline_version: "test".into() };
    let vectors = Arc::new(EdgeStore::open(&data.path().join("vectors"), &spec).unwrap());
    let source = Arc::new(FolderSource::new(folder.path()).unwrap());
    let queue = Arc::new(MemoryQueue::new(64));
    let config = ExtractorConfig {
        max_bytes: 1 << 20,
        batch_size: 4,
        chunking: ChunkConfig { budget: 64, ..ChunkConfig::default() },
        limits: Limits::default(),
        isolation: Isolation::InProcess,
        max_attempts: 3,
        max_chunks: 10_000,
        asr: None,
        ocr: None,
    };
    let ports = ragpipe_extractor::Ports { source: source.clone(), state: state.clone(), counter: tokenizer };
    let extractor: Arc<dyn Handler> = Arc::new(ExtractStage::new(config, ports, queue.clone()));
    let targets = Arc::new(Targets::fixed(vectors, spec.clone()));
    let stage: Arc<dyn Handler> =
        Arc::new(EmbedStage::new(ragpipe_embedder::Ports { state: state.clone(), targets, embedder }));
    let report = sync_once(source.as_ref(), state.as_ref(), queue.as_ref(), SyncOptions::default()).await.unwrap();
    assert_eq!(report.new, 2);
    let consume = |handler: Arc<dyn Handler>| {
        let queue = queue.clone();
        tokio::spawn(async move {
            ragpipe_queue::consume(queue.as_ref(), handler.as_ref(), &Activity::default(), std::future::pending()).await
        })
    };
    let (ex, em) = (consume(extractor), consume(stage));
    queue.close(Topic::Extract);
    ex.await.unwrap().unwrap();
    queue.close(Topic::Embed);
    em.await.unwrap().unwrap();

    tracer.force_flush().unwrap();
    let spans = spans.get_finished_spans().unwrap();
    let named = |name: &str| -> Vec<&SpanData> { spans.iter().filter(|s| s.name == name).collect() };
    for name in ["enqueue", "extract_job", "fetch", "extract", "chunk", "embed_job", "embed", "upsert", "commit"] {
        assert!(
            !named(name).is_empty(),
            "no {name} span among {:?}",
            spans.iter().map(|s| &s.name).collect::<Vec<_>>()
        );
    }
    let enqueue = named("enqueue")
        .into_iter()
        .find(|s| attr(s, "document.uri").is_some_and(|u| u.ends_with("/ferries.md")))
        .expect("the document was enqueued in a span");
    let trace: TraceId = enqueue.span_context.trace_id();
    let doc_id = attr(enqueue, "document.id").unwrap();
    let in_trace = |name: &str| -> Vec<&SpanData> {
        named(name).into_iter().filter(|s| s.span_context.trace_id() == trace).collect()
    };
    let extract_job = in_trace("extract_job");
    assert_eq!(extract_job.len(), 1, "the extractor continued the coordinator's trace");
    let extract_job = extract_job[0];
    assert_eq!(extract_job.parent_span_id, enqueue.span_context.span_id());
    assert_eq!(attr(extract_job, "document.id").as_deref(), Some(doc_id.as_str()));
    assert_eq!(attr(extract_job, "kind").as_deref(), Some("markdown"));
    let chunks: usize = attr(extract_job, "chunks").unwrap().parse().unwrap();
    assert!(chunks > 4, "several embed batches: {chunks} chunks");
    for child in ["fetch", "extract", "chunk"] {
        let s = in_trace(child);
        assert!(s.iter().any(|s| s.parent_span_id == extract_job.span_context.span_id()), "{child} inside extract_job");
    }
    let embed_jobs = in_trace("embed_job");
    assert_eq!(embed_jobs.len(), chunks.div_ceil(4), "every batch's job continues the same trace");
    let job_ids: Vec<SpanId> = embed_jobs.iter().map(|s| s.span_context.span_id()).collect();
    assert!(embed_jobs.iter().all(|s| s.parent_span_id == extract_job.span_context.span_id()));
    for child in ["embed", "upsert"] {
        assert_eq!(in_trace(child).iter().filter(|s| job_ids.contains(&s.parent_span_id)).count(), embed_jobs.len());
    }
    assert_eq!(in_trace("commit").len(), 1, "the last batch commits the document");
    // The empty file failed inside its own trace, never reaching an embedder.
    let empty = named("extract_job").into_iter().find(|s| s.span_context.trace_id() != trace).unwrap();
    assert!(named("embed_job").iter().all(|s| s.span_context.trace_id() != empty.span_context.trace_id()));

    meter.force_flush().unwrap();
    let metrics = metric_exporter.get_finished_metrics().unwrap();
    assert_eq!(counter(&metrics, "ragpipe.documents", &[("outcome", "indexed"), ("kind", "markdown")]), 1);
    assert_eq!(counter(&metrics, "ragpipe.documents", &[("outcome", "failed"), ("kind", "text")]), 1);
    assert_eq!(counter(&metrics, "ragpipe.failures", &[("reason_class", "empty file"), ("stage", "extract")]), 1);
    assert_eq!(counter(&metrics, "ragpipe.chunks.embedded", &[]), chunks as u64);
    assert!(counter(&metrics, "ragpipe.tokens.embedded", &[]) > chunks as u64);
    assert_eq!(histogram_count(&metrics, "ragpipe.embed.batch.duration"), embed_jobs.len() as u64);
    assert_eq!(histogram_count(&metrics, "ragpipe.extract.duration"), 1);
}
