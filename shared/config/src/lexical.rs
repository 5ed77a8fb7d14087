//! `[lexical]`: how the BM25 half of hybrid search reads text. An index
//! records it (in its pipeline version), so the documents' terms and a
//! query's are always cut the same way.

use serde::Deserialize;

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LexicalConfig {
    /// The language BM25 analyses an index's text in: `auto`, the default,
    /// reads each document (each batch of its chunks) in the stemmed
    /// language detected in it, English where none is sure, and a question
    /// in English and in its own language; or one language for everything,
    /// its stop words and Snowball stemmer (`english`, `spanish`, `german`,
    /// `french`, `portuguese`, `italian`, … — the languages Qdrant's BM25
    /// knows). Like `model.name`, it applies to a new index and to the
    /// next `ragpipe reindex`; an existing index keeps what it was built
    /// with. Env: `RAGPIPE_LEXICAL_LANGUAGE`.
    pub language: String,
}

impl Default for LexicalConfig {
    fn default() -> Self {
        LexicalConfig { language: "auto".into() }
    }
}

impl LexicalConfig {
    pub(crate) fn validate(&self) -> Result<(), String> {
        let l = &self.language;
        if l.is_empty() || !l.chars().all(|c| c.is_ascii_lowercase()) {
            return Err(format!(
                "lexical.language must be a language's name in lower case (english, spanish, …), not {l:?}"
            ));
        }
        Ok(())
    }
}
