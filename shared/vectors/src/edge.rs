//! The embedded vector store: Qdrant's in-process engine (`qdrant-edge`).
//!
//! Its API is synchronous, so every call runs on a blocking thread. Writes,
//! flushes and optimisation go through one writer lock: `flush` panics if it
//! races an update, and 0.7.0 does not replay its WAL on open, so every write
//! is flushed before it is reported stored.

use crate::{ChunkPayload, CollectionSpec, Point, Scored, SearchFilter, SparseVec, VectorError, VectorStore};
use async_trait::async_trait;
use qdrant_edge::external::serde_json;
use qdrant_edge::{
    Condition, CountRequest, CreateIndex, Distance, EdgeConfig, EdgeShard, EdgeSparseVectorParams, EdgeVectorParams,
    FieldCondition, FieldIndexOperations, Filter, JsonPath, Match, Modifier, NamedQuery, PayloadFieldSchema,
    PayloadSchemaType, PointId, PointInsertOperations, PointOperations, PointStruct, QueryEnum, QueryRequest,
    ScoringQuery, ScrollRequest, UpdateOperation, Vector, VectorInternal, VectorStructInternal, Vectors,
    WithPayloadInterface, WithVector,
};
use ragpipe_core::DocumentId;
use std::path::Path;
use std::sync::{Arc, Mutex};

const DENSE: &str = "dense";
const SPARSE: &str = "bm25";

struct Inner {
    shard: EdgeShard,
    writer: Mutex<()>,
}

/// A collection stored in a directory; cheap to clone.
#[derive(Clone)]
pub struct EdgeStore {
    inner: Arc<Inner>,
}

impl EdgeStore {
    /// Opens (or creates) the collection for `spec` under `root`.
    pub fn open(root: &Path, spec: &CollectionSpec) -> Result<Self, VectorError> {
        Self::open_dir(&root.join(spec.name()), spec.dims)
    }

    /// Opens (or creates) the collection stored in `dir`. One process at a
    /// time: qdrant-edge locks the collection's write-ahead log.
    pub fn open_dir(dir: &Path, dims: usize) -> Result<Self, VectorError> {
        std::fs::create_dir_all(dir).map_err(store_err)?;
        let config = EdgeConfig::builder()
            .vector(DENSE, EdgeVectorParams::builder(dims, Distance::Cosine).build())
            .sparse_vector(SPARSE, EdgeSparseVectorParams::builder().modifier(Modifier::Idf).build())
            .build();
        let shard = EdgeShard::load(dir, Some(config)).map_err(store_err)?;
        let keywords = crate::FILTERED_FIELDS.map(|f| (f, PayloadSchemaType::Keyword));
        let fields = [("document_id", PayloadSchemaType::Keyword), ("generation", PayloadSchemaType::Integer)];
        for (field, ty) in fields.into_iter().chain(keywords) {
            let op = FieldIndexOperations::CreateIndex(CreateIndex {
                field_name: key(field),
                field_schema: Some(PayloadFieldSchema::FieldType(ty)),
            });
            // Creating an index that exists is a no-op.
            shard.update(UpdateOperation::FieldIndexOperation(op)).map_err(store_err)?;
        }
        Ok(EdgeStore { inner: Arc::new(Inner { shard, writer: Mutex::new(()) }) })
    }

    async fn blocking<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Inner) -> Result<T, VectorError> + Send + 'static,
    ) -> Result<T, VectorError> {
        let inner = Arc::clone(&self.inner);
        tokio::task::spawn_blocking(move || f(&inner))
            .await
            .map_err(|e| VectorError::Store(format!("store task failed: {e}")))?
    }
}

impl Inner {
    fn write(&self, op: UpdateOperation) -> Result<(), VectorError> {
        let _guard = self.writer.lock().unwrap_or_else(|p| p.into_inner());
        self.shard.update(op).map_err(store_err)?;
        self.shard.flush();
        Ok(())
    }

