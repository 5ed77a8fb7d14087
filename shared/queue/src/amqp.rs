//! The distributed queue: RabbitMQ through `lapin`.
//!
//! Per topic `T` (named `{namespace}.{topic}`):
//! - `T`: a durable quorum queue; messages are persistent and every publish
//!   waits for the broker's confirm, so `publish` returning `Ok` means stored.
//! - `T.retry`: a durable queue without consumers. A retried message is
//!   republished there with a per-message TTL (the retry delay) and
//!   dead-letters back into `T` when it expires.
//! - `T.dead`: poison messages, with the reason in the `x-ragpipe-reason` header.
//!
//! Consumers ack manually and only after the caller settles, with a prefetch
//! (QoS) bound per consumer. A delivery dropped unsettled is nacked with
//! requeue, and a consumer whose connection dies has its unacked messages
//! redelivered by the broker: nothing is lost, so handlers must be idempotent.

use crate::{Acker, Consumer, Delivery, Headers, Queue, QueueError, Settle, Topic};
use async_trait::async_trait;
use futures::StreamExt;
use lapin::Confirmation;
use lapin::options::{
    BasicAckOptions, BasicConsumeOptions, BasicNackOptions, BasicPublishOptions, BasicQosOptions, ConfirmSelectOptions,
    QueueDeclareOptions,
};
use lapin::types::{AMQPValue, FieldTable, ShortString};
use lapin::{BasicProperties, Channel, Connection, ConnectionProperties};
use std::future::Future;
use std::sync::Mutex;
use std::time::Duration;

/// Header counting how many times ragpipe itself retried a message.
const RETRIES: &str = "x-ragpipe-retries";
const REASON: &str = "x-ragpipe-reason";

#[derive(Debug, Clone)]
pub struct AmqpOptions {
    /// Prefix of every queue name, so several deployments (or tests) can share a broker.
    pub namespace: String,
    /// Unacked messages a consumer may hold.
    pub prefetch: u16,
    /// How long a retried message waits before it is delivered again.
    pub retry_delay: Duration,
}

impl Default for AmqpOptions {
    fn default() -> Self {
        AmqpOptions { namespace: "ragpipe".into(), prefetch: 8, retry_delay: Duration::from_secs(5) }
    }
}

/// A RabbitMQ-backed [`Queue`].
pub struct AmqpQueue {
    connection: Connection,
    publisher: Channel,
    options: AmqpOptions,
}

fn conn_err(e: impl std::fmt::Display) -> QueueError {
    QueueError::Connection(e.to_string())
}

impl AmqpQueue {
    /// Connects, enables publisher confirms and declares the topology.
    pub async fn connect(url: &str, options: AmqpOptions) -> Result<Self, QueueError> {
        let connection = Connection::connect(url, ConnectionProperties::default()).await.map_err(conn_err)?;
        let publisher = connection.create_channel().await.map_err(conn_err)?;
        publisher.confirm_select(ConfirmSelectOptions::default()).await.map_err(conn_err)?;
        let queue = AmqpQueue { connection, publisher, options };
        for topic in Topic::ALL {
            queue.declare(topic).await?;
        }
        Ok(queue)
    }

    fn name(&self, topic: Topic, suffix: &str) -> String {
        let base = topic.as_str().trim_start_matches("ragpipe.");
        format!("{}.{base}{suffix}", self.options.namespace)
    }

    async fn declare(&self, topic: Topic) -> Result<(), QueueError> {
        let main = self.name(topic, "");
        let durable = QueueDeclareOptions { durable: true, ..Default::default() };
        let mut quorum = FieldTable::default();
        quorum.insert("x-queue-type".into(), AMQPValue::LongString("quorum".into()));
        self.publisher.queue_declare(main.as_str().into(), durable, quorum.clone()).await.map_err(conn_err)?;
        let mut retry = FieldTable::default();
        retry.insert("x-dead-letter-exchange".into(), AMQPValue::LongString("".into()));
        retry.insert("x-dead-letter-routing-key".into(), AMQPValue::LongString(main.as_str().into()));
        let retry_name = self.name(topic, ".retry");
        self.publisher.queue_declare(retry_name.as_str().into(), durable, retry).await.map_err(conn_err)?;
        let dead = self.name(topic, ".dead");
        self.publisher.queue_declare(dead.as_str().into(), durable, quorum).await.map_err(conn_err)?;
        Ok(())
    }

    /// Messages waiting in a topic's dead-letter queue.
    pub async fn dead_letters(&self, topic: Topic) -> Result<u64, QueueError> {
        self.count(&self.name(topic, ".dead")).await
    }

