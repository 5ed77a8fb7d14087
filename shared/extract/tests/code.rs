//! The code extractor on real source files (see `fixtures/code/SOURCES.md`):
//! - every non-blank line is in exactly one top-level block, and blocks are
//!   whole lines, so a block's line numbers hold exactly its text;
//! - inner items sit inside their container and follow it, in order;
//! - items are found with the paths a reader would write, per language;
//! - doc comments, attributes, annotations and decorators start their item.

use ragpipe_core::{Block, BlockKind, Document, Kind};
use ragpipe_extract::{ExtractError, detect, extract};
use std::path::PathBuf;

fn fixture(name: &str) -> Document {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/code").join(name);
    let bytes = std::fs::read(&path).unwrap();
    assert_eq!(detect(name, &bytes), Ok(Kind::Code), "{name} is detected as code");
    let doc = extract(Kind::Code, name, &bytes).unwrap();
    check_structure(&doc);
    doc
}

fn path(block: &Block) -> Option<String> {
    match &block.kind {
        BlockKind::CodeItem { path } => Some(path.join(" > ")),
        _ => None,
    }
}

/// The text of the item block named `want` (a `" > "`-joined path).
fn item<'d>(doc: &'d Document, want: &str) -> &'d str {
    let block = doc.blocks.iter().find(|b| path(b).as_deref() == Some(want));
    doc.slice(block.unwrap_or_else(|| panic!("{want} not found in {}: {:?}", doc.title, paths(doc))))
}

fn paths(doc: &Document) -> Vec<String> {
    doc.blocks.iter().filter_map(path).collect()
}

/// Paths of the items directly at top level, in order.
fn top_level(doc: &Document) -> Vec<String> {
    doc.blocks.iter().filter_map(path).filter(|p| !p.contains(" > ")).collect()
}

fn check_structure(doc: &Document) {
    let text = &doc.text;
    assert!(!text.contains('\r'), "line endings are normalised");
    for b in &doc.blocks {
        let whole_start = b.range.start == 0 || text.as_bytes()[b.range.start - 1] == b'\n';
        let whole_end = b.range.end == text.len() || text.as_bytes()[b.range.end] == b'\n';
        assert!(whole_start && whole_end, "block {:?} of {} is whole lines", doc.slice(b), doc.title);
        assert!(!doc.slice(b).trim().is_empty(), "no empty block in {}", doc.title);
    }
    // Nesting: a block either follows its predecessors' ends or lies inside
    // an open container; inner items have longer paths than their container.
    let mut open: Vec<&Block> = Vec::new();
    let mut top: Vec<&Block> = Vec::new();
    for b in &doc.blocks {
        while open.last().is_some_and(|o| o.range.end < b.range.end) {
            open.pop();
        }
        match open.last() {
            Some(parent) => {
                assert!(parent.range.start < b.range.start, "inner item starts after its container's first line");
                let (Some(outer), Some(inner)) = (path(parent), path(b)) else {
                    panic!("only items nest in {}", doc.title);
                };
                assert!(inner.starts_with(&format!("{outer} > ")), "{inner} is inside {outer}");
                assert_eq!(inner.matches(" > ").count(), outer.matches(" > ").count() + 1);
            }
            None => {
                assert!(top.last().is_none_or(|t| t.range.end < b.range.start), "top-level blocks are disjoint");
                top.push(b);
            }
        }
        open.push(b);
    }
    // Every non-blank line is in exactly one top-level block.
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let body = line.trim_end_matches('\n');
        let holders = top.iter().filter(|b| b.range.start <= at && at + body.len() <= b.range.end).count();
        let expected = usize::from(!body.trim().is_empty());
        assert!(
            holders == expected || (expected == 0 && holders <= 1),
            "line {body:?} of {} in {holders} blocks",
            doc.title
        );
        at += line.len();
    }
}

