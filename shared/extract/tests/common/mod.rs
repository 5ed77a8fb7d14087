//! What the extractor integration tests share.

use ragpipe_core::BlockKind;

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
