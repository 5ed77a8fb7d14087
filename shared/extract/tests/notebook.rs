//! A Jupyter notebook run by a real kernel (see `fixtures/notebook/make.py`):
//! its cells in order as one Markdown document, the text its code printed
//! or returned kept, pictures, warnings and redrawn progress left out; and
//! the reasons a damaged one fails with.

mod common;

use ragpipe_core::Kind;
use ragpipe_extract::{detect, extract};
use std::path::PathBuf;

fn fixture() -> Vec<u8> {
    std::fs::read(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/notebook/returns.ipynb")).unwrap()
}

#[test]
fn a_notebook_reads_as_its_cells_and_their_text_outputs() {
    let bytes = fixture();
    let kind = detect("analysis/returns.ipynb", &bytes).unwrap();
    assert_eq!(kind, Kind::Markdown);
    let doc = extract(kind, "analysis/returns.ipynb", &bytes).unwrap();
    assert_eq!(doc.title, "Warehouse returns analysis");
    let got = common::blocks(&doc);
    let reasons = "reasons = {'damaged in transit': 412, 'wrong size': 301, 'late delivery': 188, 'changed mind': 172}";
    assert_eq!(
        got[..3],
        common::owned(&[
            ("h1", "Warehouse returns analysis"),
            ("p", "Why parcels came back to the Leeds depot in the first quarter."),
            (
                "Code",
                &format!(
                    "{reasons}\ntotal = sum(reasons.values())\nfor reason, n in reasons.items():\n    print(f'{{reason}}: {{n}} returns ({{100 * n // total}} %)')"
                )
            ),
        ])
    );
    assert_eq!(got[3], ("Code".into(), "damaged in transit: 412 returns (38 %)\nwrong size: 301 returns (28 %)\nlate delivery: 188 returns (17 %)\nchanged mind: 172 returns (16 %)".into()));
    assert_eq!(
        got[4..6],
        common::owned(&[
            ("h2", "Findings"),
            ("p", "Most returns were parcels damaged in transit; the carrier switch in February halved them.")
        ])
    );
    assert!(got.contains(&("Code".into(), "['damaged in transit', 'wrong size']".into())), "a result's text: {got:?}");
    assert_eq!(got.last().unwrap().1, "reconciled 100 %", "a redrawn line at its last state");
    for left_out in ["UserWarning", "IPython.core.display.Image", "reconciled 25", "\u{1b}"] {
        assert!(!doc.text.contains(left_out), "{left_out}: {}", doc.text);
    }
}

#[test]
fn a_damaged_notebook_fails_with_a_reason() {
    let bytes = fixture();
    let half = &bytes[..bytes.len() / 2];
    let err = extract(detect("returns.ipynb", half).unwrap(), "returns.ipynb", half).unwrap_err().to_string();
    assert!(err.starts_with("malformed notebook: not JSON: EOF while parsing"), "{err}");
    let no_cells = br#"{"nbformat": 4, "metadata": {}}"#;
    assert_eq!(extract(Kind::Markdown, "x.ipynb", no_cells).unwrap_err().to_string(), "malformed notebook: no cells");
    let empty = br#"{"nbformat": 4, "cells": [{"cell_type": "code", "source": "", "outputs": []}]}"#;
    assert_eq!(extract(Kind::Markdown, "x.ipynb", empty).unwrap_err().to_string(), "no text content");
}