#[test]
fn rust_items_impls_and_modules() {
    let doc = fixture("atomic_waker.rs");
    assert_eq!(doc.title, "atomic_waker.rs");
    assert_eq!(
        top_level(&doc),
        [
            "struct AtomicWaker",
            "impl AtomicWaker",
            "impl Default for AtomicWaker",
            "impl fmt::Debug for AtomicWaker",
            "impl Send for AtomicWaker",
            "impl Sync for AtomicWaker"
        ]
    );
    assert!(item(&doc, "struct AtomicWaker").starts_with("/// A synchronization primitive for task wakeup."));
    let register = item(&doc, "impl AtomicWaker > fn register");
    assert!(register.starts_with("    /// Registers the waker to be notified on calls to `wake`."));
    assert!(register.contains("    pub fn register(&self, waker: &Waker) {"));
    assert!(register.ends_with("\n    }"));
    let impl_block = item(&doc, "impl AtomicWaker");
    assert!(impl_block.starts_with("impl AtomicWaker {") && impl_block.ends_with("\n}"));
    for method in ["fn new", "fn register", "fn wake", "fn take"] {
        assert!(impl_block.contains(item(&doc, &format!("impl AtomicWaker > {method}"))));
    }
    // The module docs and imports before the first item are kept, as code.
    let head = doc.slice(&doc.blocks[0]);
    assert_eq!(doc.blocks[0].kind, BlockKind::Code);
    assert!(
        head.starts_with("//! `futures::task::AtomicWaker`") && head.ends_with("use portable_atomic::AtomicUsize;")
    );

    let hex = fixture("hex.rs");
    for p in [
        "trait ToHex > fn encode_hex",
        "impl Iterator for BytesToHexChars<'a> > fn size_hint",
        "impl ToHex for T > fn encode_hex_upper",
        "macro_rules! from_hex_array_impl",
        "mod test > fn test_from_hex_array",
    ] {
        assert!(paths(&hex).contains(&p.to_string()), "{p} in {:?}", paths(&hex));
    }
    assert!(item(&hex, "fn encode_to_iter").starts_with("#[inline]\nfn encode_to_iter"));
    assert!(item(&hex, "mod test").starts_with("#[cfg(test)]\nmod test {"));
    assert!(item(&hex, "mod test > fn test_encode").starts_with("    #[test]\n    #[cfg(feature = \"alloc\")]\n"));
    // A comment right above an item documents it; one set apart by a blank line does not.
    assert!(item(&hex, "macro_rules! from_hex_array_impl").starts_with("// Helper macro"));
}

#[test]
fn python_classes_methods_and_nested_functions() {
    let doc = fixture("textwrap.py");
    assert_eq!(
        top_level(&doc),
        ["class TextWrapper", "def wrap", "def fill", "def shorten", "def dedent", "def indent"]
    );
    let methods: Vec<String> = paths(&doc).into_iter().filter(|p| p.starts_with("class TextWrapper > ")).collect();
    assert_eq!(methods.len(), 9, "{methods:?}");
    assert!(
        item(&doc, "class TextWrapper > def wrap")
            .starts_with("    def wrap(self, text):\n        \"\"\"wrap(text : string) -> [string]")
    );
    assert!(
        item(&doc, "class TextWrapper")
            .starts_with("class TextWrapper:\n    \"\"\"\n    Object for wrapping/filling text.")
    );
    assert!(item(&doc, "def indent > def prefixed_lines").starts_with("    def prefixed_lines():"));
    let main = doc.slice(doc.blocks.last().unwrap());
    assert!(main.starts_with("if __name__ == \"__main__\":"), "module-level statements are kept: {main:?}");
}

#[test]
fn go_functions_methods_and_types() {
    let doc = fixture("errors.go");
    assert!(item(&doc, "func New").starts_with("// New returns an error with the supplied message.\n"));
    assert!(item(&doc, "func (*withStack) Unwrap").starts_with("// Unwrap provides compatibility"));
    assert!(item(&doc, "type withMessage").starts_with("type withMessage struct {"));
    assert_eq!(paths(&doc).iter().filter(|p| p.starts_with("func (*withMessage) ")).count(), 4);
    let stack = fixture("stack.go");
    assert!(
        item(&stack, "func (Frame) Format").starts_with("// Format formats the frame according to the fmt.Formatter")
    );
    assert!(item(&stack, "func (StackTrace) formatSlice").contains("func (st StackTrace) formatSlice("));
    assert!(stack.slice(&stack.blocks[0]).starts_with("package errors\n\nimport ("));
}

