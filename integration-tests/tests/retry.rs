//! `ragpipe retry` in the embedded mode: failed documents are queued again
//! (once, however often retry runs), and the next ingest processes them as
//! a new generation.

use ragpipe_integration_tests::ragpipe_bin;
use serde_json::Value;
use std::process::Command;

mod common;

fn ragpipe(data: &std::path::Path, args: &[&str]) -> (i32, Value) {
    let mut cmd = Command::new(ragpipe_bin());
    cmd.arg("--data-dir").arg(data);
    common::run_json(cmd, args)
}

#[test]
fn failed_documents_are_retried_by_the_next_ingest() {
    let (folder, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    std::fs::write(folder.path().join("notes.md"), "# Notes\n\nThe causeway floods before high water.\n").unwrap();
    std::fs::write(folder.path().join("empty.txt"), "").unwrap();
    let dir = folder.path().to_str().unwrap();
    let (code, first) = ragpipe(data.path(), &["ingest", dir, "--json"]);
    assert_eq!((code, first["indexed"].as_i64()), (1, Some(1)), "{first}");

    let (code, retried) = ragpipe(data.path(), &["retry", "--reason", "empty", "--json"]);
    assert_eq!(code, 0);
    let queued = retried["queued"].as_array().unwrap();
    assert_eq!(queued.len(), 1, "{retried}");
    assert!(queued[0]["source"].as_str().unwrap().ends_with("/empty.txt"));
    assert_eq!((queued[0]["generation"].as_i64(), retried["published"].as_bool()), (Some(2), Some(false)));
    let (_, again) = ragpipe(data.path(), &["retry", "--all-failed", "--json"]);
    assert_eq!(again["queued"], serde_json::json!([]), "already queued: nothing to do");

    let (code, second) = ragpipe(data.path(), &["ingest", dir, "--json"]);
    assert_eq!(code, 1, "{second}");
    assert_eq!(second["sync"]["resumed"], 1, "the retried document is processed: {second}");
    assert_eq!(second["sync"]["unchanged"], 1);
    assert_eq!(second["failed"][0]["reason"], "empty file");
}