    fn scroll_all(&self, filter: Option<Filter>, with_vector: bool) -> Result<Vec<qdrant_edge::Record>, VectorError> {
        let mut out = Vec::new();
        let mut offset = None;
        loop {
            let (page, next) = self
                .shard
                .scroll(ScrollRequest {
                    offset,
                    limit: Some(512),
                    filter: filter.clone(),
                    with_payload: Some(WithPayloadInterface::Bool(true)),
                    with_vector: WithVector::Bool(with_vector),
                    order_by: None,
                })
                .map_err(store_err)?;
            out.extend(page);
            match next {
                Some(n) => offset = Some(n),
                None => return Ok(out),
            }
        }
    }

    fn query(
        &self,
        query: VectorInternal,
        using: &str,
        limit: usize,
        filter: Option<Filter>,
    ) -> Result<Vec<Scored>, VectorError> {
        let hits = self
            .shard
            .query(QueryRequest {
                prefetches: vec![],
                query: Some(ScoringQuery::Vector(QueryEnum::Nearest(NamedQuery::new(query, using)))),
                filter,
                score_threshold: None,
                limit,
                offset: 0,
                params: None,
                with_vector: WithVector::Bool(false),
                with_payload: WithPayloadInterface::Bool(true),
            })
            .map_err(store_err)?;
        hits.into_iter()
            .map(|h| Ok(Scored { id: uuid_of(&h.id)?, score: h.score, payload: payload_of(&h.id, h.payload)? }))
            .collect()
    }
}

fn store_err(e: impl std::fmt::Display) -> VectorError {
    VectorError::Store(e.to_string())
}

fn key(field: &str) -> JsonPath {
    field.parse().expect("static field names are valid json paths")
}

/// The store's filter for a search's; `None` when it selects everything.
fn search_filter(f: &SearchFilter) -> Option<Filter> {
    let any = |field: &str, values: &[String]| {
        (!values.is_empty())
            .then(|| Condition::Field(FieldCondition::new_match(key(field), Match::from(values.to_vec()))))
    };
    let must: Vec<Condition> = [any("kind", &f.kinds), any("document", &f.documents)].into_iter().flatten().collect();
    (!must.is_empty()).then(|| Filter { must: Some(must), ..Default::default() })
}

fn document_filter(doc: &DocumentId, generation: Option<i64>) -> Filter {
    let mut must = vec![Condition::Field(FieldCondition::new_match(key("document_id"), Match::from(doc.to_string())))];
    if let Some(g) = generation {
        must.push(Condition::Field(FieldCondition::new_match(key("generation"), Match::from(g))));
    }
    Filter { must: Some(must), ..Default::default() }
}

fn uuid_of(id: &PointId) -> Result<uuid::Uuid, VectorError> {
    match id {
        PointId::Uuid(u) => uuid::Uuid::from_slice(u.as_bytes()).map_err(store_err),
        other => Err(VectorError::Malformed { id: other.to_string(), reason: "not a uuid point id".into() }),
    }
}

fn payload_of(id: &PointId, payload: Option<qdrant_edge::Payload>) -> Result<ChunkPayload, VectorError> {
    let map = payload.map(|p| p.0).unwrap_or_default();
    ChunkPayload::from_json(serde_json::Value::Object(map))
        .map_err(|e| VectorError::Malformed { id: id.to_string(), reason: e.to_string() })
}

#[async_trait]
impl VectorStore for EdgeStore {
    async fn upsert(&self, points: Vec<Point>) -> Result<(), VectorError> {
        self.blocking(move |inner| {
            let mut batch = Vec::with_capacity(points.len());
            for p in points {
                let sparse = Vector::new_sparse(p.sparse.indices, p.sparse.values).map_err(store_err)?;
                let vectors = Vectors::new_named([(DENSE, Vector::new_dense(p.dense)), (SPARSE, sparse)]);
                let id = PointId::Uuid(qdrant_edge::external::uuid::Uuid::from_bytes(*p.id.as_bytes()));
                batch.push(PointStruct::new(id, vectors, p.payload.to_json()).into());
            }
            inner.write(UpdateOperation::PointOperation(PointOperations::UpsertPoints(
                PointInsertOperations::PointsList(batch),
            )))
        })
        .await
    }

