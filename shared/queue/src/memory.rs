//! The embedded queue: bounded in-memory topics inside one process.
//!
//! Publishing waits while a topic holds `capacity` undelivered messages, or
//! `max_bytes` of messages waiting or being processed, so a fast producer
//! cannot run ahead of slow consumers and a run of large messages cannot
//! fill memory (a message alone larger than the bound still passes, once
//! the topic is empty, so nothing can wait forever). A delivery that is
//! dropped unsettled (its task panicked) goes back to the queue, as a broker
//! would redeliver after a lost connection. A topic is `close`d by the owner
//! once its producers are done; consumers then drain it and see `None` only
//! when nothing is left and nothing is in flight that could come back.

use crate::{Acker, Consumer, Delivery, Headers, Queue, QueueError, Settle, Topic};
use async_trait::async_trait;
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use tokio::sync::Notify;

#[derive(Default)]
struct TopicState {
    /// Payload, redeliveries so far, trace headers.
    ready: VecDeque<(Vec<u8>, u32, Headers)>,
    in_flight: usize,
    /// Payload bytes ready or in flight: what the topic keeps alive.
    bytes: usize,
    closed: bool,
    dead: Vec<(Vec<u8>, String)>,
}

struct TopicQueue {
    name: &'static str,
    state: Mutex<TopicState>,
    /// Signalled on every change a waiter may care about.
    changed: Notify,
}

impl TopicQueue {
    fn lock(&self) -> std::sync::MutexGuard<'_, TopicState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// Bounded in-process queue; cheap to clone (shared topics).
#[derive(Clone)]
pub struct MemoryQueue {
    topics: Arc<HashMap<Topic, Arc<TopicQueue>>>,
    capacity: usize,
    max_bytes: usize,
}

impl MemoryQueue {
    pub fn new(capacity: usize) -> Self {
        let topics = Topic::ALL
            .into_iter()
            .map(|t| (t, Arc::new(TopicQueue { name: t.as_str(), state: Mutex::default(), changed: Notify::new() })))
            .collect();
        MemoryQueue { topics: Arc::new(topics), capacity: capacity.max(1), max_bytes: usize::MAX }
    }

    /// Bounds each topic's waiting and in-flight payloads to `max_bytes`.
    pub fn with_max_bytes(mut self, max_bytes: u64) -> Self {
        self.max_bytes = usize::try_from(max_bytes).unwrap_or(usize::MAX).max(1);
        self
    }

    fn topic(&self, topic: Topic) -> &Arc<TopicQueue> {
        &self.topics[&topic]
    }

    /// No more messages will be published to `topic`.
    pub fn close(&self, topic: Topic) {
        let q = self.topic(topic);
        q.lock().closed = true;
        q.changed.notify_waiters();
    }

    /// Messages rejected as poison, with their reasons.
    pub fn dead_letters(&self, topic: Topic) -> Vec<(Vec<u8>, String)> {
        self.topic(topic).lock().dead.clone()
    }
}

#[async_trait]
impl Queue for MemoryQueue {
    async fn publish(&self, topic: Topic, payload: Vec<u8>) -> Result<(), QueueError> {
        let q = self.topic(topic);
        loop {
            let notified = q.changed.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            {
                let mut st = q.lock();
                if st.closed {
                    return Err(QueueError::Closed(q.name));
                }
                let room = st.bytes == 0 || st.bytes.saturating_add(payload.len()) <= self.max_bytes;
                if st.ready.len() < self.capacity && room {
                    st.bytes += payload.len();
                    st.ready.push_back((payload, 0, ragpipe_telemetry::inject()));
                    drop(st);
                    q.changed.notify_waiters();
                    return Ok(());
                }
            }
            notified.await;
        }
    }

    async fn consume(&self, topic: Topic) -> Result<Box<dyn Consumer>, QueueError> {
        Ok(Box::new(MemoryConsumer { queue: Arc::clone(self.topic(topic)) }))
    }

