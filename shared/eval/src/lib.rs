//! Retrieval evaluation, as pure functions: golden-set parsing, needle
//! matching, recall@k and MRR with Wilson intervals, the threshold sweep and
//! the exact sign test for comparing two runs. The CLI feeds it search
//! results; nothing here knows how they were produced, so the embedded and
//! distributed indexes are scored by the same code.

pub mod golden;
pub mod matching;
pub mod report;
pub mod stats;

pub use golden::{GoldenQuery, OodQuery};
pub use report::{QueryResult, Report, compare};
