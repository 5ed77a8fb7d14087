//! `[source]`: what of the listed source is not a document.

use serde::Deserialize;

#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SourceConfig {
    /// Keys never listed, as `.gitignore` lines read: a pattern without a
    /// `/` matches a file or folder name at any depth (`node_modules`,
    /// `*.lock`, `~$*`), one with a `/` matches from the source's root
    /// (`drafts/**`, `/build`); `*` stays within a name, `**` crosses
    /// folders. An excluded file is not a document: one indexed before is
    /// deleted by the next sync. Env: `RAGPIPE_SOURCE_EXCLUDE`, patterns
    /// separated by commas.
    pub exclude: Vec<String>,
}
