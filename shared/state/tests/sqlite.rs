//! The conformance suite against the embedded adapter (SQLite in a temp dir).

use ragpipe_state::SqlStateStore;

async fn fresh() -> SqlStateStore {
    let dir = tempfile::tempdir().unwrap().keep();
    SqlStateStore::connect(&format!("sqlite://{}", dir.join("state.db").display())).await.unwrap()
}

ragpipe_state::state_store_conformance!(fresh());
