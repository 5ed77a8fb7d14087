//! Which language a text is written in, for `[lexical] language = "auto"`:
//! only the languages BM25 has a Snowball stemmer for count, since those
//! are the ones whose analysis differs from the English default in more
//! than its stop words.

use whatlang::{Detector, Lang};

/// whatlang's languages that Qdrant's BM25 stems, by the name its config
/// takes.
pub(crate) const STEMMED: [(Lang, &str); 17] = [
    (Lang::Eng, "english"),
    (Lang::Spa, "spanish"),
    (Lang::Por, "portuguese"),
    (Lang::Fra, "french"),
    (Lang::Deu, "german"),
    (Lang::Ita, "italian"),
    (Lang::Nld, "dutch"),
    (Lang::Dan, "danish"),
    (Lang::Swe, "swedish"),
    (Lang::Nob, "norwegian"),
    (Lang::Fin, "finnish"),
    (Lang::Hun, "hungarian"),
    (Lang::Ron, "romanian"),
    (Lang::Rus, "russian"),
    (Lang::Ell, "greek"),
    (Lang::Tur, "turkish"),
    (Lang::Ara, "arabic"),
];

/// How much of a text detection reads: enough to be sure, bounded so a
/// long chunk does not cost more than a short one.
const SAMPLE_CHARS: usize = 4000;

fn name_of(lang: Lang) -> Option<&'static str> {
    STEMMED.iter().find(|(l, _)| *l == lang).map(|(_, name)| *name)
}

fn sample(text: &str, chars: usize) -> &str {
    text.char_indices().nth(chars).map_or(text, |(at, _)| &text[..at])
}

/// The language texts (a document, or a batch of its chunks) are written
/// in, read from an even share of each, when detection is sure of it and
/// BM25 stems it; `None` leaves them to the default analysis. Every
/// language is a candidate, so a Polish page is not forced into some
/// stemmed neighbour's analysis.
pub fn of_texts(texts: &[&str]) -> Option<&'static str> {
    let share = SAMPLE_CHARS / texts.len().max(1);
    let read: Vec<&str> = texts.iter().map(|t| sample(t, share.max(200))).collect();
    let info = Detector::new().detect(&read.join("\n"))?;
    if !info.is_reliable() {
        return None;
    }
    name_of(info.lang())
}

/// The stemmed language a question is most likely in. Questions are short
/// and detection on them is a guess, so the guess is only ever added to
/// the default analysis (never replaces it), and only stemmed languages
/// are candidates: a short Spanish question read as Catalan still gets the
/// Spanish analysis its documents had.
pub fn of_query(text: &str) -> Option<&'static str> {
    let candidates = STEMMED.iter().map(|(l, _)| *l).collect();
    Detector::with_allowlist(candidates).detect_lang(sample(text, SAMPLE_CHARS)).and_then(name_of)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_in_a_stemmed_language_is_named() {
        let es = "La configuración de la red se guarda en el fichero de interfaces; \
                  después de cambiarla hay que reiniciar el servicio de red para que se aplique.";
        let en = "The network configuration is kept in the interfaces file; after changing it \
                  the networking service must be restarted for it to apply.";
        assert_eq!(of_texts(&[es]), Some("spanish"));
        assert_eq!(of_texts(&[en]), Some("english"));
        assert_eq!(of_texts(&[es, es, en]), Some("spanish"), "a batch is read as a whole");
        assert_eq!(of_texts(&["42 17 3.5 2012-01-01"]), None, "numbers name no language");
        let pl = "Konfiguracja sieci jest przechowywana w pliku interfejsów; po jej zmianie \
                  należy ponownie uruchomić usługę sieciową, aby zmiany zostały zastosowane.";
        assert_eq!(of_texts(&[pl]), None, "Polish has no stemmer: the default analysis");
    }

    #[test]
    fn a_question_gets_a_stemmed_language() {
        assert_eq!(of_query("¿cómo configuro la red después de reiniciar?"), Some("spanish"));
        let en = "How do I change the network configuration so that it survives a reboot of the server?";
        assert_eq!(of_query(en), Some("english"));
        // A short one may be guessed wrong: the guess is only ever added.
        assert_eq!(of_query("how do I configure the network after a reboot?"), Some("portuguese"));
        assert_eq!(of_query("12345"), None);
    }
}
