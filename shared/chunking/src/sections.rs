//! Small sections sharing a chunk: with `pack_sections_below` set, a section
//! whose own words are fewer than that many tokens is put in one chunk with
//! its neighbours under the same parent heading, when they all fit the
//! budget and stand on one page. The chunk is labelled with the path they
//! share, and its content runs from the first section's heading to the last
//! section's end, so every heading it holds is quoted, not lost.

use crate::pack::{self, Context, Unit};
use crate::prose::fit_header;
use crate::{ChunkConfig, TokenCounter};
use ragpipe_core::{Chunk, Document};

/// A heading path: (level, name) from the outermost heading in.
pub(crate) type Path = Vec<(u8, String)>;

/// A heading path with the header it gives a chunk and the room it leaves
/// for content.
pub(crate) struct Label {
    pub path: Path,
    pub header: String,
    pub room: usize,
}

impl Label {
    pub fn new(path: Path, doc: &Document, counter: &dyn TokenCounter, cfg: &ChunkConfig) -> Label {
        let (header, header_tokens) = fit_header(&doc.title, &names(&path), None, counter, cfg);
        let room = cfg.budget.saturating_sub(counter.special_tokens() + header_tokens).max(1);
        Label { path, header, room }
    }
}

/// A path's heading names, outermost first.
fn names(path: &Path) -> Vec<String> {
    path.iter().map(|(_, n)| n.clone()).collect()
}

/// One section's body, cut into units that fit under its own header.
pub(crate) struct Piece {
    pub label: Label,
    /// The heading that opened the section, when it stands on the page
    /// its body does.
    pub heading: Option<Unit>,
    pub units: Vec<Unit>,
    pub page: Option<u32>,
}

impl Piece {
    fn tokens(&self) -> usize {
        self.units.iter().map(|u| u.tokens).sum()
    }
}

/// Sections waiting to be emitted, one or several that share a chunk.
struct Pending {
    /// The sections' bodies in text order, with the headings of those after
    /// the first.
    units: Vec<Unit>,
    /// The first section's heading: quoted when the pack's path no longer
    /// names it.
    heading: Option<Unit>,
    /// How deep the first section's path is.
    depth: usize,
    page: Option<u32>,
    /// The first section's parent path: only sections under it may join.
    parent: Path,
    /// The path every section of the pack lies under.
    common: Label,
}

impl Pending {
    /// Tokens of the units, and of the first heading as if it were quoted.
    fn tokens(&self) -> usize {
        self.units.iter().chain(&self.heading).map(|u| u.tokens).sum()
    }
}

/// Emits sections in order, packing small ones when the configuration asks.
pub(crate) struct Sections<'a> {
    doc: &'a Document,
    counter: &'a dyn TokenCounter,
    cfg: &'a ChunkConfig,
    pending: Option<Pending>,
}

impl<'a> Sections<'a> {
    pub fn new(doc: &'a Document, counter: &'a dyn TokenCounter, cfg: &'a ChunkConfig) -> Self {
        Sections { doc, counter, cfg, pending: None }
    }

    /// Takes the next section: joins it to the waiting ones when both allow,
    /// else emits those and lets this one wait.
    pub fn add(&mut self, piece: Option<Piece>, out: &mut Vec<Chunk>) {
        let Some(piece) = piece else { return };
        if let Some(pending) = self.pending.as_mut()
            && let Some(common) = joinable(pending, &piece, self.doc, self.counter, self.cfg)
        {
            pending.units.extend(piece.heading);
            pending.units.extend(piece.units);
            pending.common = common;
            return;
        }
        self.close(out);
        let Piece { label, heading, units, page } = piece;
        let depth = label.path.len();
        let parent = label.path[..depth.saturating_sub(1)].to_vec();
        self.pending = Some(Pending { units, heading, depth, page, parent, common: label });
    }

    /// Emits what waits (before a table, a page break, the end).
    pub fn close(&mut self, out: &mut Vec<Chunk>) {
        let Some(mut p) = self.pending.take() else { return };
        if let Some(first) = p.heading.take().filter(|_| p.common.path.len() < p.depth) {
            p.units.insert(0, first);
        }
        let names = names(&p.common.path);
        let ctx = Context { section: &names, header: &p.common.header, page: p.page };
        pack::emit(self.doc, &p.units, p.common.room, &ctx, self.counter, self.cfg, out);
    }
}

/// The label a pack labelled by `pending` would share once `piece` joined it,
/// if it may: packing is on, one of the two is small, `piece` lies under
/// the first section's parent on the same page, every heading stays named
/// (in the path or quoted), and the whole fits.
fn joinable(
    pending: &Pending,
    piece: &Piece,
    doc: &Document,
    counter: &dyn TokenCounter,
    cfg: &ChunkConfig,
) -> Option<Label> {
    let small = cfg.pack_sections_below;
    let path = &piece.label.path;
    if small == 0 || pending.page != piece.page || !path.starts_with(&pending.parent) {
        return None;
    }
    let body = pending.units.iter().map(|u| u.tokens).sum::<usize>();
    if body >= small && piece.tokens() >= small {
        return None;
    }
    let shared = pending.common.path.iter().zip(path).take_while(|(a, b)| a == b).count();
    if shared < pending.depth && pending.heading.is_none() {
        // The first section's heading is on the page before: a shorter
        // path would name it nowhere.
        return None;
    }
    let common = Label::new(path[..shared].to_vec(), doc, counter, cfg);
    let total = pending.tokens() + piece.heading.as_ref().map_or(0, |u| u.tokens) + piece.tokens();
    (total <= common.room).then_some(common)
}

