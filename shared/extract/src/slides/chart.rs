//! Charts of Office Open XML decks (`ppt/charts/chartN.xml`, DrawingML's
//! `c:chartSpace`), read from the values the file caches for its readers:
//! a chart is what its data says, so it becomes its title as a paragraph
//! (`Chart: …`) and a table whose header row is the category axis and the
//! series' names, one row a category (bar, line, area, pie, radar…) or an
//! x value (scatter, bubble). Series that do not share their categories get
//! tables of their own. Percent formats (`0%`, `0.0%`) are applied, as the
//! chart shows them; other values are written as cached.

use crate::ExtractError;
use crate::word::xml::{Flow, attr, reference};
use crate::word::{Para, Writer};
use quick_xml::XmlVersion;
use quick_xml::events::Event;
use std::collections::BTreeMap;

#[derive(Default)]
struct Series {
    name: String,
    categories: BTreeMap<u32, String>,
    values: BTreeMap<u32, String>,
}

/// Where the text being read goes.
#[derive(Clone, Copy, PartialEq)]
enum Into {
    Nothing,
    Title,
    AxisTitle,
    Name,
    Category,
    Value,
}

pub(super) fn read(xml: &str, part: &str, w: &mut Writer<'_>) -> Result<(), ExtractError> {
    let mut flow = Flow::new(xml, part, &["Fallback", "extLst", "txPr", "spPr"]);
    let (mut title, mut axis, mut scatter) = (String::new(), String::new(), false);
    let mut series: Vec<Series> = Vec::new();
    // Open elements by local name; the text's destination follows from them.
    let mut path: Vec<String> = Vec::new();
    let (mut idx, mut percent_digits) = (0u32, None);
    while let Some(event) = flow.next()? {
        match event {
            Event::Start(e) => {
                let name = e.local_name().into_inner().to_string();
                match name.as_str() {
                    "ser" => series.push(Series::default()),
                    "xVal" => scatter = true,
                    "pt" => idx = attr(&e, "idx").and_then(|i| i.parse().ok()).unwrap_or(0),
                    "val" | "yVal" => percent_digits = None,
                    // A title's paragraphs are words apart.
                    "p" if path.iter().any(|p| p == "title") => title.push(' '),
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
                    percent_digits = percent(&text);
                } else {
                    put(destination(&path, scatter), &text, &mut title, &mut axis, &mut series, idx, percent_digits);
                }
            }
            Event::GeneralRef(r) => {
                let text = reference(&r).unwrap_or_default();
                put(destination(&path, scatter), &text, &mut title, &mut axis, &mut series, idx, percent_digits);
            }
            _ => {}
        }
    }
    write(w, &title, &axis, scatter, &series)
}

/// What text at `path` is: the chart's title, its category axis's title, a
/// series' name, one of its categories or values, or nothing kept.
fn destination(path: &[String], scatter: bool) -> Into {
    let has = |n: &str| path.iter().any(|p| p == n);
    let text = path.last().is_some_and(|n| n == "v" || n == "t");
    if !text {
        return Into::Nothing;
    }
    if has("ser") {
        return if has("tx") {
            Into::Name
        } else if has("cat") || has("xVal") {
            Into::Category
        } else if has("val") || has("yVal") {
            Into::Value
        } else {
            Into::Nothing
        };
    }
    if !has("title") {
        return Into::Nothing;
    }
    // The category (or, in a scatter chart, the x) axis names the first
    // column; a value axis's title is not a column's.
    if has("catAx") || has("dateAx") || (scatter && has("valAx")) {
        Into::AxisTitle
    } else if has("valAx") || has("serAx") {
        Into::Nothing
    } else {
        Into::Title
    }
}

fn put(
    into: Into,
    text: &str,
    title: &mut String,
    axis: &mut String,
    series: &mut [Series],
    idx: u32,
    percent_digits: Option<usize>,
) {
    match (into, series.last_mut()) {
        (Into::Title, _) => title.push_str(text),
        (Into::AxisTitle, _) if axis.is_empty() => axis.push_str(text),
        (Into::Name, Some(s)) => s.name.push_str(text),
        (Into::Category, Some(s)) => {
            // A multi-level category's levels share its index.
            let label = s.categories.entry(idx).or_default();
            if !label.is_empty() && !text.trim().is_empty() {
                label.push(' ');
            }
            label.push_str(text);
        }
        (Into::Value, Some(s)) => {
            let shown = percent_digits.and_then(|d| as_percent(text, d)).unwrap_or_else(|| text.trim().to_string());
            s.values.insert(idx, shown);
        }
        _ => {}
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
    let title = title.split_whitespace().collect::<Vec<_>>().join(" ");
    let series: Vec<&Series> = series.iter().filter(|s| !s.values.is_empty()).collect();
    if series.is_empty() && title.is_empty() {
        return Ok(());
    }
    w.start_paragraph(Para::Body)?;
    w.text(&if title.is_empty() { "Chart".to_string() } else { format!("Chart: {title}") });
    w.end_paragraph();
    let first = if !axis.trim().is_empty() {
        axis.split_whitespace().collect::<Vec<_>>().join(" ")
    } else if scatter {
        "X".to_string()
    } else {
        "Category".to_string()
    };
    // Consecutive series over the same categories share a table.
    let mut start = 0;
    while start < series.len() {
        let end = (start + 1..series.len())
            .find(|&i| series[i].categories != series[start].categories)
            .unwrap_or(series.len());
        table(w, &first, &series[start..end])?;
        start = end;
    }
    Ok(())
}

fn table(w: &mut Writer<'_>, first: &str, series: &[&Series]) -> Result<(), ExtractError> {
    w.start_table();
    let names = series.iter().enumerate().map(|(i, s)| {
        let name = s.name.split_whitespace().collect::<Vec<_>>().join(" ");
        if name.is_empty() { format!("Series {}", i + 1) } else { name }
    });
    row(w, true, std::iter::once(first.to_string()).chain(names))?;
    let mut indices: Vec<u32> =
        series.iter().flat_map(|s| s.categories.keys().chain(s.values.keys())).copied().collect();
    indices.sort_unstable();
    indices.dedup();
    for i in indices {
        let label = series[0].categories.get(&i).cloned().unwrap_or_else(|| (i + 1).to_string());
        let values = series.iter().map(|s| s.values.get(&i).cloned().unwrap_or_default());
        row(w, false, std::iter::once(label).chain(values))?;
    }
    w.end_table();
    Ok(())
}

fn row(w: &mut Writer<'_>, header: bool, cells: impl Iterator<Item = String>) -> Result<(), ExtractError> {
    w.start_row(header);
    for cell in cells {
        w.start_cell();
        w.start_paragraph(Para::Body)?;
        w.text(cell.trim());
        w.end_paragraph();
    }
    w.end_row()
}
