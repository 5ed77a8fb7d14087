//! The vocabulary every ragpipe stage shares, with no I/O: document identity,
//! the canonical [`Document`] an extractor produces, the [`Chunk`] a chunker cuts
//! from it, the [`Locator`] that cites a chunk, per-document state and the queue
//! messages. Keeping these pure lets the embedded and distributed adapters agree
//! on one data model and lets every stage be unit-tested without servers.

pub mod abstention;
pub mod chunk;
pub mod chunking;
pub mod document;
pub mod ids;
pub mod index;
pub mod locator;
pub mod messages;
pub mod state;

pub use abstention::Abstention;
pub use chunk::Chunk;
pub use chunking::{ChunkConfig, DEFAULT_BUDGET, TOO_MANY_TOKENS, TableRows, TokenCounter};
pub use document::{Block, BlockKind, Document, Kind, OcrPage, Region, Table, low_confidence_warning};
pub use ids::{DocumentId, point_id};
pub use index::CollectionSpec;
pub use locator::Locator;
pub use messages::{ChunkMessage, DeleteJob, EmbedJob, ExtractJob, Job, SCHEMA_VERSION};
pub use state::extractor_versions;
pub use state::{DocState, DocStatus, Stage};

/// Version of the chunking + header rules. Bumping it makes every indexed
/// document stale, so a reindex rebuilds chunks with the new rules.
pub const PIPELINE_VERSION: &str = "1";
