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

use std::collections::{HashMap, HashSet};
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
    let mut out: Vec<String> = text
        .split(|c: char| !is_word_char(c))
        .filter(|w| !w.is_ascii())
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
    let mut used: HashSet<String> = HashSet::new();
    let mut accented: HashMap<String, HashMap<String, usize>> = HashMap::new();
    for word in texts.iter().flat_map(|t| t.split(|c: char| !is_word_char(c))).filter(|w| !w.is_empty()) {
        let word = word.to_lowercase();
        if !word.is_ascii() && !marked_last(&word) {
            let bare = bare(&word);
            if bare != word && bare.is_ascii() {
                *accented.entry(bare).or_default().entry(word.clone()).or_default() += 1;
            }
        }
        used.insert(word);
    }
    let mut out = String::with_capacity(question.len() + 8);
    let mut changed = false;
    let mut rest = question;
    while let Some(start) = rest.find(is_word_char) {
        out.push_str(&rest[..start]);
        let end = rest[start..].find(|c: char| !is_word_char(c)).map_or(rest.len(), |e| start + e);
        let typed = &rest[start..end];
        let lower = typed.to_lowercase();
        let written = (typed.is_ascii() && !used.contains(&lower))
            .then(|| accented.get(&lower))
            .flatten()
            .and_then(|forms| forms.iter().max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0))))
            .map(|(form, _)| cased_as(form, typed));
        match written {
            Some(form) => {
                out.push_str(&form);
                changed = true;
            }
            None => out.push_str(typed),
        }
        rest = &rest[end..];
    }
    out.push_str(rest);
    changed.then_some(out)
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
    let mut letters = typed.chars().filter(|c| c.is_alphabetic());
    let first_upper = letters.next().is_some_and(char::is_uppercase);
    let all_upper =
        first_upper && typed.chars().filter(|c| c.is_alphabetic()).count() > 1 && letters.all(char::is_uppercase);
    if all_upper {
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
    fn accented_words_are_given_bare() {
        assert_eq!(unaccented("La conexión, la configuración y la conexión"), ["conexion", "configuracion"]);
        assert_eq!(unaccented("año, pingüino, naïve café"), ["ano", "cafe", "naive", "pinguino"]);
        assert!(unaccented("plain ASCII words").is_empty());
        assert!(unaccented("日本語 Ελληνικά").is_empty(), "scripts with no ASCII spelling stay as they are");
    }
}