    async fn depth(&self, topic: Topic) -> Result<u64, QueueError> {
        Ok(self.topic(topic).lock().ready.len() as u64)
    }
}

struct MemoryConsumer {
    queue: Arc<TopicQueue>,
}

#[async_trait]
impl Consumer for MemoryConsumer {
    async fn next(&mut self) -> Option<Result<Delivery, QueueError>> {
        let q = &self.queue;
        loop {
            let notified = q.changed.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            {
                let mut st = q.lock();
                if let Some((payload, redeliveries, headers)) = st.ready.pop_front() {
                    st.in_flight += 1;
                    drop(st);
                    q.changed.notify_waiters();
                    let kept = Mutex::new(Some((payload.clone(), headers.clone())));
                    let acker = MemoryAcker { queue: Arc::clone(q), payload: kept, redeliveries };
                    return Some(Ok(Delivery::new(payload, redeliveries, Box::new(acker)).with_headers(headers)));
                }
                if st.closed && st.in_flight == 0 {
                    return None;
                }
            }
            notified.await;
        }
    }
}

struct MemoryAcker {
    queue: Arc<TopicQueue>,
    /// `Some` until settled; a drop while still `Some` requeues.
    payload: Mutex<Option<(Vec<u8>, Headers)>>,
    redeliveries: u32,
}

impl MemoryAcker {
    fn settle_now(&self, how: Settle) {
        let Some((payload, headers)) = self.payload.lock().unwrap_or_else(|p| p.into_inner()).take() else {
            return;
        };
        let mut st = self.queue.lock();
        st.in_flight -= 1;
        match how {
            Settle::Ack => st.bytes -= payload.len(),
            Settle::Retry => st.ready.push_back((payload, self.redeliveries + 1, headers)),
            Settle::Reject(reason) => {
                st.bytes -= payload.len();
                st.dead.push((payload, reason));
            }
        }
        drop(st);
        self.queue.changed.notify_waiters();
    }
}

#[async_trait]
impl Acker for MemoryAcker {
    async fn settle(&self, how: Settle) -> Result<(), QueueError> {
        self.settle_now(how);
        Ok(())
    }
}

impl Drop for MemoryAcker {
    fn drop(&mut self) {
        self.settle_now(Settle::Retry);
    }
}

/// Behaviour only the embedded queue has: closing, and a bound on waiting
/// messages. What every adapter guarantees is in `tests/memory.rs`, which runs
/// the conformance suite.
#[cfg(test)]
mod tests {
    use super::*;
    use crate::conformance::{PATIENCE, assert_depth, receive};
    use std::time::Duration;
    use tokio::time::timeout;

    const BRIEF: Duration = Duration::from_millis(100);

    #[tokio::test]
    async fn close_ends_consumers_only_when_drained_and_settled() {
        let q = MemoryQueue::new(8);
        q.publish(Topic::Extract, b"a".to_vec()).await.unwrap();
        q.close(Topic::Extract);
        assert!(matches!(q.publish(Topic::Extract, b"b".to_vec()).await, Err(QueueError::Closed("ragpipe.extract"))));

        let mut first = q.consume(Topic::Extract).await.unwrap();
        let d = receive(first.as_mut()).await;
        // Closed and drained, but `a` is in flight and may come back.
        let mut second = q.consume(Topic::Extract).await.unwrap();
        assert!(timeout(BRIEF, second.next()).await.is_err(), "ended while in flight");
        d.retry().await.unwrap();

        let again = receive(second.as_mut()).await;
        assert_eq!((again.payload.as_slice(), again.redeliveries), (&b"a"[..], 1));
        again.ack().await.unwrap();
        for c in [&mut first, &mut second] {
            let end = timeout(PATIENCE, c.next()).await.expect("consumer woke");
            assert!(end.is_none(), "closed, drained and settled ends the stream");
        }
        // The other topic is still open.
        q.publish(Topic::Embed, b"c".to_vec()).await.unwrap();
    }

    #[tokio::test]
    async fn close_wakes_an_idle_consumer() {
        let q = MemoryQueue::new(8);
        let mut consumer = q.consume(Topic::Embed).await.unwrap();
        let closer = async {
            tokio::time::sleep(Duration::from_millis(20)).await;
            q.close(Topic::Embed);
        };
        let (end, ()) = tokio::join!(timeout(PATIENCE, consumer.next()), closer);
        assert!(end.expect("woken by close").is_none());
    }

