//! What the extractor integration tests share.

use ragpipe_core::{BlockKind, Document};

/// Every block as `(kind, text)`, the way a chunker sees the document.
#[allow(dead_code)] // not every test binary compares blocks
pub fn blocks(doc: &Document) -> Vec<(String, String)> {
    doc.blocks.iter().map(|b| (short_kind(&b.kind), doc.slice(b).to_string())).collect()
}

/// Expected blocks written as `(kind, text)` pairs, as [`blocks`] gives them.
#[allow(dead_code)]
pub fn owned(expected: &[(&str, &str)]) -> Vec<(String, String)> {
    expected.iter().map(|(k, t)| (k.to_string(), t.to_string())).collect()
}

/// A block's kind in a few letters, as expected block lists are written:
/// `h2`, `p`, `li`, `row 1 header`.
pub fn short_kind(kind: &BlockKind) -> String {
    match *kind {
        BlockKind::Heading { level } => format!("h{level}"),
        BlockKind::Paragraph => "p".into(),
        BlockKind::ListItem => "li".into(),
        BlockKind::TableRow { row, header, .. } => format!("row {row}{}", if header { " header" } else { "" }),
        ref other => format!("{other:?}"),
    }
}

/// `(row, header, line)` of every row of the document's table `table`.
#[allow(dead_code)]
pub fn table_rows(doc: &Document, table: u32) -> Vec<(u32, bool, &str)> {
    doc.blocks
        .iter()
        .filter_map(|b| match b.kind {
            BlockKind::TableRow { table: t, row, header } if t == table => Some((row, header, doc.slice(b))),
            _ => None,
        })
        .collect()
}
