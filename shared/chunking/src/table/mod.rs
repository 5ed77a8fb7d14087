//! The table chunker: spreadsheets and CSV (every sheet a table), and the
//! tables inside HTML and Markdown. A chunk is a group of whole, consecutive
//! rows of ONE table within the token budget, and the table's header row is
//! repeated at the top of every chunk, so each chunk can be read (and
//! embedded) on its own.
//!
//! # What a table chunk holds
//! The header stands next to the rows of the first chunk only, so a table
//! chunk's `content` is not one slice of the canonical text. By definition:
//! - `content` = the header row line, `\n`, then the verbatim canonical-text
//!   slice of the chunk's rows (their lines and the newlines between them);
//!   for a table without a header row, just that slice. The rows of a table
//!   on a later page (a PDF table printed over pages, its header on the
//!   first) go under that header too;
//! - `bytes` and `#char=FROM,TO` cover exactly that rows slice, i.e.
//!   `content` minus its header line: they resolve to the rows, and the
//!   header is found at the table's [`ragpipe_core::BlockKind::TableRow`]
//!   block flagged `header`;
//! - tables with a sheet name (spreadsheets, CSV) add
//!   `sheet=NAME&range=C2:H2,C15:H20`: the A1 reference of the header row(s)
//!   and of the chunk's rows, from the sheet's first to last used column
//!   ([`ragpipe_core::Table`]) and from the first to the last row of the
//!   chunk (empty rows inside it hold nothing and have no line). Where the
//!   rows follow the header directly the two areas are one, `C2:H20`; a
//!   table without a header row has the rows' area only. A multi-area
//!   reference is what spreadsheet applications accept in Go To / Name Box;
//! - tables inside prose have no sheet and no A1 range: their locator is
//!   `#char` alone (with `#page` where the document is paged), since an HTML
//!   or Markdown viewer has no notion of cell ranges;
//! - `text` = the contextual header (`Title > Section`; for a workbook
//!   `Title > Sheet: NAME`), a blank line, then `content`
//!   ([`TableRows::Readable`]) or each row as `Header: value; …`
//!   ([`TableRows::Linearised`]).
//!
//! # A row larger than the budget
//! Last resort, never taken while a row fits: the row is cut between cells
//! into pieces of consecutive cells, each preceded by the header's cells
//! over the same columns (the whole header may itself be too wide to
//! repeat). Such a chunk's `content` is those header cells, `\n`, those row
//! cells; `#char` covers the row cells and the A1 range is exactly those
//! cells of that row. A single cell still too large is cut at sentence, then
//! word boundaries, into pieces of as many whole sentences as fit, each
//! under its column's header cell; short cells before it (a key, a term)
//! lead its first piece. A piece after the row's first cell carries that
//! cell (`Header: value`) in its `text`, after the contextual header, so a
//! piece of a wide row is found by its key; `content` is unchanged.

mod cells;

use crate::pack::{Context, Unit, balanced, group};
use crate::split::{Grain, units_for};
use crate::{ChunkConfig, TableRows, TokenCounter};
use ragpipe_core::{Block, BlockKind, Chunk, Document, Locator, Table};
use std::ops::Range;

/// A workbook is `Sheet: NAME` headings, title headings and table rows:
/// the prose walker already opens a section at each heading and hands every
/// run of rows to [`pack`], so one walker serves both and sections behave
/// the same in a workbook as in a page.
pub(crate) fn chunk(doc: &Document, counter: &dyn TokenCounter, cfg: &ChunkConfig) -> Vec<Chunk> {
    crate::prose::chunk(doc, counter, cfg)
}

/// Whether block `i` is the first row of a run: consecutive rows of one
/// table on one page.
pub(crate) fn starts_run(doc: &Document, i: usize) -> bool {
    let Some((table, ..)) = row_of(&doc.blocks[i]) else {
        return false;
    };
    i == 0 || !continues(&doc.blocks[i - 1], table, doc.blocks[i].page)
}