    async fn count(&self, doc: &DocumentId, generation: Option<i64>) -> Result<u64, VectorError> {
        let filter = document_filter(doc, generation);
        self.blocking(move |inner| {
            let n = inner.shard.count(CountRequest { filter: Some(filter), exact: true }).map_err(store_err)?;
            Ok(n as u64)
        })
        .await
    }

    async fn delete_document(&self, doc: &DocumentId, keep_generation: Option<i64>) -> Result<(), VectorError> {
        let mut filter = document_filter(doc, None);
        if let Some(g) = keep_generation {
            filter.must_not =
                Some(vec![Condition::Field(FieldCondition::new_match(key("generation"), Match::from(g)))]);
        }
        self.blocking(move |inner| {
            inner.write(UpdateOperation::PointOperation(PointOperations::DeletePointsByFilter(filter)))
        })
        .await
    }

    async fn search_dense_in(
        &self,
        vector: &[f32],
        limit: usize,
        filter: &SearchFilter,
    ) -> Result<Vec<Scored>, VectorError> {
        let (v, filter) = (VectorInternal::Dense(vector.to_vec()), search_filter(filter));
        self.blocking(move |inner| inner.query(v, DENSE, limit, filter)).await
    }

    async fn search_sparse_in(
        &self,
        query: &SparseVec,
        limit: usize,
        filter: &SearchFilter,
    ) -> Result<Vec<Scored>, VectorError> {
        if query.is_empty() {
            return Ok(Vec::new());
        }
        let v = VectorInternal::Sparse(qdrant_edge::SparseVector {
            indices: query.indices.clone(),
            values: query.values.clone(),
        });
        let filter = search_filter(filter);
        self.blocking(move |inner| inner.query(v, SPARSE, limit, filter)).await
    }

    async fn dense_vectors(&self, ids: &[uuid::Uuid]) -> Result<Vec<(uuid::Uuid, Vec<f32>)>, VectorError> {
        let ids: Vec<PointId> =
            ids.iter().map(|u| PointId::Uuid(qdrant_edge::external::uuid::Uuid::from_bytes(*u.as_bytes()))).collect();
        self.blocking(move |inner| {
            let records = inner
                .shard
                .retrieve(&ids, Some(WithPayloadInterface::Bool(false)), Some(WithVector::Selector(vec![DENSE.into()])))
                .map_err(store_err)?;
            records
                .into_iter()
                .map(|r| {
                    let dense = match r.vector {
                        Some(VectorStructInternal::Named(mut named)) => match named.remove(DENSE) {
                            Some(VectorInternal::Dense(v)) => v,
                            _ => {
                                return Err(VectorError::Malformed {
                                    id: r.id.to_string(),
                                    reason: "no dense vector".into(),
                                });
                            }
                        },
                        _ => {
                            return Err(VectorError::Malformed {
                                id: r.id.to_string(),
                                reason: "no named vectors".into(),
                            });
                        }
                    };
                    Ok((uuid_of(&r.id)?, dense))
                })
                .collect()
        })
        .await
    }

    async fn chunks(&self, doc: Option<&DocumentId>) -> Result<Vec<ChunkPayload>, VectorError> {
        let filter = doc.map(|d| document_filter(d, None));
        self.blocking(move |inner| {
            let mut out = inner
                .scroll_all(filter, false)?
                .into_iter()
                .map(|r| payload_of(&r.id, r.payload))
                .collect::<Result<Vec<_>, _>>()?;
            out.sort_by(|a, b| {
                (&a.document, a.generation, a.chunk_index).cmp(&(&b.document, b.generation, b.chunk_index))
            });
            Ok(out)
        })
        .await
    }

    async fn optimize(&self) -> Result<(), VectorError> {
        self.blocking(|inner| {
            let _guard = inner.writer.lock().unwrap_or_else(|p| p.into_inner());
            inner.shard.optimize().map_err(store_err)?;
            inner.shard.flush();
            Ok(())
        })
        .await
    }
}
