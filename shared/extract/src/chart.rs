//! Charts of Office Open XML decks and documents (`ppt/charts/chartN.xml`,
//! `word/charts/chartN.xml`: DrawingML's `c:chartSpace`) and of
//! OpenDocument ones (an embedded object's `content.xml`), read from the
//! values the file caches for its readers:
//! a chart is what its data says, so it becomes its title as a paragraph
//! (`Chart: …`) and a table whose header row is the category axis (its
//! title, else the chart's) and the series' names, one row a category (bar, line, area, pie, radar…) or an
//! x value (scatter, bubble). Series that do not share their categories get
//! tables of their own. Percent formats (`0%`, `0.0%`) are applied, as the
//! chart shows them; other values are written as cached.

use crate::ExtractError;
use crate::word::xml::{Flow, attr, reference};
use crate::word::{Para, Writer};
use quick_xml::XmlVersion;
use quick_xml::events::Event;
use std::collections::{BTreeMap, HashMap};

#[derive(Default)]
struct Series {
    name: String,
    categories: BTreeMap<u32, String>,
    values: BTreeMap<u32, String>,
}

/// What a DrawingML chart's part says, as it is read.
#[derive(Default)]
struct Parsed {
    title: String,
    /// The category (or x) axis's title.
    axis: String,
    scatter: bool,
    series: Vec<Series>,
    /// The index of the point being read (`c:pt idx`).
    idx: u32,
    /// The decimals of the values' percent format, if they have one.
    percent_digits: Option<usize>,
}

/// Where the text being read goes.
#[derive(Clone, Copy, PartialEq)]
enum Slot {
    Nothing,
    Title,
    AxisTitle,
    Name,
    Category,
    Value,
}

pub(crate) fn read(xml: &str, part: &str, w: &mut Writer<'_>) -> Result<(), ExtractError> {
    let mut flow = Flow::new(xml, part, &["Fallback", "extLst", "txPr", "spPr"]);
    let mut c = Parsed::default();
    // Open elements by local name; the text's destination follows from them.
    let mut path: Vec<String> = Vec::new();
    while let Some(event) = flow.next()? {
        match event {
            Event::Start(e) => {
                let name = e.local_name().into_inner().to_string();
                match name.as_str() {
                    "ser" => c.series.push(Series::default()),
                    "xVal" => c.scatter = true,
                    "pt" => c.idx = attr(&e, "idx").and_then(|i| i.parse().ok()).unwrap_or(0),
                    "val" | "yVal" => c.percent_digits = None,
                    // A title's paragraphs are words apart.
                    "p" if path.iter().any(|p| p == "title") => c.title.push(' '),
                    _ => {}
                }
                path.push(name);
            }
            Event::End(_) => {
                path.pop();
            }
            Event::Text(t) => {
                let text = t.xml_content(XmlVersion::Implicit1_0);
                if path.last().is_some_and(|n| n == "formatCode") {
                    c.percent_digits = percent(&text);
                } else {
                    c.put(destination(&path, c.scatter), &text);
                }
            }
            Event::GeneralRef(r) => c.put(destination(&path, c.scatter), &reference(&r).unwrap_or_default()),
            _ => {}
        }
    }
    write(w, &c.title, &c.axis, c.scatter, &c.series)
}

/// What text at `path` is: the chart's title, its category axis's title, a
/// series' name, one of its categories or values, or nothing kept.
fn destination(path: &[String], scatter: bool) -> Slot {
    let has = |n: &str| path.iter().any(|p| p == n);
    let text = path.last().is_some_and(|n| n == "v" || n == "t");
    if !text {
        return Slot::Nothing;
    }
    if has("ser") {
        return if has("tx") {
            Slot::Name
        } else if has("cat") || has("xVal") {
            Slot::Category
        } else if has("val") || has("yVal") {
            Slot::Value
        } else {
            Slot::Nothing
        };
    }
    if !has("title") {
        return Slot::Nothing;
    }
    // The category (or, in a scatter chart, the x) axis names the first
    // column; a value axis's title is not a column's.
    if has("catAx") || has("dateAx") || (scatter && has("valAx")) {
        Slot::AxisTitle
    } else if has("valAx") || has("serAx") {
        Slot::Nothing
    } else {
        Slot::Title
    }
}

