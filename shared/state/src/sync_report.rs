//! What a sync run found and did: recorded with the run as JSON, so
//! `ragpipe status` and the admin API show the last run's counts and the
//! entries it could not read as documents.

use crate::SyncRun;

/// What one sync run found and did.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SyncReport {
    pub listed: u64,
    pub new: u64,
    pub changed: u64,
    /// Unfinished documents enqueued again (their previous run died).
    pub resumed: u64,
    pub unchanged: u64,
    pub deleted: u64,
    /// Entries the source listed but cannot read as documents.
    #[serde(default)]
    pub skipped: u64,
    /// The first [`MAX_SKIPPED_KEPT`] of them with their reasons; recorded
    /// with the run, so `ragpipe status` shows why a file is not indexed.
    #[serde(default)]
    pub skipped_entries: Vec<SkippedEntry>,
}

/// A listed entry that is not a document: a symlink out of the folder, a
/// FIFO, a dangling link, a name that is not UTF-8.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SkippedEntry {
    pub key: String,
    pub reason: String,
}

/// Skipped entries kept per run: enough to act on, bounded for a bucket
/// where millions of entries could be skipped.
pub const MAX_SKIPPED_KEPT: usize = 1000;

impl SyncReport {
    /// Extract jobs this run published.
    pub fn enqueued(&self) -> u64 {
        self.new + self.changed + self.resumed
    }
}

impl SyncRun {
    /// The report this run recorded when it finished (`None` before, or if
    /// it is unreadable).
    pub fn parsed_report(&self) -> Option<SyncReport> {
        self.report.as_deref().and_then(|json| serde_json::from_str(json).ok())
    }
}
