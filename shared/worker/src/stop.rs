//! The stop signal a process's tasks share: SIGTERM or Ctrl-C (or a test)
//! fires it once; every task waiting on it wakes.

use std::time::Duration;
use tokio::sync::watch;

#[derive(Debug, Clone)]
pub struct Stop {
    rx: watch::Receiver<bool>,
}

impl Stop {
    /// A stop fired by SIGTERM or Ctrl-C.
    pub fn on_signals() -> Stop {
        let (tx, stop) = Stop::manual();
        tokio::spawn(async move {
            signalled().await;
            let _ = tx.send(true);
        });
        stop
    }

    /// A stop fired by sending `true` (tests, a process that stops itself).
    pub fn manual() -> (watch::Sender<bool>, Stop) {
        let (tx, rx) = watch::channel(false);
        (tx, Stop { rx })
    }

    pub fn is_stopped(&self) -> bool {
        *self.rx.borrow()
    }

    /// Resolves once stopped.
    pub async fn stopped(&self) {
        let mut rx = self.rx.clone();
        if rx.wait_for(|s| *s).await.is_err() {
            // No sender left: it can never fire.
            std::future::pending::<()>().await;
        }
    }

    /// [`Stop::stopped`] as an owned future (for a spawned server).
    pub async fn stopped_owned(self) {
        self.stopped().await
    }

    /// Sleeps `d`; `true` if stopped first.
    pub async fn sleep(&self, d: Duration) -> bool {
        tokio::select! {
            _ = self.stopped() => true,
            _ = tokio::time::sleep(d) => false,
        }
    }
}

/// Resolves on SIGTERM or Ctrl-C.
async fn signalled() {
    let mut term = match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
        Ok(s) => s,
        Err(_) => return std::future::pending().await,
    };
    tokio::select! {
        _ = term.recv() => {}
        _ = tokio::signal::ctrl_c() => {}
    }
}
