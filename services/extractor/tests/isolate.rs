//! The child-process runner against children that misbehave on purpose
//! (`/bin/sh` scripts standing in for a parser that panics, spins, crashes or
//! floods its output), plus the in-process fallback on a real file that makes
//! symphonia panic. The real `ragpipe __extract` child on hostile files is
//! tested end to end in `integration-tests/tests/hostile.rs`.

use ragpipe_core::Kind;
use ragpipe_extract::Limits;
use ragpipe_extractor::isolate::{ChildLimits, IsolateError, Isolation, Request, extract_isolated};
use std::path::PathBuf;
use std::time::{Duration, Instant};

fn sh(script: &str, limits: ChildLimits) -> Isolation {
    Isolation::ChildProcess { program: "/bin/sh".into(), args: vec!["-c".into(), script.into()], limits }
}

fn limits(secs: u64) -> ChildLimits {
    ChildLimits { timeout: Duration::from_secs(secs), memory_bytes: 256 << 20, max_output_bytes: 1 << 20 }
}

async fn reason(isolation: &Isolation) -> String {
    let req = Request {
        kind: Kind::Pdf,
        name: "a.pdf",
        bytes: vec![b'x'; 100_000],
        sidecar: None,
        limits: Limits::default(),
        asr: None,
        ocr: None,
    };
    match extract_isolated(isolation, req).await {
        Err(IsolateError::Failed(reason)) => reason,
        other => panic!("expected a failure, got {other:?}"),
    }
}

#[tokio::test]
async fn a_panic_line_on_stderr_is_quoted() {
    let script = "cat >/dev/null; echo 'ragpipe-extract panicked: MediaBox (at pdf-extract-0.12.1/src/lib.rs:2438)' >&2; exit 101";
    assert_eq!(
        reason(&sh(script, limits(10))).await,
        "corrupt pdf: the pdf parser stopped on it: MediaBox",
        "the reason names the file's problem, not the parser's source path"
    );
}

#[tokio::test]
async fn a_hung_child_is_killed_at_the_wall_clock() {
    let started = Instant::now();
    assert_eq!(reason(&sh("sleep 30", limits(1))).await, "extraction timed out after 1s");
    assert!(started.elapsed() < Duration::from_secs(5), "killed, not waited for");
}

#[tokio::test]
async fn a_spinning_child_is_stopped() {
    // Busy on the CPU: RLIMIT_CPU (SIGXCPU) or the wall clock, whichever first.
    let started = Instant::now();
    assert_eq!(reason(&sh("cat >/dev/null; while :; do :; done", limits(1))).await, "extraction timed out after 1s");
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[tokio::test]
async fn signals_and_floods_have_their_own_reasons() {
    assert_eq!(reason(&sh("cat >/dev/null; kill -SEGV $$", limits(10))).await, "extraction crashed: signal 11");
    let flood = "cat >/dev/null; head -c 3000000 /dev/zero";
    assert_eq!(reason(&sh(flood, limits(10))).await, "extraction output exceeds 1 MiB");
    assert_eq!(
        reason(&sh("cat >/dev/null; echo '{\"ok\": 3}'", limits(10))).await,
        "extraction produced unreadable output: invalid type: integer `3`, expected struct Document at line 1 column 8"
    );
}

#[tokio::test]
async fn limits_are_applied_to_the_child() {
    // The shell reports its own address-space (KiB) and CPU-time limits.
    let script = "cat >/dev/null; echo \"as=$(ulimit -v) cpu=$(ulimit -t) core=$(ulimit -c)\" >&2; exit 1";
    assert_eq!(reason(&sh(script, limits(7))).await, "extraction failed: exit status 1: as=262144 cpu=7 core=0");
}

#[tokio::test]
async fn a_missing_program_is_retryable_not_a_document_failure() {
    let isolation = Isolation::ChildProcess { program: "/nonexistent/ragpipe".into(), args: vec![], limits: limits(5) };
    let req = Request {
        kind: Kind::Text,
        name: "a.txt",
        bytes: b"hi".to_vec(),
        sidecar: None,
        limits: Limits::default(),
        asr: None,
        ocr: None,
    };
    assert!(matches!(extract_isolated(&isolation, req).await, Err(IsolateError::Spawn(_))));
}

#[tokio::test]
async fn a_zero_sample_rate_is_a_corrupt_file_not_a_parser_panic() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/extract/tests/fixtures/audio/rate0.wav");
    let req = Request {
        kind: Kind::Audio,
        name: "rate0.wav",
        bytes: std::fs::read(path).unwrap(),
        sidecar: None,
        limits: Limits::default(),
        asr: None,
        ocr: None,
    };
    match extract_isolated(&Isolation::InProcess, req).await {
        Err(IsolateError::Failed(reason)) => {
            assert_eq!(reason, "corrupt audio: sample rate 0")
        }
        other => panic!("{other:?}"),
    }
}
