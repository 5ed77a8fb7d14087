//! Shared by the end-to-end tests: running the CLI for its JSON output, and
//! hand-built hostile PDFs.

#![allow(dead_code)] // each test binary uses its own part

pub mod deployment;
pub mod faults;
pub mod net;

use std::io::Write;
use std::process::Command;

/// A hand-built PDF page, for files no real tool would write.
#[derive(Default)]
pub struct Page<'a> {
    /// The content stream, zlib-compressed when `compressed`.
    pub content: &'a [u8],
    pub compressed: bool,
    /// The page's /Parent (default: the page tree, `2 0 R`).
    pub parent: Option<&'a str>,
    /// Spliced into the page dictionary.
    pub extra: &'a str,
    /// The content of a form XObject named `/Fm0` in the page resources.
    pub form: Option<&'a [u8]>,
}

/// A one-page PDF with a correct xref table.
pub fn one_page_pdf(page: Page<'_>) -> Vec<u8> {
    let stream = |dict: &str, data: &[u8]| {
        let head = format!("<< {dict} /Length {} >>\nstream\n", data.len());
        [head.as_bytes(), data, b"\nendstream"].concat()
    };
    let filter = if page.compressed { "/Filter /FlateDecode" } else { "" };
    let xobject = if page.form.is_some() { " /XObject << /Fm0 6 0 R >>" } else { "" };
    let mut objects: Vec<Vec<u8>> = vec![
        b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
        format!(
            "<< /Type /Pages /Kids [3 0 R] /Count 1 /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >>{xobject} >> >>"
        )
        .into_bytes(),
        format!("<< /Type /Page /Parent {} /Contents 4 0 R{} >>", page.parent.unwrap_or("2 0 R"), page.extra)
            .into_bytes(),
        stream(filter, page.content),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>".to_vec(),
    ];
    if let Some(form) = page.form {
        objects.push(stream("/Type /XObject /Subtype /Form /BBox [0 0 10 10]", form));
    }
    let mut pdf = b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n".to_vec();
    let mut offsets = Vec::new();
    for (i, body) in objects.iter().enumerate() {
        offsets.push(pdf.len());
        pdf.extend_from_slice(format!("{} 0 obj\n", i + 1).as_bytes());
        pdf.extend_from_slice(body);
        pdf.extend_from_slice(b"\nendobj\n");
    }
    let xref = pdf.len();
    pdf.extend_from_slice(format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).as_bytes());
    for o in offsets {
        pdf.extend_from_slice(format!("{o:010} 00000 n \n").as_bytes());
    }
    let trailer = format!("trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n", objects.len() + 1);
    pdf.extend_from_slice(trailer.as_bytes());
    pdf
}

/// zlib-compresses `chunk` repeated `times` times, without holding the whole.
pub fn deflated(chunk: &[u8], times: usize) -> Vec<u8> {
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
    for _ in 0..times {
        z.write_all(chunk).unwrap();
    }
    z.finish().unwrap()
}

/// Runs `cmd` (the ragpipe binary with its global flags) with `args`;
/// returns (exit code, stdout parsed as JSON), failing loudly with stderr.
pub fn run_json(mut cmd: Command, args: &[&str]) -> (i32, serde_json::Value) {
    let out = cmd.args(args).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let json = serde_json::from_str(&stdout).unwrap_or_else(|e| {
        panic!("{args:?}: {e}\nstdout: {stdout}\nstderr: {}", String::from_utf8_lossy(&out.stderr))
    });
    (out.status.code().unwrap_or(-1), json)
}

/// `ragpipe --data-dir DATA ARGS…` (after `pre`, e.g. `--config FILE`),
/// which must succeed, as JSON.
pub fn ragpipe_ok(data: &std::path::Path, pre: &[&str], args: &[&str]) -> serde_json::Value {
    let mut cmd = Command::new(ragpipe_integration_tests::ragpipe_bin());
    cmd.args(pre).arg("--data-dir").arg(data);
    let (code, json) = run_json(cmd, args);
    assert_eq!(code, 0, "{pre:?} {args:?}: {json}");
    json
}

/// `(file name, reason)` of every failed document in an `ingest --json`
/// summary, sorted by name.
/// `(file name, warning as JSON)` of each document of a `documents --warned
/// --json` page, sorted.
pub fn warnings(page: &serde_json::Value) -> Vec<(String, String)> {
    let mut warned: Vec<(String, String)> = page["documents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["source"].as_str().unwrap().rsplit('/').next().unwrap().to_string(), d["warning"].to_string()))
        .collect();
    warned.sort();
    warned
}

pub fn failure_reasons(summary: &serde_json::Value) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = summary["failed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let doc = f["document"].as_str().unwrap();
            (doc.rsplit('/').next().unwrap().to_string(), f["reason"].as_str().unwrap().to_string())
        })
        .collect();
    out.sort();
    out
}
