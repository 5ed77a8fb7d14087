//! Plain text: decoding bytes to a string, paragraphs at blank lines and
//! headings at the names of large sections.

use crate::{ExtractError, fallback_title, hyphens, text_sections};
use ragpipe_core::{Block, BlockKind, Document, Kind};

/// Decodes text bytes: UTF-8 (BOM stripped), UTF-16 with a BOM, else
/// Windows-1252 (Latin-1 with Windows' quotes, dashes and euro sign in
/// 0x80–0x9F, as a legacy Windows file means them), which maps every byte
/// and so never fails on legacy 8-bit files. Bytes with NULs outside UTF-16
/// are binary, not text. Line endings become `\n`.
pub(crate) fn decode(bytes: &[u8]) -> Result<String, ExtractError> {
    let text = if let Some(rest) = bytes.strip_prefix(&[0xEF, 0xBB, 0xBF]) {
        String::from_utf8_lossy(rest).into_owned()
    } else if let Some(units) = utf16(bytes) {
        String::from_utf16_lossy(&units)
    } else if bytes.iter().take(8192).any(|&b| b == 0) {
        return Err(ExtractError::NotText("binary content (NUL bytes)".into()));
    } else {
        match std::str::from_utf8(bytes) {
            Ok(s) => s.to_string(),
            Err(_) => encoding_rs::WINDOWS_1252.decode_without_bom_handling(bytes).0.into_owned(),
        }
    };
    Ok(text.replace("\r\n", "\n").replace('\r', "\n"))
}

/// Whether bytes with no magic number of their own are text that
/// [`decode`] reads as it was written: UTF-16 (by its mark or its NULs), or
/// with no NUL and at most one control character in a hundred (tab, line
/// and page breaks and escape aside), either UTF-8 or mostly ASCII (legacy
/// 8-bit text). Judged on the first 8 KiB.
pub(crate) fn is_text(bytes: &[u8]) -> bool {
    if utf16(bytes).is_some() {
        return true;
    }
    let head = &bytes[..bytes.len().min(8192)];
    let control = |b: &&u8| matches!(**b, 0x01..=0x08 | 0x0B | 0x0E..=0x1A | 0x1C..=0x1F | 0x7F);
    if head.contains(&0) || head.iter().filter(control).count() * 100 > head.len() {
        return false;
    }
    match std::str::from_utf8(head) {
        Ok(_) => true,
        // Cut inside a character at the 8 KiB mark: valid up to there.
        Err(e) if e.error_len().is_none() => true,
        Err(_) => head.iter().filter(|&&b| b >= 0x80).count() * 10 <= head.len() * 3,
    }
}

/// Bytes as UTF-16LE code units (a trailing odd byte dropped; unpaired
/// surrogates replaced).
pub(crate) fn utf16le(bytes: &[u8]) -> String {
    String::from_utf16_lossy(&bytes.chunks_exact(2).map(|c| u16::from_le_bytes([c[0], c[1]])).collect::<Vec<_>>())
}

/// Bytes as Latin-1: each byte the character of the same number.
pub(crate) fn latin1(bytes: &[u8]) -> String {
    bytes.iter().map(|&b| char::from(b)).collect()
}

fn utf16(bytes: &[u8]) -> Option<Vec<u16>> {
    let (le, rest) = match bytes {
        [0xFF, 0xFE, rest @ ..] => (true, rest),
        [0xFE, 0xFF, rest @ ..] => (false, rest),
        _ => (bomless_utf16(bytes)?, bytes),
    };
    let pair = |c: &[u8]| {
        if le { u16::from_le_bytes([c[0], c[1]]) } else { u16::from_be_bytes([c[0], c[1]]) }
    };
    Some(rest.chunks_exact(2).map(pair).collect())
}

