//! The queue conformance suite against RabbitMQ (`RAGPIPE_TEST_AMQP_URL`,
//! default the local broker). Each check gets its own queue namespace, deleted
//! when the check ends, and a short retry delay so retries come back quickly.

use ragpipe_queue::{AmqpOptions, AmqpQueue};
use std::time::Duration;

fn url() -> String {
    std::env::var("RAGPIPE_TEST_AMQP_URL").unwrap_or_else(|_| "amqp://guest:guest@127.0.0.1:5672/%2f".into())
}

/// Deletes the check's queues when the check ends.
struct Namespace(String);

impl Drop for Namespace {
    fn drop(&mut self) {
        let namespace = self.0.clone();
        // Drop cannot await; tear down on a runtime of its own.
        let _ = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
            rt.block_on(async {
                let q = AmqpQueue::connect(&url(), options(namespace)).await?;
                q.delete_topology().await?;
                q.close().await;
                Ok::<(), ragpipe_queue::QueueError>(())
            })
        })
        .join();
    }
}

fn options(namespace: String) -> AmqpOptions {
    AmqpOptions { namespace, prefetch: 16, retry_delay: Duration::from_millis(50) }
}

async fn fresh() -> (Namespace, AmqpQueue) {
    use std::sync::atomic::{AtomicU32, Ordering};
    static N: AtomicU32 = AtomicU32::new(0);
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
    let namespace = format!("test-{}-{nanos}-{}", std::process::id(), N.fetch_add(1, Ordering::Relaxed));
    let queue = AmqpQueue::connect(&url(), options(namespace.clone())).await.expect("rabbitmq reachable");
    (Namespace(namespace), queue)
}

ragpipe_queue::queue_conformance!(fresh().await);
