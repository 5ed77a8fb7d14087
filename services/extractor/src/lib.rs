//! The extractor stage: extract job in, embed batches out. [`run`] serves
//! it (`ragpipe serve extractor`); [`ExtractStage`] is one worker's job.
//!
//! fetch (size-limited) -> detect type -> (fetch transcript sidecar) ->
//! extract in a resource-limited child process -> chunk -> publish numbered
//! embed batches -> ack. A parser that panics, aborts, overflows its stack,
//! spins or eats memory kills only its child: the document becomes `failed`
//! with the reason, never a dead worker (see [`isolate`]). Every outcome is
//! explicit: done, retry later, or failed with a reason.

pub mod child;
pub mod isolate;
pub mod ocr;
mod service;
pub mod speech;
mod stage;

pub use child::child_main;
pub use isolate::{ChildLimits, Isolation};
pub use ocr::OcrSettings;
pub use service::{ExtractorConfig, Ports, run};
pub use speech::AsrSettings;
pub use stage::{ExtractOutcome, ExtractStage, SIDECAR_EXTENSIONS};
