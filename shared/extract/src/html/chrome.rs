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
//!
//! So is a page's own table of contents (DocBook's at the top of every
//! chapter, texinfo's `@contents`, a Markdown converter's): at least three
//! entries — links to a section of this very page (`#stage-1`, or
//! `ch03.html#stage-1` where `stage-1` is an id here) that read as the
//! section's heading reads (a page number after it allowed) — in a list
//! whose other text is only labels (`Table of Contents`), or in paragraphs
//! one after another, an entry each (a word processor's export). A chunk of
//! it would name every section of the page and stand in for each of them in
//! search. An author's list of cross-references (`Sección 3.1.1, “Stage 1:
//! the UEFI”`) does not read as the headings do, and stays.
//!
//! And a site's banner: before the page's first heading and any text, one
//! short link off to the web, alone in its block (`Download the ebook`).

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

/// Fewest links to this page's own elements that make a table of contents
/// (one or two are cross-references: `see [Stage 2](#stage-2)`).
const MIN_ENTRIES: usize = 3;

/// Links to this page's own elements looked at per page.
const MAX_ENTRY_LINKS: usize = 2048;

/// How far from a link's target its section's heading is looked for: the
/// target's ancestors (an anchor inside the heading) and its first
/// descendants (a section element, or a `div` whose heading follows a
/// navigation line).
const HEADING_UP: usize = 3;
const HEADING_DOWN: usize = 64;

/// What holds one entry of a table of contents (a list item, a term of a
/// definition list, a table row, a paragraph: word processors write each
/// entry as one, and pandoc a chapter's entry of a `.docx` as a heading),
/// at most `ITEM_UP` levels above its link.
const ITEMS: [&str; 11] = ["li", "dt", "dd", "tr", "p", "h1", "h2", "h3", "h4", "h5", "h6"];
const ITEM_UP: usize = 4;

/// Most visible characters beside an entry's link in its item, for entries
/// that stand in a run of paragraphs with no list around them (a page
/// number, `iv`).
const ENTRY_LABELS: usize = 8;

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
    let budget = |tag: &str| if TABLE_PARTS.contains(&tag) { TABLE_LABELS } else { BAR_LABELS };
    for a in html.select(&selector("a[accesskey], a[rel]")).filter(|a| navigates(a)).take(MAX_NAV_LINKS) {
        if let Some(bar) = bar_around(*a, &mut judged, budget) {
            out.insert(bar);
        }
    }
    out.extend(contents_lists(html));
    out.extend(banner(html));
    out
}

/// Where a page's own content begins.
const HEADINGS: [&str; 6] = ["h1", "h2", "h3", "h4", "h5", "h6"];

/// Most visible characters of a banner's link.
const BANNER_CHARS: usize = 40;

/// A site's banner above the page: before its first heading and before
/// any other text, a block whose only text is one short link to an address
/// on the web (Publican's `Download the ebook` atop each of the 127 pages of
/// the Debian Administrator's Handbook). Kept, it is a chunk of its own on
/// every page.
fn banner(html: &Html) -> Option<NodeId> {
    let body = html.select(&selector("body")).next()?;
    for node in body.descendants() {
        match node.value() {
            Node::Element(e) if HEADINGS.contains(&e.name()) => return None,
            Node::Element(e) if e.name() == "a" && e.attr("href").is_some_and(on_the_web) => {
                let label = squeezed(ElementRef::wrap(node)?.text());
                if label.is_empty() {
                    continue; // an image's link: no text to keep or lose
                }
                if label.chars().count() > BANNER_CHARS {
                    return None;
                }
                let only_the_link = |n: &NodeRef<'_, Node>| {
                    ElementRef::wrap(*n)
                        .is_some_and(|el| !CONTENT.contains(&el.value().name()) && squeezed(el.text()) == label)
                };
                return node
                    .ancestors()
                    .take(MAX_CLIMB)
                    .take_while(only_the_link)
                    .last()
                    .or(Some(node))
                    .map(|n| n.id());
            }
            Node::Text(t) if t.chars().any(char::is_alphanumeric) => return None,
            _ => {}
        }
    }
    None
}

fn on_the_web(href: &str) -> bool {
    ["http://", "https://"].iter().any(|p| href.get(..p.len()).is_some_and(|h| h.eq_ignore_ascii_case(p)))
}

