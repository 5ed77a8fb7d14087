//! Network helpers of the end-to-end tests: a TCP proxy that can cut every
//! connection, free loopback ports, a plain HTTP GET, and servers started
//! for a test and killed after it.

use serde_json::Value;
use std::time::{Duration, Instant};

/// A TCP proxy in front of RabbitMQ that can drop every connection and
/// come back on the same port, as a broker restart or a network cut does.
pub struct Proxy {
    pub port: u16,
    target: String,
    tasks: std::sync::Arc<std::sync::Mutex<Vec<tokio::task::JoinHandle<()>>>>,
}

impl Proxy {
    pub async fn start(port: u16, target: &str) -> Proxy {
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let tasks = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let (list, to) = (tasks.clone(), target.to_string());
        let accept = tokio::spawn(async move {
            while let Ok((mut client, _)) = listener.accept().await {
                let to = to.clone();
                let conn = tokio::spawn(async move {
                    if let Ok(mut server) = tokio::net::TcpStream::connect(&to).await {
                        let _ = tokio::io::copy_bidirectional(&mut client, &mut server).await;
                    }
                });
                list.lock().unwrap().push(conn);
            }
        });
        tasks.lock().unwrap().push(accept);
        Proxy { port, target: target.to_string(), tasks }
    }

    /// Drops every connection and the listener, then listens again.
    pub async fn cut(&mut self) {
        for task in self.tasks.lock().unwrap().drain(..) {
            task.abort();
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
        *self = Proxy::start(self.port, &self.target).await;
    }
}

pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// GETs a URL (retrying while nothing listens yet); returns status and JSON body.
pub fn http_get(url: &str, token: Option<&str>) -> (u16, Value) {
    let http: ureq::Agent = ureq::Agent::config_builder().http_status_as_error(false).build().into();
    let started = Instant::now();
    loop {
        let mut req = http.get(url);
        if let Some(t) = token {
            req = req.header("Authorization", &format!("Bearer {t}"));
        }
        match req.call() {
            Ok(mut res) => {
                let text = res.body_mut().read_to_string().unwrap_or_default();
                let body = serde_json::from_str(&text).unwrap_or(Value::String(text));
                // A worker answers 503 until it is consuming; wait for that.
                if res.status() != 503 || started.elapsed() > Duration::from_secs(30) {
                    return (res.status().as_u16(), body);
                }
            }
            Err(e) => assert!(started.elapsed() < Duration::from_secs(30), "{url}: {e}"),
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A child process killed (and reaped) when dropped.
pub struct Killed(pub std::process::Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts an HTTP server (`ragpipe serve admin|search --listen 127.0.0.1:0`)
/// and reads the base URL from the first line it prints
/// (`<what> listening on http://…`).
pub fn serve(mut cmd: std::process::Command, what: &str) -> (Killed, String) {
    use std::io::BufRead;
    let mut child = cmd.stdout(std::process::Stdio::piped()).spawn().unwrap();
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let prefix = format!("{what} listening on ");
    let url = line.trim().strip_prefix(&prefix).unwrap_or_else(|| panic!("{line:?}")).to_string();
    (Killed(child), url)
}
