//! Faults for the chaos test: a Qdrant server process of the test's own
//! that can be killed and started again on the same storage, and restarts
//! of the machine's RabbitMQ and PostgreSQL (root, Debian's tools).

use super::net::free_port;
use std::path::PathBuf;
use std::process::{Child, Command};
use std::time::{Duration, Instant};

/// A Qdrant server on loopback with storage in `dir`; `kill` is SIGKILL.
pub struct QdrantProcess {
    bin: PathBuf,
    dir: tempfile::TempDir,
    pub http: u16,
    pub grpc: u16,
    child: Option<Child>,
}

impl QdrantProcess {
    /// The binary at `$QDRANT_BIN`, else `qdrant` on the PATH.
    pub fn start() -> QdrantProcess {
        let bin = std::env::var_os("QDRANT_BIN").map(PathBuf::from).unwrap_or_else(|| {
            let path = std::env::var_os("PATH").unwrap_or_default();
            std::env::split_paths(&path)
                .map(|d| d.join("qdrant"))
                .find(|p| p.is_file())
                .expect("no qdrant binary on the PATH (or at $QDRANT_BIN)")
        });
        let mut q =
            QdrantProcess { bin, dir: tempfile::tempdir().unwrap(), http: free_port(), grpc: free_port(), child: None };
        q.launch();
        q
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.grpc)
    }

    /// Starts the server on the same storage and ports; waits until ready.
    pub fn launch(&mut self) {
        let dir = self.dir.path();
        // Appended to: a restarted server's log follows the killed one's.
        let log = std::fs::OpenOptions::new().create(true).append(true).open(dir.join("qdrant.log")).unwrap();
        let child = Command::new(&self.bin)
            .current_dir(dir)
            .env("QDRANT__SERVICE__HOST", "127.0.0.1")
            .env("QDRANT__SERVICE__HTTP_PORT", self.http.to_string())
            .env("QDRANT__SERVICE__GRPC_PORT", self.grpc.to_string())
            .env("QDRANT__TELEMETRY_DISABLED", "true")
            .env("QDRANT__STORAGE__STORAGE_PATH", dir.join("storage"))
            .env("QDRANT__STORAGE__SNAPSHOTS_PATH", dir.join("snapshots"))
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .unwrap();
        self.child = Some(child);
        let started = Instant::now();
        while !ready(self.http) {
            assert!(started.elapsed() < Duration::from_secs(60), "qdrant did not become ready: see its log");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The last lines the server logged (for a failing test's message).
    pub fn log_tail(&self) -> String {
        let log = std::fs::read_to_string(self.dir.path().join("qdrant.log")).unwrap_or_default();
        let lines: Vec<&str> = log.lines().collect();
        lines[lines.len().saturating_sub(6)..].join("\n")
    }

    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Drop for QdrantProcess {
    fn drop(&mut self) {
        self.kill();
    }
}

fn ready(http: u16) -> bool {
    let url = format!("http://127.0.0.1:{http}/readyz");
    ureq::get(&url).call().is_ok()
}

/// Restarts the machine's RabbitMQ: the application stops (every
/// connection drops, unacked messages go back), stays down `down`, starts.
pub fn restart_rabbitmq(down: Duration) {
    run("rabbitmqctl", &["-q", "stop_app"]);
    std::thread::sleep(down);
    run("rabbitmqctl", &["-q", "start_app"]);
    run("rabbitmqctl", &["-q", "await_startup"]);
}

/// Restarts the machine's PostgreSQL cluster (the first one listed).
pub fn restart_postgres() {
    let out = Command::new("pg_lsclusters").arg("--no-header").output().expect("pg_lsclusters (postgresql-common)");
    let listed = String::from_utf8_lossy(&out.stdout);
    let mut fields = listed.split_whitespace();
    let (version, cluster) = (fields.next().expect("a PostgreSQL cluster"), fields.next().unwrap());
    run("pg_ctlcluster", &[version, cluster, "restart", "-m", "fast"]);
}

fn run(cmd: &str, args: &[&str]) {
    let out = Command::new(cmd).args(args).output().unwrap_or_else(|e| panic!("{cmd}: {e}"));
    assert!(out.status.success(), "{cmd} {args:?}: {}", String::from_utf8_lossy(&out.stderr));
}
