//! The audio extractor on real recordings (espeak-ng + sox, lame, ffmpeg;
//! `fixtures/audio/make.sh`): every format decodes to the same duration, the
//! sidecar's cues become blocks with their times, and every damaged file
//! fails with a reason that says what is wrong.

use ragpipe_core::{BlockKind, Document, Kind};
use ragpipe_extract::{Limits, Sidecar, detect, extract_with};
use std::path::PathBuf;

fn fixture(name: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/audio").join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn extract_audio(name: &str, sidecar: Option<&str>, limits: &Limits) -> Result<Document, String> {
    let bytes = fixture(name);
    let kind = detect(name, &bytes).map_err(|e| e.to_string())?;
    assert_eq!(kind, Kind::Audio, "{name}");
    let side = sidecar.map(|s| (s, fixture(s)));
    let side = side.as_ref().map(|(n, b)| Sidecar { name: n, bytes: b });
    extract_with(kind, name, &bytes, side, limits).map_err(|e| e.to_string())
}

const SPOKEN: [&str; 4] = [
    "Welcome to the Northwind field station.",
    "The causeway floods before high water.",
    "Sign the logbook when you arrive.",
    "Rare birds need a written description.",
];

#[test]
fn every_format_decodes_and_takes_its_cues_from_the_sidecar() {
    let pairs = [
        ("intro.wav", "intro.vtt"),
        ("intro-flac.flac", "intro-flac.srt"),
        ("intro-ogg.ogg", "intro-ogg.vtt"),
        ("intro-mp3.mp3", "intro-mp3.srt"),
        ("intro-m4a.m4a", "intro-m4a.vtt"),
        ("intro-opus.opus", "intro-opus.vtt"),
    ];
    for (audio, sidecar) in pairs {
        let doc = extract_audio(audio, Some(sidecar), &Limits::default()).unwrap_or_else(|e| panic!("{audio}: {e}"));
        assert_eq!(doc.kind, Kind::Audio);
        assert_eq!(doc.title, audio.rsplit_once('.').unwrap().0);
        // 10.44 s of speech; lossy encoders add their priming and padding.
        let duration = doc.duration.unwrap();
        assert!((10.3..11.0).contains(&duration), "{audio} lasts {duration}");
        let cues: Vec<&str> = doc.blocks.iter().map(|b| doc.slice(b)).collect();
        assert_eq!(cues, SPOKEN, "{audio}");
        assert_eq!(doc.text, SPOKEN.join("\n"));
        let mut last_end = 0.0;
        for b in &doc.blocks {
            let BlockKind::Cue { start, end } = b.kind else { panic!("{audio}: not a cue") };
            assert!(start >= last_end && end > start && end <= duration, "{audio}: {start}..{end}");
            last_end = end;
        }
        let BlockKind::Cue { start, end } = doc.blocks[1].kind else { unreachable!() };
        assert_eq!((start, end), (2.789, 5.086), "{audio}: timings as make.sh measured them");
    }
}

#[test]
fn damaged_or_untranscribed_audio_fails_with_a_precise_reason() {
    let limits = Limits::default();
    let reason = |name: &str, sidecar: Option<&str>| extract_audio(name, sidecar, &limits).unwrap_err();
    assert_eq!(reason("silent-talk.wav", None), "speech recognition disabled ([asr] model = \"off\")");
    assert_eq!(
        reason("corrupt-header.wav", Some("intro.vtt")),
        "corrupt audio: malformed stream: wav: malformed fmt chunk"
    );
    let truncated = reason("truncated.mp3", Some("intro-mp3.srt"));
    assert!(truncated.starts_with("corrupt audio: truncated: 4."), "{truncated}");
    let short = Limits { max_duration_secs: 5.0, ..Limits::default() };
    assert_eq!(
        extract_audio("intro.wav", Some("intro.vtt"), &short).unwrap_err(),
        "limit exceeded: audio lasts over 10s, more than max_duration_secs 5"
    );
    let bad = Sidecar { name: "x.vtt", bytes: b"WEBVTT\n\n00:01.000 -> 00:02.000\nhi\n" };
    let err = extract_with(Kind::Audio, "intro.wav", &fixture("intro.wav"), Some(bad), &limits).unwrap_err();
    assert_eq!(err.to_string(), "malformed transcript x.vtt: line 3: expected a cue timing line (start --> end)");
}

#[test]
fn a_transcript_alone_is_a_document_cited_by_time() {
    for name in ["intro.vtt", "intro-mp3.srt"] {
        let bytes = fixture(name);
        let kind = detect(name, &bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(kind, Kind::Transcript, "{name}");
        let doc = extract_with(kind, name, &bytes, None, &Limits::default()).unwrap();
        assert_eq!(doc.kind, Kind::Transcript);
        assert_eq!(doc.title, name.rsplit_once('.').unwrap().0);
        assert_eq!(doc.text, SPOKEN.join("\n"));
        let BlockKind::Cue { start, end } = doc.blocks[1].kind else { panic!("{name}: not a cue") };
        assert_eq!((start, end), (2.789, 5.086), "{name}");
        let BlockKind::Cue { end: last, .. } = doc.blocks[3].kind else { unreachable!() };
        assert_eq!(doc.duration, Some(last), "{name}: as long as its last cue");
    }
    let reason = |name: &str, bytes: &[u8]| {
        let kind = detect(name, bytes).map_err(|e| e.to_string())?;
        extract_with(kind, name, bytes, None, &Limits::default()).map(|_| ()).map_err(|e| e.to_string())
    };
    assert_eq!(
        reason("notes.vtt", b"WEBVTT\n\n00:01.000 -> 00:02.000\nhi\n").unwrap_err(),
        "malformed transcript notes.vtt: line 3: expected a cue timing line (start --> end)"
    );
    assert_eq!(
        reason("empty.vtt", b"WEBVTT\n\nNOTE nothing said\n").unwrap_err(),
        "empty transcript: empty.vtt has no cues"
    );
    assert!(reason("song.srt", &fixture("intro-mp3.mp3")).unwrap_err().starts_with("content does not match extension"));
}
