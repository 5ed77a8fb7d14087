//! `ragpipe bench admin`: the admin tools over a platform team's corpus. It
//! fills a PostgreSQL database of its own with a million document rows
//! (10 % failed over 50 reasons, 1 % stale), then times what an admin does
//! there through the same functions the API and the CLI call: filtered
//! pages (first and deep, by cursor), the failure summary, the status, and
//! a retry by reason of 10,000 documents. Figures printed, never asserted.

use crate::cli::BenchAdminArgs;
use anyhow::Context;
use ragpipe_admin::{Current, Filter};
use ragpipe_core::DocStatus;
use ragpipe_state::{Cursor, SqlStateStore, StateStore};
use sqlx::Connection;
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// Rows inserted per statement while filling.
const FILL_STEP: i64 = 100_000;
/// Times each read is repeated for its percentiles.
const ROUNDS: usize = 30;
const PAGE: usize = 100;

/// Reasons are "family-FF failure: detail D": 10 families of 5 details, so
/// a whole family selects 5 reasons (10,000 documents at a million rows)
/// and one reason 2,000.
const ONE_REASON: &str = "family-03 failure: detail 2";
const ONE_FAMILY: &str = "family-04 failure";

pub async fn admin(args: BenchAdminArgs) -> anyhow::Result<ExitCode> {
    ensure_database(&args.postgres).await?;
    let store = SqlStateStore::connect(&args.postgres).await.context("connecting the bench database")?;
    let fill_started = Instant::now();
    fill(&args.postgres, args.documents).await?;
    println!("filled {} rows in {:.1}s", args.documents, fill_started.elapsed().as_secs_f64());
    let current =
        Current { model: "all-MiniLM-L6-v2".into(), pipeline_version: "1".into(), extractor_version: "1".into() };
    let failed =
        |reason: &str| Filter { status: Some(DocStatus::Failed), reason: Some(reason.into()), ..Filter::default() };
    let state: &dyn StateStore = &store;
    // The timed closures move these references into their futures.
    let current = &current;
    let failed = &failed;

    println!("{:<58} {:>9} {:>9} {:>7}", "operation", "p50 ms", "p95 ms", "rows");
    time("page: failed, one reason (2,000 match), first", || async move {
        ragpipe_admin::page(state, &failed(ONE_REASON), current, &Cursor::Start, PAGE).await.map(|p| p.documents.len())
    })
    .await?;
    let mut cursor = Cursor::Start;
    for _ in 0..10 {
        let page = ragpipe_admin::page(state, &failed(ONE_REASON), current, &cursor, PAGE).await?;
        cursor = page.next.map(Cursor::After).unwrap_or_default();
    }
    let (cursor, middle) = (&cursor, &Cursor::After(uri(args.documents / 2)));
    let before = &Cursor::Before(uri(args.documents / 2));
    time("page: failed, one reason, 11th page (cursor)", || async move {
        ragpipe_admin::page(state, &failed(ONE_REASON), current, cursor, PAGE).await.map(|p| p.documents.len())
    })
    .await?;
    time("page: every document, after row n/2 (cursor)", || async move {
        ragpipe_admin::page(state, &Filter::default(), current, middle, PAGE).await.map(|p| p.documents.len())
    })
    .await?;
    time("page: every document, before row n/2 (previous)", || async move {
        ragpipe_admin::page(state, &Filter::default(), current, before, PAGE).await.map(|p| p.documents.len())
    })
    .await?;
    let pdf = &Filter { status: Some(DocStatus::Failed), kind: Some(ragpipe_core::Kind::Pdf), ..Filter::default() };
    time("page: failed PDFs, first", || async move {
        ragpipe_admin::page(state, pdf, current, &Cursor::Start, PAGE).await.map(|p| p.documents.len())
    })
    .await?;
    let stale = &Filter { stale: true, ..Filter::default() };
    time("page: stale, first", || async move {
        ragpipe_admin::page(state, stale, current, &Cursor::Start, PAGE).await.map(|p| p.documents.len())
    })
    .await?;
    let all_failed = &Filter { status: Some(DocStatus::Failed), ..Filter::default() };
    time("failure summary: every failure by reason (GROUP BY)", || async move {
        ragpipe_admin::failures(state, all_failed, current).await.map(|g| g.len())
    })
    .await?;
    time("failure summary: one family of reasons", || async move {
        ragpipe_admin::failures(state, &failed(ONE_FAMILY), current).await.map(|g| g.len())
    })
    .await?;
    time("status (GET /api/status, ragpipe status)", || async move {
        ragpipe_admin::status(state, None, current).await.map(|s| s.failed.len() + s.stale.len())
    })
    .await?;

    let started = Instant::now();
    let report = ragpipe_admin::retry_matching(state, None, &failed(ONE_FAMILY), current).await?;
    let secs = started.elapsed().as_secs_f64();
    println!(
        "retry by reason ({ONE_FAMILY:?}): {} documents requeued in {:.2}s ({:.0} documents/s; no broker: \
         a distributed retry also publishes one job each)",
        report.queued.len(),
        secs,
        report.queued.len() as f64 / secs.max(1e-9)
    );
    store.close().await;
    Ok(ExitCode::SUCCESS)
}

