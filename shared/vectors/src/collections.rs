//! The `Collections` port: where an index's collections are created, found,
//! published and dropped. The index registry in the state store decides
//! which collection is live; this port only does what it says to the
//! engine, so a reindex can build a new collection beside the live one and
//! drop the old one after the swap.

use crate::qdrant::store_err;
use crate::{CollectionSpec, EdgeStore, QdrantStore, VectorError, VectorStore};
use async_trait::async_trait;
use qdrant_client::Qdrant;
use qdrant_client::qdrant::CreateAliasBuilder;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

#[async_trait]
pub trait Collections: Send + Sync {
    /// Opens the collection `name`, creating it for `spec` if missing.
    async fn create(&self, name: &str, spec: &CollectionSpec) -> Result<Arc<dyn VectorStore>, VectorError>;
    /// Opens the collection `name` if it exists (never creates one).
    async fn open(&self, name: &str, spec: &CollectionSpec) -> Result<Option<Arc<dyn VectorStore>>, VectorError>;
    /// Points the engine's read alias, if it has one, at `name`.
    async fn publish(&self, name: &str) -> Result<(), VectorError>;
    /// Deletes the collection `name` and its points; a missing one is fine.
    async fn drop_collection(&self, name: &str) -> Result<(), VectorError>;
}

/// Collections of the embedded store: one directory each under `root`.
pub struct EdgeCollections {
    pub root: PathBuf,
}

#[async_trait]
impl Collections for EdgeCollections {
    async fn create(&self, name: &str, spec: &CollectionSpec) -> Result<Arc<dyn VectorStore>, VectorError> {
        Ok(Arc::new(EdgeStore::open_dir(&self.root.join(name), spec.dims)?))
    }

    async fn open(&self, name: &str, spec: &CollectionSpec) -> Result<Option<Arc<dyn VectorStore>>, VectorError> {
        let dir = self.root.join(name);
        if !dir.is_dir() {
            return Ok(None);
        }
        Ok(Some(Arc::new(EdgeStore::open_dir(&dir, spec.dims)?)))
    }

    async fn publish(&self, _name: &str) -> Result<(), VectorError> {
        // No aliases: readers resolve the live collection in the registry.
        Ok(())
    }

    /// Waits for readers that opened the collection before the swap (they
    /// hold its write-ahead-log lock for one query), then deletes it while
    /// holding that lock, so a late reader fails to open it and reads the
    /// registry again instead of finding it half gone.
    async fn drop_collection(&self, name: &str) -> Result<(), VectorError> {
        let dir = self.root.join(name);
        tokio::task::spawn_blocking(move || {
            let wal = match std::fs::File::open(dir.join("wal")) {
                Ok(f) => Some(f),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
                Err(e) => return Err(store_err(e)),
            };
            let deadline = Instant::now() + DROP_WAIT;
            while let Some(wal) = &wal {
                match wal.try_lock() {
                    Ok(()) => break,
                    Err(std::fs::TryLockError::WouldBlock) if Instant::now() < deadline => {
                        std::thread::sleep(Duration::from_millis(20));
                    }
                    Err(e) => {
                        return Err(VectorError::Store(format!("collection {} is still open: {e}", dir.display())));
                    }
                }
            }
            match std::fs::remove_dir_all(&dir) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(store_err(e)),
                _ => Ok(()),
            }
        })
        .await
        .map_err(|e| VectorError::Store(format!("drop task failed: {e}")))?
    }
}

/// How long a drop waits for the collection's last reader.
const DROP_WAIT: Duration = Duration::from_secs(30);

/// Collections of a Qdrant server, with a read alias (`{namespace}_chunks`)
/// kept on the live one for readers outside ragpipe.
pub struct QdrantCollections {
    pub client: Qdrant,
    pub alias: String,
}

#[async_trait]
impl Collections for QdrantCollections {
    async fn create(&self, name: &str, spec: &CollectionSpec) -> Result<Arc<dyn VectorStore>, VectorError> {
        QdrantStore::create(&self.client, name, spec).await?;
        Ok(Arc::new(QdrantStore::named(self.client.clone(), name)))
    }

    async fn open(&self, name: &str, _spec: &CollectionSpec) -> Result<Option<Arc<dyn VectorStore>>, VectorError> {
        if !self.client.collection_exists(name).await.map_err(store_err)? {
            return Ok(None);
        }
        Ok(Some(Arc::new(QdrantStore::named(self.client.clone(), name))))
    }

    /// One alias operation where the server moves an existing alias on
    /// create; where it refuses instead, the alias is deleted and created
    /// (readers outside ragpipe may then miss it for a moment; ragpipe's own
    /// searches follow the registry, which swapped in one transaction).
    async fn publish(&self, name: &str) -> Result<(), VectorError> {
        let create = || CreateAliasBuilder::new(name, &self.alias);
        if self.client.create_alias(create()).await.is_ok() {
            return Ok(());
        }
        let _ = self.client.delete_alias(self.alias.as_str()).await;
        self.client.create_alias(create()).await.map_err(store_err)?;
        Ok(())
    }

    async fn drop_collection(&self, name: &str) -> Result<(), VectorError> {
        if self.client.collection_exists(name).await.map_err(store_err)? {
            self.client.delete_collection(name).await.map_err(store_err)?;
        }
        Ok(())
    }
}
