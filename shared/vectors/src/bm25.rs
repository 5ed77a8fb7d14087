//! BM25-style sparse vectors. Documents get BM25 term-frequency weights,
//! queries get one weight per distinct term, and the store multiplies in IDF
//! at query time, so scores follow the corpus as it changes. Term ids are
//! murmur3 hashes compatible with Qdrant's server-side BM25.

use qdrant_edge::bm25_embed::{EdgeBm25, EdgeBm25Config, EdgeBm25Error};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// A sparse vector: sorted unique term ids and their weights.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SparseVec {
    pub indices: Vec<u32>,
    pub values: Vec<f32>,
}

impl SparseVec {
    pub fn is_empty(&self) -> bool {
        self.indices.is_empty()
    }
}

/// The analysis of an index whose pipeline version names none.
pub const DEFAULT_LANGUAGE: &str = "english";

/// How a pipeline version names its lexical analysis: `1+bm25-spanish`.
const TAG: &str = "+bm25-";

/// `base` (the pipeline's own version) with the lexical analysis of
/// `language`: unchanged for English, so indexes made before the setting
/// existed keep their names and their documents stay current.
pub fn pipeline_version(base: &str, language: &str) -> String {
    if language == DEFAULT_LANGUAGE { base.to_string() } else { format!("{base}{TAG}{language}") }
}

/// A pipeline version as a user labels it (`2`), with the lexical analysis
/// of `language` unless the label names one (`2+bm25-spanish`): a reindex
/// to a new label keeps the configured analysis.
pub fn labelled(label: &str, language: &str) -> String {
    if label.contains(TAG) { label.to_string() } else { pipeline_version(label, language) }
}

/// The language the points of an index of `pipeline_version` were analysed in.
pub fn language_of(pipeline_version: &str) -> &str {
    pipeline_version.split_once(TAG).map_or(DEFAULT_LANGUAGE, |(_, language)| language)
}

/// The analysis that detects each document's language and a question's.
pub const AUTO: &str = "auto";

/// BM25 with one language's stop words and Snowball stemmer (English unless
/// an index says otherwise), or, for [`AUTO`], each document's own.
pub struct Bm25 {
    /// The analysis of every text, or (auto) of text in no detected
    /// stemmed language, and always of a question.
    base: Analysis,
    /// Auto: the analyses of the languages met so far, by name.
    detected: Option<Mutex<HashMap<&'static str, Analysis>>>,
}

impl Default for Bm25 {
    fn default() -> Self {
        Self::new()
    }
}

impl Bm25 {
    pub fn new() -> Self {
        let inner = EdgeBm25::new(EdgeBm25Config::default()).expect("the default BM25 config is valid");
        Bm25 { base: Analysis { inner: Arc::new(inner), language: DEFAULT_LANGUAGE.into() }, detected: None }
    }

    /// The analysis of `language` (`english`, `spanish`, `german`, …: the
    /// languages Qdrant's BM25 knows), or [`AUTO`]. English keeps Qdrant's
    /// defaults (its stop words dropped, Porter stemmer), as every index
    /// before the setting had. Other languages get their Snowball stemmer
    /// and keep their stop words, which IDF already weighs down: on the
    /// Spanish set dropping them lost (MRR 0.671 → 0.661,
    /// docs/EVALUATION.md "Lexical analysis per language"). Accents stay:
    /// Snowball's suffixes carry them (`configuración` and `configurar`
    /// meet as `configur` only unfolded), and folding measured no better.
    ///
    /// Auto analyses a document in the language detected in it (English
    /// when none is sure or BM25 does not stem it), and a question both in
    /// English and in the stemmed language it most likely is, so that it
    /// meets each document in that document's own terms.
    pub fn for_language(language: &str) -> Result<Self, String> {
        match language {
            DEFAULT_LANGUAGE => Ok(Self::new()),
            AUTO => Ok(Bm25 { detected: Some(Mutex::default()), ..Self::new() }),
            _ => Ok(Bm25 { base: Analysis::of(language)?, detected: None }),
        }
    }

    /// The analysis an index of `pipeline_version` was built with.
    pub fn for_pipeline(pipeline_version: &str) -> Result<Self, String> {
        Self::for_language(language_of(pipeline_version))
    }

    /// The analysis for a document whose text (or a batch of its chunks)
    /// is `texts`: the index's language, or, auto, the one detected in them.
    pub fn for_documents(&self, texts: &[&str]) -> Analysis {
        if self.detected.is_none() {
            return self.base.clone();
        }
        crate::language::of_texts(texts).map_or_else(|| self.base.clone(), |language| self.detected(language))
    }

    /// The text's terms, with each date, identifier and grouped number once
    /// more as one normalised term ([`crate::keys`]), a table row's keys
    /// paired with its words ([`crate::pairs`]), and each word written with
    /// accents once more without them ([`crate::folding`]).
    pub fn document(&self, text: &str) -> SparseVec {
        self.for_documents(&[text]).document(text)
    }

    /// The question's terms (see [`Bm25::queries`]).
    pub fn query(&self, text: &str) -> SparseVec {
        self.queries(text).0
    }

