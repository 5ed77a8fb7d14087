//! `FolderSource` against the source conformance suite, plus what only a
//! folder can get wrong: hidden files, symlinks in and out of the folder,
//! FIFOs that would block a reader forever, and keys that climb out.

use ragpipe_source::conformance::{self, fetch, list_all};
use ragpipe_source::{FolderSource, ObjectSource, SourceError};
use std::collections::BTreeMap;
use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

fn write(root: &Path, key: &str, bytes: &[u8]) {
    let path = root.join(key);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
}

fn populate(root: &Path, objects: &BTreeMap<String, Vec<u8>>) {
    for (key, bytes) in objects {
        write(root, key, bytes);
    }
}

fn mkfifo(path: &Path) {
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path; mkfifo does not retain it.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0, "mkfifo {}", path.display());
}

/// While alive, releases any reader blocked opening these FIFOs, so a
/// regression that opens one fails the test instead of hanging it: a blocked
/// `open` pins a blocking thread that runtime shutdown would wait for.
struct FifoWatchdog(Arc<AtomicBool>);

impl FifoWatchdog {
    fn new(fifos: Vec<PathBuf>) -> Self {
        let done = Arc::new(AtomicBool::new(false));
        let stop = Arc::clone(&done);
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                for fifo in &fifos {
                    // Succeeds only while a reader waits; closing gives it EOF.
                    let _ = std::fs::OpenOptions::new().write(true).custom_flags(libc::O_NONBLOCK).open(fifo);
                }
                std::thread::sleep(Duration::from_millis(50));
            }
        });
        FifoWatchdog(done)
    }
}

impl Drop for FifoWatchdog {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

async fn keys(source: &dyn ObjectSource) -> Vec<String> {
    list_all(source).await.into_iter().map(|m| m.key).collect()
}

fn assert_refused(result: Result<Vec<u8>, SourceError>, key: &str) {
    assert!(matches!(result, Err(SourceError::Refused { .. })), "{key:?}: expected Refused, got {result:?}");
}

#[tokio::test]
async fn passes_the_source_conformance_suite() {
    let dir = tempfile::tempdir().unwrap();
    let objects = conformance::sample_objects();
    populate(dir.path(), &objects);
    let source = FolderSource::new(dir.path()).unwrap();
    conformance::check_all(&source, &objects).await;

    // The same folder reached through a symlink is the same source: URIs
    // name the canonical path, so document ids do not depend on the route.
    let elsewhere = tempfile::tempdir().unwrap();
    let via_link = elsewhere.path().join("corpus");
    symlink(dir.path(), &via_link).unwrap();
    let second = FolderSource::new(&via_link).unwrap();
    conformance::listing_is_stable_across_instances(&source, &second).await;
}

#[tokio::test]
async fn opening_something_that_is_not_a_folder_fails() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "file.txt", b"x");
    for path in [dir.path().join("file.txt"), dir.path().join("missing")] {
        assert!(matches!(FolderSource::new(&path), Err(SourceError::List { .. })), "{}", path.display());
    }
}

#[tokio::test]
async fn hidden_files_and_folders_are_neither_listed_nor_fetched() {
    let dir = tempfile::tempdir().unwrap();
    for key in [".hidden.txt", ".git/config", ".ragpipe/state.db", "docs/.secret.txt", "docs/visible.txt", "top.txt"] {
        write(dir.path(), key, b"content");
    }
    let source = FolderSource::new(dir.path()).unwrap();
    assert_eq!(keys(&source).await, ["docs/visible.txt", "top.txt"]);
    for key in [".hidden.txt", ".git/config", ".ragpipe/state.db", "docs/.secret.txt"] {
        assert_refused(fetch(&source, key, u64::MAX).await, key);
    }
}

#[tokio::test]
async fn symlinks_are_followed_only_inside_the_folder() {
    let outside = tempfile::tempdir().unwrap();
    write(outside.path(), "secret.txt", b"outside the corpus");
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "docs/inner.txt", b"inner");
    write(dir.path(), "top.txt", b"top");
    let root = dir.path();
    symlink("top.txt", root.join("alias.txt")).unwrap();
    symlink(root.join("docs"), root.join("linked")).unwrap();
    symlink(outside.path().join("secret.txt"), root.join("escape.txt")).unwrap();
    symlink(outside.path(), root.join("escape_dir")).unwrap();
    // A link to an ancestor is a loop to walkdir; one to a big tree elsewhere
    // would, without pruning, have every listing crawl all of it.
    symlink("../../..", root.join("docs/up")).unwrap();
    symlink("/usr", root.join("usr")).unwrap();
    let source = FolderSource::new(root).unwrap();

    let listing = tokio::time::timeout(Duration::from_secs(5), conformance::list_with_skipped(&source)).await;
    let (listed, skipped) = listing.expect("listing stays inside the folder");
    let listed: Vec<String> = listed.into_iter().map(|m| m.key).collect();
    assert_eq!(listed, ["alias.txt", "docs/inner.txt", "linked/inner.txt", "top.txt"]);
    // Every link out is reported with its reason, so an admin can see why
    // a file is not indexed.
    let out = "symlink leads outside the ingested folder".to_string();
    let expected: Vec<(String, String)> = ["docs/up", "escape.txt", "escape_dir", "linked/up", "usr"]
        .iter()
        .map(|k| (k.to_string(), out.clone()))
        .collect();
    assert_eq!(skipped, expected);
    assert_eq!(fetch(&source, "alias.txt", 100).await.unwrap(), b"top");
    assert_eq!(fetch(&source, "linked/inner.txt", 100).await.unwrap(), b"inner");
    for key in ["escape.txt", "escape_dir/secret.txt", "usr/lib/os-release"] {
        assert_refused(fetch(&source, key, u64::MAX).await, key);
    }
}

