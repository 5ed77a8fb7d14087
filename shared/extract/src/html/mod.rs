//! HTML: visible text only. `<head>`, scripts, styles, navigation (`chrome`)
//! and hidden elements are dropped; headings open sections; `<pre>` is kept verbatim;
//! inline markup (`<code>`, `<em>`, links) flows into the sentence around it;
//! a `<table>` becomes table rows (a table nested in a cell is that cell's text).

mod chrome;
mod self_closing;

use crate::{ExtractError, TextBuilder, fallback_title};
use ego_tree::iter::Edge;
use ragpipe_core::{BlockKind, Document, Kind};
use scraper::{Html, Node};

/// Elements whose content is never visible prose.
const SKIP: &[&str] = &[
    "head", "script", "style", "noscript", "template", "nav", "svg", "iframe", "object", "button", "select",
    "textarea", "form", "canvas", "math",
];

/// Elements that end the flowing text before and after them.
const BLOCKS: &[&str] = &[
    "p",
    "div",
    "section",
    "article",
    "main",
    "header",
    "footer",
    "aside",
    "blockquote",
    "ul",
    "ol",
    "dl",
    "table",
    "thead",
    "tbody",
    "tfoot",
    "tr",
    "figure",
    "figcaption",
    "address",
    "details",
    "summary",
    "body",
    "hr",
    "caption",
];

/// Elements whose end tag may be left out, or that have none: they do not
/// deepen the tree the way an unclosed `<div>` does, so they are not counted.
const SHALLOW: [&str; 29] = [
    "p", "li", "dt", "dd", "tr", "td", "th", "option", "optgroup", "thead", "tbody", "tfoot", "colgroup", "rt", "rp",
    "html", "head", "body", "br", "img", "hr", "meta", "link", "input", "area", "base", "col", "source", "wbr",
];

/// Refuses a page nested deeper than `max` elements before it is parsed:
/// the HTML tree builder checks the stack of open elements per tag, so
/// 100,000 nested `<div>`s take minutes (measured: over the 60 s extraction
/// limit) for a page no browser would render as anything. Counted on the
/// tags themselves, in one pass, without building a tree.
pub(crate) fn check_nesting(source: &str, max: u32) -> Result<(), ExtractError> {
    let bytes = source.as_bytes();
    let (mut depth, mut at) = (0u32, 0usize);
    while let Some(i) = bytes[at..].iter().position(|&b| b == b'<') {
        at += i + 1;
        let rest = &bytes[at..];
        let closing = rest.first() == Some(&b'/');
        let name_start = usize::from(closing);
        let len = rest[name_start..].iter().take_while(|b| b.is_ascii_alphanumeric()).count();
        if len == 0 {
            continue; // `<!--`, `<!DOCTYPE`, `<?xml`, a stray `<`
        }
        let name = &source[at + name_start..at + name_start + len];
        if SHALLOW.iter().any(|s| s.eq_ignore_ascii_case(name)) {
            continue;
        }
        let tag_end = rest.iter().position(|&b| b == b'>').unwrap_or(rest.len());
        if closing {
            depth = depth.saturating_sub(1);
        } else if !rest[..tag_end].ends_with(b"/") {
            depth += 1;
            if depth > max {
                return Err(ExtractError::Limit(format!("HTML nested deeper than {max} elements (max_nesting)")));
            }
        }
    }
    Ok(())
}

