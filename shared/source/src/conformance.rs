//! The conformance suite every [`ObjectSource`] adapter must pass.
//!
//! The coordinator diffs listings against state and the extractor fetches by
//! key, so a folder and a bucket must agree on what a listing contains, how it
//! is ordered, what an etag promises and how fetch fails. The test populates
//! the source itself (files in a temp dir, objects under a fresh bucket
//! prefix), usually with [`sample_objects`], and passes the same map here.
//! Checks panic on failure and bound every wait.
//!
//! Listing order is not part of the contract: AWS S3 returns ascending byte
//! order, but S3-compatible stores differ (SeaweedFS lists `a/b.txt` before
//! `a-z.txt`), and the coordinator's diff needs no order. A listing must hold
//! each key exactly once and be the same on every call.

use crate::{ObjectMeta, ObjectSource, SourceError};
use std::collections::BTreeMap;
use std::time::Duration;
use tokio::time::timeout;

/// How long a listing or fetch may take.
pub const PATIENCE: Duration = Duration::from_secs(30);

/// Keys and contents that exercise ordering and encoding: names that sort
/// differently per path component than as whole keys (`a.txt` < `a/b.txt`
/// although `a` < `a.txt`), upper before lower case, spaces, non-ASCII, an
/// empty object, binary bytes and nesting.
pub fn sample_objects() -> BTreeMap<String, Vec<u8>> {
    let binary: Vec<u8> = (0..=255u8).cycle().take(3000).collect();
    [
        ("B.txt", b"upper case sorts first".to_vec()),
        ("a-z.txt", b"dash sorts before dot".to_vec()),
        ("a.txt", b"alpha".to_vec()),
        ("a/b.txt", b"nested under a".to_vec()),
        ("a/c/d.md", b"# deeper\n\ntext".to_vec()),
        ("bin.dat", binary),
        ("empty.txt", Vec::new()),
        ("space name.txt", b"spaces in keys".to_vec()),
        ("unicod\u{e9}/\u{fc}ber.txt", "caf\u{e9}".as_bytes().to_vec()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect()
}

/// Runs every single-source check.
pub async fn check_all(source: &dyn ObjectSource, expected: &BTreeMap<String, Vec<u8>>) {
    lists_exactly_the_objects(source, expected).await;
    fetch_returns_the_bytes(source, expected).await;
    fetch_enforces_the_size_limit(source, expected).await;
    missing_keys_are_not_found(source, expected).await;
}

/// Collects a whole listing's objects, failing on any listed error other
/// than a skipped entry.
pub async fn list_all(source: &dyn ObjectSource) -> Vec<ObjectMeta> {
    list_with_skipped(source).await.0
}

/// Collects a whole listing: the objects, and the skipped entries as
/// `(key, reason)`; fails on any other listed error.
pub async fn list_with_skipped(source: &dyn ObjectSource) -> (Vec<ObjectMeta>, Vec<(String, String)>) {
    let mut listing = source.list();
    let (mut out, mut skipped) = (Vec::new(), Vec::new());
    loop {
        match timeout(PATIENCE, listing.recv()).await {
            Ok(Some(Ok(meta))) => out.push(meta),
            Ok(Some(Err(SourceError::Skipped { key, reason }))) => skipped.push((key, reason)),
            Ok(Some(Err(e))) => panic!("listing {} failed: {e}", source.root()),
            Ok(None) => return (out, skipped),
            Err(_) => panic!("listing {} stalled for {PATIENCE:?}", source.root()),
        }
    }
}

/// Fetches with a deadline, so a fetch that blocks fails the check.
pub async fn fetch(source: &dyn ObjectSource, key: &str, max_bytes: u64) -> Result<Vec<u8>, SourceError> {
    timeout(PATIENCE, source.fetch(key, max_bytes))
        .await
        .unwrap_or_else(|_| panic!("fetch {key:?} blocked for {PATIENCE:?}"))
}

/// The listing holds exactly the expected keys, each once, with its size, a
/// non-empty etag and a distinct URI under the root; listing again gives the
/// same answer in the same order.
pub async fn lists_exactly_the_objects(source: &dyn ObjectSource, expected: &BTreeMap<String, Vec<u8>>) {
    let listed = list_all(source).await;
    let mut keys: Vec<&str> = listed.iter().map(|m| m.key.as_str()).collect();
    keys.sort_unstable();
    let want: Vec<&str> = expected.keys().map(String::as_str).collect();
    assert_eq!(keys, want, "the listed keys, each exactly once");

    let root = source.root();
    let mut uris = std::collections::HashSet::new();
    for meta in &listed {
        assert_eq!(meta.size, expected[&meta.key].len() as u64, "size of {}", meta.key);
        assert!(!meta.etag.is_empty(), "{} has an empty etag", meta.key);
        assert!(
            meta.uri.starts_with(&root) && meta.uri.len() > root.len(),
            "uri {} of {} is not under the root {root}",
            meta.uri,
            meta.key
        );
        assert!(uris.insert(meta.uri.clone()), "uri {} listed twice", meta.uri);
    }
    assert_eq!(list_all(source).await, listed, "a second listing differs");
}

/// Each object's bytes come back intact, also when the limit equals the size.
pub async fn fetch_returns_the_bytes(source: &dyn ObjectSource, expected: &BTreeMap<String, Vec<u8>>) {
    for (key, bytes) in expected {
        for limit in [bytes.len() as u64, u64::MAX] {
            match fetch(source, key, limit).await {
                Ok(got) => assert!(got == *bytes, "{key} fetched different bytes"),
                Err(e) => panic!("fetch {key} with limit {limit}: {e}"),
            }
        }
    }
}

/// An object one byte over the limit is refused as too large, naming its
/// real size, so the failure reason tells an admin what to raise.
pub async fn fetch_enforces_the_size_limit(source: &dyn ObjectSource, expected: &BTreeMap<String, Vec<u8>>) {
    let mut checked = 0;
    for (key, bytes) in expected.iter().filter(|(_, b)| !b.is_empty()) {
        let limit = bytes.len() as u64 - 1;
        match fetch(source, key, limit).await {
            Err(SourceError::TooLarge { key: k, size, limit: l }) => {
                assert_eq!((k.as_str(), size, l), (key.as_str(), bytes.len() as u64, limit));
                checked += 1;
            }
            other => panic!("fetch {key} with limit {limit}: expected TooLarge, got {other:?}"),
        }
    }
    assert!(checked > 0, "the expected objects include a non-empty one");
}

/// Keys that were never stored are `NotFound` (not a retryable read error).
pub async fn missing_keys_are_not_found(source: &dyn ObjectSource, expected: &BTreeMap<String, Vec<u8>>) {
    let some_key = expected.keys().next().expect("at least one object");
    let missing = ["no-such-object.txt".to_string(), "no/such/folder/x.txt".to_string(), format!("{some_key}.missing")];
    for key in &missing {
        assert!(!expected.contains_key(key));
        match fetch(source, key, u64::MAX).await {
            Err(SourceError::NotFound { key: k }) => assert_eq!(&k, key),
            other => panic!("fetch of missing {key}: expected NotFound, got {other:?}"),
        }
    }
}

/// Two instances over the same content (two runs, two workers) list the same
/// keys, URIs and etags: URIs derive document ids, so they must not drift.
pub async fn listing_is_stable_across_instances(first: &dyn ObjectSource, second: &dyn ObjectSource) {
    assert_eq!(first.root(), second.root());
    let listed = list_all(first).await;
    assert!(!listed.is_empty(), "the sources hold objects");
    assert_eq!(list_all(second).await, listed);
}
