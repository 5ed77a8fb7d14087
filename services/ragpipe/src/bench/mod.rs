//! `ragpipe bench`: speed figures, printed, never asserted.

mod admin;
mod asr;
mod embed;
mod extract;
mod ingest;
mod ocr;
mod search;
mod sync;

pub use admin::admin;
pub use asr::asr;
pub use embed::embed;
pub use extract::extract;
pub use ingest::ingest;
pub use ocr::ocr;
pub use search::search;
pub use sync::sync;

/// Peak resident set size of this process so far, in MiB (Linux `VmHWM`).
pub fn peak_rss_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let kib: f64 = status.lines().find(|l| l.starts_with("VmHWM:"))?.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024.0)
}

/// Peak resident set size of the largest child process waited for so far
/// (the isolated extraction children), in MiB; `None` if none ran.
pub fn peak_child_rss_mib() -> Option<f64> {
    // SAFETY: getrusage only writes the struct it is given.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let ok = unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage) } == 0;
    (ok && usage.ru_maxrss > 0).then(|| usage.ru_maxrss as f64 / 1024.0)
}