    /// The question's terms, keys included, and its key terms alone (dates,
    /// identifiers, grouped numbers, each paired with the question's words;
    /// `None` when it names none), each by the
    /// base analysis and, auto, by the question's own language's as well:
    /// the language is guessed and the keys found once for both.
    pub fn queries(&self, text: &str) -> (SparseVec, Option<SparseVec>) {
        let mut analyses = vec![&self.base];
        let own = match (&self.detected, crate::language::of_query(text)) {
            (Some(_), Some(language)) if language != DEFAULT_LANGUAGE => Some(self.detected(language)),
            _ => None,
        };
        analyses.extend(own.as_ref());
        let terms = |text: &str| analyses.iter().map(|a| a.query(text)).reduce(union).unwrap_or_default();
        let mut keys = crate::keys::key_terms(text, true);
        keys.extend(crate::pairs::query_pairs(text, &keys));
        (terms(&with_keys(text, &keys)), (!keys.is_empty()).then(|| terms(&keys.join(" "))))
    }

    /// Auto: the analysis of `language`, built the first time it is met.
    fn detected(&self, language: &'static str) -> Analysis {
        let Some(detected) = &self.detected else { return self.base.clone() };
        if language == DEFAULT_LANGUAGE {
            return self.base.clone();
        }
        let mut built = detected.lock().unwrap_or_else(|p| p.into_inner());
        built
            .entry(language)
            .or_insert_with(|| Analysis::of(language).expect("every detected language has an analysis"))
            .clone()
    }
}

/// One language's analysis.
#[derive(Clone)]
pub struct Analysis {
    inner: Arc<EdgeBm25>,
    language: Arc<str>,
}

impl Analysis {
    /// Snowball stemmer, stop words kept (see [`Bm25::for_language`]).
    fn of(language: &str) -> Result<Self, String> {
        // Built from its JSON form: the stop-word type is not exported.
        let config: EdgeBm25Config = serde_json::from_value(serde_json::json!({
            "language": language, "stopwords": {"custom": []},
        }))
        .map_err(|e| e.to_string())?;
        let inner = EdgeBm25::new(config).map_err(|e| match e {
            EdgeBm25Error::UnsupportedLanguage(l) => format!(
                "BM25 has no analysis for {l:?} (english, spanish, french, german, italian, portuguese, …, or auto)"
            ),
            other => other.to_string(),
        })?;
        Ok(Analysis { inner: Arc::new(inner), language: language.into() })
    }

    /// The language's name, as the config and a point's payload write it.
    pub fn language(&self) -> &str {
        &self.language
    }

    /// The text's terms, keys included (see [`Bm25::document`]).
    pub fn document(&self, text: &str) -> SparseVec {
        let mut keys = crate::keys::key_terms(text, false);
        keys.extend(crate::pairs::row_pairs(text));
        keys.extend(crate::folding::unaccented(text));
        convert(self.inner.embed_document(&with_keys(text, &keys)))
    }

    fn query(&self, text: &str) -> SparseVec {
        convert(self.inner.embed_query(text))
    }
}

/// Both queries' terms, each once (a query weighs every term 1).
fn union(a: SparseVec, b: SparseVec) -> SparseVec {
    let mut terms: Vec<(u32, f32)> =
        a.indices.into_iter().zip(a.values).chain(b.indices.into_iter().zip(b.values)).collect();
    terms.sort_by_key(|(i, _)| *i);
    terms.dedup_by_key(|(i, _)| *i);
    SparseVec { indices: terms.iter().map(|(i, _)| *i).collect(), values: terms.iter().map(|(_, v)| *v).collect() }
}

/// The analyses of the indexes a process writes to or reads, each built
/// once: an embedder may fill the live index and a reindex's build in
/// another language side by side.
#[derive(Default)]
pub struct Analyses(Mutex<HashMap<String, Arc<Bm25>>>);

impl Analyses {
    /// The analysis of an index of `pipeline_version`.
    pub fn for_pipeline(&self, pipeline_version: &str) -> Result<Arc<Bm25>, String> {
        let language = language_of(pipeline_version);
        let mut built = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(bm25) = built.get(language) {
            return Ok(bm25.clone());
        }
        let bm25 = Arc::new(Bm25::for_language(language)?);
        built.insert(language.to_string(), bm25.clone());
        Ok(bm25)
    }
}

fn with_keys<'a>(text: &'a str, keys: &[String]) -> std::borrow::Cow<'a, str> {
    if keys.is_empty() {
        return text.into();
    }
    format!("{text}\n{}", keys.join(" ")).into()
}

