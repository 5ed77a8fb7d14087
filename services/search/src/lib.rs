//! Search as a service: `ragpipe serve search` answers `POST /api/search`
//! from a process that keeps the live index and its model loaded, so a
//! question costs milliseconds rather than a model load. The same
//! [`Searcher`] serves `ragpipe search` (one question, then exit), so the
//! CLI and the API answer with one JSON shape ([`SearchResponse`]) by one
//! code path.

mod http;
mod response;
mod searcher;
pub mod windows;

pub use http::{MAX_BODY_BYTES, router, serve};
pub use response::{HitOut, IndexOut, SearchResponse};
pub use searcher::{
    EmbedderFor, MAX_FILTER_VALUES, MAX_QUERY_BYTES, MAX_TOP_K, Options, Ports, RECHECK, SearchRequest, Searcher,
    Threshold,
};

use ragpipe_state::StateError;
use ragpipe_vectors::VectorError;

#[derive(Debug, thiserror::Error)]
pub enum SearchError {
    /// A request parameter out of bounds; the API answers 400 naming it.
    #[error("invalid {parameter}: {problem}")]
    Invalid { parameter: String, problem: String },
    #[error(transparent)]
    State(#[from] StateError),
    #[error(transparent)]
    Vectors(#[from] VectorError),
    #[error("loading the index's model: {0}")]
    Model(String),
    #[error("embedding the query: {0}")]
    Embed(String),
    #[error("{0}")]
    Unavailable(String),
}
