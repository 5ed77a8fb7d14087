//! The conformance suite every [`Queue`] adapter must pass.
//!
//! Stages are written against the trait, so the embedded queue and the broker
//! must agree on what they guarantee: at-least-once delivery, competing
//! consumers, explicit settlement, and redelivery of whatever a dead worker
//! held. Each check expects an empty queue of its own (a broker adapter gives
//! each check its own vhost or queue-name prefix) and never relies on
//! `close`, because a broker queue never closes. Checks panic on failure, like
//! any test, and bound every wait so a broken adapter fails instead of hanging.
//!
//! Ordering is not part of the contract (a broker requeues a retried message
//! at its old position, the memory queue at the back), so checks compare sets
//! of payloads. `Consumer::next` must be cancel-safe: stages race it against
//! shutdown, and these checks race it against a timer.
//!
//! Run the whole suite with [`queue_conformance!`](crate::queue_conformance).

use crate::{Consumer, Delivery, Queue, Topic};
use std::time::Duration;
use tokio::time::{Instant, sleep, timeout};

/// How long anything that should happen may take.
pub const PATIENCE: Duration = Duration::from_secs(10);
/// How long nothing must happen before "nothing more is delivered" holds.
pub const QUIET: Duration = Duration::from_millis(300);

/// Generates one `#[tokio::test]` per check. `$setup` is evaluated afresh in
/// each test (it may `.await`) and yields `(guard, queue)`: the guard is kept
/// alive for the test (a temp vhost, a container handle, `()`), the queue is
/// an empty adapter instance that accepts at least 16 messages without a
/// consumer (checks publish up to 10 before consuming).
#[macro_export]
macro_rules! queue_conformance {
    ($setup:expr) => {
        $crate::queue_conformance!(@checks $setup;
            publish_then_consume_delivers_payload,
            waiting_consumer_is_woken_by_publish,
            consumers_share_messages,
            ack_removes_message,
            retry_redelivers_with_count,
            reject_never_redelivers,
            unsettled_drop_redelivers,
            dead_worker_messages_reach_another_consumer,
            cancelled_next_loses_nothing,
            topics_are_independent,
            depth_counts_waiting_messages,
            trace_context_travels_with_the_message,
        );
    };
    (@checks $setup:expr; $($check:ident),* $(,)?) => {
        $(
            #[::tokio::test]
            async fn $check() {
                let (_guard, queue) = $setup;
                $crate::conformance::$check(&queue).await;
            }
        )*
    };
}

/// The next delivery, failing if none arrives in time or the consumer errs.
pub async fn receive(consumer: &mut dyn Consumer) -> Delivery {
    match timeout(PATIENCE, consumer.next()).await {
        Ok(Some(Ok(d))) => d,
        Ok(Some(Err(e))) => panic!("consumer failed: {e}"),
        Ok(None) => panic!("consumer ended on a queue that was never closed"),
        Err(_) => panic!("no delivery within {PATIENCE:?}"),
    }
}

/// Fails if anything is delivered within [`QUIET`].
pub async fn assert_quiet(consumer: &mut dyn Consumer, why: &str) {
    match timeout(QUIET, consumer.next()).await {
        Err(_) => {}
        Ok(Some(Ok(d))) => panic!("{why}: unexpected delivery {:?}", lossy(&d.payload)),
        Ok(Some(Err(e))) => panic!("{why}: consumer failed: {e}"),
        Ok(None) => panic!("{why}: consumer ended on a queue that was never closed"),
    }
}

/// Publishes a sentinel and requires it to be the only thing delivered: a
/// message wrongly kept by the queue would arrive first or alongside it.
async fn expect_only_sentinel(queue: &dyn Queue, consumer: &mut dyn Consumer, topic: Topic) {
    send(queue, topic, b"sentinel".to_vec()).await;
    let d = receive(consumer).await;
    assert_eq!(lossy(&d.payload), "sentinel", "a settled message came back");
    d.ack().await.unwrap();
    assert_quiet(consumer, "after the sentinel").await;
}

/// Waits until `depth` reports `want` (brokers update counters
/// asynchronously), failing with the last value seen.
pub async fn assert_depth(queue: &dyn Queue, topic: Topic, want: u64) {
    let deadline = Instant::now() + PATIENCE;
    loop {
        let got = queue.depth(topic).await.unwrap();
        if got == want {
            return;
        }
        assert!(Instant::now() < deadline, "depth of {} is {got}, expected {want}", topic.as_str());
        sleep(Duration::from_millis(20)).await;
    }
}

/// Publishes, failing instead of hanging if the adapter never confirms.
pub async fn send(queue: &dyn Queue, topic: Topic, payload: Vec<u8>) {
    match timeout(PATIENCE, queue.publish(topic, payload)).await {
        Ok(r) => r.unwrap(),
        Err(_) => panic!("publish to {} not confirmed within {PATIENCE:?}", topic.as_str()),
    }
}

