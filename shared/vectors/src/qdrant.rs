//! The Qdrant server adapter (gRPC, `qdrant-client`) of the distributed
//! mode. Points go to one collection per [`CollectionSpec`] (model, dims,
//! pipeline version) with the same named vectors and payload as the
//! embedded store: `dense` (cosine) and `bm25` (sparse, IDF applied by the
//! server), payload indexes on `document_id` and `generation`. Writes wait
//! for the server (`wait: true`), so a returned upsert is counted and
//! searchable. Reads (search, chunks) go through the alias when one is
//! given, so a reindex can build a new collection while searches keep
//! using the old one until the alias is swapped.

use crate::{ChunkPayload, CollectionSpec, Point, Scored, SearchFilter, SparseVec, VectorError, VectorStore};
use async_trait::async_trait;
use qdrant_client::qdrant::point_id::PointIdOptions;
use qdrant_client::qdrant::vector_output::Vector as OutputVector;
use qdrant_client::qdrant::{
    Condition, CountPointsBuilder, CreateAliasBuilder, CreateCollectionBuilder, CreateFieldIndexCollectionBuilder,
    DeletePointsBuilder, Distance, FieldType, Filter, GetPointsBuilder, Modifier, NamedVectors, PointId, PointStruct,
    Query, QueryPointsBuilder, ScrollPointsBuilder, SparseVectorParamsBuilder, SparseVectorsConfigBuilder,
    UpsertPointsBuilder, Vector, VectorInput, VectorParamsBuilder, VectorsConfigBuilder, VectorsSelector,
};
use qdrant_client::{Payload, Qdrant};
use ragpipe_core::DocumentId;
use std::collections::HashMap;

const DENSE: &str = "dense";
const SPARSE: &str = "bm25";

pub struct QdrantStore {
    client: Qdrant,
    /// Where writes go.
    collection: String,
    /// What reads use: the alias when one is set, else the collection.
    read: String,
}

impl QdrantStore {
    /// Connects, creates the spec's collection (and its payload indexes) if
    /// missing, and points `alias` at it if the alias does not exist yet.
    pub async fn open(
        url: &str,
        api_key: Option<&str>,
        spec: &CollectionSpec,
        alias: Option<&str>,
    ) -> Result<Self, VectorError> {
        let client = Self::connect(url, api_key)?;
        ensure_compatible(&client).await?;
        let collection = spec.name();
        Self::create(&client, &collection, spec).await?;
        let read = match alias {
            Some(alias) => {
                let aliases = client.list_aliases().await.map_err(store_err)?;
                if !aliases.aliases.iter().any(|a| a.alias_name == alias) {
                    client.create_alias(CreateAliasBuilder::new(&collection, alias)).await.map_err(store_err)?;
                }
                alias.to_string()
            }
            None => collection.clone(),
        };
        Ok(QdrantStore { client, collection, read })
    }

    /// A client of the server at `url`. The client's own version check is
    /// off because it blocks on the runtime while building; [`Self::open`]
    /// runs [`ensure_compatible`] instead.
    pub fn connect(url: &str, api_key: Option<&str>) -> Result<Qdrant, VectorError> {
        let mut builder = Qdrant::from_url(url).skip_compatibility_check();
        if let Some(key) = api_key {
            builder = builder.api_key(key.to_string());
        }
        builder.build().map_err(store_err)
    }

    /// Creates the collection `name` for `spec` with its payload indexes,
    /// unless it exists.
    pub async fn create(client: &Qdrant, name: &str, spec: &CollectionSpec) -> Result<(), VectorError> {
        if client.collection_exists(name).await.map_err(store_err)? {
            return Ok(());
        }
        let mut dense = VectorsConfigBuilder::default();
        dense.add_named_vector_params(DENSE, VectorParamsBuilder::new(spec.dims as u64, Distance::Cosine));
        let mut sparse = SparseVectorsConfigBuilder::default();
        sparse.add_named_vector_params(SPARSE, SparseVectorParamsBuilder::default().modifier(Modifier::Idf));
        let create = CreateCollectionBuilder::new(name).vectors_config(dense).sparse_vectors_config(sparse);
        // Two services starting at once may both try: losing the race is fine.
        if let Err(e) = client.create_collection(create).await
            && !client.collection_exists(name).await.map_err(store_err)?
        {
            return Err(store_err(e));
        }
        let keywords = crate::FILTERED_FIELDS.map(|f| (f, FieldType::Keyword));
        let fields = [("document_id", FieldType::Keyword), ("generation", FieldType::Integer)];
        for (field, ty) in fields.into_iter().chain(keywords) {
            let index = CreateFieldIndexCollectionBuilder::new(name, field, ty).wait(true);
            client.create_field_index(index).await.map_err(store_err)?;
        }
        Ok(())
    }

