//! Words a typesetter broke across two lines with a hyphen, made whole.
//!
//! Justified text (TeX, books, papers, most printed manuals) breaks long
//! words at line ends: `declara-` / `tions.`, and so does `man` rendering a
//! manual page to text (`configu‐` / `ration`, U+2010). Left as laid out,
//! neither BM25 nor the embedding model sees the word: `declara` and `tions`
//! match no question, and a reader quoting the chunk sees the break. So a
//! paragraph (of a PDF page, a scan, a text file) gets its broken words back
//! before the canonical text is written, the second half moved up to the
//! line that holds the first.
//!
//! A hyphen at a line end may also be a compound's own (`non-` / `empty`),
//! which must stay. No dictionary ships with ragpipe, so the document is its
//! own: the word is joined with its hyphen when the document writes it so
//! elsewhere (`non-empty` on one line), without when it writes it whole
//! (`something`), with it when both halves are words the document uses on
//! their own (`user-` / `space` beside `user` and `space`) or when the first
//! half is a name or code (`HTTP-` / `based`; joined if the document writes
//! that code whole elsewhere), and without otherwise — a
//! syllable break, by far the most common case. A soft hyphen
//! (U+00AD) is a break by definition and always goes.
//!
//! Plain text is not typeset: a person or a tool that wraps lines (`fmt`,
//! an editor) breaks only at spaces and at a compound's own hyphen, and
//! `man` writes the hyphens it adds as U+2010, its page's own as `-`. So in
//! plain text a `-` at a line's end is taken as a compound's (`non-` /
//! `optional`) unless the document writes the word whole elsewhere.

use std::collections::HashSet;

/// The words of one document as written on its lines, lower-cased: whole
/// words (codes too: `yyyymmddhhmmss.sz`, `utf8`), and words written with a
/// hyphen inside them.
#[derive(Debug, Default)]
struct Vocabulary {
    words: HashSet<String>,
    compounds: HashSet<String>,
}

impl Vocabulary {
    /// Reads the document's paragraphs (each a list of lines). A line's
    /// last word when it ends in a hyphen, and the first word of the line
    /// after it, are halves, not words, and are left out.
    fn of<'a>(paragraphs: impl IntoIterator<Item = &'a [String]>) -> Self {
        let mut vocabulary = Self::default();
        for lines in paragraphs {
            let mut after_break = false;
            for line in lines {
                let tokens: Vec<&str> = line.split_whitespace().collect();
                let breaks = broken_half(line, Layout::Typeset).is_some();
                let last = tokens.len().saturating_sub(usize::from(breaks));
                for token in &tokens[usize::from(after_break).min(last)..last] {
                    vocabulary.add(token);
                }
                after_break = breaks;
            }
        }
        vocabulary
    }

    fn add(&mut self, token: &str) {
        let word = token.trim_matches(|c: char| !c.is_alphanumeric()).to_lowercase();
        if word.is_empty() {
            return;
        }
        if word.contains('-') {
            self.compounds.insert(word);
        } else {
            self.words.insert(word);
        }
    }

    /// How `head` and `tail`, broken at a hyphen, are written whole;
    /// `None` when a writer's own hyphen is kept, and the lines with it.
    fn join(&self, head: &str, tail: &str, hyphen: Hyphen) -> Option<String> {
        if hyphen == Hyphen::Soft {
            return Some(format!("{head}{tail}"));
        }
        // The half's word, without a quote or bracket before it.
        let word = head.trim_start_matches(|c: char| !c.is_alphanumeric());
        let (h, t) = (word.to_lowercase(), word_part(tail).to_lowercase());
        // The second half as a token, when it goes on past its letters
        // (`mmss.sZ` of `YYYYMMDDhh-` / `mmss.sZ`).
        let token = tail.trim_end_matches(|c: char| !c.is_alphanumeric()).to_lowercase();
        // A capital past a half's first letter makes it a name or a code
        // (`HTTP-based`, `YYMMDDhhmm-hh`), which typesetters do not split
        // into syllables, unless the document writes it whole elsewhere.
        let capitals = tail.starts_with(char::is_uppercase);
        let coded = !capitals && word.chars().skip(1).any(char::is_uppercase);
        let keeps = if [&t, &token].iter().any(|t| self.compounds.contains(&format!("{h}-{t}"))) {
            true
        } else if [&t, &token].iter().any(|t| self.words.contains(&format!("{h}{t}"))) {
            false
        } else if coded || hyphen == Hyphen::Written {
            true
        } else {
            let known = |w: &str| w.chars().count() >= 2 && self.words.contains(w);
            known(&h) && known(&t)
        };
        match (keeps, hyphen) {
            (true, Hyphen::Written) => None,
            (true, _) => Some(format!("{head}-{tail}")),
            (false, _) => Some(format!("{head}{tail}")),
        }
    }
}

/// The letters a broken word's second half starts with, up to its
/// punctuation: `tions` of `tions.`.
fn word_part(tail: &str) -> &str {
    let end = tail.find(|c: char| !c.is_alphabetic()).unwrap_or(tail.len());
    &tail[..end]
}