/// UTF-16 written without a byte-order mark (some Windows exports): mostly
/// Latin text leaves a NUL in every second byte, the high one. Returns
/// whether it is little-endian; `None` when the NULs do not fall that way
/// (binary content).
fn bomless_utf16(bytes: &[u8]) -> Option<bool> {
    let head = &bytes[..bytes.len().min(8192) & !1];
    if head.len() < 8 || !bytes.len().is_multiple_of(2) {
        return None;
    }
    let pairs = head.len() / 2;
    let zero_at = |offset: usize| head.iter().skip(offset).step_by(2).filter(|&&b| b == 0).count();
    let (even, odd) = (zero_at(0), zero_at(1));
    // Nine in ten characters ASCII, and no NUL in the other byte.
    if odd * 10 >= pairs * 9 && even == 0 {
        Some(true)
    } else if even * 10 >= pairs * 9 && odd == 0 {
        Some(false)
    } else {
        None
    }
}

/// Plain text: the decoded text, with words broken across lines by a hyphen
/// made whole, is the canonical text; paragraphs are runs of non-blank lines,
/// and a line naming a large section (see [`text_sections`]) is a heading.
pub(crate) fn extract(name: &str, text: &str) -> Document {
    let text = whole_words(text);
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let mut names = text_sections::section_lines(&lines).into_iter().peekable();
    let mut blocks = Vec::new();
    let mut start: Option<usize> = None;
    let mut end = 0;
    let mut at = 0;
    for (i, line) in lines.iter().enumerate() {
        // A section's name ends the paragraph before it; it is a heading,
        // or the first line of a paragraph when its section is too small.
        if let Some((_, heads)) = names.next_if(|&(n, _)| n == i) {
            if let Some(s) = start.take() {
                blocks.push(paragraph(s..end));
            }
            let range = at..at + line.trim_end().len();
            if heads {
                blocks.push(Block { kind: BlockKind::Heading { level: 1 }, range, page: None });
            } else {
                (start, end) = (Some(range.start), range.end);
            }
        } else if line.trim().is_empty() {
            if let Some(s) = start.take() {
                blocks.push(paragraph(s..end));
            }
        } else {
            let lead = line.len() - line.trim_start().len();
            start.get_or_insert(at + lead);
            end = at + line.trim_end().len();
        }
        at += line.len();
    }
    if let Some(s) = start {
        blocks.push(paragraph(s..end));
    }
    Document {
        title: fallback_title(name),
        kind: Kind::Text,
        text,
        blocks,
        tables: Vec::new(),
        duration: None,
        regions: Vec::new(),
        ocr_pages: Vec::new(),
        warnings: Vec::new(),
    }
}

/// A paragraph of plain text, which has no pages.
fn paragraph(range: std::ops::Range<usize>) -> Block {
    Block { kind: BlockKind::Paragraph, range, page: None }
}

/// `text` with the words a hyphen broke at a line's end made whole, each
/// paragraph's against the vocabulary of the whole text (see [`hyphens`]): a
/// manual page rendered by `man` breaks a word in one line of ten. A line the
/// move empties goes; every other line keeps its place and indentation.
fn whole_words(text: &str) -> String {
    if !text.lines().any(hyphens::may_break) {
        return text.to_string();
    }
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    // Each run of non-blank lines: the number of its first line, and its
    // lines without their ends.
    let mut runs: Vec<(usize, Vec<String>)> = Vec::new();
    for (i, line) in lines.iter().enumerate().filter(|(_, line)| !line.trim().is_empty()) {
        match runs.last_mut() {
            Some((start, run)) if *start + run.len() == i => run.push(line.trim_end().to_string()),
            _ => runs.push((i, vec![line.trim_end().to_string()])),
        }
    }
    hyphens::rejoin_all(runs.iter_mut().map(|(_, run)| run), hyphens::Layout::Plain);
    let mut rejoined: Vec<Option<String>> = vec![None; lines.len()];
    for (start, run) in runs {
        for (k, line) in run.into_iter().enumerate() {
            rejoined[start + k] = Some(line);
        }
    }
    let mut out = String::with_capacity(text.len());
    for (line, new) in lines.iter().zip(rejoined) {
        match new {
            None => out.push_str(line),
            Some(new) if new.is_empty() => {}
            Some(new) => {
                out.push_str(&new);
                if line.ends_with('\n') {
                    out.push('\n');
                }
            }
        }
    }
    out
}