    #[tokio::test]
    async fn publish_waits_while_the_topic_is_full() {
        let q = MemoryQueue::new(2);
        q.publish(Topic::Extract, b"1".to_vec()).await.unwrap();
        q.publish(Topic::Extract, b"2".to_vec()).await.unwrap();
        let third = q.publish(Topic::Extract, b"3".to_vec());
        tokio::pin!(third);
        assert!(timeout(BRIEF, &mut third).await.is_err(), "publish ran past capacity");
        assert_depth(&q, Topic::Extract, 2).await;
        // The bound is per topic.
        timeout(BRIEF, q.publish(Topic::Embed, b"other".to_vec()))
            .await
            .expect("a full topic blocked another")
            .unwrap();

        let mut consumer = q.consume(Topic::Extract).await.unwrap();
        let d = receive(consumer.as_mut()).await;
        // Taking one (even unsettled) frees a slot for the waiting publish.
        timeout(PATIENCE, &mut third).await.expect("publish woke").unwrap();
        assert_depth(&q, Topic::Extract, 2).await;
        d.ack().await.unwrap();
        let mut rest = Vec::new();
        for _ in 0..2 {
            let d = receive(consumer.as_mut()).await;
            rest.push(d.payload.clone());
            d.ack().await.unwrap();
        }
        assert_eq!(rest, [b"2".to_vec(), b"3".to_vec()]);
    }

    #[tokio::test]
    async fn bytes_waiting_or_in_flight_bound_publishers() {
        let q = MemoryQueue::new(100).with_max_bytes(10);
        q.publish(Topic::Embed, vec![0; 6]).await.unwrap();
        let mut blocked = Box::pin(q.publish(Topic::Embed, vec![1; 6]));
        assert!(timeout(BRIEF, &mut blocked).await.is_err(), "12 bytes would exceed the 10-byte bound");
        let mut consumer = q.consume(Topic::Embed).await.unwrap();
        let d = receive(consumer.as_mut()).await;
        assert!(timeout(BRIEF, &mut blocked).await.is_err(), "a message being processed still holds its bytes");
        d.ack().await.unwrap();
        timeout(PATIENCE, &mut blocked).await.expect("the ack freed the bytes").unwrap();
        receive(consumer.as_mut()).await.ack().await.unwrap();
        // Alone, a message over the bound passes: nothing waits forever.
        timeout(PATIENCE, q.publish(Topic::Embed, vec![2; 64])).await.expect("an empty topic takes it").unwrap();
    }

    #[tokio::test]
    async fn closing_releases_a_blocked_publisher() {
        let q = MemoryQueue::new(1);
        q.publish(Topic::Embed, b"1".to_vec()).await.unwrap();
        let closer = async {
            tokio::time::sleep(Duration::from_millis(20)).await;
            q.close(Topic::Embed);
        };
        let (blocked, ()) = tokio::join!(timeout(PATIENCE, q.publish(Topic::Embed, b"2".to_vec())), closer);
        assert!(matches!(blocked.expect("woken by close"), Err(QueueError::Closed(_))));
    }

    #[tokio::test]
    async fn depth_is_exact_through_delivery_and_retry() {
        let q = MemoryQueue::new(8);
        for i in 0..3 {
            q.publish(Topic::Extract, vec![i]).await.unwrap();
        }
        let mut consumer = q.consume(Topic::Extract).await.unwrap();
        let d = receive(consumer.as_mut()).await;
        assert_eq!(q.depth(Topic::Extract).await.unwrap(), 2);
        d.retry().await.unwrap();
        assert_eq!(q.depth(Topic::Extract).await.unwrap(), 3);
        drop(receive(consumer.as_mut()).await);
        assert_eq!(q.depth(Topic::Extract).await.unwrap(), 3, "a dropped delivery is back");
    }

    #[tokio::test]
    async fn rejected_messages_keep_their_reason() {
        let q = MemoryQueue::new(8);
        q.publish(Topic::Embed, b"bad".to_vec()).await.unwrap();
        q.publish(Topic::Embed, b"good".to_vec()).await.unwrap();
        let mut consumer = q.consume(Topic::Embed).await.unwrap();
        receive(consumer.as_mut()).await.reject("no text").await.unwrap();
        receive(consumer.as_mut()).await.ack().await.unwrap();
        assert_eq!(q.dead_letters(Topic::Embed), [(b"bad".to_vec(), "no text".to_string())]);
        assert!(q.dead_letters(Topic::Extract).is_empty());
    }
}
