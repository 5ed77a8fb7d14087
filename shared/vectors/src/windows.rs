//! Windows of a chunk, as evidence for abstention: a chunk's mean vector
//! sits near every question of its topic, while a window of a few dozen
//! words is either about the question or not. For a model whose chunk
//! distances are compressed (multilingual-e5-small: answerable and
//! unanswerable questions alike land 0.07-0.20 from their nearest chunk),
//! the nearest window of the nearest chunks tells them apart better
//! (docs/EVALUATION.md, "Abstention").

use crate::ChunkPayload;

/// The passages to embed for `chunk`'s windows: its content in windows of
/// `words` words, each starting half a window after the last, each under the
/// chunk's contextual header (the part of the embedded text before the
/// content), so a window is read in its section as the chunk was. A chunk no
/// longer than a window is one window.
pub fn passages(chunk: &ChunkPayload, words: usize) -> Vec<String> {
    let header = chunk.text.strip_suffix(chunk.content.as_str()).map(str::trim).unwrap_or("");
    let tokens: Vec<&str> = chunk.content.split_whitespace().collect();
    let words = words.max(1);
    let step = (words / 2).max(1);
    let starts: Vec<usize> =
        if tokens.len() <= words { vec![0] } else { (0..tokens.len() - step).step_by(step).collect() };
    starts
        .into_iter()
        .map(|start| {
            let window = tokens[start..(start + words).min(tokens.len())].join(" ");
            if header.is_empty() { window } else { format!("{header}\n{window}") }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunk(header: &str, content: &str) -> ChunkPayload {
        let text = if header.is_empty() { content.to_string() } else { format!("{header}\n{content}") };
        ChunkPayload {
            document_id: "d".into(),
            generation: 1,
            chunk_index: 0,
            document: "file:///d.txt".into(),
            title: "D".into(),
            section: String::new(),
            kind: "text".into(),
            locator: "#char=0,1".into(),
            content: content.into(),
            text,
            tokens: 1,
            model: "m".into(),
            pipeline_version: "1".into(),
            language: "english".into(),
        }
    }

    #[test]
    fn windows_overlap_by_half_and_cover_every_word() {
        let content: Vec<String> = (0..10).map(|i| format!("w{i}")).collect();
        let got = passages(&chunk("Guide > Install", &content.join(" ")), 4);
        assert_eq!(
            got,
            [
                "Guide > Install\nw0 w1 w2 w3",
                "Guide > Install\nw2 w3 w4 w5",
                "Guide > Install\nw4 w5 w6 w7",
                "Guide > Install\nw6 w7 w8 w9",
            ]
        );
    }

    #[test]
    fn a_short_chunk_is_one_window_and_no_header_adds_none() {
        assert_eq!(passages(&chunk("", "just  a few\nwords"), 32), ["just a few words"]);
        // An odd tail still ends in a window holding the last word.
        let got = passages(&chunk("", "a b c d e"), 4);
        assert_eq!(got, ["a b c d", "c d e"]);
    }
}
