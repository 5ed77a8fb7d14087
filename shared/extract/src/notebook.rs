//! Jupyter notebooks (`.ipynb`, nbformat 4), read as the Markdown document
//! a reader sees: the cells in order, markdown cells as they are, code
//! cells fenced in the notebook's language, and what a code cell printed or
//! returned as text fenced after it (`output`). Pictures, HTML renderings,
//! standard error (warnings, progress bars) and tracebacks are left out.

use crate::{ExtractError, markdown};
use ragpipe_core::Document;
use serde_json::Value;

/// Characters of one output kept; a longer printout is cut there (`…`).
const OUTPUT_CHARS: usize = 2000;

pub(crate) fn extract(name: &str, source: &str) -> Result<Document, ExtractError> {
    let malformed = |why: String| ExtractError::Malformed(format!("malformed notebook: {why}"));
    let nb: Value = serde_json::from_str(source).map_err(|e| malformed(format!("not JSON: {e}")))?;
    let Some(cells) = nb.get("cells").and_then(Value::as_array) else {
        return Err(malformed(if nb.get("worksheets").is_some() {
            "nbformat 3 (open and save it in Jupyter to upgrade it)".into()
        } else {
            "no cells".into()
        }));
    };
    let lang = ["/metadata/kernelspec/language", "/metadata/language_info/name"]
        .iter()
        .find_map(|p| nb.pointer(p).and_then(Value::as_str))
        .unwrap_or("");
    let mut md = String::new();
    for cell in cells {
        let source = joined(cell.get("source"));
        match cell.get("cell_type").and_then(Value::as_str) {
            Some("markdown") => md.push_str(&format!("{}\n\n", source.trim_end())),
            Some("code") => {
                fence(&mut md, lang, &source);
                let outputs = cell.get("outputs").and_then(Value::as_array).into_iter().flatten();
                for text in outputs.filter_map(output_text) {
                    fence(&mut md, "output", &cut(&plain(&text)));
                }
            }
            Some("raw") => fence(&mut md, "", &source),
            _ => {}
        }
    }
    Ok(markdown::extract(name, &md))
}

/// A cell's text: nbformat stores it as one string or a list of lines.
fn joined(v: Option<&Value>) -> String {
    match v {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(lines)) => lines.iter().filter_map(Value::as_str).collect(),
        _ => String::new(),
    }
}

/// What an output shows as text: standard output, or a result's plain-text
/// form unless it is a picture's (`<Figure size 640x480 with 1 Axes>`).
fn output_text(out: &Value) -> Option<String> {
    match out.get("output_type").and_then(Value::as_str)? {
        "stream" if out.get("name").and_then(Value::as_str) == Some("stdout") => Some(joined(out.get("text"))),
        "execute_result" | "display_data" => {
            let data = out.get("data")?.as_object()?;
            if data.keys().any(|k| k.starts_with("image/")) {
                return None;
            }
            Some(joined(data.get("text/plain")))
        }
        _ => None,
    }
}

/// `text` in a fenced block, the fence longer than any backtick run in it.
fn fence(md: &mut String, info: &str, text: &str) {
    let text = text.trim_end();
    if text.trim().is_empty() {
        return;
    }
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let ticks = "`".repeat(longest.max(2) + 1);
    md.push_str(&format!("{ticks}{info}\n{text}\n{ticks}\n\n"));
}

/// Terminal colour and cursor codes (`ESC [ … letter`) taken out, and a
/// carriage-return redraw kept at its last state.
fn plain(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' && chars.peek() == Some(&'[') {
            chars.by_ref().find(|c| c.is_ascii_alphabetic());
        } else {
            out.push(c);
        }
    }
    out.lines().map(|l| l.rsplit('\r').next().unwrap_or("")).collect::<Vec<_>>().join("\n")
}

fn cut(text: &str) -> String {
    match text.char_indices().nth(OUTPUT_CHARS) {
        Some((at, _)) => format!("{} …", &text[..at]),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ragpipe_core::BlockKind;

    #[test]
    fn cells_in_order_with_text_outputs_only() {
        let nb = r##"{"nbformat": 4, "metadata": {"kernelspec": {"language": "python"}},
          "cells": [
            {"cell_type": "markdown", "source": ["# Churn\n", "Why customers leave."]},
            {"cell_type": "code", "source": "print('x')", "outputs": [
              {"output_type": "stream", "name": "stdout", "text": ["\u001b[31mred\u001b[0m 42\n"]},
              {"output_type": "stream", "name": "stderr", "text": "DeprecationWarning: old"},
              {"output_type": "display_data", "data": {"image/png": "iVBOR", "text/plain": "<Figure size 640x480>"}},
              {"output_type": "execute_result", "data": {"text/plain": "'a ``` b'"}},
              {"output_type": "error", "ename": "KeyError", "traceback": ["boom"]}]},
            {"cell_type": "code", "source": [], "outputs": []}]}"##;
        let doc = extract("churn.ipynb", nb).unwrap();
        assert_eq!(doc.title, "Churn");
        let blocks: Vec<(&BlockKind, &str)> = doc.blocks.iter().map(|b| (&b.kind, doc.slice(b))).collect();
        assert_eq!(
            blocks,
            [
                (&BlockKind::Heading { level: 1 }, "Churn"),
                (&BlockKind::Paragraph, "Why customers leave."),
                (&BlockKind::Code, "print('x')"),
                (&BlockKind::Code, "red 42"),
                (&BlockKind::Code, "'a ``` b'"),
            ]
        );
    }

    #[test]
    fn damaged_and_old_notebooks_fail_with_a_reason() {
        let err = |s: &str| extract("a.ipynb", s).unwrap_err().to_string();
        assert!(err("{\"cells\": [").starts_with("malformed notebook: not JSON: "));
        assert_eq!(
            err(r#"{"worksheets": []}"#),
            "malformed notebook: nbformat 3 (open and save it in Jupyter to upgrade it)"
        );
        assert_eq!(plain("10%\r50%\r100%\ndone"), "100%\ndone");
        assert_eq!(cut(&"é".repeat(OUTPUT_CHARS + 5)).chars().count(), OUTPUT_CHARS + 2);
    }
}
