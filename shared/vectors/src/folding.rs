//! Questions typed without accents. People often leave them out when they
//! type (`como configurar la conexion`), and BM25 keeps them (Snowball's
//! suffixes carry them, see [`crate::bm25`]): on the Spanish set, the same
//! questions without accents lost MRR 0.691 → 0.656. A word a document
//! writes with marks is indexed once more without them (`conexión` also as
//! `conexion`), so a question meets it typed either way; the question
//! itself is analysed as typed.
//!
//! The dense side cannot meet a bare word that way: a model reads
//! `conexion` a little less surely than `conexión`, and that was most of
//! the loss. So a question is also read again with its bare words written
//! as the chunks nearest to it write them ([`with_accents_of`]).

use std::collections::HashMap;
use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::is_combining_mark;

fn bare(word: &str) -> String {
    word.nfd().filter(|c| !is_combining_mark(*c)).collect()
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric()
}

/// The words of `text` written with combining marks (accents, tildes,
/// diaereses), without them, each once.
pub(crate) fn unaccented(text: &str) -> Vec<String> {
    let mut out: Vec<String> = non_ascii_words(text)
        .filter_map(|w| {
            let bare = bare(w);
            (bare != w && bare.is_ascii()).then_some(bare)
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

/// `question` with each word typed without accents written as `texts`
/// (the chunks nearest to it) write it, when they write it only with
/// accents (`conexion` → `conexión`, `Configuracion` → `Configuración`);
/// `None` when no word changes. A bare form the texts also use as it is
/// stays (`como` beside `cómo`): the question may mean either, and so does
/// a form whose last letter is marked ([`marked_last`]). Of two accented
/// spellings the more frequent wins.
pub(crate) fn with_accents_of(question: &str, texts: &[&str]) -> Option<String> {
    // The question's bare words (lower case), each once; the texts are
    // read only for those, and not at all when they hold no accent (an
    // English index pays one ASCII check per chunk, or one pass over the
    // words of a chunk with a curly quote).
    let mut typed: Vec<String> =
        words(question).filter(|w| w.len() > 1 && w.is_ascii()).map(str::to_ascii_lowercase).collect();
    typed.sort();
    typed.dedup();
    if typed.is_empty() || texts.iter().all(|t| t.is_ascii()) {
        return None;
    }
    let find = |word: &str| typed.iter().position(|t| t.eq_ignore_ascii_case(word));
    // First the accented spellings of those words (only texts with a
    // non-ASCII letter can hold one), then whether a text uses one bare.
    let mut accented: Vec<HashMap<String, usize>> = vec![HashMap::new(); typed.len()];
    for word in texts.iter().flat_map(|t| non_ascii_words(t)) {
        if !marked_last(word)
            && let Some(i) = find(&bare(word))
        {
            *accented[i].entry(word.to_lowercase()).or_default() += 1;
        }
    }
    if accented.iter().all(HashMap::is_empty) {
        return None;
    }
    let mut used = vec![false; typed.len()];
    for word in texts.iter().flat_map(|t| words(t)).filter(|w| w.is_ascii()) {
        if let Some(i) = find(word) {
            used[i] = true;
        }
    }
    let mut out = String::with_capacity(question.len() + 8);
    let mut changed = false;
    let mut rest = question;
    while let Some(start) = rest.find(is_word_char) {
        out.push_str(&rest[..start]);
        let end = rest[start..].find(|c: char| !is_word_char(c)).map_or(rest.len(), |e| start + e);
        let word = &rest[start..end];
        let written = find(word)
            .filter(|&i| word.len() > 1 && word.is_ascii() && !used[i])
            .and_then(|i| accented[i].iter().max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0))))
            .map(|(form, _)| cased_as(form, word));
        match written {
            Some(form) => {
                out.push_str(&form);
                changed = true;
            }
            None => out.push_str(word),
        }
        rest = &rest[end..];
    }
    out.push_str(rest);
    changed.then_some(out)
}

fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !is_word_char(c)).filter(|w| !w.is_empty())
}

