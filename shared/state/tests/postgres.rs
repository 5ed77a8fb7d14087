//! The conformance suite against PostgreSQL (the distributed adapter), on the
//! server at `RAGPIPE_TEST_POSTGRES_URL` (default: the local test database).
//! Each test gets its own schema so tests run in parallel without sharing rows.

use ragpipe_state::SqlStateStore;
use sqlx::Connection;

fn base_url() -> String {
    std::env::var("RAGPIPE_TEST_POSTGRES_URL").unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".into())
}

async fn fresh() -> SqlStateStore {
    let schema = format!("t_{}", uuid_like());
    let mut conn = sqlx::PgConnection::connect(&base_url()).await.expect("postgres reachable");
    sqlx::query(&format!("CREATE SCHEMA {schema}")).execute(&mut conn).await.unwrap();
    let sep = if base_url().contains('?') { '&' } else { '?' };
    let url = format!("{}{sep}options=-c%20search_path%3D{schema}", base_url());
    SqlStateStore::connect(&url).await.unwrap()
}

/// A unique, identifier-safe suffix.
fn uuid_like() -> String {
    use std::sync::atomic::{AtomicU32, Ordering};
    static N: AtomicU32 = AtomicU32::new(0);
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
    format!("{}_{}_{}", std::process::id(), nanos, N.fetch_add(1, Ordering::Relaxed))
}

ragpipe_state::state_store_conformance!(fresh());

#[tokio::test]
async fn expired_extraction_leases_are_stalled() {
    let store = fresh().await.with_lease(std::time::Duration::from_millis(50));
    ragpipe_state::conformance::expired_extraction_leases_are_stalled(&store).await;
}
