//! Questions typed without accents. People often leave them out when they
//! type (`como configurar la conexion`), and BM25 keeps them (Snowball's
//! suffixes carry them, see [`crate::bm25`]): on the Spanish set, the same
//! questions without accents lost MRR 0.691 → 0.656. A word a document
//! writes with marks is indexed once more without them (`conexión` also as
//! `conexion`), so a question meets it typed either way; the question
//! itself is analysed as typed.

use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::is_combining_mark;

/// The words of `text` written with combining marks (accents, tildes,
/// diaereses), without them, each once.
pub(crate) fn unaccented(text: &str) -> Vec<String> {
    let mut out: Vec<String> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_ascii())
        .filter_map(|w| {
            let bare: String = w.nfd().filter(|c| !is_combining_mark(*c)).collect();
            (bare != w && bare.is_ascii()).then_some(bare)
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::unaccented;

    #[test]
    fn accented_words_are_given_bare() {
        assert_eq!(unaccented("La conexión, la configuración y la conexión"), ["conexion", "configuracion"]);
        assert_eq!(unaccented("año, pingüino, naïve café"), ["ano", "cafe", "naive", "pinguino"]);
        assert!(unaccented("plain ASCII words").is_empty());
        assert!(unaccented("日本語 Ελληνικά").is_empty(), "scripts with no ASCII spelling stay as they are");
    }
}
