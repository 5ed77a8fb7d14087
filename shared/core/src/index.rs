//! The seal of an index: which model, dimensions and chunking rules its
//! vectors come from. Shared by the index registry (state), the vector
//! stores that name collections after it, and the embedder that must match it.

/// The identity of an index: vectors from different models or chunking rules
/// must never be mixed, so the name seals all three.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CollectionSpec {
    pub model: String,
    pub dims: usize,
    pub pipeline_version: String,
}

impl CollectionSpec {
    /// The collection of the first index built for this spec; later builds
    /// of the same spec add a suffix (see [`CollectionSpec::build_name`]).
    pub fn name(&self) -> String {
        let safe = |s: &str| -> String {
            s.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '-' }).collect()
        };
        format!("chunks_{}_{}d_p{}", safe(&self.model), self.dims, safe(&self.pipeline_version))
    }

    /// The collection of build `n` (1 = the first) of this spec.
    pub fn build_name(&self, n: usize) -> String {
        if n <= 1 { self.name() } else { format!("{}_b{n}", self.name()) }
    }
}