    /// The existing collection `name`, read and written directly.
    pub fn named(client: Qdrant, name: &str) -> Self {
        QdrantStore { client, collection: name.to_string(), read: name.to_string() }
    }

    fn hits(&self, points: Vec<qdrant_client::qdrant::ScoredPoint>) -> Result<Vec<Scored>, VectorError> {
        points
            .into_iter()
            .map(|p| {
                let id = uuid_of(p.id.as_ref())?;
                Ok(Scored { id, score: p.score, payload: payload_of(&id, p.payload)? })
            })
            .collect()
    }

    async fn query(
        &self,
        query: VectorInput,
        using: &str,
        limit: usize,
        filter: &SearchFilter,
    ) -> Result<Vec<Scored>, VectorError> {
        let mut request = QueryPointsBuilder::new(&self.read)
            .query(Query::new_nearest(query))
            .using(using)
            .limit(limit as u64)
            .with_payload(true);
        if let Some(filter) = search_filter(filter) {
            request = request.filter(filter);
        }
        let response = self.client.query(request).await.map_err(store_err)?;
        self.hits(response.result)
    }
}

pub(crate) fn store_err(e: impl std::fmt::Display) -> VectorError {
    VectorError::Store(format!("qdrant: {e}"))
}

/// The server's filter for a search's; `None` when it selects everything.
fn search_filter(f: &SearchFilter) -> Option<Filter> {
    let any = |field: &str, values: &[String]| (!values.is_empty()).then(|| Condition::matches(field, values.to_vec()));
    let must: Vec<Condition> = [any("kind", &f.kinds), any("document", &f.documents)].into_iter().flatten().collect();
    (!must.is_empty()).then(|| Filter::must(must))
}

fn document_filter(doc: &DocumentId, generation: Option<i64>) -> Filter {
    let mut must = vec![Condition::matches("document_id", doc.to_string())];
    if let Some(g) = generation {
        must.push(Condition::matches("generation", g));
    }
    Filter::must(must)
}

fn uuid_of(id: Option<&PointId>) -> Result<uuid::Uuid, VectorError> {
    match id.and_then(|p| p.point_id_options.as_ref()) {
        Some(PointIdOptions::Uuid(s)) => {
            uuid::Uuid::parse_str(s).map_err(|e| VectorError::Malformed { id: s.clone(), reason: e.to_string() })
        }
        other => Err(VectorError::Malformed { id: format!("{other:?}"), reason: "not a uuid point id".into() }),
    }
}

fn payload_of(
    id: &uuid::Uuid,
    payload: HashMap<String, qdrant_client::qdrant::Value>,
) -> Result<ChunkPayload, VectorError> {
    let json = serde_json::Value::from(Payload::from(payload));
    ChunkPayload::from_json(json).map_err(|e| VectorError::Malformed { id: id.to_string(), reason: e.to_string() })
}

#[async_trait]
impl VectorStore for QdrantStore {
    async fn upsert(&self, points: Vec<Point>) -> Result<(), VectorError> {
        // The server refuses an empty update ("Empty update request") where
        // the embedded store does nothing: nothing to write is a no-op here too.
        if points.is_empty() {
            return Ok(());
        }
        let mut batch = Vec::with_capacity(points.len());
        for p in points {
            let vectors = NamedVectors::default()
                .add_vector(DENSE, Vector::new_dense(p.dense))
                .add_vector(SPARSE, Vector::new_sparse(p.sparse.indices, p.sparse.values));
            let payload = Payload::try_from(p.payload.to_json()).map_err(store_err)?;
            batch.push(PointStruct::new(p.id.to_string(), vectors, payload));
        }
        let request = UpsertPointsBuilder::new(&self.collection, batch).wait(true);
        self.client.upsert_points(request).await.map_err(store_err)?;
        Ok(())
    }

