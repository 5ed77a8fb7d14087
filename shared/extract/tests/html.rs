//! HTML extraction on real pages from the evaluation corpora.

use ragpipe_core::Kind;
use ragpipe_extract::extract;

fn text_of(path: &str) -> String {
    let full = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    let bytes = std::fs::read(&full).unwrap();
    extract(Kind::Html, path, &bytes).unwrap().text
}

/// DocBook XHTML (Debian's maint-guide) opens each section with
/// `<a id="…"/>`. Read as HTML that anchor stays open, and the parser's
/// recovery from the links nested in it used to drop the rest of a list:
/// every step after the first nested list of section 8.1 was missing.
#[test]
fn docbook_self_closing_anchors_lose_no_text() {
    let text = text_of("../../eval/corpus-es/maint-guide-update.html");
    for step in [
        "Añadir la información de la revisión en el inicio del archivo changelog",
        "Incluye la descripción (breve) del error y la solución",
        "Deberás repetir los pasos anteriores para cada una de las modificaciones",
        "Una vez que estes satisfecho, cambia el nombre de la distribución",
    ] {
        assert!(text.contains(step), "missing: {step}");
    }
}
