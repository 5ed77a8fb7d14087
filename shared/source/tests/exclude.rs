//! `Excluding` over a folder: the keys `[source] exclude` names are neither
//! listed nor fetched, by name at any depth or by path from the root, and
//! everything else passes through untouched.

use ragpipe_source::conformance::{self, fetch, list_all, list_with_skipped};
use ragpipe_source::{Exclude, Excluding, FolderSource, SourceError};
use std::path::Path;

fn exclude(patterns: &[&str]) -> Exclude {
    Exclude::new(&patterns.iter().map(|p| p.to_string()).collect::<Vec<_>>()).unwrap()
}

fn write(root: &Path, key: &str, bytes: &[u8]) {
    let path = root.join(key);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
}

#[test]
fn names_match_at_any_depth_and_paths_from_the_root() {
    let e = exclude(&["node_modules", "*.lock", "~$*", "drafts/**", "/build/", "docs/*.tmp"]);
    for key in [
        "node_modules/left-pad/README.md",
        "web/node_modules/x/index.js",
        "Cargo.lock",
        "app/yarn.lock",
        "reports/~$budget.xlsx",
        "drafts/a.md",
        "drafts/deep/b.md",
        "build/out.txt",
        "docs/notes.tmp",
    ] {
        assert!(e.excludes(key), "{key}");
    }
    for key in [
        "node_modules.md",
        "Cargo.lock.md",
        "lock",
        "old/drafts/a.md",
        "app/build/out.txt",
        "docs/deeper/notes.tmp",
        "docs/notes.tmp.md",
        "readme.md",
    ] {
        assert!(!e.excludes(key), "{key}");
    }
    assert!(!exclude(&[]).excludes("anything"));
}

#[test]
fn malformed_patterns_are_refused_by_name() {
    let err = |p: &str| Exclude::new(&[p.to_string()]).unwrap_err();
    assert_eq!(err("!keep.md"), "source.exclude: \"!keep.md\": negation (`!`) is not supported");
    assert_eq!(err("/"), "source.exclude: \"/\": matches nothing");
    assert!(
        err("reports/[a-").starts_with("source.exclude: \"reports/[a-\": unclosed character class"),
        "{}",
        err("reports/[a-")
    );
}

#[tokio::test]
async fn excluded_keys_are_neither_listed_nor_fetched() {
    let dir = tempfile::tempdir().unwrap();
    for key in [
        "a.md",
        "node_modules/pkg/README.md",
        "node_modules/pkg/index.js",
        "team/Cargo.lock",
        "team/plan.md",
        "team/~$plan.docx",
        "node_modules/~$x.docx",
    ] {
        write(dir.path(), key, b"text");
    }
    #[cfg(unix)]
    {
        let fifo = std::ffi::CString::new(dir.path().join("node_modules/pipe").to_str().unwrap()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o644) }, 0);
    }
    let source = Excluding::new(FolderSource::new(dir.path()).unwrap(), exclude(&["node_modules", "*.lock"]));
    let (listed, skipped) = list_with_skipped(&source).await;
    let keys: Vec<&str> = listed.iter().map(|m| m.key.as_str()).collect();
    assert_eq!(keys, ["a.md", "team/plan.md"]);
    let owner = "an Office owner file (~$…), there while the document is open: not a document";
    assert_eq!(skipped, [("team/~$plan.docx".to_string(), owner.to_string())], "what is excluded is not reported");
    assert!(matches!(fetch(&source, "team/Cargo.lock", 1 << 20).await, Err(SourceError::NotFound { .. })));
    assert_eq!(fetch(&source, "team/plan.md", 1 << 20).await.unwrap(), b"text");
}

#[tokio::test]
async fn nothing_excluded_passes_the_conformance_suite() {
    let dir = tempfile::tempdir().unwrap();
    let objects = conformance::sample_objects();
    for (key, bytes) in &objects {
        write(dir.path(), key, bytes);
    }
    let source = Excluding::new(FolderSource::new(dir.path()).unwrap(), exclude(&["*.never"]));
    conformance::check_all(&source, &objects).await;
    assert_eq!(list_all(&source).await.len(), objects.len());
}
