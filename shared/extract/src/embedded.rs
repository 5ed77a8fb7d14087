//! Files carried inside another file (an e-mail's attachments, an
//! archive's members), each read by its own extractor into the carrier's
//! text under a heading of its own, one level below the carrier's, so its
//! headings nest under that one and its tables keep their header rows. A
//! file that fails to read costs neither the carrier nor the other files.

use crate::{ExtractError, Limits, TextBuilder};
use ragpipe_core::{BlockKind, Kind};

/// What became of one carried file.
pub(crate) enum Carried {
    Read,
    /// Not a document read inside another: a picture or a recording (no
    /// OCR or speech recognition runs for them here), or a type ragpipe
    /// does not read at all.
    Named,
    /// Why it could not be read.
    Failed(String),
}

/// Reads the file `name` (its kind detected, or `kind` when the carrier
/// knows it: a forwarded message) into `b` under a level `depth + 1`
/// heading `heading`. What it carries in turn is named, not read (one
/// level only); one that would take the carrier's text past
/// `max_text_bytes` is left out.
pub(crate) fn read(
    b: &mut TextBuilder,
    heading: &str,
    name: &str,
    bytes: &[u8],
    kind: Option<Kind>,
    limits: &Limits,
    depth: u8,
) -> Carried {
    let Some(kind) = kind.or_else(|| crate::detect(name, bytes).ok()) else { return Carried::Named };
    if matches!(kind, Kind::Audio | Kind::Image) {
        return Carried::Named;
    }
    let inner = Limits { read_attachments: false, ..*limits };
    let doc = match crate::unpanicked(|| crate::extract_with(kind, name, bytes, None, &inner)) {
        Ok(Ok(doc)) => doc,
        Ok(Err(ExtractError::Empty)) => return Carried::Named,
        Ok(Err(e)) => return Carried::Failed(e.to_string()),
        Err(why) => return Carried::Failed(format!("its parser stopped on it: {why}")),
    };
    if (b.text_len() + doc.text.len()) as u64 > limits.max_text_bytes {
        return Carried::Failed("the text would exceed max_text_mib".into());
    }
    b.start(BlockKind::Heading { level: depth + 1 });
    b.inline(heading);
    b.finish();
    b.append(&doc, depth + 1);
    Carried::Read
}

/// Warnings listed one by one before the rest are counted.
const WARNINGS_LISTED: usize = 10;

/// `warnings` with those past the first ten counted in one line
/// (`12 more attachments not read`).
pub(crate) fn capped(mut warnings: Vec<String>, what: &str) -> Vec<String> {
    if warnings.len() > WARNINGS_LISTED {
        let more = warnings.len() - WARNINGS_LISTED;
        warnings.truncate(WARNINGS_LISTED);
        warnings.push(format!("{more} more {what} not read"));
    }
    warnings
}