/// Chunks the run of rows that starts at block `start` into `out`.
pub(crate) fn pack(
    doc: &Document,
    start: usize,
    ctx: &Context<'_>,
    counter: &dyn TokenCounter,
    cfg: &ChunkConfig,
    out: &mut Vec<Chunk>,
) {
    let Some((table, ..)) = row_of(&doc.blocks[start]) else {
        return;
    };
    let page = doc.blocks[start].page;
    let run: Vec<&Block> = doc.blocks[start..].iter().take_while(|b| continues(b, table, page)).collect();
    let heads = run.iter().take_while(|b| row_of(b).is_some_and(|r| r.2)).count();
    // A table that is all header rows is chunked as plain rows; a run of a
    // table without header rows of its own (the rest of a table on the next
    // page) goes under the header its table had before.
    let (header, body) = if heads < run.len() && heads > 0 {
        (run[0].range.start..run[heads - 1].range.end, &run[heads..])
    } else if heads == 0 {
        (earlier_header(&doc.blocks[..start], table).unwrap_or(0..0), &run[..])
    } else {
        (0..0, &run[..])
    };
    let head_rows = (heads > 0 && heads < run.len())
        .then(|| (row_of(run[0]).map_or(0, |r| r.1), row_of(run[heads - 1]).map_or(0, |r| r.1)));
    let rows: Vec<Row> =
        body.iter().filter_map(|b| row_of(b).map(|(_, number, _)| Row { range: b.range.clone(), number })).collect();
    let mut packer = Packer {
        doc,
        table: doc.tables.get(table as usize).filter(|t| !t.sheet.is_empty()),
        header: &doc.text[header],
        head_rows,
        ctx,
        ctx_tokens: if ctx.header.is_empty() { 0 } else { crate::measure(counter, ctx.header) },
        counter,
        cfg,
    };
    let fixed = counter.special_tokens()
        + packer.ctx_tokens
        + match cfg.table_rows {
            TableRows::Readable => crate::measure(counter, packer.header),
            TableRows::Linearised => 0,
        };
    let room = cfg.budget.saturating_sub(fixed);
    let units: Vec<Unit> = rows.iter().map(|r| Unit { range: r.range.clone(), tokens: packer.row_tokens(r) }).collect();
    // A page cuts a table's rows into runs whose ends the page decides, and
    // every page's run would end on a remainder of a few rows, which outranks
    // the full chunks around it for any key they share: on a paged document
    // a run's chunks are evened out. (An unpaged table is one run with one
    // remainder, and keeps its chunks as they were.)
    let groups = if page.is_some() { balanced(&units, room) } else { group(&units, room) };
    for g in groups {
        packer.emit(&rows[g], out);
    }
}

/// The short cells before a cut cell that lead its first piece: where they
/// start, the header cells over them and the cut cell, and their first
/// column.
struct Lead<'h> {
    start: usize,
    header: &'h str,
    first_col: u32,
}

/// The most of a chunk's room the cells leading a cut cell may take (one
/// part in this many): a key or a term, not a row's worth of content.
const LEAD_SHARE: usize = 4;

/// A cut row's first cell: the pieces after it carry it, as the line
/// `Header: value`, in their embedded text (not in `content`, whose span is
/// the row's cells alone), so a piece of a wide row is found by its key.
struct RowKey {
    /// Where the cell ends in the canonical text.
    end: usize,
    line: String,
}

impl RowKey {
    /// The line a piece starting at `start` carries, if it comes after the key.
    fn after(&self, start: usize) -> Option<&str> {
        (start > self.end).then_some(self.line.as_str())
    }
}

#[derive(Debug, Clone)]
struct Row {
    range: Range<usize>,
    number: u32,
}

/// The text range of the last run of header rows of `table` among `before`.
fn earlier_header(before: &[Block], table: u32) -> Option<Range<usize>> {
    let is_head = |b: &Block| row_of(b).is_some_and(|r| r.0 == table && r.2);
    let last = before.iter().rposition(is_head)?;
    let first = before[..last].iter().rposition(|b| !is_head(b)).map_or(0, |i| i + 1);
    Some(before[first].range.start..before[last].range.end)
}

