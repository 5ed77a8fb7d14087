//! How the coordinator runs as a service (`ragpipe sync [--every D]`):
//! one sync run, or one after another until stopped. Runs never overlap,
//! across processes too (the state store's sync lock).

use crate::{CoordinatorError, SyncOptions, SyncReport, sync_once};
use ragpipe_config::Config;
use ragpipe_queue::Queue;
use ragpipe_source::ObjectSource;
use ragpipe_state::{StateStore, SyncRun};
use ragpipe_worker::Stop;
use std::sync::Arc;
use std::time::Duration;

/// What the coordinator reads and writes.
#[derive(Clone)]
pub struct Ports {
    pub source: Arc<dyn ObjectSource>,
    pub state: Arc<dyn StateStore>,
    pub queue: Arc<dyn Queue>,
}

/// How one run ended.
#[derive(Debug)]
pub enum RunEnd {
    Synced(SyncReport),
    /// Another run (a second scheduler, a manual run) held the lock: this
    /// one did nothing. Not an error for a cron job, but visible.
    Skipped(Box<SyncRun>),
}

impl SyncOptions {
    /// The distributed mode's options: the queue outlives a dead run, so
    /// unfinished documents are left to their leases, not re-enqueued.
    pub fn from_config(config: &Config) -> Self {
        let mut opts = SyncOptions { resume_pending: false, ..SyncOptions::default() };
        if let Some(secs) = config.distributed.sync_lease_secs {
            opts.lock_lease = Duration::from_secs(secs.max(1));
        }
        opts
    }
}

/// Sync runs: each lists the source, diffs against state and publishes
/// jobs, then hands how it ended to `on_run`. Without `every`, one run
/// (its error is returned); with it, runs follow one another until `stop`,
/// and a failed run is logged while the next one tries again.
pub async fn run(
    config: &Config,
    ports: Ports,
    every: Option<Duration>,
    stop: Stop,
    mut on_run: impl FnMut(RunEnd),
) -> Result<(), CoordinatorError> {
    let opts = SyncOptions::from_config(config);
    loop {
        match sync_once(ports.source.as_ref(), ports.state.as_ref(), ports.queue.as_ref(), opts).await {
            Ok(report) => on_run(RunEnd::Synced(report)),
            Err(CoordinatorError::Busy(held)) => on_run(RunEnd::Skipped(held)),
            Err(e) if every.is_some() => tracing::error!(error = %e, "sync run failed; the next run retries"),
            Err(e) => return Err(e),
        }
        match every {
            Some(every) if !stop.sleep(every).await => {}
            _ => return Ok(()),
        }
    }
}
