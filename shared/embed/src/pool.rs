//! Model sessions shared by concurrent callers, and the embedder's busy time.
//!
//! On a few cores a short sequence cannot keep several intra-op threads busy:
//! two sessions of one thread each, running two batches side by side, use
//! the cores better than one session of two threads (docs/BENCHMARKS.md).
//! A caller takes a free session for as long as it needs one and gives it
//! back when its guard drops, even when the model call panicked.

use ort::session::Session;
use std::ops::{Deref, DerefMut};
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

pub(crate) struct SessionPool {
    free: Mutex<Vec<Session>>,
    ready: Condvar,
    size: usize,
}

impl SessionPool {
    pub(crate) fn new(sessions: Vec<Session>) -> Self {
        let size = sessions.len();
        SessionPool { free: Mutex::new(sessions), ready: Condvar::new(), size }
    }

    /// How many sessions the pool holds.
    pub(crate) fn size(&self) -> usize {
        self.size
    }

    /// A free session, waiting for one if all are taken.
    pub(crate) fn take(&self) -> Taken<'_> {
        let mut free = lock(&self.free);
        loop {
            if let Some(session) = free.pop() {
                return Taken { pool: self, session: Some(session) };
            }
            free = self.ready.wait(free).unwrap_or_else(|p| p.into_inner());
        }
    }
}

/// A session out of its pool; back in when dropped.
pub(crate) struct Taken<'a> {
    pool: &'a SessionPool,
    session: Option<Session>,
}

impl Deref for Taken<'_> {
    type Target = Session;
    fn deref(&self) -> &Session {
        self.session.as_ref().expect("held until drop")
    }
}

impl DerefMut for Taken<'_> {
    fn deref_mut(&mut self) -> &mut Session {
        self.session.as_mut().expect("held until drop")
    }
}

impl Drop for Taken<'_> {
    fn drop(&mut self) {
        if let Some(session) = self.session.take() {
            lock(&self.pool.free).push(session);
            self.pool.ready.notify_one();
        }
    }
}

/// Wall time during which at least one embedding call was running: the
/// embedder's busy share of a run is this over the run's wall time.
#[derive(Default)]
pub(crate) struct BusyClock {
    inner: Mutex<Busy>,
}

#[derive(Default)]
struct Busy {
    active: usize,
    since: Option<Instant>,
    total: Duration,
}

impl BusyClock {
    /// Counts from now until the returned guard drops.
    pub(crate) fn enter(&self) -> Running<'_> {
        let mut b = lock(&self.inner);
        if b.active == 0 {
            b.since = Some(Instant::now());
        }
        b.active += 1;
        Running(self)
    }

    pub(crate) fn total(&self) -> Duration {
        let b = lock(&self.inner);
        b.total + b.since.filter(|_| b.active > 0).map_or(Duration::ZERO, |s| s.elapsed())
    }
}

pub(crate) struct Running<'a>(&'a BusyClock);

impl Drop for Running<'_> {
    fn drop(&mut self) {
        let mut b = lock(&self.0.inner);
        b.active -= 1;
        if b.active == 0
            && let Some(since) = b.since.take()
        {
            b.total += since.elapsed();
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}
