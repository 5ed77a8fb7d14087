//! The conformance suite against the embedded adapter (SQLite in a temp dir).

use ragpipe_state::SqlStateStore;

async fn fresh() -> SqlStateStore {
    let dir = tempfile::tempdir().unwrap().keep();
    SqlStateStore::connect(&format!("sqlite://{}", dir.join("state.db").display())).await.unwrap()
}

ragpipe_state::state_store_conformance!(fresh());

#[tokio::test]
async fn expired_extraction_leases_are_stalled() {
    let store = fresh().await.with_lease(std::time::Duration::from_millis(50));
    ragpipe_state::conformance::expired_extraction_leases_are_stalled(&store).await;
}
