//! A hint, once per language and worker, when an English-only model embeds
//! documents BM25 read in another language: the dense half of their
//! searches is then the model's weak side, and the multilingual model
//! ranks them far better (docs/EVALUATION.md, "Models and languages").

use ragpipe_vectors::bm25::DEFAULT_LANGUAGE;
use std::collections::HashSet;
use std::sync::Mutex;

#[derive(Default)]
pub(crate) struct LanguageHints(Mutex<HashSet<String>>);

impl LanguageHints {
    /// Says so the first time `model` embeds a batch analysed in `language`.
    pub(crate) fn note(&self, model: &str, language: &str, uri: &str) {
        if language == DEFAULT_LANGUAGE || !ragpipe_embed::reads_only_english(model) {
            return;
        }
        if !self.0.lock().unwrap_or_else(|p| p.into_inner()).insert(language.to_string()) {
            return;
        }
        tracing::warn!(
            document = uri,
            "{language} documents are being embedded by {model}, which reads English only; \
             multilingual-e5-small ranks them far better ([model] name = \"multilingual-e5-small\", \
             then `ragpipe reindex`; docs/EVALUATION.md \"Models and languages\")"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_english_only_models_and_other_languages_are_noted_once() {
        let hints = LanguageHints::default();
        hints.note("all-MiniLM-L6-v2-int8", "spanish", "a");
        hints.note("all-MiniLM-L6-v2-int8", "spanish", "b");
        hints.note("all-MiniLM-L6-v2-int8", "english", "c");
        hints.note("multilingual-e5-small-int8", "french", "d");
        hints.note("all-mpnet-base-v2", "german", "e");
        let noted = hints.0.lock().unwrap();
        assert_eq!(
            noted.iter().map(String::as_str).collect::<std::collections::BTreeSet<_>>(),
            ["german", "spanish"].into()
        );
    }
}