    async fn count(&self, doc: &DocumentId, generation: Option<i64>) -> Result<u64, VectorError> {
        let request = CountPointsBuilder::new(&self.collection).filter(document_filter(doc, generation)).exact(true);
        let response = self.client.count(request).await.map_err(store_err)?;
        Ok(response.result.map_or(0, |r| r.count))
    }

    async fn delete_document(&self, doc: &DocumentId, keep_generation: Option<i64>) -> Result<(), VectorError> {
        let mut filter = document_filter(doc, None);
        if let Some(g) = keep_generation {
            filter.must_not = vec![Condition::matches("generation", g)];
        }
        let request = DeletePointsBuilder::new(&self.collection).points(filter).wait(true);
        self.client.delete_points(request).await.map_err(store_err)?;
        Ok(())
    }

    async fn search_dense_in(
        &self,
        vector: &[f32],
        limit: usize,
        filter: &SearchFilter,
    ) -> Result<Vec<Scored>, VectorError> {
        self.query(VectorInput::new_dense(vector.to_vec()), DENSE, limit, filter).await
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
        let sparse = VectorInput::new_sparse(query.indices.clone(), query.values.clone());
        self.query(sparse, SPARSE, limit, filter).await
    }

    async fn dense_vectors(&self, ids: &[uuid::Uuid]) -> Result<Vec<(uuid::Uuid, Vec<f32>)>, VectorError> {
        let ids: Vec<PointId> = ids.iter().map(|u| PointId::from(u.to_string())).collect();
        let request = GetPointsBuilder::new(&self.read, ids)
            .with_payload(false)
            .with_vectors(VectorsSelector::from(vec![DENSE.to_string()]));
        let response = self.client.get_points(request).await.map_err(store_err)?;
        response
            .result
            .into_iter()
            .map(|p| {
                let id = uuid_of(p.id.as_ref())?;
                match p.vectors.and_then(|v| v.get_vector_by_name(DENSE)) {
                    Some(OutputVector::Dense(d)) => Ok((id, d.data)),
                    _ => Err(VectorError::Malformed { id: id.to_string(), reason: "no dense vector".into() }),
                }
            })
            .collect()
    }

    async fn chunks(&self, doc: Option<&DocumentId>) -> Result<Vec<ChunkPayload>, VectorError> {
        let mut out = Vec::new();
        let mut offset: Option<PointId> = None;
        loop {
            let mut request = ScrollPointsBuilder::new(&self.read).limit(512).with_payload(true).with_vectors(false);
            if let Some(d) = doc {
                request = request.filter(document_filter(d, None));
            }
            if let Some(o) = offset.take() {
                request = request.offset(o);
            }
            let page = self.client.scroll(request).await.map_err(store_err)?;
            for p in page.result {
                let id = uuid_of(p.id.as_ref())?;
                out.push(payload_of(&id, p.payload)?);
            }
            match page.next_page_offset {
                Some(next) => offset = Some(next),
                None => break,
            }
        }
        out.sort_by(|a, b| (&a.document, a.generation, a.chunk_index).cmp(&(&b.document, b.generation, b.chunk_index)));
        Ok(out)
    }

    async fn optimize(&self) -> Result<(), VectorError> {
        // The server optimises and indexes on its own.
        Ok(())
    }
}

/// The server minor versions this client (qdrant-client 1.17) speaks to:
/// Qdrant keeps its gRPC API compatible one minor version either way, and
/// the tests run against server 1.16.3 (scripts/qdrant-server.sh), the
/// version deploy/compose.yaml pins.
const CLIENT_VERSION: (u32, u32) = (1, 17);

/// Refuses a server whose version is more than one minor away from the
/// client's, with both versions in the error, instead of failing later on
/// a request the other side does not understand.
pub async fn ensure_compatible(client: &Qdrant) -> Result<(), VectorError> {
    let health = client.health_check().await.map_err(store_err)?;
    let mut parts = health.version.split('.').map(|p| p.parse::<u32>().ok());
    let (major, minor) = (parts.next().flatten(), parts.next().flatten());
    match (major, minor) {
        (Some(major), Some(minor)) if major == CLIENT_VERSION.0 && minor.abs_diff(CLIENT_VERSION.1) <= 1 => Ok(()),
        _ => Err(VectorError::Store(format!(
            "qdrant server {} is not compatible with this client (qdrant-client {}.{}); use a 1.16-1.18 server",
            health.version, CLIENT_VERSION.0, CLIENT_VERSION.1
        ))),
    }
}