#[tokio::test]
async fn fifos_are_skipped_and_never_block() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "real.txt", b"real");
    let fifos = vec![dir.path().join("pipe.txt"), dir.path().join("nested.md")];
    fifos.iter().for_each(|f| mkfifo(f));
    symlink("pipe.txt", dir.path().join("pipe_link.txt")).unwrap();
    let _watchdog = FifoWatchdog::new(fifos);
    let source = FolderSource::new(dir.path()).unwrap();
    let (listed, skipped) = conformance::list_with_skipped(&source).await;
    assert_eq!(listed.into_iter().map(|m| m.key).collect::<Vec<_>>(), ["real.txt"]);
    let fifo = "not a regular file (FIFO)".to_string();
    let expected: Vec<(String, String)> =
        ["nested.md", "pipe.txt", "pipe_link.txt"].iter().map(|k| (k.to_string(), fifo.clone())).collect();
    assert_eq!(skipped, expected);
    for key in ["pipe.txt", "nested.md", "pipe_link.txt"] {
        assert_refused(fetch(&source, key, u64::MAX).await, key);
    }
}

#[tokio::test]
async fn unreadable_entries_are_reported_with_their_reason() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "good.txt", b"good");
    symlink("missing.txt", root.join("dangling.txt")).unwrap();
    symlink("loop_b.txt", root.join("loop_a.txt")).unwrap();
    symlink("loop_a.txt", root.join("loop_b.txt")).unwrap();
    std::fs::write(root.join(std::ffi::OsStr::from_bytes(b"latin1-\xe9t\xe9.txt")), b"x").unwrap();
    write(root, "line\nbreak.txt", b"a name with a newline is still a name");
    let source = FolderSource::new(root).unwrap();
    let (listed, skipped) = conformance::list_with_skipped(&source).await;
    assert_eq!(listed.into_iter().map(|m| m.key).collect::<Vec<_>>(), ["good.txt", "line\nbreak.txt"]);
    let reasons: std::collections::BTreeMap<String, String> = skipped.into_iter().collect();
    assert_eq!(reasons["dangling.txt"], "dangling symlink (its target does not exist)");
    assert_eq!(reasons["loop_a.txt"], "symlink loop");
    assert_eq!(reasons["loop_b.txt"], "symlink loop");
    assert_eq!(reasons["latin1-\u{fffd}t\u{fffd}.txt"], "file name is not valid UTF-8");
    assert_eq!(reasons.len(), 4, "{reasons:?}");
}

#[tokio::test]
async fn keys_that_could_leave_the_folder_are_refused() {
    let parent = tempfile::tempdir().unwrap();
    write(parent.path(), "sibling.txt", b"next to the corpus");
    write(parent.path(), "corpus/top.txt", b"top");
    let source = FolderSource::new(&parent.path().join("corpus")).unwrap();
    assert_eq!(fetch(&source, "top.txt", 100).await.unwrap(), b"top");
    for key in ["../sibling.txt", "sub/../top.txt", "./top.txt", "/etc/hostname", ""] {
        assert_refused(fetch(&source, key, u64::MAX).await, key);
    }
}

#[tokio::test]
async fn etag_changes_when_a_file_changes() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "changing.txt", b"first version");
    write(dir.path(), "steady.txt", b"unchanged");
    let source = FolderSource::new(dir.path()).unwrap();
    let before = list_all(&source).await;
    // A different size changes the etag whatever the mtime granularity.
    write(dir.path(), "changing.txt", b"second, longer version");
    let after = list_all(&source).await;
    assert_eq!(before.len(), 2);
    assert_eq!(after.len(), 2);
    assert_ne!(before[0].etag, after[0].etag, "modified file keeps its etag");
    assert_eq!(after[0].size, 22);
    assert_eq!(before[1], after[1], "untouched file changed");
    assert_eq!(before[0].uri, after[0].uri);
}
