//! The worker probes: `/readyz` follows the broker connection, `/healthz`
//! turns 503 while a worker has been on one job longer than its role
//! allows, naming it, and turns 200 again once the job ends.

use async_trait::async_trait;
use ragpipe_queue::{Activity, Delivery, Handler, MemoryQueue, Outcome, Queue, Topic};
use ragpipe_worker::{Health, Stop, serve_probes};
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::{Notify, watch};

/// Holds every job until released.
struct Held(Arc<Notify>);

#[async_trait]
impl Handler for Held {
    fn topic(&self) -> Topic {
        Topic::Extract
    }
    async fn handle(&self, _: &Delivery) -> Outcome {
        self.0.notified().await;
        Outcome::Done
    }
}

/// Status code and body of a GET.
async fn get(addr: std::net::SocketAddr, path: &str) -> (u16, String) {
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let request = format!("GET {path} HTTP/1.1\r\nHost: probe\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).await.unwrap();
    let code = response.split(' ').nth(1).and_then(|c| c.parse().ok()).unwrap_or(0);
    let body = response.split("\r\n\r\n").nth(1).unwrap_or_default().to_string();
    (code, body)
}

#[tokio::test]
async fn healthz_reports_a_worker_stuck_on_one_job_and_readyz_the_connection() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let activities = Arc::new(vec![Activity::default()]);
    let (ready_tx, ready) = watch::channel(false);
    let (stop_tx, stop) = Stop::manual();
    let health = Health { ready, activities: activities.clone(), stuck_after: Duration::from_millis(300) };
    let server = tokio::spawn(serve_probes(listener, health, stop.clone().stopped_owned()));

    assert_eq!(get(addr, "/healthz").await, (200, "ok".into()));
    assert_eq!(get(addr, "/readyz").await.0, 503, "not connected yet");
    ready_tx.send(true).unwrap();
    assert_eq!(get(addr, "/readyz").await, (200, "ready".into()));

    let queue = Arc::new(MemoryQueue::new(4));
    queue.publish(Topic::Extract, b"job".to_vec()).await.unwrap();
    let release = Arc::new(Notify::new());
    let handler = Held(release.clone());
    let (q, a) = (queue.clone(), activities.clone());
    let worker =
        tokio::spawn(async move { ragpipe_queue::consume(q.as_ref(), &handler, &a[0], std::future::pending()).await });
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(get(addr, "/healthz").await.0, 200, "busy for less than the limit is healthy");
    tokio::time::sleep(Duration::from_millis(400)).await;
    let (code, body) = get(addr, "/healthz").await;
    assert_eq!(code, 503, "{body}");
    assert!(body.contains("worker 0") && body.contains("longer than 300ms"), "{body}");

    release.notify_one();
    queue.close(Topic::Extract);
    worker.await.unwrap().unwrap();
    assert_eq!(get(addr, "/healthz").await, (200, "ok".into()), "the job ended: healthy again");
    stop_tx.send(true).unwrap();
    server.await.unwrap().unwrap();
}
