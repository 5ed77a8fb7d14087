//! Tracing and OpenTelemetry for every ragpipe process, set up in one place.
//!
//! Logs always go to stderr (`RAGPIPE_LOG` filters them). When an OTLP
//! endpoint is configured (`telemetry.otlp_endpoint`, or the standard
//! `OTEL_EXPORTER_OTLP_ENDPOINT`), spans and metrics are also exported over
//! OTLP/gRPC. One trace follows a document across processes: publishers put
//! the W3C `traceparent` of the current span into the message headers
//! ([`inject`]) and consumers continue it ([`continue_trace`]). Metric names
//! live in [`metrics`].

pub mod metrics;

use opentelemetry::propagation::TextMapPropagator;
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_sdk::metrics::SdkMeterProvider;
use opentelemetry_sdk::propagation::TraceContextPropagator;
use opentelemetry_sdk::trace::SdkTracerProvider;
use std::collections::HashMap;
use tracing_opentelemetry::OpenTelemetrySpanExt;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{EnvFilter, Layer, Registry};

/// Flushes and shuts the exporters down when dropped (end of `main`).
#[must_use = "dropping it shuts telemetry down"]
pub struct Telemetry {
    tracer: Option<SdkTracerProvider>,
    meter: Option<SdkMeterProvider>,
}

impl Drop for Telemetry {
    fn drop(&mut self) {
        if let Some(t) = self.tracer.take() {
            let _ = t.shutdown();
        }
        if let Some(m) = self.meter.take() {
            let _ = m.shutdown();
        }
    }
}

/// Installs the global subscriber: stderr logs, plus OTLP export of spans
/// and metrics to `otlp_endpoint` when given. Must run inside a tokio runtime
/// when exporting. An exporter that cannot be built is reported and skipped:
/// telemetry never stops the pipeline.
pub fn init(service: &'static str, otlp_endpoint: Option<&str>) -> Telemetry {
    let filter = EnvFilter::try_from_env("RAGPIPE_LOG").unwrap_or_else(|_| EnvFilter::new("warn,qdrant_edge=error"));
    let fmt = tracing_subscriber::fmt::layer().with_writer(std::io::stderr).with_filter(filter);
    let mut telemetry = Telemetry { tracer: None, meter: None };
    let mut problem = None;
    if let Some(endpoint) = otlp_endpoint {
        match exporters(service, endpoint) {
            Ok((tracer, meter)) => {
                opentelemetry::global::set_meter_provider(meter.clone());
                telemetry = Telemetry { tracer: Some(tracer), meter: Some(meter) };
            }
            Err(e) => problem = Some(e),
        }
    }
    let otel = telemetry.tracer.as_ref().map(|t| span_layer(t, service));
    Registry::default().with(fmt).with(otel).init();
    if let Some(e) = problem {
        tracing::error!(error = %e, "OTLP export disabled");
    }
    telemetry
}

/// The layer that turns `tracing` spans into OpenTelemetry spans of
/// `provider` (what [`init`] installs; tests pass an in-memory provider).
pub fn span_layer<S>(provider: &SdkTracerProvider, service: &'static str) -> impl Layer<S> + use<S>
where
    S: tracing::Subscriber + for<'a> tracing_subscriber::registry::LookupSpan<'a>,
{
    tracing_opentelemetry::layer().with_tracer(provider.tracer(service)).with_level(true)
}

fn exporters(service: &'static str, endpoint: &str) -> Result<(SdkTracerProvider, SdkMeterProvider), String> {
    use opentelemetry_otlp::WithExportConfig;
    let resource = opentelemetry_sdk::Resource::builder().with_service_name(service).build();
    let spans = opentelemetry_otlp::SpanExporter::builder()
        .with_tonic()
        .with_endpoint(endpoint)
        .build()
        .map_err(|e| format!("span exporter for {endpoint}: {e}"))?;
    let tracer = SdkTracerProvider::builder().with_batch_exporter(spans).with_resource(resource.clone()).build();
    let metrics = opentelemetry_otlp::MetricExporter::builder()
        .with_tonic()
        .with_endpoint(endpoint)
        .build()
        .map_err(|e| format!("metric exporter for {endpoint}: {e}"))?;
    let meter = SdkMeterProvider::builder().with_periodic_exporter(metrics).with_resource(resource).build();
    Ok((tracer, meter))
}

/// Message headers carrying the current span's trace context (W3C
/// `traceparent`/`tracestate`); empty when no span is being exported.
pub fn inject() -> Vec<(String, String)> {
    let mut carrier = HashMap::new();
    TraceContextPropagator::new().inject_context(&tracing::Span::current().context(), &mut carrier);
    carrier.into_iter().collect()
}

/// Makes `span` continue the trace whose context `headers` carry (a job
/// published by another process); no-op without one.
pub fn continue_trace(span: &tracing::Span, headers: &[(String, String)]) {
    if headers.is_empty() {
        return;
    }
    let carrier: HashMap<String, String> = headers.iter().cloned().collect();
    let parent = TraceContextPropagator::new().extract(&carrier);
    let _ = span.set_parent(parent);
}

/// Makes this thread's spans real OpenTelemetry spans (exported nowhere)
/// until the guard drops, so there is a trace context to carry: for tests
/// of code that propagates it.
pub fn traced_for_tests() -> tracing::subscriber::DefaultGuard {
    let provider = SdkTracerProvider::builder().build();
    let subscriber = Registry::default().with(span_layer(&provider, "ragpipe-test"));
    tracing::subscriber::set_default(subscriber)
}
