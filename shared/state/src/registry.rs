//! Reading the index registry: which index writes go to and which one
//! searches read. A registry with no index yet records the first one (what
//! the configuration seals a new deployment to) as live on first use.

use crate::{IndexRecord, IndexState, NewIndex, StateError, StateStore};

/// The index the registry names for writes: the building one, else the live
/// one; a registry with neither records `first` as live (first use).
pub async fn write_index(state: &dyn StateStore, first: &NewIndex) -> Result<IndexRecord, StateError> {
    pick(state, first, &[IndexState::Building, IndexState::Live]).await
}

/// The index searches read: the live one (recording `first` on first use).
pub async fn live_index(state: &dyn StateStore, first: &NewIndex) -> Result<IndexRecord, StateError> {
    pick(state, first, &[IndexState::Live]).await
}

async fn pick(state: &dyn StateStore, first: &NewIndex, order: &[IndexState]) -> Result<IndexRecord, StateError> {
    for attempt in 0..2 {
        let indexes = state.indexes().await?;
        if let Some(found) = order.iter().find_map(|st| indexes.iter().find(|i| i.state == *st)) {
            return Ok(found.clone());
        }
        if attempt == 0 {
            state.adopt_index(first).await?;
        }
    }
    Err(StateError::Corrupt { id: "indexes".into(), reason: "no live index after recording one".into() })
}
