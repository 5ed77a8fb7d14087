//! What each syntax node means, per language. The walker in `items` is the
//! same for every grammar; the only language knowledge is here: which node
//! kinds are items (and how a reader names them in a header), which are
//! comments or attributes that belong to the next item, and where an item
//! keeps its inner items.

use tree_sitter::{Language, Node};

/// The role of one node among its siblings.
pub(super) enum Role<'t> {
    /// A named item (function, method, class, impl block…). `name` is how a
    /// reader calls it (`fn bar`, `impl Display for Foo`, `class Foo`);
    /// `body` holds its inner items, if it can have any.
    Item { name: String, body: Option<Node<'t>> },
    /// A comment, attribute or decorator that belongs to the item after it.
    /// Attributes and decorators (`sticky`) always do; comments only when no
    /// blank line separates them from it.
    Lead { sticky: bool },
    /// A wrapper whose children are read as siblings of its own (Java's
    /// `enum_body_declarations` holds an enum's methods).
    Inline,
    /// Everything else: imports, constants, fields, statements.
    Code,
}

/// Reads one node of a file's source.
type RoleFn = for<'t> fn(Node<'t>, &str) -> Role<'t>;

/// A grammar and the role table for its nodes.
pub(super) struct Lang {
    pub language: fn() -> Language,
    pub role: RoleFn,
}

/// The grammar for a file extension; `None` for code without one, which the
/// extractor reads as blank-line-separated blocks instead.
pub(super) fn for_extension(ext: &str) -> Option<Lang> {
    let (language, role): (fn() -> Language, RoleFn) = match ext {
        "rs" => (|| tree_sitter_rust::LANGUAGE.into(), rust),
        "py" | "pyi" => (|| tree_sitter_python::LANGUAGE.into(), python),
        "go" => (|| tree_sitter_go::LANGUAGE.into(), go),
        "js" | "jsx" | "mjs" | "cjs" => (|| tree_sitter_javascript::LANGUAGE.into(), script),
        "ts" | "mts" | "cts" => (|| tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(), script),
        "tsx" => (|| tree_sitter_typescript::LANGUAGE_TSX.into(), script),
        "java" => (|| tree_sitter_java::LANGUAGE.into(), java),
        _ => return None,
    };
    Some(Lang { language, role })
}

fn rust<'t>(n: Node<'t>, src: &str) -> Role<'t> {
    let body = n.child_by_field_name("body");
    match n.kind() {
        // Inner doc comments (`//!`) document the enclosing module, not the next item.
        "line_comment" | "block_comment" if text(n, src).starts_with("//!") || text(n, src).starts_with("/*!") => {
            Role::Code
        }
        "line_comment" | "block_comment" => Role::Lead { sticky: false },
        "attribute_item" => Role::Lead { sticky: true },
        "function_item" | "function_signature_item" => item("fn", n, src, body),
        "struct_item" => item("struct", n, src, None),
        "enum_item" => item("enum", n, src, None),
        "union_item" => item("union", n, src, None),
        "trait_item" => item("trait", n, src, body),
        "macro_definition" => item("macro_rules!", n, src, None),
        // `mod foo;` only declares a file; it is code between items.
        "mod_item" if body.is_some() => item("mod", n, src, body),
        "impl_item" => {
            let ty = field(n, "type", src);
            let name = match n.child_by_field_name("trait") {
                Some(t) => format!("impl {} for {ty}", squash(text(t, src))),
                None => format!("impl {ty}"),
            };
            Role::Item { name, body }
        }
        _ => Role::Code,
    }
}

fn python<'t>(n: Node<'t>, src: &str) -> Role<'t> {
    match n.kind() {
        "comment" => Role::Lead { sticky: false },
        "function_definition" => item("def", n, src, n.child_by_field_name("body")),
        "class_definition" => item("class", n, src, n.child_by_field_name("body")),
        // The decorators are part of this node, so the item starts at them.
        "decorated_definition" => n.child_by_field_name("definition").map_or(Role::Code, |d| only_item(python(d, src))),
        _ => Role::Code,
    }
}

fn go<'t>(n: Node<'t>, src: &str) -> Role<'t> {
    match n.kind() {
        "comment" => Role::Lead { sticky: false },
        "function_declaration" => item("func", n, src, None),
        // Go methods live at top level; the receiver type is their enclosing context.
        "method_declaration" => {
            let receiver = n
                .child_by_field_name("receiver")
                .and_then(|r| r.named_child(0))
                .and_then(|p| p.child_by_field_name("type"))
                .map_or_else(String::new, |t| squash(text(t, src)));
            Role::Item { name: format!("func ({receiver}) {}", field(n, "name", src)), body: None }
        }
        "type_declaration" => {
            let mut cursor = n.walk();
            let names: Vec<String> = n
                .named_children(&mut cursor)
                .filter_map(|s| s.child_by_field_name("name"))
                .map(|t| squash(text(t, src)))
                .collect();
            Role::Item { name: format!("type {}", names.join(", ")), body: None }
        }
        _ => Role::Code,
    }
}