/// How the text a hyphen breaks was laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Layout {
    /// By a typesetter (PDF, a scan): a `-` at a line's end is most often
    /// its own, a syllable break.
    Typeset,
    /// Lines wrapped at spaces (plain text): only U+2010 and the soft hyphen
    /// are a formatter's.
    Plain,
}

/// The hyphen a line ends in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Hyphen {
    /// U+00AD: a break, nothing else.
    Soft,
    /// Most likely a break the layout made.
    Break,
    /// Most likely the writer's own (a `-` in plain text).
    Written,
}

/// When `line` ends in a word broken by a hyphen, that word's first half
/// (without the hyphen), where it starts, and which hyphen it was.
fn broken_half(line: &str, layout: Layout) -> Option<(usize, &str, Hyphen)> {
    let (body, hyphen) = if let Some(body) = line.strip_suffix('\u{ad}') {
        (body, Hyphen::Soft)
    } else if let Some(body) = line.strip_suffix('\u{2010}') {
        (body, Hyphen::Break)
    } else {
        let own = if layout == Layout::Plain { Hyphen::Written } else { Hyphen::Break };
        (line.strip_suffix('-')?, own)
    };
    let soft = hyphen == Hyphen::Soft;
    let start = body.rfind(char::is_whitespace).map_or(0, |i| i + body[i..].chars().next().map_or(1, char::len_utf8));
    let head = &body[start..];
    // A word, not a dash after a space or a number range (`2015-`): the
    // half ends in a letter and holds two at least.
    let letters = head.chars().rev().take_while(|c| c.is_alphabetic()).count();
    (letters >= 2 || (soft && letters >= 1)).then_some((start, head, hyphen))
}

/// Whether `line` ends in what may be half a word and its hyphen (any
/// layout): a text with no such line has nothing to rejoin.
pub(crate) fn may_break(line: &str) -> bool {
    broken_half(line.trim_end(), Layout::Typeset).is_some()
}

/// Rejoins the broken words of every paragraph of a document, each a list
/// of lines, against the vocabulary of all of them. Lines a move empties
/// stay, empty (see [`rejoin`]).
pub(crate) fn rejoin_all<'a>(paragraphs: impl IntoIterator<Item = &'a mut Vec<String>>, layout: Layout) {
    let mut paragraphs: Vec<&mut Vec<String>> = paragraphs.into_iter().collect();
    let vocabulary = Vocabulary::of(paragraphs.iter().map(|lines| lines.as_slice()));
    for lines in paragraphs.iter_mut() {
        rejoin(lines, &vocabulary, layout);
    }
}

/// Whether `tail`, the first word of the next line, can be the rest of a
/// word `head` broke: it starts in lower case (`declara-` / `tions`), or
/// both are capitals (`OP-` / `TIONAL`, `YYM-` / `MDDhhmmss`). A capitalised
/// word after a hyphen is a word of its own (`Front-` / `Cover`).
fn continues(head: &str, tail: &str) -> bool {
    let mut first = tail.chars().take(2);
    match first.next() {
        Some(c) if c.is_lowercase() => true,
        Some(c) if c.is_uppercase() => {
            first.next().is_none_or(|c| !c.is_lowercase()) && !head.chars().any(char::is_lowercase)
        }
        _ => false,
    }
}

