//! BM25-style sparse vectors. Documents get BM25 term-frequency weights,
//! queries get one weight per distinct term, and the store multiplies in IDF
//! at query time, so scores follow the corpus as it changes. Term ids are
//! murmur3 hashes compatible with Qdrant's server-side BM25.

use qdrant_edge::bm25_embed::{EdgeBm25, EdgeBm25Config};

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

/// The languages lexical search analyses text in: the stop words and the
/// Snowball stemmer follow the language, and Spanish folds accents (people
/// type `configuracion` for `configuración`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Language {
    English,
    Spanish,
}

impl Language {
    /// The language of a document's text (a sample of its first 4 KiB is
    /// enough): Spanish when that is what it is, else English, the analysis
    /// every index had before languages (so English corpora are unchanged).
    pub fn of_document(text: &str) -> Self {
        match whatlang::detect(sample(text)) {
            Some(info) if info.lang() == whatlang::Lang::Spa && info.confidence() >= 0.5 => Language::Spanish,
            _ => Language::English,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Language::English => "english",
            Language::Spanish => "spanish",
        }
    }
}

fn sample(text: &str) -> &str {
    let mut end = text.len().min(4096);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// BM25 with stop words and Snowball stemming in each [`Language`].
pub struct Bm25 {
    english: EdgeBm25,
    spanish: EdgeBm25,
}

impl Default for Bm25 {
    fn default() -> Self {
        Self::new()
    }
}

impl Bm25 {
    pub fn new() -> Self {
        let english = EdgeBm25::new(EdgeBm25Config::default()).expect("the default BM25 config is valid");
        let config = EdgeBm25Config {
            language: Some(Language::Spanish.as_str().into()),
            ascii_folding: Some(true),
            ..EdgeBm25Config::default()
        };
        let spanish = EdgeBm25::new(config).expect("qdrant-edge knows Spanish");
        Bm25 { english, spanish }
    }

    fn analyser(&self, language: Language) -> &EdgeBm25 {
        match language {
            Language::English => &self.english,
            Language::Spanish => &self.spanish,
        }
    }

    /// An English text's terms (see [`Bm25::document_in`]).
    pub fn document(&self, text: &str) -> SparseVec {
        self.document_in(Language::English, text)
    }

    /// The text's terms in `language`, with each date, identifier and
    /// grouped number once more as one normalised term ([`crate::keys`]).
    pub fn document_in(&self, language: Language, text: &str) -> SparseVec {
        convert(self.analyser(language).embed_document(&with_keys(text, false)))
    }

    /// A query's terms as an English document would hold them and, when the
    /// query looks Spanish, as a Spanish one would too: the query does not
    /// know which documents answer it, and each document holds the terms of
    /// its own language only, so the union matches both.
    pub fn query(&self, text: &str) -> SparseVec {
        self.each_language(text, &with_keys(text, true))
    }

    /// The query's key terms alone (dates, identifiers, grouped numbers),
    /// or `None` when it names none.
    pub fn keys_query(&self, text: &str) -> Option<SparseVec> {
        let keys = crate::keys::key_terms(text, true);
        (!keys.is_empty()).then(|| self.each_language(text, &keys.join(" ")))
    }

    fn each_language(&self, query: &str, terms: &str) -> SparseVec {
        let english = convert(self.english.embed_query(terms));
        // Detection on a short query is often unsure: on the golden sets it
        // says Spanish or Catalan for 132 of 132 Spanish questions, and
        // Spanish, Catalan or Portuguese for 2 of 316 English ones.
        use whatlang::Lang::{Cat, Por, Spa};
        match whatlang::detect(query) {
            Some(info) if matches!(info.lang(), Spa | Cat | Por) => {
                union(english, convert(self.spanish.embed_query(terms)))
            }
            _ => english,
        }
    }
}

/// The distinct terms of two query vectors (each term weighs 1 in a query).
fn union(a: SparseVec, b: SparseVec) -> SparseVec {
    let mut terms: Vec<(u32, f32)> =
        a.indices.into_iter().zip(a.values).chain(b.indices.into_iter().zip(b.values)).collect();
    terms.sort_by_key(|&(i, _)| i);
    terms.dedup_by_key(|&mut (i, _)| i);
    SparseVec { indices: terms.iter().map(|&(i, _)| i).collect(), values: terms.iter().map(|&(_, v)| v).collect() }
}

fn with_keys(text: &str, query: bool) -> std::borrow::Cow<'_, str> {
    let keys = crate::keys::key_terms(text, query);
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
    fn stems_and_drops_stop_words() {
        let bm25 = Bm25::new();
        let doc = bm25.document("The queues are acknowledging messages");
        let query = bm25.query("which queue acknowledged it");
        assert_eq!(query.indices.len(), 2);
        assert!(query.indices.iter().all(|i| doc.indices.contains(i)), "stemmed terms match");
        assert!(bm25.query("the and of").is_empty());
    }

    #[test]
    fn spanish_is_stemmed_and_folded_on_both_sides() {
        let bm25 = Bm25::new();
        let text = "La configuración de la red se guarda en el archivo de interfaces del sistema.";
        assert_eq!(Language::of_document(text), Language::Spanish);
        assert_eq!(Language::of_document("The network configuration lives in the interfaces file."), Language::English);
        let doc = bm25.document_in(Language::Spanish, text);
        // Without accents, another inflection, and Spanish stop words only.
        let query = bm25.query("¿donde se guardan las configuraciones de redes?");
        let shared = query.indices.iter().filter(|i| doc.indices.contains(i)).count();
        assert!(shared >= 3, "guard-, configur-, red- match: {shared}");
        // An English query is analysed as English alone, as before languages.
        let asked = "why are my messages not acknowledged by the queue";
        assert_eq!(bm25.query(asked), convert(bm25.english.embed_query(asked)));
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
}