/// Runs `op` once to warm the caches, then [`ROUNDS`] times, and prints
/// its p50 and p95.
async fn time<F, Fut, E>(name: &str, op: F) -> anyhow::Result<()>
where
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = Result<usize, E>>,
    E: std::error::Error + Send + Sync + 'static,
{
    let mut times: Vec<Duration> = Vec::with_capacity(ROUNDS);
    let mut rows = op().await?;
    for _ in 0..ROUNDS {
        let started = Instant::now();
        rows = op().await?;
        times.push(started.elapsed());
    }
    times.sort();
    let ms = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize].as_secs_f64() * 1e3;
    println!("{name:<58} {:>9.1} {:>9.1} {rows:>7}", ms(0.5), ms(0.95));
    Ok(())
}

/// The URI of row `i`, as [`fill`] names it.
fn uri(i: i64) -> String {
    format!("s3://corpus/docs/{i:08}")
}

/// Creates the bench's database if it does not exist (through the server's
/// `postgres` maintenance database), so a run never touches another one.
pub(super) async fn ensure_database(url: &str) -> anyhow::Result<()> {
    let (server, name) = url.rsplit_once('/').context("the PostgreSQL URL names no database")?;
    let name = name.split('?').next().unwrap_or(name);
    anyhow::ensure!(
        !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'),
        "bench database name {name:?}: letters, digits and _ only"
    );
    let mut conn = sqlx::PgConnection::connect(&format!("{server}/postgres")).await.context("connecting PostgreSQL")?;
    let exists: Option<i32> =
        sqlx::query_scalar("SELECT 1 FROM pg_database WHERE datname = $1").bind(name).fetch_optional(&mut conn).await?;
    if exists.is_none() {
        sqlx::query(&format!("CREATE DATABASE {name}")).execute(&mut conn).await?;
    }
    Ok(())
}

/// Replaces every document row with `n` generated ones, in steps that
/// report progress, then vacuums and analyses it as autovacuum would.
async fn fill(url: &str, n: i64) -> anyhow::Result<()> {
    use sqlx::ConnectOptions;
    let options: sqlx::postgres::PgConnectOptions = url.parse()?;
    let mut conn = options.disable_statement_logging().connect().await?;
    sqlx::query("TRUNCATE documents, batches").execute(&mut conn).await?;
    let mut from = 1;
    while from <= n {
        let to = (from + FILL_STEP - 1).min(n);
        sqlx::query(include_str!("fill_documents.sql")).bind(from).bind(to).execute(&mut conn).await?;
        eprintln!("bench admin: {to} of {n} rows");
        from = to + 1;
    }
    // What autovacuum does to a table at rest: statistics for the planner,
    // and the visibility map that lets the failure summary read its index
    // alone.
    sqlx::query("VACUUM ANALYZE documents").execute(&mut conn).await?;
    Ok(())
}
