//! HTML: visible text only. `<head>`, scripts, styles, navigation and hidden
//! elements are dropped; headings open sections; `<pre>` is kept verbatim;
//! inline markup (`<code>`, `<em>`, links) flows into the sentence around it.

use crate::{TextBuilder, fallback_title};
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

pub(crate) fn extract(name: &str, source: &str) -> Document {
    let html = Html::parse_document(source);
    // A page that marks its main content (`<main>`, `role="main"`) is read
    // from there only: menus, sidebars and pop-ups around it are site chrome.
    let main = main_content(&html);
    let mut b = TextBuilder::new();
    let mut kinds: Vec<BlockKind> = vec![BlockKind::Paragraph];
    let mut skip = 0usize;
    let mut pre = 0usize;
    let title = page_title(&html);
    let mut first_h1: Option<String> = None;
    let mut in_h1 = false;
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
                    {
                        skip += 1;
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
                        None if matches!(tag, "td" | "th") && b.is_open() => b.inline(" | "),
                        None => {}
                    }
                }
                Node::Text(t) => {
                    if skip > 0 {
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
    let selector = scraper::Selector::parse("main, [role=main]").expect("static selector");
    let mut found = html.select(&selector);
    let first = found.next()?;
    found.next().is_none().then(|| *first)
}

/// The text of `<title>`, if any.
fn page_title(html: &Html) -> String {
    let selector = scraper::Selector::parse("title").expect("static selector");
    html.select(&selector).next().map(|t| t.text().collect::<String>()).unwrap_or_default()
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
