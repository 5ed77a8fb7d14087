//! A recording being transcribed does not hold up the documents queued
//! behind it in the distributed mode: media jobs move from the extract queue
//! to the transcribe queue, served by the extractor's own transcribing loop,
//! so the one extract loop goes on with the rest.
//!
//! The recording (a spoken paragraph twelve times over, ~2 minutes) is
//! queued first and takes tens of seconds to transcribe; the text documents
//! after it take about a second each. Had the extract loop transcribed it
//! itself, they would all be indexed after it.

use ragpipe_core::DocStatus;
use std::path::PathBuf;

mod common;

use common::deployment::{Deployment, fixture};

/// `times` copies of a PCM WAV's samples in one WAV file.
fn repeated_wav(wav: &[u8], times: usize) -> Vec<u8> {
    let data = wav.windows(4).position(|w| w == b"data").expect("a data chunk");
    let len = u32::from_le_bytes(wav[data + 4..data + 8].try_into().unwrap()) as usize;
    let samples = &wav[data + 8..data + 8 + len];
    let mut out = wav[..data + 8].to_vec();
    for _ in 0..times {
        out.extend_from_slice(samples);
    }
    let total = (len * times) as u32;
    out[data + 4..data + 8].copy_from_slice(&total.to_le_bytes());
    let riff = (out.len() - 8) as u32;
    out[4..8].copy_from_slice(&riff.to_le_bytes());
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_recording_being_transcribed_does_not_hold_up_the_documents_behind_it() {
    let mut dep = Deployment::new().await;
    dep.configure("[workers]\nextractors = 1\ntranscribers = 1\n");
    let speech = std::fs::read(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/extract/tests/fixtures/audio/intro.wav"),
    )
    .unwrap();
    // Listed (and so queued) first: names sort before the others'.
    dep.put("a-talk.wav", repeated_wav(&speech, 12)).await;
    let behind = ["b-handbook.pdf", "c-hex.rs", "d-stack.go"];
    dep.put(behind[0], fixture("pdf", "handbook.pdf")).await;
    dep.put(behind[1], fixture("code", "hex.rs")).await;
    dep.put(behind[2], fixture("code", "stack.go")).await;
    let report = dep.sync();
    assert_eq!(report["new"].as_u64(), Some(4), "{report}");

    dep.start("extractor");
    dep.start("embedder");
    dep.wait_for("a-talk.wav", DocStatus::Extracting).await;
    for name in behind {
        dep.wait_for(name, DocStatus::Indexed).await;
    }
    let state = dep.state().await;
    let talk = ragpipe_state::every(&state, &Default::default())
        .await
        .unwrap()
        .into_iter()
        .find(|d| d.uri.ends_with("/a-talk.wav"))
        .unwrap();
    assert_eq!(talk.status, DocStatus::Extracting, "the recording is still being transcribed");

    // And it does get transcribed, by the same process.
    let talk = dep.wait_for("a-talk.wav", DocStatus::Indexed).await;
    assert!(talk.extractor_version.as_deref().is_some_and(|v| v.contains("+whisper-")), "{talk:?}");
    dep.stop("embedder", false);
    dep.stop("extractor", false);
    dep.remove().await;
}