/// The page's own tables of contents: the outermost element around
/// entries (links that read as the heading of the section of this page
/// they go to, each in an item of a list or a table row) whose other text
/// is only labels, holding entries in `MIN_ENTRIES` items at least. A
/// function's signature linking its argument types to their sections
/// (gtk-doc) is one line, not a list, and stays.
fn contents_lists(html: &Html) -> HashSet<NodeId> {
    let mut targets: HashMap<&str, NodeRef<'_, Node>> = HashMap::new();
    for el in html.select(&selector("[id], a[name]")) {
        if let Some(id) = el.attr("id").or_else(|| el.attr("name")) {
            targets.entry(id).or_insert(*el);
        }
    }
    let mut headings: HashMap<&str, Option<String>> = HashMap::new();
    // Each entry's link, and the item it is the entry of.
    let entries: HashMap<NodeId, NodeId> = html
        .select(&selector("a[href*='#']"))
        .filter(|a| {
            let Some((_, id)) = a.attr("href").and_then(|h| h.split_once('#')) else { return false };
            let Some(&target) = targets.get(id) else { return false };
            // A heading linking to itself is a permalink, not an entry.
            if a.ancestors().any(|n| n.id() == target.id()) {
                return false;
            }
            let heading = headings.entry(id).or_insert_with(|| heading_of(target).map(|h| squeezed(h.text())));
            let label = squeezed(a.text());
            heading.as_ref().is_some_and(|h| reads_as(&label, h))
        })
        .filter_map(|a| {
            let item =
                a.ancestors().take(ITEM_UP).find(|n| n.value().as_element().is_some_and(|e| ITEMS.contains(&e.name())));
            Some((a.id(), item?.id()))
        })
        .take(MAX_ENTRY_LINKS)
        .collect();
    let (mut judged, mut lists) = (HashMap::new(), HashSet::new());
    for &link in entries.keys() {
        let Some(node) = html.tree.get(link) else { continue };
        if let Some(list) = bar_around(node, &mut judged, |_| BAR_LABELS) {
            lists.insert(list);
        }
    }
    lists.retain(|&list| {
        let Some(node) = html.tree.get(list) else { return false };
        let mut items = HashSet::new();
        for item in node.descendants().filter_map(|d| entries.get(&d.id())) {
            items.insert(*item);
            if items.len() == MIN_ENTRIES {
                return true;
            }
        }
        false
    });
    lists.extend(runs_of_entries(html, entries.values().copied().collect()));
    lists
}

/// Entries with no list around them: a word processor's HTML (Word's
/// `MsoToc1` paragraphs, pandoc's reading of a `.docx`) writes each as a
/// paragraph of the body among the others. `MIN_ENTRIES` such items one
/// after another, each holding little but its link, are a table of
/// contents.
fn runs_of_entries(html: &Html, items: HashSet<NodeId>) -> Vec<NodeId> {
    let bare = |id: &NodeId| {
        let el = html.tree.get(*id).and_then(ElementRef::wrap);
        el.is_some_and(|el| text_outside_links(el, ENTRY_LABELS) <= ENTRY_LABELS)
    };
    let mut out = Vec::new();
    for &item in &items {
        let Some(node) = html.tree.get(item) else { continue };
        // From the first item of each run only.
        if sibling_element(node, false).is_some_and(|p| items.contains(&p.id())) {
            continue;
        }
        let run: Vec<NodeId> = std::iter::successors(Some(node), |n| sibling_element(*n, true))
            .map(|n| n.id())
            .take_while(|id| items.contains(id) && bare(id))
            .collect();
        if run.len() >= MIN_ENTRIES {
            // Its title, a paragraph of a few words before it (`Table of
            // Contents`), goes with it; a heading stays.
            let title = sibling_element(node, false).and_then(ElementRef::wrap).filter(|el| {
                matches!(el.value().name(), "p" | "div")
                    && el.select(&selector("a")).next().is_none()
                    && text_outside_links(*el, BAR_LABELS) <= BAR_LABELS
            });
            out.extend(title.map(|el| el.id()));
            out.extend(run);
        }
    }
    out
}

