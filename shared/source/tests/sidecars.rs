//! `WithSidecars` over a folder: a transcript beside its recording lists as
//! part of the recording (its edits change the recording's version), one
//! alone lists as itself, and everything else passes through untouched.

use ragpipe_source::conformance::{self, fetch, list_all};
use ragpipe_source::{FolderSource, ObjectMeta, Pairing, WithSidecars};
use std::path::Path;

fn write(root: &Path, key: &str, bytes: &[u8]) {
    let path = root.join(key);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
}

fn pairing() -> Pairing {
    Pairing {
        media: ["mp3", "wav", "webm"].map(String::from).to_vec(),
        sidecars: ["vtt", "srt"].map(String::from).to_vec(),
    }
}

fn wrapped(root: &Path) -> WithSidecars<FolderSource> {
    WithSidecars::new(FolderSource::new(root).unwrap(), pairing())
}

async fn listed(root: &Path) -> Vec<ObjectMeta> {
    list_all(&wrapped(root)).await
}

fn etag<'m>(listing: &'m [ObjectMeta], key: &str) -> &'m str {
    &listing.iter().find(|m| m.key == key).unwrap_or_else(|| panic!("{key} not listed")).etag
}

#[tokio::test]
async fn a_sidecar_lists_with_its_recording_and_a_lone_transcript_as_itself() {
    let dir = tempfile::tempdir().unwrap();
    for key in [
        "talk.mp3",
        "talk.srt",
        "talk.vtt",
        "meeting.vtt",
        // The recording sorts after its transcript ("wav" > "vtt").
        "zoom.vtt",
        "zoom.wav",
        // A recording's extension in any case; the sidecar's as the
        // extractor asks for it (lowercase), else it is not read as one.
        "LOUD.MP3",
        "LOUD.vtt",
        "shout.mp3",
        "shout.VTT",
        // Nested stems: `a.b.vtt` belongs to `a.b.webm`, not to `a.mp3`.
        "a.b.vtt",
        "a.b.webm",
        "a.c.srt",
        "a.mp3",
        "a.notes.txt",
        "dir/interview.wav",
        "dir/interview.vtt",
        "dir2/interview.vtt",
        "readme.md",
    ] {
        write(dir.path(), key, key.as_bytes());
    }
    let keys: Vec<String> = listed(dir.path()).await.into_iter().map(|m| m.key).collect();
    assert_eq!(
        keys,
        [
            "LOUD.MP3",
            "a.b.webm",
            "a.c.srt",
            "a.mp3",
            "a.notes.txt",
            "dir/interview.wav",
            "dir2/interview.vtt",
            "meeting.vtt",
            "readme.md",
            "shout.VTT",
            "shout.mp3",
            "talk.mp3",
            "zoom.wav",
        ]
    );
    // Still fetchable: the extractor reads the sidecar by name.
    assert_eq!(fetch(&wrapped(dir.path()), "talk.vtt", 100).await.unwrap(), b"talk.vtt");
}

#[tokio::test]
async fn an_edited_sidecar_changes_its_recordings_version() {
    let dir = tempfile::tempdir().unwrap();
    for key in ["talk.mp3", "talk.vtt", "meeting.vtt", "notes.txt"] {
        write(dir.path(), key, key.as_bytes());
    }
    let plain = list_all(&FolderSource::new(dir.path()).unwrap()).await;
    let before = listed(dir.path()).await;
    assert_ne!(etag(&before, "talk.mp3"), etag(&plain, "talk.mp3"), "the sidecar's version is carried");
    assert!(etag(&before, "talk.mp3").starts_with(etag(&plain, "talk.mp3")));
    for key in ["meeting.vtt", "notes.txt"] {
        assert_eq!(etag(&before, key), etag(&plain, key), "{key} untouched");
    }

    write(dir.path(), "talk.vtt", b"WEBVTT\n\n00:00.000 --> 00:01.000\nedited\n");
    let after = listed(dir.path()).await;
    assert_ne!(etag(&after, "talk.mp3"), etag(&before, "talk.mp3"), "an edited transcript re-reads the recording");
    assert_eq!(etag(&after, "meeting.vtt"), etag(&before, "meeting.vtt"));

    // The recording gone, its transcript is a document of its own.
    std::fs::remove_file(dir.path().join("talk.mp3")).unwrap();
    let keys: Vec<String> = listed(dir.path()).await.into_iter().map(|m| m.key).collect();
    assert_eq!(keys, ["meeting.vtt", "notes.txt", "talk.vtt"]);
}

#[tokio::test]
async fn passes_the_source_conformance_suite() {
    let dir = tempfile::tempdir().unwrap();
    let objects = conformance::sample_objects();
    for (key, bytes) in &objects {
        write(dir.path(), key, bytes);
    }
    conformance::check_all(&wrapped(dir.path()), &objects).await;
}
