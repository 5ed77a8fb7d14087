//! Source code, split by syntax with tree-sitter.
//!
//! The canonical text is the file itself, as decoded (line endings become
//! `\n`), so a chunk's `#L` lines and `#char` range point into the file a
//! developer opens. The title is the file's path as the source names it.
//!
//! Rust, Python, Go, JavaScript (and JSX), TypeScript, TSX and Java are parsed;
//! their blocks are items and the code between them, as `items` describes.
//! tree-sitter recovers from syntax errors, so a file that does not compile
//! still yields blocks; what it could not make sense of is code between items.
//! Other languages recognised by extension (C, C++, Ruby, shell, SQL, TOML,
//! YAML…) have no grammar here and are read as blank-line-separated blocks:
//! [`BlockKind::Paragraph`]s of the verbatim lines, never reflowed.

mod items;
mod lang;

use crate::ExtractError;
use ragpipe_core::{Block, BlockKind, Document, Kind};
use std::ops::Range;

/// Extensions read as source code: those with a grammar (see
/// [`lang::for_extension`]), and common ones without, which fall back to
/// blank-line blocks.
pub(crate) const EXTENSIONS: &[&str] = &[
    "rs",
    "py",
    "pyi",
    "go",
    "js",
    "jsx",
    "mjs",
    "cjs",
    "ts",
    "mts",
    "cts",
    "tsx",
    "java",
    "c",
    "h",
    "cc",
    "cpp",
    "cxx",
    "hpp",
    "hh",
    "cs",
    "kt",
    "kts",
    "swift",
    "scala",
    "rb",
    "php",
    "pl",
    "lua",
    "sh",
    "bash",
    "zsh",
    "sql",
    "toml",
    "yaml",
    "yml",
    // Configuration and data read as text, cited by line.
    "json",
    "jsonc",
    "json5",
    "jsonl",
    "ndjson",
    "xml",
    "xsd",
    "xsl",
    "xslt",
    "ini",
    "cfg",
    "conf",
    "properties",
    "tf",
    "tfvars",
    "hcl",
    "proto",
    "graphql",
    "gql",
    "css",
    "scss",
    "sass",
    "less",
    // More languages, without a grammar here.
    "r",
    "dart",
    "vue",
    "svelte",
    "ps1",
    "psm1",
    "bat",
    "cmd",
    "mk",
    "cmake",
    "gradle",
    "groovy",
    "ex",
    "exs",
    "erl",
    "hs",
    "ml",
    "mli",
    "clj",
    "fs",
    "vb",
    "jl",
    "zig",
    "nim",
    "tcl",
    "awk",
    "m",
    "mm",
];

pub(crate) fn is_code_extension(ext: &str) -> bool {
    EXTENSIONS.contains(&ext) || lang::for_extension(ext).is_some()
}

/// Extracts a source file. Never fails on syntax: a file the grammar cannot
/// read (or that has no grammar) keeps every line in paragraph blocks.
pub(crate) fn extract(name: &str, source: &str) -> Result<Document, ExtractError> {
    let lines = Lines::new(source);
    let ext = crate::extension(name);
    let parsed = lang::for_extension(&ext).and_then(|lang| {
        let mut parser = tree_sitter::Parser::new();
        parser.set_language(&(lang.language)()).ok()?;
        let tree = parser.parse(source, None)?;
        Some(items::blocks(tree.root_node(), &lang, source, &lines))
    });
    let blocks = parsed.unwrap_or_else(|| paragraphs(&lines));
    Ok(Document {
        title: name.to_string(),
        kind: Kind::Code,
        text: source.to_string(),
        blocks,
        tables: Vec::new(),
        duration: None,
        regions: Vec::new(),
        ocr_pages: Vec::new(),
        warnings: Vec::new(),
    })
}

