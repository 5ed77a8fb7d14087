//! The embedder stage: embed batches in, points and state out. [`run`]
//! serves it (`ragpipe serve embedder`); [`EmbedStage`] is one worker's job.
//!
//! embed (blocking thread) -> upsert points with deterministic ids -> record
//! the batch (idempotent) -> on the generation's last batch: count the
//! document's points in the vector store, record that count with model, dims
//! and versions as `indexed`, then delete older generations -> ack last.
//! A redelivered batch rewrites the same points and records nothing twice.
//! The collection written is the registry's write target (see [`Targets`]):
//! the index a reindex is building, else the live one.

mod hint;
mod service;
mod stage;
mod target;

pub use service::{Ports, run};
pub use stage::{EmbedOutcome, EmbedStage};
pub use target::{Target, TargetError, Targets};
