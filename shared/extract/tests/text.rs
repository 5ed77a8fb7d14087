//! Plain text on real files: a manual page as `man` renders it.

use ragpipe_core::{BlockKind, Kind};
use ragpipe_extract::extract;

fn collapsed(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `man` justifies and hyphenates a page rendered to text: one line in ten
/// of watch(1) ends in half a word and U+2010. Each word is read whole on
/// its first line, the rest of the next line stays where it was.
#[test]
fn a_manual_page_rendered_by_man_has_its_broken_words_whole() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/text/watch.1.txt");
    let raw = std::fs::read_to_string(path).unwrap();
    let doc = extract(Kind::Text, "watch.1.txt", raw.as_bytes()).unwrap();
    assert!(raw.lines().filter(|l| l.ends_with('\u{2010}')).count() >= 6);
    assert!(!doc.text.lines().any(|l| l.ends_with('\u{2010}')), "a broken word is left");
    let text = collapsed(&doc.text);
    for whole in [
        "If the optional permanent argument",
        "smaller values are converted.",
        "The WATCH_INTERVAL environment",
        "the following environment variables.",
        "the --interval command line option.",
        "other bootup time-changing mechanisms)",
    ] {
        assert!(text.contains(whole), "missing: {whole}");
    }
    // Nothing else changes: the words are the page's with the halves put
    // together.
    let mut joined = String::new();
    let mut broke = false;
    for line in raw.lines() {
        let line = if broke { line.trim_start() } else { line };
        broke = line.ends_with('\u{2010}');
        joined.push_str(line.strip_suffix('\u{2010}').unwrap_or(line));
        if !broke {
            joined.push('\n');
        }
    }
    assert_eq!(text, collapsed(&joined));
    // Every word is in a block, once, in order.
    let blocks: Vec<&str> = doc.blocks.iter().map(|b| &doc.text[b.range.clone()]).collect();
    assert_eq!(collapsed(&blocks.join(" ")), text);
    // The line a word moved up from keeps its indentation.
    assert!(doc.text.contains("If the optional\n\t      permanent argument"));
}

/// A manual page's sections are named in capitals at the margin. Those large
/// enough to stand alone are headings; the page's opening (its name,
/// synopsis, a short description and, here, the options) is read as one
/// stretch, and a small section stays in the one before it, its name opening
/// a paragraph there.
#[test]
fn a_manual_page_is_headed_by_its_large_sections() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/text/watch.1.txt");
    let doc = extract(Kind::Text, "watch.1.txt", &std::fs::read(path).unwrap()).unwrap();
    let headings: Vec<(&str, u8)> = doc.headings();
    assert_eq!(headings, [("BUGS", 1), ("EXAMPLES", 1)]);
    // Each heading opens at least 100 words, up to the next heading.
    let heads: Vec<_> = doc.blocks.iter().filter(|b| b.kind != BlockKind::Paragraph).map(|b| b.range.clone()).collect();
    for (k, head) in heads.iter().enumerate() {
        let to = heads.get(k + 1).map_or(doc.text.len(), |next| next.start);
        assert!(doc.text[head.end..to].split_whitespace().count() >= 100, "{}", &doc.text[head.clone()]);
    }
    // A small section's name opens a paragraph.
    for name in ["NAME", "OPTIONS", "EXIT STATUS", "NOTES"] {
        assert!(doc.blocks.iter().any(|b| b.kind == BlockKind::Paragraph && doc.slice(b).starts_with(name)), "{name}");
    }
}