    async fn count(&self, queue: &str) -> Result<u64, QueueError> {
        let passive = QueueDeclareOptions { passive: true, ..Default::default() };
        let q = self.publisher.queue_declare(queue.into(), passive, FieldTable::default()).await.map_err(conn_err)?;
        Ok(u64::from(q.message_count()))
    }

    /// Deletes this namespace's queues (tests, or tearing a deployment down).
    pub async fn delete_topology(&self) -> Result<(), QueueError> {
        for topic in Topic::ALL {
            for suffix in ["", ".retry", ".dead"] {
                let name = self.name(topic, suffix);
                let opts = lapin::options::QueueDeleteOptions::default();
                self.publisher.queue_delete(name.as_str().into(), opts).await.map_err(conn_err)?;
            }
        }
        Ok(())
    }

    pub async fn close(&self) {
        let _ = self.connection.close(200, "bye".into()).await;
    }
}

/// Properties carrying the current span's trace context (W3C headers).
fn traced() -> BasicProperties {
    let mut headers = FieldTable::default();
    for (k, v) in ragpipe_telemetry::inject() {
        headers.insert(k.into(), AMQPValue::LongString(v.into()));
    }
    BasicProperties::default().with_headers(headers)
}

/// The longest a publish waits for the broker's confirm, or an ack for the
/// broker to take it. A connection that died half-way (a broker restart, a
/// cut network) can leave either waiting forever; past this, the call fails
/// as a lost connection, the worker reconnects, and the broker redelivers
/// whatever was not acked.
pub const BROKER_TIMEOUT: Duration = Duration::from_secs(30);

/// Runs one broker round trip under [`BROKER_TIMEOUT`].
async fn bounded<T>(what: &str, call: impl Future<Output = Result<T, QueueError>>) -> Result<T, QueueError> {
    match tokio::time::timeout(BROKER_TIMEOUT, call).await {
        Ok(result) => result,
        Err(_) => Err(QueueError::Connection(format!("the broker did not answer {what} in {BROKER_TIMEOUT:?}"))),
    }
}

/// Publishes persistently and waits for the broker's confirm.
async fn publish(channel: &Channel, queue: &str, payload: &[u8], props: BasicProperties) -> Result<(), QueueError> {
    let props = props.with_delivery_mode(2).with_content_type("application/json".into());
    let confirm = bounded(&format!("a publish to {queue}"), async {
        channel
            .basic_publish("".into(), queue.into(), BasicPublishOptions::default(), payload, props)
            .await
            .map_err(conn_err)?
            .await
            .map_err(conn_err)
    })
    .await?;
    match confirm {
        Confirmation::Ack(_) => Ok(()),
        other => Err(QueueError::Connection(format!("broker did not confirm the publish to {queue}: {other:?}"))),
    }
}

#[async_trait]
impl Queue for AmqpQueue {
    async fn publish(&self, topic: Topic, payload: Vec<u8>) -> Result<(), QueueError> {
        publish(&self.publisher, &self.name(topic, ""), &payload, traced()).await
    }

    /// Sends every message, then waits for the broker's confirms: one round
    /// trip for the lot instead of one per message.
    async fn publish_many(&self, topic: Topic, messages: Vec<(Vec<u8>, tracing::Span)>) -> Result<(), QueueError> {
        let queue = self.name(topic, "");
        let mut confirms = Vec::with_capacity(messages.len());
        for (payload, span) in messages {
            let props = span.in_scope(traced).with_delivery_mode(2).with_content_type("application/json".into());
            let publish =
                self.publisher.basic_publish("".into(), queue.as_str().into(), Default::default(), &payload, props);
            confirms.push(bounded(&format!("a publish to {queue}"), async { publish.await.map_err(conn_err) }).await?);
        }
        for confirm in confirms {
            match bounded(&format!("a publish to {queue}"), async { confirm.await.map_err(conn_err) }).await? {
                Confirmation::Ack(_) => {}
                other => {
                    return Err(QueueError::Connection(format!(
                        "broker did not confirm a publish to {queue}: {other:?}"
                    )));
                }
            }
        }
        Ok(())
    }

    async fn consume(&self, topic: Topic) -> Result<Box<dyn Consumer>, QueueError> {
        let channel = self.connection.create_channel().await.map_err(conn_err)?;
        channel.confirm_select(ConfirmSelectOptions::default()).await.map_err(conn_err)?;
        channel.basic_qos(self.options.prefetch, BasicQosOptions::default()).await.map_err(conn_err)?;
        let queue = self.name(topic, "");
        let consumer = channel
            .basic_consume(queue.as_str().into(), "".into(), BasicConsumeOptions::default(), FieldTable::default())
            .await
            .map_err(conn_err)?;
        Ok(Box::new(AmqpConsumer {
            consumer,
            channel,
            retry_queue: self.name(topic, ".retry"),
            dead_queue: self.name(topic, ".dead"),
            retry_delay: self.options.retry_delay,
        }))
    }