fn java<'t>(n: Node<'t>, src: &str) -> Role<'t> {
    let body = n.child_by_field_name("body");
    match n.kind() {
        "line_comment" | "block_comment" => Role::Lead { sticky: false },
        "class_declaration" => item("class", n, src, body),
        "interface_declaration" => item("interface", n, src, body),
        "enum_declaration" => item("enum", n, src, body),
        "record_declaration" => item("record", n, src, body),
        "annotation_type_declaration" => item("@interface", n, src, body),
        // Annotations and modifiers are inside these nodes already.
        "method_declaration" | "constructor_declaration" | "compact_constructor_declaration" => {
            Role::Item { name: format!("{}()", field(n, "name", src)), body: None }
        }
        "enum_body_declarations" => Role::Inline,
        _ => Role::Code,
    }
}

/// JavaScript, TypeScript and TSX share node kinds; one table serves all three.
fn script<'t>(n: Node<'t>, src: &str) -> Role<'t> {
    let body = n.child_by_field_name("body");
    match n.kind() {
        "comment" => Role::Lead { sticky: false },
        "decorator" => Role::Lead { sticky: true },
        "function_declaration" | "generator_function_declaration" | "function_signature" => {
            item("function", n, src, body)
        }
        "class_declaration" | "abstract_class_declaration" | "class" => item("class", n, src, body),
        "interface_declaration" => item("interface", n, src, None),
        "type_alias_declaration" => item("type", n, src, None),
        "enum_declaration" => item("enum", n, src, None),
        "internal_module" => item("namespace", n, src, body),
        "module" => item("module", n, src, body),
        "method_definition" | "abstract_method_signature" => {
            Role::Item { name: format!("{}()", field(n, "name", src)), body }
        }
        // `export …` and `declare …` wrap a declaration: the item is the whole
        // statement, named after what it declares.
        "export_statement" => n.child_by_field_name("declaration").map_or(Role::Code, |d| only_item(script(d, src))),
        "ambient_declaration" => n.named_child(0).map_or(Role::Code, |d| only_item(script(d, src))),
        // TypeScript parses `namespace X {}` as an expression statement.
        "expression_statement" => match n.named_child(0) {
            Some(d) if n.named_child_count() == 1 && d.kind() == "internal_module" => script(d, src),
            _ => Role::Code,
        },
        "lexical_declaration" | "variable_declaration" => declared_function(n, src),
        _ => Role::Code,
    }
}

/// `const handler = async (req) => {…}`: a function or class bound to a
/// single name is an item named after the binding (`const handler`); any
/// other declaration is code between items.
fn declared_function<'t>(n: Node<'t>, src: &str) -> Role<'t> {
    let mut cursor = n.walk();
    let declarators: Vec<Node<'t>> =
        n.named_children(&mut cursor).filter(|c| c.kind() == "variable_declarator").collect();
    let [declarator] = declarators[..] else {
        return Role::Code;
    };
    let Some(value) = declarator.child_by_field_name("value") else {
        return Role::Code;
    };
    let function_like = ["arrow_function", "function_expression", "function", "generator_function", "class"];
    if !function_like.contains(&value.kind()) {
        return Role::Code;
    }
    let keyword = n.child(0).map_or("const", |k| text(k, src));
    Role::Item {
        name: format!("{keyword} {}", field(declarator, "name", src)),
        body: value.child_by_field_name("body"),
    }
}

/// A wrapper is an item only if what it wraps is one.
fn only_item(role: Role<'_>) -> Role<'_> {
    match role {
        Role::Item { .. } => role,
        _ => Role::Code,
    }
}

fn item<'t>(keyword: &str, n: Node<'t>, src: &str, body: Option<Node<'t>>) -> Role<'t> {
    let name = match n.child_by_field_name("name") {
        Some(name) => format!("{keyword} {}", squash(text(name, src))),
        None => keyword.to_string(),
    };
    Role::Item { name, body }
}

fn field(n: Node<'_>, name: &str, src: &str) -> String {
    n.child_by_field_name(name).map_or_else(|| "_".to_string(), |f| squash(text(f, src)))
}

fn text<'s>(n: Node<'_>, src: &'s str) -> &'s str {
    &src[n.byte_range()]
}

/// Names go into one-line headers: whitespace collapsed, and capped so a
/// long generic type cannot eat the token budget.
fn squash(s: &str) -> String {
    const MAX_CHARS: usize = 80;
    let one_line = s.split_whitespace().collect::<Vec<_>>().join(" ");
    match one_line.char_indices().nth(MAX_CHARS) {
        Some((cut, _)) => format!("{}…", &one_line[..cut]),
        None => one_line,
    }
}