fn lossy(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn sorted(mut v: Vec<Vec<u8>>) -> Vec<Vec<u8>> {
    v.sort();
    v
}

/// Payloads arrive byte for byte: binary with every byte value, empty, and
/// text; published before anyone consumes, so the queue must hold them.
pub async fn publish_then_consume_delivers_payload(queue: &dyn Queue) {
    let binary: Vec<u8> = (0..64 * 1024).map(|i| (i % 256) as u8).collect();
    let sent = vec![binary, Vec::new(), br#"{"schema_version":1}"#.to_vec()];
    for p in &sent {
        send(queue, Topic::Extract, p.clone()).await;
    }
    let mut consumer = queue.consume(Topic::Extract).await.unwrap();
    let mut got = Vec::new();
    for _ in 0..sent.len() {
        let d = receive(consumer.as_mut()).await;
        assert_eq!(d.redeliveries, 0, "first delivery counts no redeliveries");
        got.push(d.payload.clone());
        d.ack().await.unwrap();
    }
    assert_eq!(sorted(got), sorted(sent));
    assert_quiet(consumer.as_mut(), "every message was acked").await;
}

/// A consumer already waiting on an empty topic receives a later publish.
pub async fn waiting_consumer_is_woken_by_publish(queue: &dyn Queue) {
    let mut consumer = queue.consume(Topic::Embed).await.unwrap();
    let publish = async {
        sleep(Duration::from_millis(50)).await;
        send(queue, Topic::Embed, b"late".to_vec()).await;
    };
    let (d, ()) = tokio::join!(receive(consumer.as_mut()), publish);
    assert_eq!(d.payload, b"late");
    d.ack().await.unwrap();
}

/// Competing consumers: a consumer holding an unsettled delivery does not
/// stop another from receiving, and every message is delivered exactly once
/// across them when all are acked.
pub async fn consumers_share_messages(queue: &dyn Queue) {
    let mut first = queue.consume(Topic::Extract).await.unwrap();
    let mut second = queue.consume(Topic::Extract).await.unwrap();
    let sent: Vec<Vec<u8>> = (0..10).map(|i| format!("m{i}").into_bytes()).collect();
    for p in &sent {
        send(queue, Topic::Extract, p.clone()).await;
    }
    let held = receive(first.as_mut()).await;
    let other = receive(second.as_mut()).await;
    assert_ne!(held.payload, other.payload, "one message went to both consumers");
    let mut got = vec![held.payload.clone(), other.payload.clone()];
    held.ack().await.unwrap();
    other.ack().await.unwrap();

    let drain = |mut c: Box<dyn Consumer>| {
        tokio::spawn(async move {
            let mut out = Vec::new();
            while let Ok(Some(Ok(d))) = timeout(QUIET, c.next()).await {
                out.push(d.payload.clone());
                d.ack().await.unwrap();
            }
            out
        })
    };
    let (a, b) = (drain(first), drain(second));
    got.extend(a.await.unwrap());
    got.extend(b.await.unwrap());
    assert_eq!(sorted(got), sorted(sent), "each message exactly once");
}

/// An acked message is gone, for this consumer and for a new one.
pub async fn ack_removes_message(queue: &dyn Queue) {
    send(queue, Topic::Extract, b"done".to_vec()).await;
    let mut consumer = queue.consume(Topic::Extract).await.unwrap();
    receive(consumer.as_mut()).await.ack().await.unwrap();
    drop(consumer);
    let mut fresh = queue.consume(Topic::Extract).await.unwrap();
    expect_only_sentinel(queue, fresh.as_mut(), Topic::Extract).await;
    assert_depth(queue, Topic::Extract, 0).await;
}

/// `retry` delivers the same payload again, counting each redelivery.
pub async fn retry_redelivers_with_count(queue: &dyn Queue) {
    send(queue, Topic::Embed, b"flaky".to_vec()).await;
    let mut consumer = queue.consume(Topic::Embed).await.unwrap();
    for expected in 0..3 {
        let d = receive(consumer.as_mut()).await;
        assert_eq!(d.payload, b"flaky");
        assert_eq!(d.redeliveries, expected, "redeliveries counts earlier deliveries");
        d.retry().await.unwrap();
    }
    let d = receive(consumer.as_mut()).await;
    assert_eq!((d.payload.as_slice(), d.redeliveries), (&b"flaky"[..], 3));
    d.ack().await.unwrap();
    expect_only_sentinel(queue, consumer.as_mut(), Topic::Embed).await;
}

/// The publisher's trace context (W3C `traceparent`) arrives with the
/// message, and again with its retried copy, so the consumer continues the
/// same trace.
pub async fn trace_context_travels_with_the_message(queue: &dyn Queue) {
    use tracing::Instrument;
    let _traced = ragpipe_telemetry::traced_for_tests();
    let span = tracing::info_span!("publisher");
    let sent = span.in_scope(ragpipe_telemetry::inject);
    let traceparent = sent.iter().find(|(k, _)| k == "traceparent").expect("a span has a trace context").clone();
    send(queue, Topic::Extract, b"traced".to_vec()).instrument(span).await;
    let mut consumer = queue.consume(Topic::Extract).await.unwrap();
    let d = receive(consumer.as_mut()).await;
    assert!(d.headers.contains(&traceparent), "{:?} lacks {traceparent:?}", d.headers);
    d.retry().await.unwrap();
    let again = receive(consumer.as_mut()).await;
    assert!(again.headers.contains(&traceparent), "the retried copy keeps the trace: {:?}", again.headers);
    again.ack().await.unwrap();
    expect_only_sentinel(queue, consumer.as_mut(), Topic::Extract).await;
}

/// A rejected (poison) message never comes back, and the consumer keeps
/// working afterwards.
pub async fn reject_never_redelivers(queue: &dyn Queue) {
    send(queue, Topic::Extract, b"poison".to_vec()).await;
    let mut consumer = queue.consume(Topic::Extract).await.unwrap();
    let d = receive(consumer.as_mut()).await;
    assert_eq!(d.payload, b"poison");
    d.reject("unparseable").await.unwrap();
    expect_only_sentinel(queue, consumer.as_mut(), Topic::Extract).await;
    assert_depth(queue, Topic::Extract, 0).await;
}

/// A delivery dropped without settling (its task panicked) is delivered
/// again, counted as a redelivery.
pub async fn unsettled_drop_redelivers(queue: &dyn Queue) {
    send(queue, Topic::Embed, b"orphan".to_vec()).await;
    let mut consumer = queue.consume(Topic::Embed).await.unwrap();
    drop(receive(consumer.as_mut()).await);
    let d = receive(consumer.as_mut()).await;
    assert_eq!((d.payload.as_slice(), d.redeliveries), (&b"orphan"[..], 1));
    d.ack().await.unwrap();
    assert_quiet(consumer.as_mut(), "the redelivery was acked").await;
}

/// A worker that dies (consumer gone, delivery unsettled) loses nothing: a
/// new consumer receives what it held.
pub async fn dead_worker_messages_reach_another_consumer(queue: &dyn Queue) {
    send(queue, Topic::Extract, b"held".to_vec()).await;
    let mut worker = queue.consume(Topic::Extract).await.unwrap();
    let d = receive(worker.as_mut()).await;
    drop(worker);
    drop(d);
    let mut survivor = queue.consume(Topic::Extract).await.unwrap();
    let again = receive(survivor.as_mut()).await;
    assert_eq!(again.payload, b"held");
    assert!(again.redeliveries >= 1, "a redelivery is counted");
    again.ack().await.unwrap();
}

/// Abandoning a pending `next()` (a shutdown race) loses no message.
pub async fn cancelled_next_loses_nothing(queue: &dyn Queue) {
    let mut consumer = queue.consume(Topic::Embed).await.unwrap();
    assert!(timeout(Duration::from_millis(50), consumer.next()).await.is_err(), "nothing was published yet");
    send(queue, Topic::Embed, b"after".to_vec()).await;
    let d = receive(consumer.as_mut()).await;
    assert_eq!((d.payload.as_slice(), d.redeliveries), (&b"after"[..], 0));
    d.ack().await.unwrap();
}

/// A message goes only to consumers of the topic it was published to.
pub async fn topics_are_independent(queue: &dyn Queue) {
    send(queue, Topic::Extract, b"for extract".to_vec()).await;
    let mut embed = queue.consume(Topic::Embed).await.unwrap();
    expect_only_sentinel(queue, embed.as_mut(), Topic::Embed).await;
    let mut extract = queue.consume(Topic::Extract).await.unwrap();
    let d = receive(extract.as_mut()).await;
    assert_eq!(d.payload, b"for extract");
    d.ack().await.unwrap();
}

/// `depth` counts messages waiting on a topic, not on others, and stops
/// counting a message once it is delivered.
pub async fn depth_counts_waiting_messages(queue: &dyn Queue) {
    assert_depth(queue, Topic::Extract, 0).await;
    for i in 0..3 {
        send(queue, Topic::Extract, vec![i]).await;
    }
    assert_depth(queue, Topic::Extract, 3).await;
    assert_depth(queue, Topic::Embed, 0).await;
    let mut consumer = queue.consume(Topic::Extract).await.unwrap();
    let d = receive(consumer.as_mut()).await;
    // A broker may already have pushed more to this consumer's prefetch
    // buffer, so only an upper bound is portable.
    let waiting = queue.depth(Topic::Extract).await.unwrap();
    assert!(waiting <= 2, "a delivered message still counts as waiting ({waiting})");
    d.ack().await.unwrap();
    for _ in 0..2 {
        receive(consumer.as_mut()).await.ack().await.unwrap();
    }
    assert_depth(queue, Topic::Extract, 0).await;
}