    async fn depth(&self, topic: Topic) -> Result<u64, QueueError> {
        self.count(&self.name(topic, "")).await
    }
}

struct AmqpConsumer {
    consumer: lapin::Consumer,
    channel: Channel,
    retry_queue: String,
    dead_queue: String,
    retry_delay: Duration,
}

/// The W3C trace context headers a publisher set.
fn trace_headers(props: &BasicProperties) -> Headers {
    let Some(headers) = props.headers().as_ref() else { return Headers::new() };
    ["traceparent", "tracestate"]
        .into_iter()
        .filter_map(|key| match headers.inner().get(&ShortString::from(key)) {
            Some(AMQPValue::LongString(v)) => Some((key.to_string(), v.to_string())),
            _ => None,
        })
        .collect()
}

fn header_i64(props: &BasicProperties, key: &str) -> i64 {
    let headers = props.headers().as_ref();
    match headers.and_then(|h| h.inner().get(&ShortString::from(key))) {
        Some(AMQPValue::LongLongInt(n)) => *n,
        Some(AMQPValue::LongInt(n)) => i64::from(*n),
        Some(AMQPValue::LongUInt(n)) => i64::from(*n),
        _ => 0,
    }
}

#[async_trait]
impl Consumer for AmqpConsumer {
    async fn next(&mut self) -> Option<Result<Delivery, QueueError>> {
        let d = match self.consumer.next().await? {
            Ok(d) => d,
            Err(e) => return Some(Err(conn_err(e))),
        };
        // Retries we made, plus broker redeliveries (quorum queues count them).
        let retries = header_i64(&d.properties, RETRIES);
        let broker = header_i64(&d.properties, "x-delivery-count").max(i64::from(d.redelivered));
        let trace = trace_headers(&d.properties);
        let acker = AmqpAcker {
            inner: Mutex::new(Some(d.acker.clone())),
            channel: self.channel.clone(),
            payload: d.data.clone(),
            trace: trace.clone(),
            retries,
            retry_queue: self.retry_queue.clone(),
            dead_queue: self.dead_queue.clone(),
            retry_delay: self.retry_delay,
        };
        Some(Ok(Delivery::new(d.data, (retries + broker) as u32, Box::new(acker)).with_headers(trace)))
    }
}

struct AmqpAcker {
    /// `Some` until settled; dropping an unsettled delivery requeues it.
    inner: Mutex<Option<lapin::Acker>>,
    channel: Channel,
    payload: Vec<u8>,
    /// The trace context, kept on the copy a retry republishes.
    trace: Headers,
    retries: i64,
    retry_queue: String,
    dead_queue: String,
    retry_delay: Duration,
}

impl AmqpAcker {
    fn take(&self) -> Option<lapin::Acker> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner()).take()
    }
}

#[async_trait]
impl Acker for AmqpAcker {
    async fn settle(&self, how: Settle) -> Result<(), QueueError> {
        let Some(acker) = self.take() else { return Ok(()) };
        // A copy goes to the retry or dead queue first; only when the broker
        // confirmed it is the original acked, so a crash in between duplicates
        // (harmless: handlers are idempotent) but never loses.
        match how {
            Settle::Ack => {}
            Settle::Retry => {
                let mut headers = FieldTable::default();
                headers.insert(RETRIES.into(), AMQPValue::LongLongInt(self.retries + 1));
                for (k, v) in &self.trace {
                    headers.insert(k.as_str().into(), AMQPValue::LongString(v.as_str().into()));
                }
                let props = BasicProperties::default()
                    .with_headers(headers)
                    .with_expiration(self.retry_delay.as_millis().to_string().into());
                publish(&self.channel, &self.retry_queue, &self.payload, props).await?;
            }
            Settle::Reject(reason) => {
                let mut headers = FieldTable::default();
                headers.insert(REASON.into(), AMQPValue::LongString(reason.into()));
                let props = BasicProperties::default().with_headers(headers);
                publish(&self.channel, &self.dead_queue, &self.payload, props).await?;
            }
        }
        bounded("an ack", async { acker.ack(BasicAckOptions::default()).await.map_err(conn_err) }).await?;
        Ok(())
    }
}

impl Drop for AmqpAcker {
    fn drop(&mut self) {
        if let Some(acker) = self.take() {
            // Requeue now rather than waiting for the channel to close.
            if let Ok(handle) = tokio::runtime::Handle::try_current() {
                handle.spawn(async move {
                    let _ = acker.nack(BasicNackOptions { requeue: true, ..Default::default() }).await;
                });
            }
        }
    }
}