/// The element after `node` among its siblings (before it, unless `forward`).
fn sibling_element(node: NodeRef<'_, Node>, forward: bool) -> Option<NodeRef<'_, Node>> {
    fn step(n: NodeRef<'_, Node>, forward: bool) -> Option<NodeRef<'_, Node>> {
        if forward { n.next_sibling() } else { n.prev_sibling() }
    }
    let mut at = step(node, forward);
    while let Some(n) = at {
        if n.value().is_element() {
            return Some(n);
        }
        at = step(n, forward);
    }
    None
}

/// Whether a link's label reads as a heading does (their text without
/// white space): as it is, or without the page number a word processor's
/// contents put after it (`Basic Entities 7`, `Scheduling . . . 2`).
fn reads_as(label: &str, heading: &str) -> bool {
    let bare = label.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.' || c == '…');
    [label, bare].iter().any(|l| l.chars().any(char::is_alphanumeric) && heading.contains(l))
}

/// The heading of the section a link's target starts: the target itself,
/// an element around it, or one of its first elements.
fn heading_of(target: NodeRef<'_, Node>) -> Option<ElementRef<'_>> {
    let heading = |n: &NodeRef<'_, Node>| {
        n.value().as_element().is_some_and(|e| matches!(e.name(), "h1" | "h2" | "h3" | "h4" | "h5" | "h6"))
    };
    target
        .ancestors()
        .take(HEADING_UP)
        .chain(target.descendants().take(HEADING_DOWN))
        .find(heading)
        .and_then(ElementRef::wrap)
}

/// Text without its white space, to compare a link's label with a heading
/// however the markup breaks their lines.
fn squeezed<'a>(text: impl Iterator<Item = &'a str>) -> String {
    text.flat_map(str::chars).filter(|c| !c.is_whitespace()).collect()
}

/// Whether a link goes to the pages around this one.
fn navigates(a: &ElementRef) -> bool {
    let rel = a.attr("rel").unwrap_or_default();
    a.attr("accesskey").is_some()
        || rel.split_ascii_whitespace().any(|r| NAV_RELS.iter().any(|x| r.eq_ignore_ascii_case(x)))
}

/// The outermost element around a link, at most `MAX_CLIMB` levels up,
/// whose text outside links is no more than labels (`budget` visible
/// characters for an element of that tag). `judged` keeps each element's
/// verdict, as the links of one bar share ancestors.
fn bar_around(
    link: NodeRef<'_, Node>,
    judged: &mut HashMap<NodeId, bool>,
    budget: impl Fn(&str) -> usize,
) -> Option<NodeId> {
    let mut bar = None;
    for node in link.ancestors().take(MAX_CLIMB) {
        let Some(el) = ElementRef::wrap(node) else { break };
        let tag = el.value().name();
        if CONTENT.contains(&tag) {
            break;
        }
        let budget = budget(tag);
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

#[cfg(test)]
mod tests {
    fn text(page: &str) -> String {
        crate::html::extract("page.html", page).text
    }

    #[test]
    fn a_banner_link_above_the_page_goes_and_a_link_in_its_text_stays() {
        // Publican's page head (the Debian Administrator's Handbook).
        let page = r#"<html><body><div id="banner"><a href="http://debian-handbook.info/get/"><span class="text">Download the ebook</span></a></div>
            <p id="title"><a class="left" href="http://www.debian.org"><img alt="Product Site" src="l.png" /></a></p>
            <h2>6.2. Los programas aptitude, apt-get y apt</h2><p>APT es un proyecto gigante.</p></body></html>"#;
        assert_eq!(text(page), "6.2. Los programas aptitude, apt-get y apt\n\nAPT es un proyecto gigante.");
        // A link in the first paragraph's text, or after the first heading, is content.
        let prose = r#"<html><body><p>Read <a href="https://example.org/">the guide</a> first.</p><h1>Setup</h1></body></html>"#;
        assert!(text(prose).starts_with("Read the guide first."), "{}", text(prose));
        let after = r#"<html><body><h1>Setup</h1><div><a href="https://example.org/get">Download the ebook</a></div></body></html>"#;
        assert!(text(after).ends_with("Download the ebook"), "{}", text(after));
        let long = r#"<html><body><p><a href="https://example.org/">A link whose words are a whole sentence of the page's own text</a></p><h1>Setup</h1></body></html>"#;
        assert!(text(long).starts_with("A link whose words"), "{}", text(long));
    }
}
