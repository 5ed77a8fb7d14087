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

/// Samples the resident set of this process and all its descendants (the
/// extraction children included) until dropped; the peak of the sums is
/// the memory the whole run needed at once.
pub struct TreeRss {
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    task: Option<std::thread::JoinHandle<u64>>,
}

impl TreeRss {
    pub fn start() -> Self {
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let flag = stop.clone();
        let task = std::thread::spawn(move || {
            let mut peak = 0;
            while !flag.load(std::sync::atomic::Ordering::Relaxed) {
                peak = peak.max(tree_rss_bytes(std::process::id()));
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            peak
        });
        TreeRss { stop, task: Some(task) }
    }

    /// The peak in MiB, sampled every 20 ms (a shorter-lived spike can be missed).
    pub fn peak_mib(mut self) -> f64 {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        let bytes = self.task.take().and_then(|t| t.join().ok()).unwrap_or(0);
        bytes as f64 / (1024.0 * 1024.0)
    }
}

/// Resident bytes of `root` and its descendants now, from /proc.
fn tree_rss_bytes(root: u32) -> u64 {
    let Ok(entries) = std::fs::read_dir("/proc") else { return 0 };
    let mut parent = std::collections::HashMap::new();
    let mut rss = std::collections::HashMap::new();
    for pid in entries.flatten().filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok()) {
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else { continue };
        // The command name is in parentheses and may hold spaces: fields after ')'.
        let Some(fields) = stat.rsplit_once(')').map(|(_, rest)| rest.split_whitespace().collect::<Vec<_>>()) else {
            continue;
        };
        // After ')': state, ppid, ... rss is field 24 of stat, index 21 here.
        let (Some(ppid), Some(pages)) = (fields.get(1), fields.get(21)) else { continue };
        parent.insert(pid, ppid.parse::<u32>().unwrap_or(0));
        rss.insert(pid, pages.parse::<u64>().unwrap_or(0) * page_size());
    }
    let in_tree = |mut pid: u32| {
        while pid > 1 {
            if pid == root {
                return true;
            }
            pid = parent.get(&pid).copied().unwrap_or(0);
        }
        false
    };
    rss.iter().filter(|&(&pid, _)| in_tree(pid)).map(|(_, b)| b).sum()
}

fn page_size() -> u64 {
    // SAFETY: sysconf reads a constant of the running system.
    u64::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).unwrap_or(4096)
}
