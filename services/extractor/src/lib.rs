//! The extractor stage: extract job in, embed batches out.
//!
//! fetch (size-limited) -> detect type -> extract -> chunk -> publish numbered
//! embed batches -> ack. Extraction and chunking are CPU work on blocking
//! threads; a parser panic becomes a `failed` document, never a dead worker.
//! Every outcome is explicit: done, retry later, or failed with a reason.

mod stage;

pub use stage::{Extractor, ExtractorConfig, Outcome, run};
