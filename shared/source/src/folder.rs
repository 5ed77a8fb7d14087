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
        Ok(FolderSource { root })
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
        let mut walker = walkdir::WalkDir::new(&self.root)
            .follow_links(true)
            .sort_by(|a, b| key_order(a).cmp(&key_order(b)))
            .into_iter();
        while let Some(entry) = walker.next() {
            let item = match entry {
                Ok(e) if e.depth() == 0 => continue,
                Ok(e) if is_hidden(e.file_name()) => {
                    if e.file_type().is_dir() {
                        walker.skip_current_dir();
                    }
                    continue;
                }
                // A symlink out of the folder is pruned here rather than per
                // file, so a link to `/` does not walk the whole disk.
                Ok(e) if e.path_is_symlink() && !self.contains_target(e.path()) => {
                    if e.file_type().is_dir() {
                        walker.skip_current_dir();
                    }
                    Err(self.skipped(e.path(), "symlink leads outside the ingested folder".into()))
                }
                Ok(e) if e.file_type().is_dir() => continue,
                Ok(e) if e.file_type().is_file() => match self.meta(e.path()) {
                    Some(item) => item,
                    None => continue,
                },
                Ok(e) => Err(self.skipped(e.path(), special_file(e.file_type()).into())),
                // Dangling links, loops and unreadable folders skip one entry;
                // a link to an ancestor of the folder is a loop to the walk,
                // but what matters is that it leads outside.
                Err(e) => match e.path() {
                    Some(path) if path.is_symlink() && self.leads_outside(path) => {
                        Err(self.skipped(path, "symlink leads outside the ingested folder".into()))
                    }
                    Some(path) => Err(self.skipped(path, walk_reason(&e))),
                    None => continue,
                },
            };
            if tx.blocking_send(item).is_err() {
                return;
            }
        }
    }

    /// An entry that is not a document, keyed as it would have been listed
    /// (a name that is not UTF-8 shows with replacement characters).
    fn skipped(&self, path: &Path, reason: String) -> SourceError {
        let key = path.strip_prefix(&self.root).unwrap_or(path).to_string_lossy().replace('\\', "/");
        tracing::info!(%key, %reason, "skipping entry");
        SourceError::Skipped { key, reason }
    }

    /// Whether `path` resolves, and to somewhere outside the folder.
    fn leads_outside(&self, path: &Path) -> bool {
        path.canonicalize().is_ok_and(|real| !real.starts_with(&self.root))
    }

    fn contains_target(&self, path: &Path) -> bool {
        path.canonicalize().is_ok_and(|real| real.starts_with(&self.root))
    }

    /// A regular file's listing entry.
    fn meta(&self, path: &Path) -> Option<Result<ObjectMeta, SourceError>> {
        let Some(key) = path.strip_prefix(&self.root).ok()?.to_str() else {
            // Keys are UTF-8 everywhere (URIs, JSON, S3); such a file cannot
            // be named, so it is reported rather than silently left out.
            return Some(Err(self.skipped(path, "file name is not valid UTF-8".into())));
        };
        let key = key.replace('\\', "/");
        let md = match path.canonicalize().and_then(|real| std::fs::metadata(&real).map(|md| (real, md))) {
            Ok((real, _)) if !real.starts_with(&self.root) => {
                return Some(Err(self.skipped(path, "symlink leads outside the ingested folder".into())));
            }
            Ok((_, md)) => md,
            Err(e) => return Some(Err(self.skipped(path, e.to_string()))),
        };
        let mtime = md.modified().ok().and_then(|t| t.duration_since(UNIX_EPOCH).ok()).map_or(0, |d| d.as_nanos());
        Some(Ok(ObjectMeta { uri: self.uri(&key), etag: format!("{}-{mtime}", md.len()), size: md.len(), key }))
    }
}

/// What a special file is, for the reason it is skipped: reading a FIFO
/// would block a worker forever, and a device is not a document.
fn special_file(ft: std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if ft.is_fifo() {
        "not a regular file (FIFO)"
    } else if ft.is_socket() {
        "not a regular file (socket)"
    } else if ft.is_char_device() || ft.is_block_device() {
        "not a regular file (device)"
    } else {
        "not a regular file"
    }
}

/// Why the walk could not read an entry, in words an admin can act on.
fn walk_reason(e: &walkdir::Error) -> String {
    if e.loop_ancestor().is_some() {
        return "symlink loop".into();
    }
    match e.io_error() {
        Some(io) if io.kind() == std::io::ErrorKind::NotFound => "dangling symlink (its target does not exist)".into(),
        Some(io) if io.raw_os_error() == Some(libc::ELOOP) => "symlink loop".into(),
        Some(io) => io.to_string(),
        None => e.to_string(),
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
        let this = FolderSource { root: self.root.clone() };
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
