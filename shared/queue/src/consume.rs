//! The one consume loop every stage runs, and the one place a stage's
//! verdict on a delivery becomes an ack, a redelivery or a dead letter.

use crate::{Delivery, Queue, QueueError, Topic};
use async_trait::async_trait;
use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// How a stage ended with one delivery.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Handled, or nothing left to do (a stale or duplicate job): acked.
    Done,
    /// A transient error: the broker delivers it again later.
    Retry(String),
    /// It can never be handled (not a job, a job of another stage):
    /// rejected, so it goes to the dead letters instead of looping.
    Poison(String),
}

/// A stage that handles the deliveries of one topic.
#[async_trait]
pub trait Handler: Send + Sync {
    /// The topic it consumes.
    fn topic(&self) -> Topic;
    /// Handles one delivery; settling it is the loop's job.
    async fn handle(&self, delivery: &Delivery) -> Outcome;
}

/// When the worker running a consume loop took its current delivery, so
/// a health probe can tell a worker stuck on one job from a busy one.
#[derive(Debug, Default)]
pub struct Activity {
    /// Milliseconds since the epoch the current delivery started; 0 = idle.
    busy_since_ms: AtomicU64,
}

impl Activity {
    /// How long the worker has been on its current delivery (`None` idle).
    pub fn busy_for(&self) -> Option<Duration> {
        match self.busy_since_ms.load(Ordering::Relaxed) {
            0 => None,
            since => Some(Duration::from_millis(now_ms().saturating_sub(since))),
        }
    }

    fn set(&self, busy: bool) {
        self.busy_since_ms.store(if busy { now_ms().max(1) } else { 0 }, Ordering::Relaxed);
    }
}

fn now_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

impl Delivery {
    /// Acks, redelivers or rejects the delivery as the outcome says.
    pub async fn settle(self, outcome: Outcome) -> Result<(), QueueError> {
        match outcome {
            Outcome::Done => self.ack().await,
            Outcome::Retry(_) => self.retry().await,
            Outcome::Poison(reason) => self.reject(reason).await,
        }
    }
}

/// Consumes the handler's topic until the queue closes (the embedded queue,
/// once drained) or `shutdown` resolves, settling each delivery as its
/// handler decides. An error means the connection was lost: unsettled
/// deliveries go back to the queue, and the caller reconnects.
pub async fn consume(
    queue: &dyn Queue,
    handler: &dyn Handler,
    activity: &Activity,
    shutdown: impl Future<Output = ()>,
) -> Result<(), QueueError> {
    let topic = handler.topic();
    let mut consumer = queue.consume(topic).await?;
    tokio::pin!(shutdown);
    loop {
        let delivery = tokio::select! {
            _ = &mut shutdown => return Ok(()),
            next = consumer.next() => match next {
                Some(d) => d?,
                None => return Ok(()),
            },
        };
        activity.set(true);
        let outcome = handler.handle(&delivery).await;
        activity.set(false);
        match &outcome {
            Outcome::Done => {}
            Outcome::Retry(reason) => tracing::warn!(topic = topic.as_str(), %reason, "job will be retried"),
            Outcome::Poison(reason) => tracing::warn!(topic = topic.as_str(), %reason, "job rejected"),
        }
        delivery.settle(outcome).await?;
    }
}
