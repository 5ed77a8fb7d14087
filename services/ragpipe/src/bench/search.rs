//! `ragpipe bench search`: the search service as an application sees it.
//! The service runs in this process on a loopback port, over this config's
//! index (the embedded store, or the Qdrant server of
//! `distributed.qdrant_url`); 1, 4 and 16 clients on their own threads send
//! the golden set's questions over HTTP, first with the query cache off
//! (every question embedded), then on (repeated questions). Prints p50, p95
//! and p99 latency and queries/s; never asserts them.

use crate::cli::BenchSearchArgs;
use crate::wiring;
use anyhow::Context;
use ragpipe_config::Config;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

const CLIENTS: [usize; 3] = [1, 4, 16];

pub async fn search(config: Config, args: BenchSearchArgs) -> anyhow::Result<ExitCode> {
    let queries = questions(&args.queries)?;
    anyhow::ensure!(!queries.is_empty(), "no questions in {}", args.queries.display());
    let target = if config.distributed.qdrant_url.is_some() { "Qdrant server" } else { "embedded store" };
    println!(
        "{} questions from {}, {target}, {} requests per client",
        queries.len(),
        args.queries.display(),
        args.requests
    );
    println!("{:<28} {:>8} {:>9} {:>9} {:>9} {:>10}", "", "clients", "p50 ms", "p95 ms", "p99 ms", "queries/s");
    for cached in [false, true] {
        let mut options = crate::search::options(&config, false, false);
        if !cached {
            options.cache_entries = 0;
        }
        let searcher = Arc::new(wiring::searcher(&config, options).await?);
        searcher.ready().await?;
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let url = format!("http://{}/api/search", listener.local_addr()?);
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let server = tokio::spawn(ragpipe_search::serve(searcher, None, listener, async {
            let _ = stopped.await;
        }));
        if cached {
            // Every question asked once: the rounds below find them cached.
            run_clients(&url, &queries, 1, queries.len()).await?;
        }
        for clients in CLIENTS {
            let started = Instant::now();
            let mut times = run_clients(&url, &queries, clients, args.requests).await?;
            let secs = started.elapsed().as_secs_f64();
            times.sort();
            let ms = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize].as_secs_f64() * 1e3;
            let label = if cached { "query embedding cached" } else { "every query embedded" };
            println!(
                "{label:<28} {clients:>8} {:>9.1} {:>9.1} {:>9.1} {:>10.1}",
                ms(0.5),
                ms(0.95),
                ms(0.99),
                times.len() as f64 / secs
            );
        }
        let _ = stop.send(());
        server.await??;
    }
    if let Some(mib) = super::peak_rss_mib() {
        println!("peak RSS {mib:.0} MiB");
    }
    Ok(ExitCode::SUCCESS)
}

/// `clients` threads, each sending `requests` searches in turn (client `c`
/// starting at question `c`); every request's latency.
async fn run_clients(url: &str, queries: &[String], clients: usize, requests: usize) -> anyhow::Result<Vec<Duration>> {
    let queries = Arc::new(queries.to_vec());
    let handles: Vec<_> = (0..clients)
        .map(|c| {
            let (url, queries) = (url.to_string(), queries.clone());
            tokio::task::spawn_blocking(move || -> anyhow::Result<Vec<Duration>> {
                let http = ureq::Agent::new_with_defaults();
                let mut times = Vec::with_capacity(requests);
                for r in 0..requests {
                    let q = &queries[(c + r * clients) % queries.len()];
                    let started = Instant::now();
                    let mut res = http.post(&url).send_json(serde_json::json!({"query": q}))?;
                    res.body_mut().read_to_string()?;
                    times.push(started.elapsed());
                }
                Ok(times)
            })
        })
        .collect();
    let mut all = Vec::new();
    for h in handles {
        all.extend(h.await??);
    }
    Ok(all)
}

/// The `query` of every line of a JSON Lines question set.
fn questions(path: &std::path::Path) -> anyhow::Result<Vec<String>> {
    let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l)?;
            v["query"].as_str().map(String::from).context("a line without a query")
        })
        .collect()
}
