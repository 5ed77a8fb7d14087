//! `ragpipe bench`: speed figures, printed, never asserted.

mod admin;
mod embed;
mod extract;
mod ingest;
mod search;
mod sync;

pub use admin::admin;
pub use embed::embed;
pub use extract::extract;
pub use ingest::ingest;
pub use search::search;
pub use sync::sync;

/// Peak resident set size of this process so far, in MiB (Linux `VmHWM`).
pub fn peak_rss_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let kib: f64 = status.lines().find(|l| l.starts_with("VmHWM:"))?.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024.0)
}