/// The encoding of a Windows code page (RTF's `\ansicpgN`, an OLE property
/// set's code page); Western European (1252, RTF's default) for one
/// encoding_rs does not know.
pub(crate) fn code_page(cp: i32) -> &'static encoding_rs::Encoding {
    match cp {
        65001 => encoding_rs::UTF_8,
        932 => encoding_rs::SHIFT_JIS,
        936 => encoding_rs::GBK,
        949 => encoding_rs::EUC_KR,
        950 => encoding_rs::BIG5,
        866 => encoding_rs::IBM866,
        874 => encoding_rs::WINDOWS_874,
        10000 => encoding_rs::MACINTOSH,
        1250..=1258 => {
            encoding_rs::Encoding::for_label(format!("windows-{cp}").as_bytes()).unwrap_or(encoding_rs::WINDOWS_1252)
        }
        _ => encoding_rs::WINDOWS_1252,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf16_without_a_byte_order_mark_is_text() {
        let text = "Quarterly report: café revenue grew.\nSecond line.";
        let le: Vec<u8> = text.encode_utf16().flat_map(u16::to_le_bytes).collect();
        let be: Vec<u8> = text.encode_utf16().flat_map(u16::to_be_bytes).collect();
        assert_eq!(decode(&le).unwrap(), text);
        assert_eq!(decode(&be).unwrap(), text);
        // NULs that do not follow the UTF-16 pattern are still binary.
        let binary = [b"\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00".as_slice(), &[0u8; 64]].concat();
        assert!(matches!(decode(&binary), Err(ExtractError::NotText(_))));
    }

    #[test]
    fn paragraphs_split_at_blank_lines() {
        let doc = extract("notes.txt", &decode(b"First line\r\nstill first.\r\n\r\n  Second.\n\n\n").unwrap());
        let texts: Vec<&str> = doc.blocks.iter().map(|b| doc.slice(b)).collect();
        assert_eq!(texts, ["First line\nstill first.", "Second."]);
        assert_eq!(doc.title, "notes");
    }

    #[test]
    fn words_broken_at_a_line_end_are_whole_and_the_rest_stays() {
        // `man`'s U+2010 breaks a word; a `-` is the writer's own unless the
        // text writes the word whole.
        let text = "   The configu\u{2010}\n   ration file is read-\n   only.\n\n\n   A read-only file; no hy\u{2010}\nphen, some-\nthing\nhere -\n   and there. Something.\n";
        let doc = extract("notes.txt", text);
        let whole = "   The configuration\n   file is read-\n   only.\n\n\n   A read-only file; no hyphen,\nsomething\nhere -\n   and there. Something.\n";
        assert_eq!(doc.text, whole);
        let texts: Vec<&str> = doc.blocks.iter().map(|b| doc.slice(b)).collect();
        assert_eq!(texts, [&whole[3..46], &whole[52..whole.len() - 1]]);
        // Without a hyphen at a line's end, the text is the file's.
        let plain = "a line \n\n  and more\n";
        assert_eq!(extract("p.txt", plain).text, plain);
    }

    #[test]
    fn binary_is_refused_and_latin1_decodes() {
        assert!(matches!(decode(b"\x7fELF\0\0\x01"), Err(ExtractError::NotText(_))));
        assert_eq!(decode(b"caf\xe9").unwrap(), "café");
        // Windows' curly quotes, dash and euro sign, not C1 control characters.
        assert_eq!(
            decode(b"It\x92s \x93done\x94 \x96 \x80 5").unwrap(),
            "It\u{2019}s \u{201c}done\u{201d} \u{2013} \u{20ac} 5"
        );
        assert_eq!(decode(b"\xff\xfeh\0i\0").unwrap(), "hi");
    }
}
