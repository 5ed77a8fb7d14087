//! The table chunker, filled in by the extractor issue; prose rules until then.

use crate::{ChunkConfig, TokenCounter};
use ragpipe_core::{Chunk, Document};

pub(crate) fn chunk(doc: &Document, counter: &dyn TokenCounter, cfg: &ChunkConfig) -> Vec<Chunk> {
    crate::prose::chunk(doc, counter, cfg)
}
