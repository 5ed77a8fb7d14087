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
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, Weak};
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

/// The embedded collections this process has open, by directory. One
/// collection admits one owner (its write-ahead log is locked), so the parts
/// of one process — an ingest's embedder, the search service, the admin's
/// chunk reader in `ragpipe serve --folder` — share one handle rather than
/// each trying to open its own; it closes when the last one lets go.
static OPEN: Mutex<BTreeMap<PathBuf, Weak<EdgeStore>>> = Mutex::new(BTreeMap::new());

/// This process's handle on the collection in `dir`, opened if none is.
fn shared(dir: &Path, dims: usize) -> Result<Arc<EdgeStore>, VectorError> {
    let mut open = OPEN.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(store) = open.get(dir).and_then(Weak::upgrade) {
        return Ok(store);
    }
    let store = Arc::new(EdgeStore::open_dir(dir, dims)?);
    open.retain(|_, handle| handle.strong_count() > 0);
    open.insert(dir.to_path_buf(), Arc::downgrade(&store));
    Ok(store)
}

#[async_trait]
impl Collections for EdgeCollections {
    async fn create(&self, name: &str, spec: &CollectionSpec) -> Result<Arc<dyn VectorStore>, VectorError> {
        Ok(shared(&self.root.join(name), spec.dims)?)
    }

    async fn open(&self, name: &str, spec: &CollectionSpec) -> Result<Option<Arc<dyn VectorStore>>, VectorError> {
        let dir = self.root.join(name);
        if !dir.is_dir() {
            return Ok(None);
        }
        Ok(Some(shared(&dir, spec.dims)?))
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

/// Collections of a Qdrant server, owned by one deployment's namespace: a
/// collection the registry calls `chunks_…` is `{namespace}_chunks_…` on
/// the server, and the read alias is `{namespace}_chunks`. Two deployments
/// (two `distributed.namespace`s, two databases) on one server then never
/// search each other's points, and a reindex in one never drops the
/// other's collection.
pub struct QdrantCollections {
    client: Qdrant,
    namespace: String,
    /// The server's version, checked once before the first request.
    compatible: tokio::sync::OnceCell<()>,
}

impl QdrantCollections {
    pub fn new(client: Qdrant, namespace: &str) -> Self {
        QdrantCollections { client, namespace: namespace.to_string(), compatible: tokio::sync::OnceCell::new() }
    }

    async fn checked(&self) -> Result<(), VectorError> {
        self.compatible.get_or_try_init(|| crate::qdrant::ensure_compatible(&self.client)).await.map(|_| ())
    }

    /// The stable name applications outside ragpipe read through; it names
    /// the live collection from the first index on.
    pub fn alias(&self) -> String {
        format!("{}_chunks", self.namespace)
    }

    /// The server's name of the registry's collection `name`.
    pub fn physical(&self, name: &str) -> String {
        format!("{}_{name}", self.namespace)
    }

    async fn alias_exists(&self) -> Result<bool, VectorError> {
        let aliases = self.client.list_aliases().await.map_err(store_err)?;
        Ok(aliases.aliases.iter().any(|a| a.alias_name == self.alias()))
    }
}

#[async_trait]
impl Collections for QdrantCollections {
    /// The first collection a namespace creates also gets the alias, so the
    /// stable name exists before any reindex; later ones (a reindex's
    /// build) get it only when [`Collections::publish`] swaps it.
    async fn create(&self, name: &str, spec: &CollectionSpec) -> Result<Arc<dyn VectorStore>, VectorError> {
        self.checked().await?;
        let physical = self.physical(name);
        QdrantStore::create(&self.client, &physical, spec).await?;
        if !self.alias_exists().await? {
            self.publish(name).await?;
        }
        Ok(Arc::new(QdrantStore::named(self.client.clone(), &physical)))
    }

    async fn open(&self, name: &str, _spec: &CollectionSpec) -> Result<Option<Arc<dyn VectorStore>>, VectorError> {
        self.checked().await?;
        let physical = self.physical(name);
        if !self.client.collection_exists(&physical).await.map_err(store_err)? {
            return Ok(None);
        }
        Ok(Some(Arc::new(QdrantStore::named(self.client.clone(), &physical))))
    }

    /// One alias operation where the server moves an existing alias on
    /// create; where it refuses instead, the alias is deleted and created
    /// (readers outside ragpipe may then miss it for a moment; ragpipe's own
    /// searches follow the registry, which swapped in one transaction).
    async fn publish(&self, name: &str) -> Result<(), VectorError> {
        let (physical, alias) = (self.physical(name), self.alias());
        let create = || CreateAliasBuilder::new(&physical, &alias);
        if self.client.create_alias(create()).await.is_ok() {
            return Ok(());
        }
        let _ = self.client.delete_alias(alias.as_str()).await;
        self.client.create_alias(create()).await.map_err(store_err)?;
        Ok(())
    }

    async fn drop_collection(&self, name: &str) -> Result<(), VectorError> {
        let physical = self.physical(name);
        if self.client.collection_exists(&physical).await.map_err(store_err)? {
            self.client.delete_collection(&physical).await.map_err(store_err)?;
        }
        Ok(())
    }
}