impl Parsed {
    fn put(&mut self, into: Slot, text: &str) {
        let (idx, percent_digits) = (self.idx, self.percent_digits);
        match (into, self.series.last_mut()) {
            (Slot::Title, _) => self.title.push_str(text),
            (Slot::AxisTitle, _) if self.axis.is_empty() => self.axis.push_str(text),
            (Slot::Name, Some(s)) => s.name.push_str(text),
            (Slot::Category, Some(s)) => {
                // A multi-level category's levels share its index.
                let label = s.categories.entry(idx).or_default();
                if !label.is_empty() && !text.trim().is_empty() {
                    label.push(' ');
                }
                label.push_str(text);
            }
            (Slot::Value, Some(s)) => {
                let shown = percent_digits.and_then(|d| as_percent(text, d)).unwrap_or_else(|| text.trim().to_string());
                s.values.insert(idx, shown);
            }
            _ => {}
        }
    }
}

/// The decimals of a percent number format (`0%` → 0, `0.0%` → 1).
fn percent(format: &str) -> Option<usize> {
    let format = format.trim();
    format.ends_with('%').then(|| format.split_once('.').map_or(0, |(_, d)| d.chars().filter(|c| *c == '0').count()))
}

fn as_percent(value: &str, digits: usize) -> Option<String> {
    let v: f64 = value.trim().parse().ok()?;
    Some(format!("{:.*}%", digits, v * 100.0))
}

fn write(w: &mut Writer<'_>, title: &str, axis: &str, scatter: bool, series: &[Series]) -> Result<(), ExtractError> {
    let series: Vec<&Series> = series.iter().filter(|s| !s.values.is_empty()).collect();
    if series.is_empty() && title.trim().is_empty() {
        return Ok(());
    }
    heading(w, title)?;
    // Consecutive series over the same categories share a table.
    let mut start = 0;
    while start < series.len() {
        let end = (start + 1..series.len())
            .find(|&i| series[i].categories != series[start].categories)
            .unwrap_or(series.len());
        let group = &series[start..end];
        let names: Vec<String> = group
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let name = one_line(&s.name);
                if name.is_empty() { format!("Series {}", i + 1) } else { name }
            })
            .collect();
        let header = std::iter::once(first_column(axis, title, scatter, &names)).chain(names).collect();
        let mut indices: Vec<u32> =
            group.iter().flat_map(|s| s.categories.keys().chain(s.values.keys())).copied().collect();
        indices.sort_unstable();
        indices.dedup();
        let rows = indices.into_iter().map(|i| {
            let label = group[0].categories.get(&i).cloned().unwrap_or_else(|| (i + 1).to_string());
            std::iter::once(label).chain(group.iter().map(|s| s.values.get(&i).cloned().unwrap_or_default())).collect()
        });
        grid(w, header, rows)?;
        start = end;
    }
    Ok(())
}

/// A chart's paragraph: `Chart: TITLE`, or `Chart` for an untitled one.
fn heading(w: &mut Writer<'_>, title: &str) -> Result<(), ExtractError> {
    let title = one_line(title);
    w.start_paragraph(Para::Body)?;
    w.text(&if title.is_empty() { "Chart".to_string() } else { format!("Chart: {title}") });
    w.end_paragraph();
    Ok(())
}

/// The first column's header: its axis's title; for categories without
/// one, the chart's title (unless a series is named so), so that every
/// chunk of the table (each repeats the header row) says what the numbers
/// are; else `Category` (or `X`).
fn first_column(axis: &str, title: &str, scatter: bool, names: &[String]) -> String {
    let (axis, title) = (one_line(axis), one_line(title));
    let told = title.is_empty() || names.iter().any(|n| n.eq_ignore_ascii_case(&title));
    match (axis.is_empty(), scatter, told) {
        (false, _, _) => axis,
        (true, true, _) => "X".into(),
        (true, false, false) => title,
        (true, false, true) => "Category".into(),
    }
}