/// Rejoins the broken words of one paragraph's lines in place: the second
/// half moves up to the line of the first. A line the move leaves empty
/// stays, as an empty string, so that lines keep their places (an OCR line
/// its region); the caller leaves it out.
fn rejoin(lines: &mut [String], vocabulary: &Vocabulary, layout: Layout) {
    let mut k = 0;
    while let Some(j) = (k + 1..lines.len()).find(|&j| !lines[j].trim().is_empty()) {
        let moved = broken_half(&lines[k], layout).and_then(|(start, head, hyphen)| {
            let next = lines[j].trim_start();
            let tail_end = next.find(char::is_whitespace).unwrap_or(next.len());
            let tail = &next[..tail_end];
            let whole = continues(head, tail).then(|| vocabulary.join(head, tail, hyphen)).flatten()?;
            Some((start, whole, next[tail_end..].trim_start().to_string()))
        });
        match moved {
            Some((start, whole, rest)) => {
                lines[k].truncate(start);
                lines[k].push_str(&whole);
                let emptied = rest.is_empty();
                // What stays on the next line keeps its indentation (a
                // manual page's body is indented).
                let indent = &lines[j][..lines[j].len() - lines[j].trim_start().len()];
                lines[j] = if emptied { rest } else { format!("{indent}{rest}") };
                // Emptied, the line after it may continue the joined word.
                if !emptied {
                    k = j;
                }
            }
            None => k = j,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &str) -> Vec<String> {
        text.lines().map(str::to_string).collect()
    }

    fn rejoined(text: &str, elsewhere: &str) -> String {
        rejoined_in(Layout::Typeset, text, elsewhere)
    }

    fn rejoined_in(layout: Layout, text: &str, elsewhere: &str) -> String {
        let paragraphs = [lines(text), lines(elsewhere)];
        let vocabulary = Vocabulary::of(paragraphs.iter().map(Vec::as_slice));
        let mut first = paragraphs[0].clone();
        rejoin(&mut first, &vocabulary, layout);
        first.retain(|l| !l.is_empty());
        first.join("\n")
    }

    #[test]
    fn a_syllable_break_is_made_whole_on_the_first_line() {
        assert_eq!(
            rejoined("the module's declara-\ntions. Then the\nrest", ""),
            "the module's declarations.\nThen the\nrest"
        );
        assert_eq!(rejoined("ending in man-\nagement", ""), "ending in management");
        assert_eq!(rejoined("soft\u{ad} hy\u{ad}\nphen", ""), "soft\u{ad} hyphen");
    }

    #[test]
    fn a_compound_the_document_hyphenates_elsewhere_keeps_its_hyphen() {
        assert_eq!(rejoined("a non-\nempty list", "is it non-empty?"), "a non-empty\nlist");
        assert_eq!(rejoined("in user-\nspace code", "the user owns the space"), "in user-space\ncode");
        assert_eq!(rejoined("some-\nthing", "some thing or something"), "something");
        assert_eq!(rejoined("a non-\nempty list", ""), "a nonempty\nlist");
        assert_eq!(rejoined("an HTTP-\nbased API", ""), "an HTTP-based\nAPI");
        assert_eq!(rejoined("(\"Declara-\ntions\")", ""), "(\"Declarations\")");
        assert_eq!(rejoined("is OP-\nTIONAL and", "OPTIONAL"), "is OPTIONAL\nand");
        assert_eq!(rejoined("\"?CUR-\nRENT\" is", ""), "\"?CURRENT\"\nis");
        assert_eq!(rejoined("\"YYM-\nMDDhhmmss\"", ""), "\"YYMMDDhhmmss\"");
        assert_eq!(rejoined("or \"YYMMDDhhmm-\nhh'mm'\".", ""), "or \"YYMMDDhhmm-hh'mm'\".");
    }

    /// A code the typesetter broke looks like a code with a hyphen; where
    /// the document writes it whole elsewhere, it is joined.
    #[test]
    fn a_code_written_whole_elsewhere_is_joined() {
        let whole = "the form \"YYYYMMDDhhmmss.sZ\" is";
        assert_eq!(rejoined("\"YYYYMMDDhh-\nmmss.sZ\" where", whole), "\"YYYYMMDDhhmmss.sZ\"\nwhere");
        assert_eq!(rejoined("\"YYYYMMDDhh-\nmmss.sZ\" where", ""), "\"YYYYMMDDhh-mmss.sZ\"\nwhere");
        let both = format!("{whole} or YYYYMMDDhh-mmss.sZ");
        assert_eq!(rejoined("\"YYYYMMDDhh-\nmmss.sZ\"", &both), "\"YYYYMMDDhh-mmss.sZ\"");
    }

    #[test]
    fn what_is_not_a_broken_word_stays_as_laid_out() {
        for text in [
            "dates 2015-\n04-28",
            "a dash -\nand more",
            "x-\nray",
            "the end-\nThe Start",
            "GNU-\nLinux",
            "Front-\nCover Texts",
            "no break\nhere-and-there",
        ] {
            assert_eq!(rejoined(text, ""), text, "{text:?}");
        }
    }

    /// In plain text a `-` at a line's end is the writer's unless the
    /// document writes the word whole; U+2010 is `man`'s break.
    #[test]
    fn in_plain_text_only_a_formatters_hyphen_breaks_a_word() {
        let plain = |text: &str, elsewhere: &str| rejoined_in(Layout::Plain, text, elsewhere);
        assert_eq!(plain("Meaning of non-\n   optional arguments", ""), "Meaning of non-\n   optional arguments");
        assert_eq!(plain("a well-\nknown name", ""), "a well-\nknown name");
        assert_eq!(plain("some-\nthing else", "something"), "something\nelse");
        assert_eq!(plain("the configu\u{2010}\n   ration file", ""), "the configuration\n   file");
        assert_eq!(plain("a non\u{2010}\nempty list", "non-empty"), "a non-empty\nlist");
    }

    #[test]
    fn halves_are_not_words_of_the_vocabulary() {
        let paragraphs = [lines("declara-\ntions here"), lines("plain words")];
        let vocabulary = Vocabulary::of(paragraphs.iter().map(Vec::as_slice));
        assert!(!vocabulary.words.contains("tions") && !vocabulary.words.contains("declara"));
        assert!(vocabulary.words.contains("here") && vocabulary.words.contains("plain"));
    }

    #[test]
    fn a_line_emptied_by_the_move_stays_empty_and_the_next_break_is_seen() {
        let mut paragraph = lines("a hyphen-\nated\nwords and co-\nordination");
        rejoin(&mut paragraph, &Vocabulary::default(), Layout::Typeset);
        assert_eq!(paragraph, ["a hyphenated", "", "words and coordination", ""]);
        let mut chain = lines("al-\nmost-\nly");
        rejoin(&mut chain, &Vocabulary::default(), Layout::Typeset);
        assert_eq!(chain, ["almostly", "", ""]);
    }
}