fn convert(v: qdrant_edge::SparseVector) -> SparseVec {
    SparseVec { indices: v.indices, values: v.values }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_question_typed_without_accents_meets_the_accented_words() {
        // (Auto analyses a question in English and in the language detected
        // in it; a short one typed without accents may be detected as none.)
        for language in ["spanish", DEFAULT_LANGUAGE] {
            let bm25 = Bm25::for_language(language).unwrap();
            let doc = bm25.document("Configuración de la conexión inalámbrica del café");
            for typed in ["configuracion conexion inalambrica", "configuración conexión cafe"] {
                let query = bm25.query(typed);
                assert!(
                    !query.is_empty() && query.indices.iter().all(|i| doc.indices.contains(i)),
                    "{language}: {typed}"
                );
            }
        }
    }

    #[test]
    fn stems_and_drops_stop_words() {
        let bm25 = Bm25::new();
        let doc = bm25.document("The queues are acknowledging messages");
        let query = bm25.query("acknowledged queue");
        assert_eq!(query.indices.len(), 2);
        assert!(query.indices.iter().all(|i| doc.indices.contains(i)), "stemmed terms match");
        assert!(bm25.query("the and of").is_empty());
    }

    #[test]
    fn a_key_written_another_way_matches() {
        let bm25 = Bm25::new();
        let row = bm25.document("2012/01/01 | 0.0 | 12.8 | 5.0 | 4.7 | drizzle");
        let other = bm25.document("2012/01/02 | 10.9 | 10.6 | 2.8 | 4.5 | rain");
        let query = bm25.query("weather in Seattle on January 1st, 2012");
        let shared = |d: &SparseVec| query.indices.iter().filter(|i| d.indices.contains(i)).count();
        assert!(shared(&row) > shared(&other), "the date's term is the row's alone");
    }

    #[test]
    fn an_index_of_another_language_says_so_in_its_pipeline_version() {
        assert_eq!(pipeline_version("1", "english"), "1", "English indexes keep their names");
        assert_eq!(pipeline_version("1", "spanish"), "1+bm25-spanish");
        assert_eq!(language_of("1+bm25-spanish"), "spanish");
        assert_eq!(language_of("1"), "english");
        assert_eq!(language_of("2-custom"), "english");
    }

    #[test]
    fn spanish_is_analysed_in_spanish() {
        let doc = "La configuración de la red";
        let query = "configurar redes";
        let spanish = Bm25::for_language("spanish").unwrap();
        let english = Bm25::for_pipeline("1").unwrap();
        let shared = |bm25: &Bm25| {
            let d = bm25.document(doc);
            bm25.query(query).indices.iter().filter(|i| d.indices.contains(i)).count()
        };
        assert_eq!(shared(&spanish), 2, "configur- and red meet in Spanish");
        assert_eq!(shared(&english), 0, "English stems leave the Spanish words apart");
        assert_eq!(spanish.query("de la").indices.len(), 2, "stop words kept: IDF weighs them");
        let why = Bm25::for_language("klingon").err().unwrap();
        assert!(why.contains("no analysis for \"klingon\""), "{why}");
    }

    #[test]
    fn auto_analyses_each_document_in_its_own_language() {
        let auto = Bm25::for_language(AUTO).unwrap();
        assert_eq!(pipeline_version("1", AUTO), "1+bm25-auto");
        assert_eq!(labelled("2", AUTO), "2+bm25-auto", "a reindex label keeps the analysis");
        assert_eq!(labelled("2", DEFAULT_LANGUAGE), "2");
        assert_eq!(labelled("2+bm25-spanish", AUTO), "2+bm25-spanish", "unless it names one");
        let es = "La configuración de la red se guarda en el fichero de interfaces; después de \
                  cambiarla hay que reiniciar el servicio de red para que se aplique.";
        let en = "The network configuration is kept in the interfaces file; after changing it the \
                  networking service must be restarted for it to apply.";
        let shared =
            |doc: &SparseVec, query: &str| auto.query(query).indices.iter().filter(|i| doc.indices.contains(i)).count();
        // Spanish stems meet across word forms; the English page is
        // analysed exactly as an English index analyses it.
        let es_doc = auto.document(es);
        assert!(shared(&es_doc, "¿cómo configurar las redes?") >= 2, "configur- and red meet in Spanish");
        assert_eq!(auto.document(en), Bm25::new().document(en), "English text keeps the default analysis");
        let asked = "How do I change the network configuration so that it survives a reboot of the server?";
        assert_eq!(auto.query(asked), Bm25::new().query(asked), "an English question as an English index reads it");
        let en_doc = auto.document(en);
        assert!(shared(&en_doc, "configuring the network") >= 2);
        let fixed = Bm25::for_language("spanish").unwrap();
        assert_eq!(fixed.for_documents(&[en]).document(en), fixed.document(en), "a fixed language detects nothing");
        assert_ne!(fixed.document(en), en_doc);
    }

    #[test]
    fn every_detectable_language_has_an_analysis() {
        for language in crate::language::STEMMED.iter().map(|(_, name)| *name) {
            assert!(Analysis::of(language).is_ok(), "{language}");
        }
    }

    #[test]
    fn analyses_are_built_once_per_language() {
        let analyses = Analyses::default();
        let a = analyses.for_pipeline("1+bm25-spanish").unwrap();
        let b = analyses.for_pipeline("2+bm25-spanish").unwrap();
        assert!(Arc::ptr_eq(&a, &b));
        assert!(!Arc::ptr_eq(&a, &analyses.for_pipeline("1").unwrap()));
        assert!(analyses.for_pipeline("1+bm25-klingon").is_err());
    }
}