/// A chart's data as a table: the header row, then one row per category.
fn grid(w: &mut Writer<'_>, header: Vec<String>, rows: impl Iterator<Item = Vec<String>>) -> Result<(), ExtractError> {
    w.start_table();
    for (i, cells) in std::iter::once(header).chain(rows).enumerate() {
        w.start_row(i == 0);
        for cell in cells {
            w.start_cell();
            w.start_paragraph(Para::Body)?;
            w.text(cell.trim());
            w.end_paragraph();
        }
        w.end_row()?;
    }
    w.end_table();
    Ok(())
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// An embedded object (`draw:object`, by its `xlink:href`) of an odp or
/// odt: a chart is read from its own part, one of `objects`
/// ([`crate::package::embedded_objects`]).
pub(crate) fn read_object(
    href: &str,
    objects: &HashMap<String, String>,
    w: &mut Writer<'_>,
) -> Result<(), ExtractError> {
    let name = href.trim_start_matches("./").trim_end_matches('/');
    match objects.get(name) {
        Some(xml) => read_odf(xml, &format!("{name}/content.xml"), w),
        None => Ok(()),
    }
}

/// An OpenDocument chart (the `content.xml` of an odp's or odt's embedded
/// object):
/// its `chart:title` and the local table that holds its data. Each
/// `chart:series` names the table's column of its values and, for a
/// scatter chart, the column of its x values (`chart:domain`); the first
/// column holds the categories otherwise. Written as a pptx chart is;
/// nothing is written for an object that is not a chart (a formula).
pub(crate) fn read_odf(xml: &str, part: &str, w: &mut Writer<'_>) -> Result<(), ExtractError> {
    let mut flow = Flow::new(xml, part, &["annotation"]);
    let mut path: Vec<String> = Vec::new();
    let (mut chart, mut title) = (false, String::new());
    // Per series: the column of its values and of its x values.
    let mut series: Vec<(Option<usize>, Option<usize>)> = Vec::new();
    let (mut header, mut rows): (Option<Vec<String>>, Vec<Vec<String>>) = (None, Vec::new());
    while let Some(event) = flow.next()? {
        let opens = matches!(event, Event::Start(_));
        match event {
            Event::Start(e) | Event::Empty(e) => {
                let name = e.local_name().into_inner().to_string();
                match name.as_str() {
                    "chart" => chart = true,
                    "series" => series.push((attr(&e, "values-cell-range-address").as_deref().and_then(column), None)),
                    "domain" => {
                        if let Some(s) = series.last_mut() {
                            s.1 = attr(&e, "cell-range-address").as_deref().and_then(column);
                        }
                    }
                    "table-row" => rows.push(Vec::new()),
                    "table-cell" => rows.last_mut().into_iter().for_each(|r| r.push(String::new())),
                    _ => {}
                }
                if opens {
                    path.push(name);
                }
            }
            Event::End(e) => {
                if e.local_name().as_ref() == "table-header-rows" {
                    header = rows.pop();
                }
                path.pop();
            }
            Event::Text(t) => {
                let text = t.xml_content(XmlVersion::Implicit1_0);
                if path.iter().any(|p| p == "table-cell") {
                    if let Some(cell) = rows.last_mut().and_then(|r| r.last_mut()) {
                        cell.push_str(&text);
                    }
                } else if path.iter().any(|p| p == "title") && !path.iter().any(|p| p == "axis") {
                    title.push_str(&text);
                }
            }
            _ => {}
        }
    }
    if !chart || (header.is_none() && rows.is_empty() && title.trim().is_empty()) {
        return Ok(());
    }
    heading(w, &title)?;
    let Some(header) = header else { return Ok(()) };
    let cell = |row: &[String], c: usize| row.get(c).cloned().unwrap_or_default();
    let valued: Vec<(usize, Option<usize>)> = series.iter().filter_map(|&(v, x)| v.map(|v| (v, x))).collect();
    if valued.is_empty() {
        // No series named: the table as it stands.
        return grid(w, header, rows.into_iter());
    }
    // Series over the same x column (or the categories) share a table.
    let mut start = 0;
    while start < valued.len() {
        let x = valued[start].1;
        let end = (start + 1..valued.len()).find(|&i| valued[i].1 != x).unwrap_or(valued.len());
        let group = &valued[start..end];
        // The categories' column may be headed; a scatter chart's x column is
        // headed by a made-up series name.
        let first = if x.is_none() { Some(cell(&header, 0)).filter(|h| !h.trim().is_empty()) } else { None };
        let names: Vec<String> = group.iter().map(|&(v, _)| cell(&header, v)).collect();
        let first = first.unwrap_or_else(|| first_column("", &title, x.is_some(), &names));
        let head = std::iter::once(first).chain(names).collect();
        let body = rows.iter().map(|r| {
            let label = cell(r, x.unwrap_or(0));
            std::iter::once(label).chain(group.iter().map(|&(v, _)| cell(r, v))).collect()
        });
        grid(w, head, body)?;
        start = end;
    }
    Ok(())
}

/// The 0-based column of a cell range address (`local-table.$B$2:.$B$5` → 1).
fn column(address: &str) -> Option<usize> {
    let start = address.split(':').next()?;
    let cell = start.rsplit_once('.').map_or(start, |(_, c)| c);
    let letters: String = cell.trim_start_matches('$').chars().take_while(char::is_ascii_alphabetic).collect();
    if letters.is_empty() {
        return None;
    }
    letters
        .chars()
        .try_fold(0usize, |n, c| Some(n * 26 + (c.to_ascii_uppercase() as usize - 'A' as usize + 1)))
        .map(|n| n - 1)
}
