//! With an OTLP endpoint configured, `ragpipe` exports over OTLP/gRPC: a
//! listener standing in for the collector sees the HTTP/2 connections of the
//! span and metric exporters (what they send is checked in-process by
//! integration-tests/tests/telemetry.rs); without one, nothing connects.

use ragpipe_integration_tests::ragpipe_bin;
use std::io::Read;
use std::net::TcpListener;
use std::process::Command;
use std::sync::mpsc;
use std::time::Duration;

/// Runs an ingest of the sample folder; returns the first bytes of every
/// connection the collector stand-in received meanwhile.
fn ingest_with(endpoint: Option<&str>, listener: TcpListener) -> Vec<Vec<u8>> {
    let (tx, rx) = mpsc::channel();
    listener.set_nonblocking(true).unwrap();
    let accept = std::thread::spawn(move || {
        let mut seen = Vec::new();
        while rx.recv_timeout(Duration::from_millis(20)).is_err() {
            if let Ok((mut conn, _)) = listener.accept() {
                conn.set_nonblocking(false).unwrap();
                conn.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
                let mut head = vec![0; 24];
                let n = conn.read(&mut head).unwrap_or(0);
                head.truncate(n);
                seen.push(head);
            }
        }
        seen
    });
    let data = tempfile::tempdir().unwrap();
    let samples = concat!(env!("CARGO_MANIFEST_DIR"), "/../samples");
    let mut cmd = Command::new(ragpipe_bin());
    cmd.arg("--data-dir").arg(data.path()).args(["ingest", samples, "--json", "--quiet"]);
    cmd.env_remove("RAGPIPE_OTLP_ENDPOINT").env_remove("OTEL_EXPORTER_OTLP_ENDPOINT");
    if let Some(e) = endpoint {
        cmd.env("RAGPIPE_OTLP_ENDPOINT", e);
    }
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "ingest: {}", String::from_utf8_lossy(&out.stderr));
    tx.send(()).unwrap();
    accept.join().unwrap()
}

#[test]
fn spans_and_metrics_go_to_the_configured_collector_and_nowhere_otherwise() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let endpoint = format!("http://{}", listener.local_addr().unwrap());
    let seen = ingest_with(Some(&endpoint), listener);
    assert!(!seen.is_empty(), "no exporter connected to {endpoint}");
    assert!(seen.iter().all(|head| head.starts_with(b"PRI * HTTP/2.0")), "gRPC speaks HTTP/2: {seen:?}");

    let quiet = TcpListener::bind("127.0.0.1:0").unwrap();
    assert!(ingest_with(None, quiet).is_empty(), "without an endpoint nothing is exported");
}
