//! Transcript sidecars, listed with their recordings. `talk.vtt` beside
//! `talk.mp3` is read with the recording (the extractor fetches it by that
//! name), so it is not a document of its own; but an edited transcript must
//! reach the index, so the recording's version marker carries the
//! sidecar's, and the recording is read again when either changes. A
//! transcript with no recording beside it is listed as itself: a meeting's
//! exported captions are a document, not a leftover.
//!
//! Listings come in ascending byte order, and every key that can pair with
//! `dir/talk.mp3` starts with `dir/talk.`: such keys are contiguous, so an
//! entry is held back only until the listing has passed them.

use crate::{Listing, ObjectMeta, ObjectSource, SourceError};
use async_trait::async_trait;
use std::collections::{HashMap, HashSet};
use tokio::sync::mpsc;

/// A source whose listing folds transcript sidecars into their recordings.
pub struct WithSidecars<S> {
    inner: S,
    pairing: Pairing,
}

/// Which extensions are recordings (any case) and which are the
/// transcripts read beside them (lowercase, as the extractor names them,
/// in the order it looks for them).
#[derive(Debug, Clone)]
pub struct Pairing {
    pub media: Vec<String>,
    pub sidecars: Vec<String>,
}

impl<S: ObjectSource> WithSidecars<S> {
    pub fn new(inner: S, pairing: Pairing) -> Self {
        WithSidecars { inner, pairing }
    }
}

#[async_trait]
impl<S: ObjectSource> ObjectSource for WithSidecars<S> {
    fn root(&self) -> String {
        self.inner.root()
    }

    fn list(&self) -> Listing {
        let mut inner = self.inner.list();
        let (tx, rx) = mpsc::channel(1024);
        let pairing = self.pairing.clone();
        tokio::spawn(async move {
            let mut held = Held::default();
            while let Some(item) = inner.recv().await {
                let meta = match item {
                    Ok(meta) => meta,
                    Err(e) => {
                        if tx.send(Err(e)).await.is_err() {
                            return;
                        }
                        continue;
                    }
                };
                if !held.still_open(&meta.key) && !send_all(&tx, held.release(&pairing)).await {
                    return;
                }
                held.hold(meta, &pairing);
            }
            send_all(&tx, held.release(&pairing)).await;
        });
        rx
    }

    async fn fetch(&self, key: &str, max_bytes: u64) -> Result<Vec<u8>, SourceError> {
        self.inner.fetch(key, max_bytes).await
    }
}

/// Sends `entries` in order; false once the receiver is gone.
async fn send_all(tx: &mpsc::Sender<Result<ObjectMeta, SourceError>>, entries: Vec<ObjectMeta>) -> bool {
    for meta in entries {
        if tx.send(Ok(meta)).await.is_err() {
            return false;
        }
    }
    true
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    Recording,
    Sidecar,
}

impl Pairing {
    /// The key without its extension, and what it is, when it names a
    /// recording or a sidecar.
    fn role<'k>(&self, key: &'k str) -> Option<(&'k str, Role)> {
        let (stem, ext) = key.rsplit_once('.')?;
        if ext.contains('/') {
            None
        } else if self.media.iter().any(|m| m.eq_ignore_ascii_case(ext)) {
            Some((stem, Role::Recording))
        } else if self.sidecars.iter().any(|s| s == ext) {
            Some((stem, Role::Sidecar))
        } else {
            None
        }
    }
}

/// Entries held until every key that could pair with them has been seen.
#[derive(Default)]
struct Held {
    entries: Vec<ObjectMeta>,
    /// `stem.` of each held recording or sidecar: later keys starting with
    /// one of these may still pair. Empty: the next key releases the entries.
    open: Vec<String>,
}

impl Held {
    fn still_open(&self, key: &str) -> bool {
        self.open.iter().any(|p| key.starts_with(p.as_str()))
    }

    fn hold(&mut self, meta: ObjectMeta, pairing: &Pairing) {
        if let Some((stem, _)) = pairing.role(&meta.key) {
            self.open.push(format!("{stem}."));
        }
        self.entries.push(meta);
    }

    /// The held entries in listing order, without the sidecars that have
    /// their recording, whose version markers the recordings carry.
    fn release(&mut self, pairing: &Pairing) -> Vec<ObjectMeta> {
        self.open.clear();
        let entries = std::mem::take(&mut self.entries);
        let recordings: HashSet<&str> = entries
            .iter()
            .filter_map(|m| pairing.role(&m.key))
            .filter_map(|(stem, role)| (role == Role::Recording).then_some(stem))
            .collect();
        let etags: HashMap<&str, &str> = entries.iter().map(|m| (m.key.as_str(), m.etag.as_str())).collect();
        let mut out = Vec::with_capacity(entries.len());
        for meta in &entries {
            let mut meta = meta.clone();
            match pairing.role(&meta.key) {
                Some((stem, Role::Sidecar)) if recordings.contains(stem) => continue,
                Some((stem, Role::Recording)) => {
                    let stem = stem.to_string();
                    for ext in &pairing.sidecars {
                        if let Some(etag) = etags.get(format!("{stem}.{ext}").as_str()) {
                            meta.etag = format!("{}+{ext}:{etag}", meta.etag);
                        }
                    }
                }
                _ => {}
            }
            out.push(meta);
        }
        out
    }
}
