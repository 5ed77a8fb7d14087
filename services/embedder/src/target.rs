//! Which collection the embedder writes. With a registry (the state
//! store's index table) it is the index a reindex is building, else the
//! live one, looked up for every job, so a long-running worker follows a
//! reindex that starts or swaps while it runs. Only the current target's
//! handle is kept: a change of target drops the old one, because the
//! embedded store admits one owner per collection and searches must be able
//! to open the live collection while a build is written.

use ragpipe_state::{NewIndex, StateError, StateStore, write_index};
use ragpipe_vectors::{CollectionSpec, Collections, VectorError, VectorStore};
use std::sync::Arc;
use tokio::sync::Mutex;

/// Where batches go, and what the index there is sealed to.
#[derive(Clone)]
pub struct Target {
    pub name: String,
    pub spec: CollectionSpec,
    pub store: Arc<dyn VectorStore>,
}

#[derive(Debug, thiserror::Error)]
pub enum TargetError {
    #[error(transparent)]
    State(#[from] StateError),
    #[error(transparent)]
    Vectors(#[from] VectorError),
}

/// Resolves the write target.
pub struct Targets {
    source: Source,
}

enum Source {
    /// One collection, whatever the registry says (benchmarks, tests).
    Fixed(Target),
    Registry {
        state: Arc<dyn StateStore>,
        collections: Arc<dyn Collections>,
        /// What the first index of a new deployment is sealed to.
        first: NewIndex,
        current: Mutex<Option<Target>>,
    },
}

impl Targets {
    /// Always `store`, sealed to `spec`.
    pub fn fixed(store: Arc<dyn VectorStore>, spec: CollectionSpec) -> Self {
        Targets { source: Source::Fixed(Target { name: spec.name(), spec, store }) }
    }

    /// Whatever the registry in `state` names, opened through `collections`.
    pub fn registry(state: Arc<dyn StateStore>, collections: Arc<dyn Collections>, first: NewIndex) -> Self {
        Targets { source: Source::Registry { state, collections, first, current: Mutex::new(None) } }
    }

    /// The collection to write now.
    pub async fn resolve(&self) -> Result<Target, TargetError> {
        let (state, collections, first, current) = match &self.source {
            Source::Fixed(t) => return Ok(t.clone()),
            Source::Registry { state, collections, first, current } => (state, collections, first, current),
        };
        let index = write_index(state.as_ref(), first).await?;
        let mut current = current.lock().await;
        if let Some(t) = current.as_ref().filter(|t| t.name == index.name) {
            return Ok(t.clone());
        }
        // Drop the old handle before opening the new one.
        *current = None;
        let spec = index.spec();
        let store = collections.create(&index.name, &spec).await?;
        let target = Target { name: index.name, spec, store };
        *current = Some(target.clone());
        Ok(target)
    }
}
