//! The `ObjectSource` port: where documents come from. A source lists objects
//! with a version marker (ETag, or size+mtime for a folder) so the coordinator
//! can diff without reading content, and fetches one object's bytes with a
//! size limit so one enormous file cannot exhaust a worker. Every adapter
//! passes the suite in [`conformance`].

#[cfg(feature = "testsuite")]
pub mod conformance;
mod exclude;
mod folder;
mod s3;
mod sidecars;

pub use exclude::{Exclude, Excluding};
pub use folder::FolderSource;
pub use s3::{S3Config, S3Keys, S3Source};
pub use sidecars::{Pairing, WithSidecars};

use async_trait::async_trait;
use tokio::sync::mpsc;

/// One listed object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObjectMeta {
    /// Key inside the source, `/`-separated (a relative path for a folder).
    pub key: String,
    /// Stable URI naming the object across runs (`file:///…`, `s3://bucket/key`).
    pub uri: String,
    /// Changes whenever the content may have changed.
    pub etag: String,
    pub size: u64,
}

#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    #[error("listing {root}: {reason}")]
    List { root: String, reason: String },
    #[error("object {key} not found")]
    NotFound { key: String },
    #[error("file too large: {size} bytes exceeds the limit of {limit} bytes")]
    TooLarge { key: String, size: u64, limit: u64 },
    #[error("reading {key}: {reason}")]
    Read { key: String, reason: String, retryable: bool },
    #[error("refusing {key}: {reason}")]
    Refused { key: String, reason: String },
    /// One listed entry that is not a document and never will be (a
    /// symlink out of the folder, a FIFO, a name that is not UTF-8): the
    /// listing goes on, and the coordinator reports it so an admin can see
    /// why a file is not indexed.
    #[error("skipping {key}: {reason}")]
    Skipped { key: String, reason: String },
}

impl SourceError {
    /// Whether trying again later can succeed.
    pub fn is_retryable(&self) -> bool {
        matches!(self, SourceError::Read { retryable: true, .. } | SourceError::List { .. })
    }
}

/// Objects streamed from a listing; bounded, so a huge listing applies
/// backpressure instead of being held in memory.
pub type Listing = mpsc::Receiver<Result<ObjectMeta, SourceError>>;

#[async_trait]
pub trait ObjectSource: Send + Sync {
    /// A name for logs and URIs, e.g. `file:///data/docs` or `s3://bucket/prefix`.
    fn root(&self) -> String;
    /// Lists every object, in ascending byte order of keys (as S3 does).
    fn list(&self) -> Listing;
    /// Reads one object, refusing it if larger than `max_bytes`.
    async fn fetch(&self, key: &str, max_bytes: u64) -> Result<Vec<u8>, SourceError>;
}
