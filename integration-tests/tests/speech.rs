//! End to end: `ragpipe ingest` of recordings and videos with no transcript
//! sidecar, with speech recognition on (the default, Whisper base from the
//! provisioning cache). An MP3 without an ID3 tag, a WAV, an Ogg Vorbis
//! file, an Ogg Opus voice note, an MP4, a Matroska video and a WebM one
//! with Opus sound are transcribed and indexed with `#t=`
//! locators that lie inside the recording and slice to the chunk's own
//! words; a search finds a spoken sentence in the right file; silence,
//! noise and music yield no invented text but `no speech detected`.

use ragpipe_core::Locator;
use ragpipe_integration_tests::ragpipe_bin;
use serde_json::Value;
use std::path::PathBuf;
use std::process::Command;

mod common;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/extract/tests/fixtures/audio").join(name)
}

#[test]
fn media_without_sidecars_are_transcribed_and_found_by_what_is_said() {
    let (folder, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    // The fixtures' sidecars stay behind: only the media are copied.
    for (from, to) in [
        ("intro-mp3.mp3", "station.mp3"),
        ("intro.wav", "station.wav"),
        ("intro-ogg.ogg", "station.ogg"),
        ("briefing.mp4", "briefing.mp4"),
        ("briefing.mkv", "briefing.mkv"),
        ("intro-opus.opus", "station-note.ogg"),
        ("briefing.webm", "briefing.webm"),
        ("silence.wav", "silence.wav"),
        ("noise.wav", "noise.wav"),
        ("music.wav", "music.wav"),
    ] {
        std::fs::copy(fixture(from), folder.path().join(to)).unwrap();
    }
    let mp3 = std::fs::read(folder.path().join("station.mp3")).unwrap();
    assert_eq!(&mp3[..2], [0xFF, 0xFB], "the MP3 starts with a frame, no ID3 tag");
    let run = |args: &[&str]| {
        let mut cmd = Command::new(ragpipe_bin());
        cmd.arg("--data-dir").arg(data.path());
        common::run_json(cmd, args)
    };
    let (code, summary) = run(&["ingest", folder.path().to_str().unwrap(), "--json"]);
    assert_eq!(code, 1, "the silent files fail: {summary}");
    assert_eq!(summary["indexed"], 7, "{summary}");
    let failed = common::failure_reasons(&summary);
    let none = "no speech detected".to_string();
    assert_eq!(
        failed,
        [("music.wav".to_string(), none.clone()), ("noise.wav".into(), none.clone()), ("silence.wav".into(), none)],
        "no invented text on sounds that are not speech"
    );

    let media = [
        ("station.mp3", 10.5, "welcome to the north"),
        ("station.ogg", 10.5, "welcome to the north"),
        ("station-note.ogg", 10.5, "welcome to the north"),
        ("briefing.mkv", 6.0, "noon on friday"),
        ("briefing.mp4", 6.0, "noon on friday"),
        ("briefing.webm", 7.0, "noon on friday"),
    ];
    for (name, seconds, said) in media {
        let (code, chunks) = run(&["chunks", folder.path().join(name).to_str().unwrap(), "--json"]);
        assert_eq!(code, 0, "{name}: {chunks}");
        let (_, doc) = run(&["text", folder.path().join(name).to_str().unwrap(), "--json"]);
        let text = doc["text"].as_str().unwrap();
        assert!(text.to_lowercase().contains(said), "{name}: {text}");
        for c in chunks.as_array().unwrap() {
            let loc = Locator::parse(c["locator"].as_str().unwrap()).unwrap();
            let (start, end) = loc.time.unwrap_or_else(|| panic!("{name}: no #t in {loc}"));
            assert!(0.0 <= start && start < end && end <= seconds + 0.5, "{name}: {loc} outside the recording");
            assert_eq!(loc.resolve(text), c["content"].as_str(), "{name}: #char slices to the content");
        }
    }

    let (code, hits) = run(&["search", "where are the forklift keys kept", "--json", "--top-k", "3"]);
    assert_eq!(code, 0, "{hits}");
    let top = &hits["hits"][0];
    assert!(top["document"].as_str().unwrap().contains("briefing."), "{hits}");
    assert!(top["content"].as_str().unwrap().to_lowercase().contains("blue cabinet"), "{hits}");
    assert!(top["locator"].as_str().unwrap().contains("t="), "{hits}");
    let (_, hits) = run(&["search", "welcome to the field station", "--json", "--top-k", "3"]);
    let top: &Value = &hits["hits"][0];
    assert!(top["document"].as_str().unwrap().contains("station"), "{hits}");
}
