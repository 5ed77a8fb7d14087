//! A local folder as a source (the embedded default).
//!
//! Hidden files and folders (`.git`, the `.ragpipe` data dir) are neither
//! listed nor fetched, symlinks are followed only while they stay inside the
//! folder, and special files (FIFOs, sockets, devices) are never opened:
//! reading a FIFO would block a worker forever. Keys are listed in ascending
//! byte order, as S3 lists them, so both sources diff the same way.

use crate::{Listing, ObjectMeta, ObjectSource, SourceError};
use async_trait::async_trait;
use std::io::Read;
use std::path::{Component, Path, PathBuf};
use std::time::UNIX_EPOCH;
use tokio::sync::mpsc;

pub struct FolderSource {
    root: PathBuf,
    /// Extensions (lowercase, no dot) of files that are not documents on
    /// their own (e.g. transcript sidecars) and are not listed.
    skip_extensions: Vec<String>,
}

impl FolderSource {
    /// Opens a folder; its canonical path anchors every containment check.
    pub fn new(root: &Path) -> Result<Self, SourceError> {
        let root = root
            .canonicalize()
            .map_err(|e| SourceError::List { root: root.display().to_string(), reason: e.to_string() })?;
        if !root.is_dir() {
            return Err(SourceError::List { root: root.display().to_string(), reason: "not a directory".into() });
        }
        Ok(FolderSource { root, skip_extensions: Vec::new() })
    }

    /// Files with these extensions are not listed as documents.
    pub fn skipping(mut self, extensions: &[&str]) -> Self {
        self.skip_extensions = extensions.iter().map(|e| e.to_ascii_lowercase()).collect();
        self
    }

    pub fn path(&self) -> &Path {
        &self.root
    }

    /// The file behind a key, refusing keys that could leave the folder.
    fn resolve(&self, key: &str) -> Result<PathBuf, SourceError> {
        let rel = Path::new(key);
        if rel.components().any(|c| !matches!(c, Component::Normal(_))) {
            return Err(SourceError::Refused { key: key.into(), reason: "key is not a plain relative path".into() });
        }
        if rel.components().any(|c| is_hidden(c.as_os_str())) {
            return Err(SourceError::Refused {
                key: key.into(),
                reason: "hidden files are not part of the source".into(),
            });
        }
        let path = self.root.join(rel).canonicalize().map_err(|e| not_found_or(key, e))?;
        if !path.starts_with(&self.root) {
            return Err(SourceError::Refused {
                key: key.into(),
                reason: "symlink leads outside the ingested folder".into(),
            });
        }
        Ok(path)
    }

    fn uri(&self, key: &str) -> String {
        format!("file://{}/{}", self.root.display(), key)
    }

    fn walk(&self, tx: &mpsc::Sender<Result<ObjectMeta, SourceError>>) {
        // A symlink out of the folder is pruned here rather than per file, so
        // a link to `/` does not walk the whole disk to list nothing.
        let walker = walkdir::WalkDir::new(&self.root)
            .follow_links(true)
            .sort_by(|a, b| key_order(a).cmp(&key_order(b)))
            .into_iter()
            .filter_entry(|e| {
                e.depth() == 0 || !(is_hidden(e.file_name()) || e.path_is_symlink() && !self.contains_target(e.path()))
            });
        for entry in walker {
            let item = match entry {
                Ok(e) if e.file_type().is_file() => self.meta(e.path()),
                Ok(_) => continue,
                // Loops and unreadable folders are reported, not fatal.
                Err(e) => {
                    tracing::warn!(error = %e, "skipping unreadable entry");
                    continue;
                }
            };
            let Some(item) = item else { continue };
            if tx.blocking_send(Ok(item)).is_err() {
                return;
            }
        }
    }

    fn contains_target(&self, path: &Path) -> bool {
        path.canonicalize().is_ok_and(|real| real.starts_with(&self.root))
    }

    fn meta(&self, path: &Path) -> Option<ObjectMeta> {
        let real = path.canonicalize().ok()?;
        if !real.starts_with(&self.root) {
            return None;
        }
        let key = path.strip_prefix(&self.root).ok()?.to_str()?.replace('\\', "/");
        let ext = key.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase()).unwrap_or_default();
        if self.skip_extensions.contains(&ext) {
            return None;
        }
        let md = std::fs::metadata(&real).ok()?;
        if !md.is_file() {
            return None;
        }
        let mtime = md.modified().ok().and_then(|t| t.duration_since(UNIX_EPOCH).ok()).map_or(0, |d| d.as_nanos());
        Some(ObjectMeta { uri: self.uri(&key), etag: format!("{}-{mtime}", md.len()), size: md.len(), key })
    }
}

fn is_hidden(name: &std::ffi::OsStr) -> bool {
    name.as_encoded_bytes().starts_with(b".")
}

/// Sorting siblings by this makes a depth-first walk yield whole keys in
/// ascending byte order: a folder's keys all start with `name/`, so the
/// folder sorts as `name/` (`a.txt` before `a/…`, although `a` < `a.txt`).
fn key_order(entry: &walkdir::DirEntry) -> Vec<u8> {
    let mut k = entry.file_name().as_encoded_bytes().to_vec();
    if entry.file_type().is_dir() {
        k.push(b'/');
    }
    k
}

fn not_found_or(key: &str, e: std::io::Error) -> SourceError {
    if e.kind() == std::io::ErrorKind::NotFound {
        SourceError::NotFound { key: key.into() }
    } else {
        SourceError::Read { key: key.into(), reason: e.to_string(), retryable: false }
    }
}

#[async_trait]
impl ObjectSource for FolderSource {
    fn root(&self) -> String {
        format!("file://{}", self.root.display())
    }

    fn list(&self) -> Listing {
        let (tx, rx) = mpsc::channel(1024);
        let this = FolderSource { root: self.root.clone(), skip_extensions: self.skip_extensions.clone() };
        tokio::task::spawn_blocking(move || this.walk(&tx));
        rx
    }

    async fn fetch(&self, key: &str, max_bytes: u64) -> Result<Vec<u8>, SourceError> {
        let path = self.resolve(key)?;
        let key = key.to_string();
        tokio::task::spawn_blocking(move || {
            let md = std::fs::metadata(&path).map_err(|e| not_found_or(&key, e))?;
            if !md.is_file() {
                return Err(SourceError::Refused { key, reason: "not a regular file".into() });
            }
            let too_large = |size| SourceError::TooLarge { key: key.clone(), size, limit: max_bytes };
            if md.len() > max_bytes {
                return Err(too_large(md.len()));
            }
            // The file may have grown since the check; never read past the limit.
            let file = std::fs::File::open(&path).map_err(|e| not_found_or(&key, e))?;
            let mut bytes = Vec::with_capacity(md.len() as usize);
            file.take(max_bytes.saturating_add(1)).read_to_end(&mut bytes).map_err(|e| not_found_or(&key, e))?;
            if bytes.len() as u64 > max_bytes {
                return Err(too_large(bytes.len() as u64));
            }
            Ok(bytes)
        })
        .await
        .map_err(|e| SourceError::Read { key: String::new(), reason: e.to_string(), retryable: true })?
    }
}
