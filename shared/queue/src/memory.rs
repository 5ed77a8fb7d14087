//! The embedded queue: bounded in-memory topics inside one process.
//!
//! Publishing waits while a topic holds `capacity` undelivered messages, so a
//! fast producer cannot run ahead of slow consumers. A delivery that is
//! dropped unsettled (its task panicked) goes back to the queue, as a broker
//! would redeliver after a lost connection. A topic is `close`d by the owner
//! once its producers are done; consumers then drain it and see `None` only
//! when nothing is left and nothing is in flight that could come back.

use crate::{Acker, Consumer, Delivery, Queue, QueueError, Settle, Topic};
use async_trait::async_trait;
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use tokio::sync::Notify;

#[derive(Default)]
struct TopicState {
    ready: VecDeque<(Vec<u8>, u32)>,
    in_flight: usize,
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
}

impl MemoryQueue {
    pub fn new(capacity: usize) -> Self {
        let topics = [Topic::Extract, Topic::Embed]
            .into_iter()
            .map(|t| {
                (
                    t,
                    Arc::new(TopicQueue {
                        name: t.as_str(),
                        state: Mutex::default(),
                        changed: Notify::new(),
                    }),
                )
            })
            .collect();
        MemoryQueue {
            topics: Arc::new(topics),
            capacity: capacity.max(1),
        }
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
                if st.ready.len() < self.capacity {
                    st.ready.push_back((payload, 0));
                    drop(st);
                    q.changed.notify_waiters();
                    return Ok(());
                }
            }
            notified.await;
        }
    }

    async fn consume(&self, topic: Topic) -> Result<Box<dyn Consumer>, QueueError> {
        Ok(Box::new(MemoryConsumer {
            queue: Arc::clone(self.topic(topic)),
        }))
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
                if let Some((payload, redeliveries)) = st.ready.pop_front() {
                    st.in_flight += 1;
                    drop(st);
                    q.changed.notify_waiters();
                    let acker = MemoryAcker {
                        queue: Arc::clone(q),
                        payload: Mutex::new(Some(payload.clone())),
                        redeliveries,
                    };
                    return Some(Ok(Delivery::new(payload, redeliveries, Box::new(acker))));
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
    payload: Mutex<Option<Vec<u8>>>,
    redeliveries: u32,
}

impl MemoryAcker {
    fn settle_now(&self, how: Settle) {
        let Some(payload) = self
            .payload
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take()
        else {
            return;
        };
        let mut st = self.queue.lock();
        st.in_flight -= 1;
        match how {
            Settle::Ack => {}
            Settle::Retry => st.ready.push_back((payload, self.redeliveries + 1)),
            Settle::Reject(reason) => st.dead.push((payload, reason)),
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