/// The fallback for code without a grammar: runs of non-blank lines.
fn paragraphs(lines: &Lines<'_>) -> Vec<Block> {
    let runs = lines.nonblank_runs(0..lines.count());
    runs.into_iter()
        .map(|(first, last)| Block { kind: BlockKind::Paragraph, range: lines.range(first, last), page: None })
        .collect()
}

/// Line starts of a text, to turn 0-based line numbers into byte ranges.
pub(super) struct Lines<'s> {
    text: &'s str,
    starts: Vec<usize>,
}

impl<'s> Lines<'s> {
    fn new(text: &'s str) -> Self {
        let starts = std::iter::once(0).chain(text.match_indices('\n').map(|(i, _)| i + 1)).collect();
        Lines { text, starts }
    }

    fn count(&self) -> usize {
        self.starts.len()
    }

    /// Bytes of lines `first..=last`, from the start of the first to the end
    /// of the last, without its newline.
    fn range(&self, first: usize, last: usize) -> Range<usize> {
        let end = self.starts.get(last + 1).map_or(self.text.len(), |next| next - 1);
        self.starts[first]..end
    }

    fn is_blank(&self, row: usize) -> bool {
        self.text[self.range(row, row)].trim().is_empty()
    }

    /// Maximal runs `(first, last)` of non-blank lines within `rows`.
    fn nonblank_runs(&self, rows: Range<usize>) -> Vec<(usize, usize)> {
        let mut runs: Vec<(usize, usize)> = Vec::new();
        for row in rows.start..rows.end.min(self.count()) {
            if self.is_blank(row) {
                continue;
            }
            match runs.last_mut() {
                Some(run) if run.1 + 1 == row => run.1 = row,
                _ => runs.push((row, row)),
            }
        }
        runs
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(doc: &Document) -> Vec<(String, &str)> {
        let name = |b: &Block| match &b.kind {
            BlockKind::CodeItem { path } => path.join(" > "),
            other => format!("{other:?}"),
        };
        doc.blocks.iter().map(|b| (name(b), doc.slice(b))).collect()
    }

    #[test]
    fn items_carry_their_docs_and_inner_items() {
        let src = "//! crate docs\nuse std::fmt;\n\n/// A thing.\n#[derive(Debug)]\npub struct Foo;\n\nimpl Foo {\n    /// Makes one.\n    fn new() -> Foo { Foo } // trailing\n\n    fn get(&self) {}\n}\n";
        let doc = extract("src/foo.rs", src).unwrap();
        let got = paths(&doc);
        let want = [
            ("Code", "//! crate docs\nuse std::fmt;"),
            ("struct Foo", "/// A thing.\n#[derive(Debug)]\npub struct Foo;"),
            ("impl Foo", &src[src.find("impl Foo").unwrap()..src.len() - 1]),
            ("impl Foo > fn new", "    /// Makes one.\n    fn new() -> Foo { Foo } // trailing"),
            ("impl Foo > fn get", "    fn get(&self) {}"),
        ];
        assert_eq!(got.iter().map(|(p, s)| (p.as_str(), *s)).collect::<Vec<_>>(), want);
        assert_eq!(doc.title, "src/foo.rs");
    }

    #[test]
    fn broken_syntax_and_unknown_languages_keep_every_line() {
        let doc = extract("a.py", "def f(:\n    return (\n\nclass A:\n    def g(self): pass\n").unwrap();
        let covered = |doc: &Document, line: &str| doc.blocks.iter().any(|b| doc.slice(b).contains(line));
        for line in ["def f(:", "return (", "def g(self): pass"] {
            assert!(covered(&doc, line), "{line} in a block of {:?}", paths(&doc));
        }
        let sh = extract("run.sh", "#!/bin/sh\n  set -e\n\n\necho hi\n").unwrap();
        assert_eq!(paths(&sh), [("Paragraph".into(), "#!/bin/sh\n  set -e"), ("Paragraph".into(), "echo hi")]);
    }
}