/// The words of `text` with a non-ASCII letter, found from its non-ASCII
/// bytes (English text is rarely more than a curly quote).
fn non_ascii_words(text: &str) -> impl Iterator<Item = &str> {
    let mut at = 0;
    std::iter::from_fn(move || {
        loop {
            let hit = at + text.as_bytes()[at..].iter().position(|b| !b.is_ascii())?;
            let end = text[hit..].find(|c: char| !is_word_char(c)).map_or(text.len(), |e| hit + e);
            // Past the character when it is no letter (a curly quote).
            at = end.max(hit + text[hit..].chars().next().map_or(1, char::len_utf8));
            if end > hit {
                let start = text[..hit]
                    .rfind(|c: char| !is_word_char(c))
                    .map_or(0, |i| i + text[i..].chars().next().map_or(1, char::len_utf8));
                return Some(&text[start..end]);
            }
        }
    })
}

/// Whether the word's last letter carries the mark (`creó`, `está`, `él`,
/// `café`): its bare form is then most often another word (`creo`, `esta`,
/// `el`), a tense or person a question may well mean, so it is never
/// written back.
fn marked_last(word: &str) -> bool {
    word.chars().last().is_some_and(|c| c.to_string().nfd().any(is_combining_mark))
}

/// `form` (lower case) in the case `typed` was typed in: `Conexion` →
/// `Conexión`, `CONEXION` → `CONEXIÓN`.
fn cased_as(form: &str, typed: &str) -> String {
    let letters: Vec<char> = typed.chars().filter(|c| c.is_alphabetic()).collect();
    let first_upper = letters.first().is_some_and(|c| c.is_uppercase());
    if letters.len() > 1 && letters.iter().all(|c| c.is_uppercase()) {
        return form.to_uppercase();
    }
    let mut chars = form.chars();
    match chars.next() {
        Some(c) if first_upper => c.to_uppercase().chain(chars).collect(),
        _ => form.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::{unaccented, with_accents_of};

    #[test]
    fn a_bare_question_is_read_as_its_nearest_chunks_write_it() {
        let chunks = [
            "La configuración de la conexión inalámbrica: cómo se guarda y como se aplica.",
            "Después de cambiar la configuración, la conexión se reinicia. Configuración avanzada.",
        ];
        let read = |q: &str| with_accents_of(q, &chunks);
        assert_eq!(
            read("¿Como cambio la configuracion de la conexion despues de reiniciar?").as_deref(),
            Some("¿Como cambio la configuración de la conexión después de reiniciar?"),
            "como is a word of its own there; reiniciar needs nothing"
        );
        assert_eq!(read("CONEXION Inalambrica").as_deref(), Some("CONEXIÓN Inalámbrica"));
        assert_eq!(read("la configuración de la conexión"), None, "typed with its accents");
        assert_eq!(read("how to restart the network"), None, "nothing to read again");
        assert_eq!(with_accents_of("conexion", &[]), None);
        let both = ["el módulo, los módulos y el modulo"];
        assert_eq!(with_accents_of("modulo", &both), None, "the bare form is a word the texts use");
        let two = ["la pérdida, otra pérdida y una perdída"];
        assert_eq!(with_accents_of("perdida", &two).as_deref(), Some("pérdida"), "the more frequent spelling");
        let verbs = ["El paquete se creó ayer y cambió de nombre; está en la sección de red."];
        assert_eq!(
            with_accents_of("creo que cambio de seccion, esta roto", &verbs).as_deref(),
            Some("creo que cambio de sección, esta roto"),
            "a form whose last letter is marked is another word bare (creo, cambio, esta)"
        );
    }

    #[test]
    fn the_words_with_a_non_ascii_letter_are_found() {
        let found: Vec<&str> = super::non_ascii_words("it’s the “configuración” of año-nuevo, naïve").collect();
        assert_eq!(found, ["configuración", "año", "naïve"]);
        assert_eq!(super::non_ascii_words("plain text").count(), 0);
        assert_eq!(super::non_ascii_words("über").collect::<Vec<_>>(), ["über"]);
    }

    #[test]
    fn accented_words_are_given_bare() {
        assert_eq!(unaccented("La conexión, la configuración y la conexión"), ["conexion", "configuracion"]);
        assert_eq!(unaccented("año, pingüino, naïve café"), ["ano", "cafe", "naive", "pinguino"]);
        assert!(unaccented("plain ASCII words").is_empty());
        assert!(unaccented("日本語 Ελληνικά").is_empty(), "scripts with no ASCII spelling stay as they are");
    }
}