#[cfg(test)]
mod tests {
    use crate::testing::{Words, document};
    use ragpipe_core::{BlockKind, ChunkConfig, Document, Kind};

    /// A document of (heading level or 0 for a paragraph, text, page).
    fn doc(blocks: &[(u8, &str, u32)]) -> Document {
        let blocks: Vec<(BlockKind, &str, Option<u32>)> = blocks
            .iter()
            .map(|&(level, words, page)| {
                let kind = if level > 0 { BlockKind::Heading { level } } else { BlockKind::Paragraph };
                (kind, words, Some(page))
            })
            .collect();
        document("Manual", Kind::Pdf, &blocks)
    }

    const LONG: &str = "one two three four five six seven eight nine ten eleven twelve thirteen fourteen \
                        fifteen sixteen seventeen eighteen nineteen twenty twenty-one twenty-two twenty-three \
                        twenty-four twenty-five twenty-six";

    fn chunks(doc: &Document, pack: usize) -> Vec<(String, Vec<String>, Option<u32>)> {
        let cfg = ChunkConfig { budget: 40, pack_sections_below: pack, ..ChunkConfig::default() };
        crate::chunk_document(doc, &Words, &cfg).into_iter().map(|c| (c.content, c.section, c.locator.page)).collect()
    }

    fn s(parts: &[&str]) -> Vec<String> {
        parts.iter().map(|p| p.to_string()).collect()
    }

    #[test]
    fn small_sibling_sections_share_a_chunk_under_their_parent() {
        let manual = doc(&[
            (1, "Guide", 1),
            (2, "Install", 1),
            (0, "Run the installer.", 1),
            (2, "Upgrade", 1),
            (0, "Run apt full-upgrade now.", 1),
            (2, "Remove", 1),
            (0, LONG, 1),
            (1, "Other", 1),
            (0, "Short text here.", 1),
        ]);
        let packed = chunks(&manual, 10);
        assert_eq!(
            packed,
            [
                // Both headings quoted; the chunk is labelled by the parent.
                ("Install\nRun the installer.\nUpgrade\nRun apt full-upgrade now.".into(), s(&["Guide"]), Some(1)),
                // Remove would not fit with them; Other is not under Guide.
                (LONG.into(), s(&["Guide", "Remove"]), Some(1)),
                ("Short text here.".into(), s(&["Other"]), Some(1)),
            ]
        );
        // Off: one chunk per section, headings only in the path.
        let alone: Vec<Vec<String>> = chunks(&manual, 0).into_iter().map(|(_, path, _)| path).collect();
        assert_eq!(alone, [s(&["Guide", "Install"]), s(&["Guide", "Upgrade"]), s(&["Guide", "Remove"]), s(&["Other"])]);
    }

    #[test]
    fn a_pack_never_crosses_a_page_nor_leaves_its_parent() {
        let manual = doc(&[
            (1, "Guide", 1),
            (2, "Install", 1),
            (0, "Run the installer.", 1),
            (2, "Upgrade", 2),
            (0, "Run apt full-upgrade now.", 2),
            (3, "Held packages", 2),
            (0, "Hold them first.", 2),
            (2, "Remove", 2),
            (0, "Purge it.", 2),
        ]);
        let got: Vec<(String, Vec<String>)> = chunks(&manual, 10).into_iter().map(|(c, p, _)| (c, p)).collect();
        assert_eq!(
            got,
            [
                ("Run the installer.".into(), s(&["Guide", "Install"])),
                // A subsection and the next sibling join the section on page 2.
                (
                    "Upgrade\nRun apt full-upgrade now.\nHeld packages\nHold them first.\nRemove\nPurge it.".into(),
                    s(&["Guide"])
                ),
            ]
        );
        // A heading at the foot of page 1 is not quoted on page 2, so its
        // small body there keeps its path rather than join a sibling's.
        let foot = doc(&[(1, "Guide", 1), (2, "Upgrade", 1), (0, "Run it.", 2), (2, "Remove", 2), (0, "Purge it.", 2)]);
        let paths: Vec<Vec<String>> = chunks(&foot, 10).into_iter().map(|(_, p, _)| p).collect();
        assert_eq!(paths, [s(&["Guide", "Upgrade"]), s(&["Guide", "Remove"])]);
        // A small subsection whose parent ends does not pull in its uncle.
        let deep = doc(&[(2, "A", 1), (3, "A.1", 1), (0, "Tiny.", 1), (2, "B", 1), (0, "Also tiny.", 1)]);
        let paths: Vec<Vec<String>> = chunks(&deep, 10).into_iter().map(|(_, p, _)| p).collect();
        assert_eq!(paths, [s(&["A", "A.1"]), s(&["B"])]);
        // A section and its own subsection: the path still names the section,
        // so its heading is not quoted again.
        let nested = doc(&[(2, "A", 1), (0, "Intro.", 1), (3, "A.1", 1), (0, "Tiny.", 1)]);
        let got: Vec<(String, Vec<String>)> = chunks(&nested, 10).into_iter().map(|(c, p, _)| (c, p)).collect();
        assert_eq!(got, [("Intro.\nA.1\nTiny.".into(), s(&["A"]))]);
    }
}
