//! Every metric ragpipe records, named in one place. Instruments come from
//! the global meter provider, which records nothing until [`crate::init`]
//! (or a test) installs one.

use opentelemetry::KeyValue;
use opentelemetry::metrics::{Counter, Gauge, Histogram, Meter};
use std::sync::OnceLock;

pub struct Metrics {
    /// Documents that reached an outcome: `outcome` (indexed, failed), `kind`.
    pub documents: Counter<u64>,
    /// Failures by `reason_class` (the reason up to its first `:`) and `stage`.
    pub failures: Counter<u64>,
    pub chunks_embedded: Counter<u64>,
    pub tokens_embedded: Counter<u64>,
    /// Seconds per embed job (tokenise, infer, upsert), by `batch_size`.
    pub embed_batch_seconds: Histogram<f64>,
    /// Seconds to fetch, extract and chunk one document, by `kind`.
    pub extract_seconds: Histogram<f64>,
    /// Jobs handed back for a later delivery, by `topic`.
    pub retries: Counter<u64>,
    /// Jobs dead-lettered as poison, by `topic`.
    pub dead_letters: Counter<u64>,
    /// Messages waiting, by `topic` (sampled by the workers).
    pub queue_depth: Gauge<u64>,
}

/// The process's instruments (created on first use).
pub fn metrics() -> &'static Metrics {
    static METRICS: OnceLock<Metrics> = OnceLock::new();
    METRICS.get_or_init(|| Metrics::new(&opentelemetry::global::meter("ragpipe")))
}

impl Metrics {
    pub fn new(meter: &Meter) -> Metrics {
        Metrics {
            documents: meter.u64_counter("ragpipe.documents").with_description("documents by outcome and kind").build(),
            failures: meter.u64_counter("ragpipe.failures").with_description("failures by reason class").build(),
            chunks_embedded: meter.u64_counter("ragpipe.chunks.embedded").build(),
            tokens_embedded: meter.u64_counter("ragpipe.tokens.embedded").build(),
            embed_batch_seconds: meter.f64_histogram("ragpipe.embed.batch.duration").with_unit("s").build(),
            extract_seconds: meter.f64_histogram("ragpipe.extract.duration").with_unit("s").build(),
            retries: meter.u64_counter("ragpipe.retries").build(),
            dead_letters: meter.u64_counter("ragpipe.dead_letters").build(),
            queue_depth: meter.u64_gauge("ragpipe.queue.depth").build(),
        }
    }

    /// Counts a failed document under its stage and reason class.
    pub fn failed(&self, kind: Option<&'static str>, stage: &'static str, reason: &str) {
        let kind = kind.unwrap_or("unknown");
        self.documents.add(1, &[KeyValue::new("outcome", "failed"), KeyValue::new("kind", kind)]);
        let class = reason_class(reason);
        self.failures.add(1, &[KeyValue::new("reason_class", class), KeyValue::new("stage", stage)]);
    }
}

/// A reason's class: the part before its first `:` (`malformed PDF: …` →
/// `malformed PDF`), so the label's values stay few.
pub fn reason_class(reason: &str) -> String {
    let class = reason.split(':').next().unwrap_or(reason).trim();
    class.chars().take(60).collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn reason_classes_stay_few() {
        assert_eq!(super::reason_class("malformed PDF: bad xref at 1234"), "malformed PDF");
        assert_eq!(super::reason_class("encrypted PDF"), "encrypted PDF");
        assert_eq!(super::reason_class("file too large: 300 bytes exceeds …"), "file too large");
    }
}
