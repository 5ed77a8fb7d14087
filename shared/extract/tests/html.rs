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

fn document_of(path: &str) -> ragpipe_core::Document {
    let full = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    extract(Kind::Html, path, &std::fs::read(&full).unwrap()).unwrap()
}

fn headings(doc: &ragpipe_core::Document) -> Vec<&str> {
    doc.blocks
        .iter()
        .filter(|b| matches!(b.kind, ragpipe_core::BlockKind::Heading { .. }))
        .map(|b| &doc.text[b.range.clone()])
        .collect()
}

/// The same manual made by three generators (fixtures/html/make.sh): each
/// page reads as its chapter alone, without the links to the pages around
/// it or the permalink signs in its headings.
#[test]
fn manual_pages_read_without_their_navigation() {
    const RETRIES: &str = "A message that fails is retried five times, with a delay that doubles each time, before \
                           it is moved to the dead-letter queue.";
    for page in ["sphinx-retries.html", "texinfo.html", "docbook-retries.html"] {
        let doc = document_of(&format!("tests/fixtures/html/{page}"));
        let text = doc.text.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(text.contains(RETRIES), "{page}: {text}");
        for chrome in ["Next", "Prev", "Up:", "Home", "¶", "next |", "index", "modules", "Quick search"] {
            assert!(!text.contains(chrome), "{page} keeps {chrome:?}: {text}");
        }
    }
    // DocBook's tables name the chapters before and after: a question about
    // monitoring must not find the retries chapter by its footer.
    let docbook = document_of("tests/fixtures/html/docbook-retries.html");
    assert!(!docbook.text.contains("Monitoring"), "{}", docbook.text);
    assert_eq!(
        headings(&docbook),
        ["Chapter 2. Retries and dead letters", "Backoff", "Inspecting dead letters", "Replaying dead letters"]
    );

    let sphinx = document_of("tests/fixtures/html/sphinx-retries.html");
    assert_eq!(
        headings(&sphinx),
        ["Retries and dead letters", "Settings", "Inspecting dead letters", "Replaying dead letters"]
    );
    assert!(sphinx.text.contains("--max-retries N\n"), "{}", sphinx.text);

    let texinfo = document_of("tests/fixtures/html/texinfo.html");
    assert!(texinfo.text.contains("Run relay start with a configuration file."), "{}", texinfo.text);
    assert_eq!(
        headings(&texinfo),
        [
            "Relay operator guide",
            "Relay operator guide",
            "1 Starting the relay",
            "2 Retries and dead letters",
            "2.1 Inspecting dead letters",
            "2.2 Replaying dead letters"
        ]
    );
    // Each page's own table of contents (DocBook's chapter contents,
    // texinfo's `@contents`, Sphinx's `contents` topic) is left out with
    // its title: every section is named once, by its heading.
    for doc in [&docbook, &sphinx, &texinfo] {
        assert!(!doc.text.contains("Table of Contents") && !doc.text.contains("On this page"), "{}", doc.text);
        assert_eq!(doc.text.matches("Replaying dead letters").count(), 1, "{}", doc.text);
    }
}

/// A word processor's table of contents in HTML, each entry a paragraph
/// whose link reads as its heading followed by the page number
/// (`Scheduling 2`): LibreOffice's export (`writer-contents.html`, the
/// entries in a `div` with their title) and pandoc's reading of the `.docx`
/// (`pandoc-contents.html`, paragraphs of the body one after another). It
/// goes with its title; each heading is then named once, where its section
/// starts.
#[test]
fn a_word_processors_contents_is_left_out() {
    for file in ["writer-contents.html", "pandoc-contents.html"] {
        let doc = document_of(&format!("tests/fixtures/html/{file}"));
        assert!(!doc.text.contains("Table of Contents"), "{file}: {}", doc.text);
        for heading in ["Before the visit", "Scheduling", "Spare parts", "Diagnosis", "Reporting"] {
            assert_eq!(doc.text.matches(heading).count(), 1, "{file}, {heading}: {}", doc.text);
        }
        assert!(headings(&doc).ends_with(&["After the visit", "Reporting"]), "{file}: {:?}", headings(&doc));
        assert!(doc.text.contains("This handbook is for technicians who visit customer sites."), "{file}");
        assert!(doc.text.contains("Confirm the appointment window with the customer"), "{file}: {}", doc.text);
    }
}

/// Real manuals: Debian's reference (DocBook) and the GNU bc manual
/// (texinfo), as in the evaluation corpora.
#[test]
fn real_manuals_lose_their_navigation_not_their_text() {
    let debref = text_of("../../eval/corpus-es/debref-ch03-inicializacion.html");
    for chrome in ["Anterior", "Siguiente", "Subir", "Inicio", "Capítulo 4. Authentication"] {
        assert!(!debref.contains(chrome), "keeps {chrome:?}");
    }
    assert!(debref.contains("Capítulo 3. La inicialización del sistema"));
    // The chapter's table of contents goes; its sections stay, once each.
    assert!(!debref.contains("Tabla de contenidos"));
    assert_eq!(debref.matches("3.1.1. Stage 1: the UEFI").count(), 1);
    let bc = text_of("../../eval/corpus/bc-manual.html");
    assert!(!bc.contains("Previous:") && !bc.contains("Next:"));
    assert!(bc.contains("bc is a language that supports arbitrary precision numbers"));
}