pub(crate) fn extract(name: &str, source: &str) -> Document {
    let html = Html::parse_document(&self_closing::expand(source));
    // A page that marks its main content (`<main>`, `role="main"`) is read
    // from there only: menus, sidebars and pop-ups around it are site chrome.
    let main = main_content(&html);
    let chrome = chrome::chrome(&html);
    let mut b = TextBuilder::new();
    let mut kinds: Vec<BlockKind> = vec![BlockKind::Paragraph];
    let mut skip = 0usize;
    let mut pre = 0usize;
    let title = page_title(&html);
    let mut first_h1: Option<String> = None;
    let mut in_h1 = false;
    let mut table = HtmlTable { sheet: crate::extension(name) == "xls", ..HtmlTable::default() };
    let root = main.unwrap_or_else(|| html.tree.root());
    for edge in root.traverse() {
        match edge {
            Edge::Open(node) => match node.value() {
                Node::Element(el) => {
                    let tag = el.name();
                    if skip > 0
                        || SKIP.contains(&tag)
                        || el.attr("hidden").is_some()
                        || el.attr("aria-hidden") == Some("true")
                        || chrome.contains(&node.id())
                    {
                        skip += 1;
                        continue;
                    }
                    if table.open(tag, el, &mut b) {
                        continue;
                    }
                    match block_kind(tag) {
                        Some(kind) => {
                            if kind == (BlockKind::Heading { level: 1 }) && first_h1.is_none() {
                                in_h1 = true;
                                first_h1 = Some(String::new());
                            }
                            if kind == BlockKind::Code {
                                pre += 1;
                            }
                            b.start(kind.clone());
                            kinds.push(kind);
                        }
                        None if BLOCKS.contains(&tag) => {
                            b.finish();
                            kinds.push(BlockKind::Paragraph);
                        }
                        None if tag == "br" => b.line_break(),
                        None => {}
                    }
                }
                Node::Text(t) => {
                    if skip > 0 || table.text(t) {
                        continue;
                    }
                    if in_h1 {
                        first_h1.get_or_insert_default().push_str(t);
                    }
                    if pre > 0 {
                        if !b.is_open() {
                            b.start(BlockKind::Code);
                        }
                        b.raw(t);
                    } else {
                        if !b.is_open() && !t.trim().is_empty() {
                            b.start(kinds.last().cloned().unwrap_or(BlockKind::Paragraph));
                        }
                        b.inline(t);
                    }
                }
                _ => {}
            },
            Edge::Close(node) => {
                if let Node::Element(el) = node.value() {
                    let tag = el.name();
                    if skip > 0 {
                        skip -= 1;
                        continue;
                    }
                    if table.close(tag, &mut b) {
                        continue;
                    }
                    let kind = block_kind(tag);
                    if kind.is_some() || BLOCKS.contains(&tag) {
                        if kind == Some(BlockKind::Code) {
                            pre = pre.saturating_sub(1);
                        }
                        if kind == Some(BlockKind::Heading { level: 1 }) {
                            in_h1 = false;
                        }
                        b.finish();
                        kinds.pop();
                    }
                }
            }
        }
    }
    let title = [title, first_h1.unwrap_or_default()]
        .into_iter()
        .map(|t| t.split_whitespace().collect::<Vec<_>>().join(" "))
        .find(|t| !t.is_empty())
        .unwrap_or_else(|| fallback_title(name));
    b.build(title, Kind::Html)
}

/// The single element holding the page's main content, if the page has one.
fn main_content(html: &Html) -> Option<ego_tree::NodeRef<'_, Node>> {
    let main = selector("main, [role=main]");
    let mut found = html.select(&main);
    let first = found.next()?;
    found.next().is_none().then(|| *first)
}

/// A selector written in this module's source.
fn selector(css: &str) -> scraper::Selector {
    scraper::Selector::parse(css).expect("static selector")
}

/// The text of `<title>`, if any.
fn page_title(html: &Html) -> String {
    html.select(&selector("title")).next().map(|t| t.text().collect::<String>()).unwrap_or_default()
}

/// The block kind an element opens, for elements that carry one of their own.
fn block_kind(tag: &str) -> Option<BlockKind> {
    Some(match tag {
        "h1" => BlockKind::Heading { level: 1 },
        "h2" => BlockKind::Heading { level: 2 },
        "h3" => BlockKind::Heading { level: 3 },
        "h4" => BlockKind::Heading { level: 4 },
        "h5" => BlockKind::Heading { level: 5 },
        "h6" => BlockKind::Heading { level: 6 },
        "pre" => BlockKind::Code,
        "li" | "dt" | "dd" => BlockKind::ListItem,
        _ => return None,
    })
}

/// The outermost `<table>` being read: its rows become table-row blocks. A
/// row is a header when it sits in `<thead>`, or when all its cells are `<th>`
/// and no data row came before it (a `<th>` row further down is a sub-heading
/// and stays data). In a table with no `<th>` at all, the first row is the
/// header when none of its cells is a number and the row under it holds
/// one (`Invoice | Total` over `INV-41 | 1,240.00`): word processors,
/// editors and Google Docs export headers so. `colspan` is expanded with
/// empty cells so columns stay aligned with the header; `rowspan` is not.
#[derive(Default)]
struct HtmlTable {
    /// Nesting depth of `<table>` elements; 0 outside any table.
    depth: usize,
    in_head: bool,
    seen_data: bool,
    /// 1-based position of the current row in the table.
    row: u32,
    cells: Vec<(String, bool)>,
    /// The cell being read: its text, whether it is a `<th>`, its colspan.
    cell: Option<(String, bool, usize)>,
    /// Whether the page is a sheet exported as HTML under an Excel name
    /// (`.xls`): there the first row is the header when none of its cells
    /// is a number, as in a spreadsheet, though the export wrote no `<th>`.
    sheet: bool,
    headed: bool,
    /// A first row of words in a table with no `<th>` (as word processors,
    /// editors and Google Docs export them), held back until the next row
    /// says whether it is a header: it is when that row holds a number.
    pending: Option<(u32, Vec<String>)>,
    /// Whether a `<th>` was read in the table: its author marked headers.
    any_th: bool,
}

