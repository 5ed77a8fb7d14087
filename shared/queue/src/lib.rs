//! The `Queue` port: at-least-once delivery of job messages between stages.
//!
//! A consumer receives [`Delivery`]s and must settle each one: `ack` after the
//! state change it caused has committed, `retry` to have it delivered again,
//! or `reject` for a poison message. A message that is never settled (the
//! worker died) is delivered again. The embedded adapter keeps messages in
//! memory with a bound (backpressure); the distributed one uses RabbitMQ.
//! Both must pass the suite in [`conformance`].

mod amqp;
#[cfg(feature = "testsuite")]
pub mod conformance;
mod consume;
mod memory;

pub use amqp::{AmqpOptions, AmqpQueue};
pub use consume::{Activity, Handler, Outcome, consume};
pub use memory::MemoryQueue;

use async_trait::async_trait;

/// The queues of the pipeline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Topic {
    /// Coordinator -> extractor.
    Extract,
    /// Extractor -> its transcribing workers: extract jobs of media to be
    /// transcribed, which take minutes each, moved off the extract queue so
    /// they never hold up the documents behind them.
    Transcribe,
    /// Extractor -> embedder (embed batches and deletes).
    Embed,
}

impl Topic {
    /// Every queue, in pipeline order (the order they are closed in).
    pub const ALL: [Topic; 3] = [Topic::Extract, Topic::Transcribe, Topic::Embed];

    pub fn as_str(self) -> &'static str {
        match self {
            Topic::Extract => "ragpipe.extract",
            Topic::Transcribe => "ragpipe.transcribe",
            Topic::Embed => "ragpipe.embed",
        }
    }

    /// The short name reports use (`extract`, `transcribe`, `embed`).
    pub fn short_name(self) -> &'static str {
        self.as_str().trim_start_matches("ragpipe.")
    }
}

#[derive(Debug, thiserror::Error)]
pub enum QueueError {
    #[error("queue {0} is closed")]
    Closed(&'static str),
    #[error("queue connection: {0}")]
    Connection(String),
}

impl QueueError {
    /// Whether trying again later can succeed.
    pub fn is_retryable(&self) -> bool {
        matches!(self, QueueError::Connection(_))
    }
}

/// How a delivery was settled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Settle {
    Ack,
    /// Deliver again later (transient failure).
    Retry,
    /// Never deliver again (poison); the reason is kept for the dead-letter record.
    Reject(String),
}

/// Settles one delivery on the adapter that produced it.
#[async_trait]
pub trait Acker: Send + Sync {
    async fn settle(&self, how: Settle) -> Result<(), QueueError>;
}

/// Message headers: the publisher's trace context (`traceparent`, `tracestate`).
pub type Headers = Vec<(String, String)>;

/// One received message.
pub struct Delivery {
    pub payload: Vec<u8>,
    /// How many times this message was delivered before (0 on first delivery).
    pub redeliveries: u32,
    /// The trace context its publisher sent (continue it with
    /// `ragpipe_telemetry::continue_trace`).
    pub headers: Headers,
    acker: Box<dyn Acker>,
}

impl Delivery {
    pub fn new(payload: Vec<u8>, redeliveries: u32, acker: Box<dyn Acker>) -> Self {
        Delivery { payload, redeliveries, headers: Headers::new(), acker }
    }

    pub fn with_headers(mut self, headers: Headers) -> Self {
        self.headers = headers;
        self
    }

    pub async fn ack(self) -> Result<(), QueueError> {
        self.acker.settle(Settle::Ack).await
    }

    pub async fn retry(self) -> Result<(), QueueError> {
        ragpipe_telemetry::metrics::metrics().retries.add(1, &[]);
        self.acker.settle(Settle::Retry).await
    }

    pub async fn reject(self, reason: impl Into<String>) -> Result<(), QueueError> {
        ragpipe_telemetry::metrics::metrics().dead_letters.add(1, &[]);
        self.acker.settle(Settle::Reject(reason.into())).await
    }
}

/// A stream of deliveries from one topic.
#[async_trait]
pub trait Consumer: Send {
    /// The next delivery; `None` once the queue is closed and drained (the
    /// embedded queue closes when its producers are done; a broker queue never
    /// closes on its own).
    async fn next(&mut self) -> Option<Result<Delivery, QueueError>>;
}

/// Publishes and consumes job messages.
#[async_trait]
pub trait Queue: Send + Sync {
    /// Publishes durably: when this returns `Ok`, the message will be delivered.
    async fn publish(&self, topic: Topic, payload: Vec<u8>) -> Result<(), QueueError>;
    /// Publishes several messages, each under its own span (whose trace a
    /// broker carries on), and returns once all are durable. An adapter may
    /// send them all before waiting for the broker's confirms (one round
    /// trip for the lot, not one each). On an error some may have gone out:
    /// publishing them again is safe, every consumer being idempotent.
    async fn publish_many(&self, topic: Topic, messages: Vec<(Vec<u8>, tracing::Span)>) -> Result<(), QueueError> {
        for (payload, span) in messages {
            tracing::Instrument::instrument(self.publish(topic, payload), span).await?;
        }
        Ok(())
    }
    /// Starts consuming a topic. Several consumers of a topic share its messages.
    async fn consume(&self, topic: Topic) -> Result<Box<dyn Consumer>, QueueError>;
    /// Messages waiting (not yet delivered) on a topic.
    async fn depth(&self, topic: Topic) -> Result<u64, QueueError>;
}
