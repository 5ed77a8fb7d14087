//! A manual's pages carry the site around them: DocBook's and gtk-doc's
//! Prev / Up / Next tables above and below each chapter, texinfo's
//! `Next: …, Previous: …, Up: …` line before each node, Sphinx's related
//! bar, ARIA navigation landmarks, and the permalink anchors (`¶`, `§`, `#`)
//! that Sphinx, rustdoc and others put in every heading. Indexed, they name
//! the chapters around a page in its chunks (a question about chapter 4
//! finds chapter 3's footer) and end every heading with a `¶`. They are
//! found before the page is read, as the set of elements to leave out.
//!
//! A navigation bar is recognised by its links, not by its generator's
//! class names: links with an access key or a `rel` to the pages around
//! (`next`, `prev`, `up`, …) sit in bars whose other text is only labels.

use super::selector;
use ego_tree::{NodeId, NodeRef};
use scraper::{ElementRef, Html, Node};
use std::collections::{HashMap, HashSet};

/// ARIA landmark roles that belong to the site, not to the page's content.
const ROLES: [&str; 6] = ["navigation", "banner", "contentinfo", "search", "menubar", "toolbar"];

/// A link's relations (HTML `rel`) to the pages around it.
const NAV_RELS: [&str; 10] = ["next", "prev", "previous", "up", "contents", "index", "start", "first", "last", "home"];

/// Most visible characters outside links that a navigation bar holds: its
/// labels (`Next:`, `Up:`, `|`, `»`).
const BAR_LABELS: usize = 40;

/// The same for a navigation table, whose cells may also name the pages
/// before and after (DocBook: `Capítulo 2. Gestión de paquetes Debian`).
const TABLE_LABELS: usize = 200;

/// Where `TABLE_LABELS` holds.
const TABLE_PARTS: [&str; 7] = ["table", "thead", "tbody", "tfoot", "tr", "td", "th"];

/// How far above a navigation link its bar may reach (`a` → `td` → `tr` →
/// `tbody` → `table` → its `div`).
const MAX_CLIMB: usize = 6;

/// Navigation links looked at per page: a bar has a handful, and a page of
/// thousands of them must not cost thousands of climbs.
const MAX_NAV_LINKS: usize = 256;

/// Elements a navigation bar never reaches past: the page's own content.
const CONTENT: [&str; 5] = ["html", "body", "main", "article", "section"];

/// The elements of `html` that are site chrome, to be left out with all
/// they hold.
pub(super) fn chrome(html: &Html) -> HashSet<NodeId> {
    let mut out = HashSet::new();
    for el in html.select(&selector("[role]")) {
        let role = el.attr("role").unwrap_or_default();
        if role.split_ascii_whitespace().any(|r| ROLES.iter().any(|x| r.eq_ignore_ascii_case(x))) {
            out.insert(el.id());
        }
    }
    for a in html.select(&selector("a[href^='#']")) {
        if !a.text().any(|t| t.chars().any(char::is_alphanumeric)) {
            out.insert(a.id());
        }
    }
    let mut judged = HashMap::new();
    for a in html.select(&selector("a[accesskey], a[rel]")).filter(|a| navigates(a)).take(MAX_NAV_LINKS) {
        if let Some(bar) = bar_around(*a, &mut judged) {
            out.insert(bar);
        }
    }
    out
}

/// Whether a link goes to the pages around this one.
fn navigates(a: &ElementRef) -> bool {
    let rel = a.attr("rel").unwrap_or_default();
    a.attr("accesskey").is_some()
        || rel.split_ascii_whitespace().any(|r| NAV_RELS.iter().any(|x| r.eq_ignore_ascii_case(x)))
}

/// The outermost element around a navigation link, at most `MAX_CLIMB`
/// levels up, whose text outside links is no more than labels. `judged`
/// keeps each element's verdict, as the links of one bar share ancestors.
fn bar_around(link: NodeRef<'_, Node>, judged: &mut HashMap<NodeId, bool>) -> Option<NodeId> {
    let mut bar = None;
    for node in link.ancestors().take(MAX_CLIMB) {
        let Some(el) = ElementRef::wrap(node) else { break };
        let tag = el.value().name();
        if CONTENT.contains(&tag) {
            break;
        }
        let budget = if TABLE_PARTS.contains(&tag) { TABLE_LABELS } else { BAR_LABELS };
        let labels_only = *judged.entry(node.id()).or_insert_with(|| text_outside_links(el, budget) <= budget);
        if !labels_only {
            break;
        }
        bar = Some(node.id());
    }
    bar
}

/// The visible characters of `el`'s text outside any link, counted up to
/// one past `limit` (enough to judge, without reading a whole page).
fn text_outside_links(el: ElementRef, limit: usize) -> usize {
    let mut count = 0;
    for node in el.descendants() {
        let Node::Text(t) = node.value() else { continue };
        let in_link = node
            .ancestors()
            .take_while(|n| n.id() != el.id())
            .any(|n| n.value().as_element().is_some_and(|e| e.name() == "a"));
        if !in_link {
            count += t.chars().filter(|c| !c.is_whitespace()).count();
            if count > limit {
                break;
            }
        }
    }
    count
}