/// Whether a row has a cell and none of its cells is a number.
fn all_words(cells: &[(String, bool)]) -> bool {
    let filled: Vec<&str> = cells.iter().map(|(c, _)| c.trim()).filter(|c| !c.is_empty()).collect();
    !filled.is_empty() && !filled.iter().any(|c| crate::sheet::is_number(c))
}

/// Most cells an HTML `colspan` expands to; the HTML standard caps it at 1000.
const MAX_COLSPAN: usize = 1000;

impl HtmlTable {
    /// Handles an opening tag; true when it was table structure or cell content.
    fn open(&mut self, tag: &str, el: &scraper::node::Element, b: &mut TextBuilder) -> bool {
        if let Some((cell, ..)) = self.cell.as_mut() {
            if tag == "table" {
                self.depth += 1;
            }
            if breaks_text(tag) {
                cell.push(' ');
            }
            return true;
        }
        match tag {
            "table" => {
                if self.depth == 0 {
                    *self = HtmlTable { sheet: self.sheet, ..HtmlTable::default() };
                    b.begin_table("", 1);
                }
                self.depth += 1;
            }
            _ if self.depth == 0 => return false,
            "thead" => self.in_head = true,
            "tbody" | "tfoot" => {}
            "tr" => {
                self.row += 1;
                self.cells.clear();
            }
            "td" | "th" => {
                self.any_th |= tag == "th";
                let span = el.attr("colspan").and_then(|v| v.trim().parse::<usize>().ok()).unwrap_or(1);
                self.cell = Some((String::new(), tag == "th", span.clamp(1, MAX_COLSPAN)));
            }
            _ => return false,
        }
        true
    }

    /// Handles a closing tag; true when it was table structure or cell content.
    fn close(&mut self, tag: &str, b: &mut TextBuilder) -> bool {
        if let Some((cell, ..)) = self.cell.as_mut() {
            match tag {
                "td" | "th" if self.depth == 1 => {
                    let (text, th, span) = self.cell.take().expect("cell is open");
                    self.cells.push((text, th));
                    // The columns a cell spans after its first read as empty cells.
                    self.cells.extend((1..span).map(|_| (String::new(), th)));
                }
                "table" => {
                    self.depth -= 1;
                    cell.push(' ');
                }
                _ if breaks_text(tag) => cell.push(' '),
                _ => {}
            }
            return true;
        }
        match tag {
            _ if self.depth == 0 => return false,
            "table" => {
                self.depth -= 1;
                if self.depth == 0 {
                    if let Some((row, cells)) = self.pending.take() {
                        self.write(b, row, false, &cells);
                    }
                    b.end_table();
                }
            }
            "thead" => self.in_head = false,
            "tbody" | "tfoot" => {}
            "tr" => {
                let all_th = !self.cells.is_empty() && self.cells.iter().all(|(_, th)| *th);
                let first_words = !self.headed && !self.seen_data && all_words(&self.cells);
                let header = self.in_head || (all_th && !self.seen_data) || (self.sheet && first_words);
                let cells: Vec<String> = self.cells.drain(..).map(|(c, _)| c).collect();
                if let Some((row, first)) = self.pending.take() {
                    let number_below = !header && !self.any_th && cells.iter().any(|c| crate::sheet::is_number(c));
                    self.write(b, row, number_below, &first);
                } else if first_words && !header && !self.any_th {
                    self.pending = Some((self.row, cells));
                    return true;
                }
                self.write(b, self.row, header, &cells);
            }
            _ => return false,
        }
        true
    }

    /// Writes a row of the table, noting whether a header or data came.
    fn write(&mut self, b: &mut TextBuilder, row: u32, header: bool, cells: &[String]) {
        let written = b.table_row(row, header, cells.iter().map(String::as_str));
        self.seen_data |= written > 0 && !header;
        self.headed |= written > 0 && header;
    }