#[test]
fn javascript_and_typescript_classes_and_functions() {
    let js = fixture("queue.js");
    assert_eq!(top_level(&js), ["class Node", "class Queue"]);
    assert!(item(&js, "class Queue").starts_with("export default class Queue {"));
    for m in ["constructor()", "enqueue()", "dequeue()", "peek()", "clear()", "size()", "drain()"] {
        assert!(paths(&js).contains(&format!("class Queue > {m}")), "{m} in {:?}", paths(&js));
    }
    let ts = fixture("mutation.ts");
    assert!(item(&ts, "class Mutation").starts_with("/**"));
    assert!(item(&ts, "class Mutation").contains("\nexport class Mutation<"));
    assert!(item(&ts, "class Mutation > setOptions()").starts_with("  /**"));
    assert!(item(&ts, "class Mutation > execute()").contains("async execute("));
    assert!(item(&ts, "interface MutationState").starts_with("/**"));
    assert!(paths(&ts).contains(&"type Action".to_string()));
    assert!(item(&ts, "function getDefaultState").contains("export function getDefaultState<"));
    let tsx = fixture("HydrationBoundary.tsx");
    assert_eq!(top_level(&tsx), ["interface HydrationBoundaryProps", "const HydrationBoundary"]);
    assert!(item(&tsx, "const HydrationBoundary").contains("return children as React.ReactElement"));
}

#[test]
fn java_classes_constructors_and_methods() {
    let doc = fixture("StringJoiner.java");
    assert_eq!(top_level(&doc), ["class StringJoiner"]);
    let class = item(&doc, "class StringJoiner");
    assert!(class.starts_with("/**\n * {@code StringJoiner}") && class.contains("\npublic final class StringJoiner {"));
    assert!(item(&doc, "class StringJoiner > add()").starts_with("    /**\n     * Adds a copy"));
    assert!(item(&doc, "class StringJoiner > toString()").contains("    @Override\n    public String toString() {"));
    assert_eq!(paths(&doc).iter().filter(|p| p.as_str() == "class StringJoiner > StringJoiner()").count(), 2);
    assert!(doc.slice(&doc.blocks[0]).ends_with("import jdk.internal.access.SharedSecrets;"));
}

#[test]
fn languages_without_grammar_fall_back_to_blank_line_blocks() {
    let doc = fixture("xzmore.sh");
    assert!(doc.blocks.iter().all(|b| b.kind == BlockKind::Paragraph));
    assert_eq!(doc.slice(&doc.blocks[0]), "#!/bin/sh");
    let case = doc.blocks.iter().map(|b| doc.slice(b)).find(|s| s.starts_with("case $1 in")).unwrap();
    assert!(case.contains("\n\t--help)"), "indentation is kept verbatim: {case:?}");
    for ext in ["c", "h", "cpp", "rb", "toml", "yaml"] {
        assert_eq!(detect(&format!("x.{ext}"), b"a = 1\n"), Ok(Kind::Code), ".{ext}");
    }
}

#[test]
fn crlf_broken_syntax_empty_and_binary_files() {
    let crlf = b"/// Doc.\r\nfn a() {}\r\n\r\nfn b() {\r\n    1\r\n}\r\n";
    let doc = extract(Kind::Code, "src/crlf.rs", crlf).unwrap();
    check_structure(&doc);
    assert_eq!(item(&doc, "fn a"), "/// Doc.\nfn a() {}");
    assert_eq!(item(&doc, "fn b"), "fn b() {\n    1\n}");

    let broken = b"class A {\n  m( {\n}\n\nfunction ok() { return 1 }\n}}}}\nconst x = ;\n";
    let doc = extract(Kind::Code, "broken.ts", broken).unwrap();
    check_structure(&doc);

    assert_eq!(extract(Kind::Code, "blank.py", b"\n  \n\n"), Err(ExtractError::NoText));
    assert_eq!(extract(Kind::Code, "empty.go", b""), Err(ExtractError::Empty));
    let binary = extract(Kind::Code, "lib.rs", b"fn main() {}\0\0\x01\x02").unwrap_err();
    assert_eq!(binary.to_string(), "not a text file: binary content (NUL bytes)");
}

#[test]
fn deeply_nested_items_do_not_exhaust_the_stack() {
    let depth = 3000;
    let mut src = String::new();
    for i in 0..depth {
        src.push_str(&" ".repeat(i));
        src.push_str(&format!("class C{i}:\n"));
    }
    src.push_str(&" ".repeat(depth));
    src.push_str("pass\n");
    let handle = std::thread::Builder::new().stack_size(256 * 1024);
    let doc = handle.spawn(move || extract(Kind::Code, "deep.py", src.as_bytes()).unwrap()).unwrap().join().unwrap();
    check_structure(&doc);
    assert!(paths(&doc).iter().all(|p| p.matches(" > ").count() < 30));
}