/// `(table, row, header)` of a table-row block.
fn row_of(block: &Block) -> Option<(u32, u32, bool)> {
    match block.kind {
        BlockKind::TableRow { table, row, header } => Some((table, row, header)),
        _ => None,
    }
}

fn continues(block: &Block, table: u32, page: Option<u32>) -> bool {
    block.page == page && row_of(block).is_some_and(|r| r.0 == table)
}

/// What every chunk of one run shares.
struct Packer<'a> {
    doc: &'a Document,
    /// The table when it has a sheet name, for A1 ranges.
    table: Option<&'a Table>,
    /// The header row line(s), repeated at the top of every chunk; may be empty.
    header: &'a str,
    /// The first and last spreadsheet row of the header, when there is one.
    head_rows: Option<(u32, u32)>,
    ctx: &'a Context<'a>,
    ctx_tokens: usize,
    counter: &'a dyn TokenCounter,
    cfg: &'a ChunkConfig,
}

impl Packer<'_> {
    fn row_tokens(&self, row: &Row) -> usize {
        let line = &self.doc.text[row.range.clone()];
        match self.cfg.table_rows {
            TableRows::Linearised if !self.header.is_empty() => {
                crate::measure(self.counter, &cells::linearise(self.header, line))
            }
            _ => crate::measure(self.counter, line),
        }
    }

    /// Emits whole rows as one chunk, or halves until they fit (word-piece
    /// counts are re-measured on the real text); a single row that does not
    /// fit is cut between cells.
    fn emit(&mut self, rows: &[Row], out: &mut Vec<Chunk>) {
        if self.header.len() > crate::COUNT_WHOLE_MAX_BYTES {
            // A header that alone is far over budget is never repeated
            // whole: straight to the cell-wise cut, row by row.
            for row in rows {
                self.split_row(row, out);
            }
            return;
        }
        let (first, last) = (&rows[0], &rows[rows.len() - 1]);
        let cols = self.table.map_or((0, 0), |t| (t.first_col, t.last_col));
        let a1 = (cols.0, first.number, cols.1, last.number);
        let chunk = self.build(first.range.start..last.range.end, self.header, a1, None, out.len());
        if chunk.tokens as usize <= self.cfg.budget {
            out.push(chunk);
        } else if rows.len() > 1 {
            let mid = rows.len() / 2;
            self.emit(&rows[..mid], out);
            self.emit(&rows[mid..], out);
        } else {
            self.split_row(first, out);
        }
    }

    /// Cuts an oversized row into the widest runs of cells that fit, each
    /// under the header's cells over the same columns. Each cell is measured
    /// once; a run is sized from those counts and then measured for real,
    /// halved while it does not fit (counts are not perfectly additive), so
    /// a 100,000-cell row costs a few passes, not one per cell per chunk.
    fn split_row(&mut self, row: &Row, out: &mut Vec<Chunk>) {
        let line = &self.doc.text[row.range.clone()];
        let head = self.header.rsplit('\n').next().unwrap_or("");
        let (row_cells, head_cells) = (cells::spans(line), cells::spans(head));
        // A cell and its ` | ` separator.
        let cost = |text: &str| crate::measure(self.counter, text) + 1;
        let costs: Vec<usize> = row_cells
            .iter()
            .enumerate()
            .map(|(k, c)| cost(&line[c.clone()]) + head_cells.get(k).map_or(0, |h| cost(&head[h.clone()])))
            .collect();
        let room = self.cfg.budget.saturating_sub(self.counter.special_tokens() + self.ctx_tokens);
        let first_col = self.table.map_or(1, |t| t.first_col);
        let key = row_cells.first().filter(|c| !c.is_empty() && costs[0] <= room / LEAD_SHARE).map(|c| {
            let value = &line[c.clone()];
            let line = match head_cells.first().map(|h| &head[h.clone()]).filter(|h| !h.is_empty()) {
                Some(name) => format!("{name}: {value}"),
                None => value.to_string(),
            };
            RowKey { end: row.range.start + c.end, line }
        });
        let mut i = 0;
        while i < row_cells.len() {
            if row_cells[i].is_empty() {
                i += 1;
                continue;
            }
            let (mut j, mut used) = (i, costs[i]);
            while j + 1 < row_cells.len() && used + costs[j + 1] <= room {
                j += 1;
                used += costs[j];
            }
            // Short cells before one that must be cut (a term and its long
            // definition) lead the cut cell's first piece, so that piece
            // says what it is about instead of the term standing alone.
            let next = j + 1;
            if next < row_cells.len() && costs[next] > room && used <= room / LEAD_SHARE {
                let base = row.range.start;
                let header = head_cells.get(next).map_or("", |h| &head[h.clone()]);
                let lead = Lead {
                    start: base + row_cells[i].start,
                    header: match head_cells.get(i) {
                        Some(h) => &head[h.start..head_cells[next.min(head_cells.len() - 1)].end],
                        None => "",
                    },
                    first_col: first_col + i as u32,
                };
                let a1 = (first_col + next as u32, row.number, first_col + next as u32, row.number);
                let cell = base + row_cells[next].start..base + row_cells[next].end;
                self.split_cell(cell, header, a1, (Some(lead), key.as_ref()), out);
                i = next + 1;
                continue;
            }
            loop {
                let bytes = row.range.start + row_cells[i].start..row.range.start + row_cells[j].end;
                let header = match head_cells.get(i) {
                    Some(h) => &head[h.start..head_cells[j.min(head_cells.len() - 1)].end],
                    None => "",
                };
                let a1 = (first_col + i as u32, row.number, first_col + j as u32, row.number);
                let named = key.as_ref().and_then(|k| k.after(bytes.start));
                let chunk = self.build(bytes, header, a1, named, out.len());
                if chunk.tokens as usize <= self.cfg.budget {
                    out.push(chunk);
                    break;
                }
                if j == i {
                    let header = head_cells.get(i).map_or("", |h| &head[h.clone()]);
                    let cell = row.range.start + row_cells[i].start..row.range.start + row_cells[i].end;
                    self.split_cell(cell, header, a1, (None, key.as_ref()), out);
                    break;
                }
                j = i + (j - i) / 2;
            }
            i = j + 1;
        }
    }

    /// Cuts one oversized cell at sentence, then word, boundaries, into
    /// pieces of as many whole sentences as fit, each under its column's
    /// header cell; the first piece starts at `lead`'s cells when given, and
    /// the pieces after the row's `key` carry it.
    fn split_cell(
        &mut self,
        cell: Range<usize>,
        header: &str,
        a1: (u32, u32, u32, u32),
        (lead, key): (Option<Lead<'_>>, Option<&RowKey>),
        out: &mut Vec<Chunk>,
    ) {
        // Room for the piece: the header cell's name may be repeated once per
        // line in the linearised form, and a few tokens of slack cover the
        // `:` and separators.
        let fixed = self.counter.special_tokens() + self.ctx_tokens + crate::measure(self.counter, header) + 4;
        let room = self.cfg.budget.saturating_sub(fixed).max(1);
        let units = units_for(&self.doc.text, cell.clone(), Grain::Sentences, room, self.counter);
        let Some(lead) = lead else {
            for g in group(&units, room) {
                self.emit_piece(&units[g], (None, key), header, a1, out);
            }
            return;
        };
        // The first piece also holds the lead's cells and header cells.
        let lead_text = &self.doc.text[lead.start..cell.start];
        let lead_tokens = crate::measure(self.counter, lead_text) + crate::measure(self.counter, lead.header);
        let first = group(&units, room.saturating_sub(lead_tokens).max(1)).first().map_or(0, |g| g.end);
        self.emit_piece(&units[..first], (Some(&lead), key), header, a1, out);
        for g in group(&units[first..], room) {
            self.emit_piece(&units[first + g.start..first + g.end], (None, key), header, a1, out);
        }
    }

    /// One chunk over consecutive sentence units of a cell (with the lead's
    /// cells before them), halved while it does not fit; a lead, then a key,
    /// that does not fit beside a single unit is left out.
    fn emit_piece(
        &mut self,
        units: &[Unit],
        (lead, key): (Option<&Lead<'_>>, Option<&RowKey>),
        header: &str,
        a1: (u32, u32, u32, u32),
        out: &mut Vec<Chunk>,
    ) {
        let Some(last) = units.last() else { return };
        let (start, piece_header, piece_a1) = match lead {
            Some(l) => (l.start, l.header, (l.first_col, a1.1, a1.2, a1.3)),
            None => (units[0].range.start, header, a1),
        };
        let named = key.and_then(|k| k.after(start));
        let chunk = self.build(start..last.range.end, piece_header, piece_a1, named, out.len());
        if chunk.tokens as usize <= self.cfg.budget {
            out.push(chunk);
        } else if units.len() > 1 {
            let mid = units.len() / 2;
            self.emit_piece(&units[..mid], (lead, key), header, a1, out);
            self.emit_piece(&units[mid..], (None, key), header, a1, out);
        } else if lead.is_some() {
            self.emit_piece(units, (None, key), header, a1, out);
        } else if named.is_some() {
            self.emit_piece(units, (None, None), header, a1, out);
        } else {
            out.push(chunk);
        }
    }

    /// One chunk over the rows slice `bytes`, under `header`, covering the
    /// A1 range `a1` = (first col, first row, last col, last row); `key`
    /// names the row of a piece that does not hold the row's first cell.
    fn build(
        &mut self,
        bytes: Range<usize>,
        header: &str,
        a1: (u32, u32, u32, u32),
        key: Option<&str>,
        index: usize,
    ) -> Chunk {
        let rows = &self.doc.text[bytes.clone()];
        let content = if header.is_empty() { rows.to_string() } else { format!("{header}\n{rows}") };
        let body = match self.cfg.table_rows {
            TableRows::Linearised if !header.is_empty() => cells::linearise(header, rows),
            _ => content.clone(),
        };
        let context = match key {
            Some(key) if self.ctx.header.is_empty() => key.to_string(),
            Some(key) => format!("{}\n{key}", self.ctx.header),
            None => self.ctx.header.to_string(),
        };
        let text = if context.is_empty() { body } else { format!("{context}\n\n{body}") };
        let tokens = crate::measure(self.counter, &text) + self.counter.special_tokens();
        let header_tokens = if key.is_some() { crate::measure(self.counter, &context) } else { self.ctx_tokens };
        let sheet = self.table.map(|t| (t.sheet.clone(), self.a1_reference(a1, !header.is_empty())));
        Chunk {
            index: index as u32,
            text,
            content,
            section: self.ctx.section.to_vec(),
            bytes,
            locator: Locator { chars: 0..0, page: self.ctx.page, time: None, sheet, lines: None, region: None },
            tokens: tokens as u32,
            header_tokens: header_tokens as u32,
        }
    }
}

impl Packer<'_> {
    /// The A1 reference of the rows `a1` = (first col, first row, last col,
    /// last row), preceded by the header rows over the same columns when the
    /// chunk repeats (part of) the header.
    fn a1_reference(&self, a1: (u32, u32, u32, u32), with_header: bool) -> String {
        let (c1, r1, c2, r2) = a1;
        let (from, to) = (cells::column_letters(c1), cells::column_letters(c2));
        match self.head_rows.filter(|_| with_header) {
            Some((h1, h2)) if h2 + 1 == r1 => format!("{from}{h1}:{to}{r2}"),
            Some((h1, h2)) => format!("{from}{h1}:{to}{h2},{from}{r1}:{to}{r2}"),
            None => format!("{from}{r1}:{to}{r2}"),
        }
    }
}