    /// Takes text inside a cell; false when the text is not in one.
    fn text(&mut self, t: &str) -> bool {
        match self.cell.as_mut() {
            Some((cell, ..)) => {
                cell.push_str(t);
                true
            }
            None => false,
        }
    }
}

/// Whether an element separates the words before and after it.
fn breaks_text(tag: &str) -> bool {
    BLOCKS.contains(&tag) || block_kind(tag).is_some() || matches!(tag, "br" | "td" | "th")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nesting_is_counted_on_tags_that_deepen_the_tree() {
        let deep = format!("<html><body>{}x{}</body></html>", "<div>".repeat(1001), "</div>".repeat(1001));
        let err = check_nesting(&deep, 1000).unwrap_err();
        assert_eq!(err.to_string(), "limit exceeded: HTML nested deeper than 1000 elements (max_nesting)");
        check_nesting(&deep, 1001).unwrap();
        // Siblings, unclosed list items and paragraphs, void and
        // self-closed elements do not add up.
        let wide = "<ul><li>a<li>b<p>c<p>d<br><img src=x><x/></ul>".repeat(5000);
        let siblings = "<div>a</div>".repeat(5000);
        check_nesting(&format!("{wide}{siblings}<!-- <div><div> --><!DOCTYPE html>"), 3).unwrap();
    }

    #[test]
    fn tables_become_rows_with_their_header() {
        let src = "<h1>Prices</h1><p>Intro.</p><table><caption>Plans</caption>\
            <thead><tr><th>Plan</th><th>Price</th><th>Note</th></tr></thead>\
            <tbody><tr><td><b>Basic</b> tier</td><td>5</td><td>a|b</td></tr>\
            <tr><th colspan=2>Group</th><td>x</td></tr>\
            <tr><td>Pro<table><tr><td>inner</td><td>cell</td></tr></table></td><td></td><td>y<br>z</td></tr>\
            <tr><td></td><td></td></tr></tbody></table><p>After.</p>";
        let doc = extract("p.html", src);
        assert_eq!(
            doc.text,
            "Prices\n\nIntro.\n\nPlans\n\nPlan | Price | Note\nBasic tier | 5 | a\\|b\nGroup |  | x\nPro inner cell |  | y z\n\nAfter."
        );
        let rows: Vec<_> = doc.blocks.iter().filter(|b| matches!(b.kind, BlockKind::TableRow { .. })).collect();
        assert_eq!(rows.len(), 4);
        assert_eq!(rows[0].kind, BlockKind::TableRow { table: 0, row: 1, header: true });
        assert_eq!(rows[2].kind, BlockKind::TableRow { table: 0, row: 3, header: false });
        assert_eq!(doc.tables, [ragpipe_core::Table { sheet: String::new(), first_col: 1, last_col: 3 }]);
    }

    #[test]
    fn a_table_without_th_is_headed_by_a_row_of_words_over_numbers() {
        let headers = |src: &str| -> Vec<bool> {
            let doc = extract("p.html", src);
            doc.blocks
                .iter()
                .filter_map(|b| match b.kind {
                    BlockKind::TableRow { header, .. } => Some(header),
                    _ => None,
                })
                .collect()
        };
        let row =
            |cells: &[&str]| format!("<tr>{}</tr>", cells.iter().map(|c| format!("<td>{c}</td>")).collect::<String>());
        let table = |rows: &[&[&str]]| format!("<table>{}</table>", rows.iter().map(|r| row(r)).collect::<String>());
        let invoices = table(&[&["Invoice", "Total"], &["INV-41", "1,240.00"], &["INV-42", "86.20"]]);
        assert_eq!(headers(&invoices), [true, false, false]);
        assert_eq!(headers(&table(&[&["Site", "Contact"], &["Leeds", "Ana"]])), [false, false], "words over words");
        assert_eq!(headers(&table(&[&["2024", "Q1"], &["5", "6"]])), [false, false], "a number in the first row");
        assert_eq!(headers(&table(&[&["Invoice", "Total"]])), [false], "one row");
        let row_headers = "<table><tr><td>Site</td><td>Staff</td></tr><tr><th>Leeds</th><td>12</td></tr></table>";
        assert_eq!(headers(row_headers), [false, false], "the author marked headers with <th>");
        // Held back, the first row still comes first.
        let doc = extract("p.html", &format!("<p>Before.</p>{invoices}<p>After.</p>"));
        assert_eq!(doc.text, "Before.\n\nInvoice | Total\nINV-41 | 1,240.00\nINV-42 | 86.20\n\nAfter.");
    }
}
