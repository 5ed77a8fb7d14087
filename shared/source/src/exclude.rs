//! Keys a deployment does not want indexed (`[source] exclude`): dependency
//! folders, build output, generated and temporary files. An excluded key
//! is neither listed nor fetched, so it is never a document (nor a
//! recording's transcript), and one indexed before is deleted by the next
//! sync, as if it had been removed.
//!
//! Office's owner files (`~$report.docx`, a few bytes naming who has the
//! document open, there only while it is) are never documents: they are
//! reported as skipped, with that reason, whatever the patterns.
//!
//! Patterns read like `.gitignore` lines: one without a `/` matches a file
//! or folder name at any depth (`node_modules`, `*.lock`), one with a `/`
//! matches from the source's root (`drafts/**`, `/build`); a trailing `/`
//! is allowed; `*` and `?` stay within a name, `**` crosses folders.

use crate::{Listing, ObjectSource, SourceError};
use async_trait::async_trait;
use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use tokio::sync::mpsc;

/// Compiled exclusion patterns.
#[derive(Debug, Clone)]
pub struct Exclude {
    /// Patterns without a `/`: matched against each name in a key.
    names: GlobSet,
    /// Patterns with one: matched against the key and each folder above it.
    paths: GlobSet,
}

impl Exclude {
    /// Compiles `patterns`; a malformed or unsupported one is an error that
    /// names it.
    pub fn new(patterns: &[String]) -> Result<Self, String> {
        let (mut names, mut paths) = (GlobSetBuilder::new(), GlobSetBuilder::new());
        for p in patterns {
            let bare = p.trim().trim_end_matches('/');
            let anchored = bare.contains('/');
            let glob = bare.trim_start_matches('/');
            if glob.is_empty() || glob.starts_with('!') {
                let why = if glob.is_empty() { "matches nothing" } else { "negation (`!`) is not supported" };
                return Err(format!("source.exclude: {p:?}: {why}"));
            }
            let compiled = GlobBuilder::new(glob)
                .literal_separator(true)
                .build()
                .map_err(|e| format!("source.exclude: {p:?}: {}", e.kind()))?;
            if anchored {
                paths.add(compiled)
            } else {
                names.add(compiled)
            };
        }
        let build = |b: GlobSetBuilder| b.build().map_err(|e| format!("source.exclude: {e}"));
        Ok(Exclude { names: build(names)?, paths: build(paths)? })
    }

    /// Whether `key`, or a folder it is in, is excluded.
    pub fn excludes(&self, key: &str) -> bool {
        let folders = key.match_indices('/').map(|(at, _)| &key[..at]);
        key.split('/').any(|name| self.names.is_match(name))
            || folders.chain(std::iter::once(key)).any(|path| self.paths.is_match(path))
    }
}

/// A source whose excluded keys are not there.
pub struct Excluding<S> {
    inner: S,
    exclude: Exclude,
}

impl<S: ObjectSource> Excluding<S> {
    pub fn new(inner: S, exclude: Exclude) -> Self {
        Excluding { inner, exclude }
    }
}

#[async_trait]
impl<S: ObjectSource> ObjectSource for Excluding<S> {
    fn root(&self) -> String {
        self.inner.root()
    }

    fn list(&self) -> Listing {
        let mut inner = self.inner.list();
        let (tx, rx) = mpsc::channel(1024);
        let exclude = self.exclude.clone();
        tokio::spawn(async move {
            while let Some(item) = inner.recv().await {
                // A FIFO under `node_modules` is not reported as skipped either.
                let key = match &item {
                    Ok(meta) => Some(&meta.key),
                    Err(SourceError::Skipped { key, .. }) => Some(key),
                    Err(_) => None,
                };
                if key.is_some_and(|k| exclude.excludes(k)) {
                    continue;
                }
                let item = match item {
                    Ok(meta) if owner_file(&meta.key) => {
                        Err(SourceError::Skipped { key: meta.key, reason: OWNER_FILE.into() })
                    }
                    other => other,
                };
                if tx.send(item).await.is_err() {
                    return;
                }
            }
        });
        rx
    }

    async fn fetch(&self, key: &str, max_bytes: u64) -> Result<Vec<u8>, SourceError> {
        if self.exclude.excludes(key) {
            return Err(SourceError::NotFound { key: key.to_string() });
        }
        self.inner.fetch(key, max_bytes).await
    }
}

const OWNER_FILE: &str = "an Office owner file (~$…), there while the document is open: not a document";

/// Whether `key` names an Office owner file: `~$` and the document's name.
fn owner_file(key: &str) -> bool {
    key.rsplit('/').next().is_some_and(|name| name.starts_with("~$"))
}
