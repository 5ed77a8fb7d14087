//! The engine on real scans (fixtures/README.md): the text it reads must be
//! within a small character error rate of what a person reads there, in
//! reading order, with every line's box on the page.

use ragpipe_ocr::score::cer;
use ragpipe_ocr::{DecodeLimits, Engine, EngineOptions, PageText, decode_pages};
use std::path::PathBuf;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name)
}

/// The provisioning cache (scripts/provision-model.sh, provision-ocr.sh).
fn cache() -> PathBuf {
    std::env::var_os("RAGPIPE_CACHE")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(std::env::var_os("HOME").unwrap()).join(".cache/ragpipe"))
}

/// ONNX Runtime: `ORT_DYLIB_PATH`, else the library provision-model.sh put in the cache.
fn runtime() -> PathBuf {
    if let Some(path) = std::env::var_os("ORT_DYLIB_PATH") {
        return path.into();
    }
    let dir = cache().join("onnxruntime");
    let found = std::fs::read_dir(&dir).ok().into_iter().flatten().flatten().map(|e| e.path());
    found
        .filter(|p| p.file_name().is_some_and(|n| n.to_string_lossy().starts_with("libonnxruntime.so.")))
        .max()
        .unwrap_or_else(|| panic!("no libonnxruntime.so.* in {} (run scripts/provision-model.sh)", dir.display()))
}

fn engine() -> Engine {
    let dir = std::env::var_os("RAGPIPE_OCR_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| cache().join("models").join(ragpipe_ocr::MODEL_LABEL));
    // One ONNX Runtime environment per process, shared by the tests.
    static ENV: std::sync::OnceLock<ort::environment::Environment> = std::sync::OnceLock::new();
    let env = ENV.get_or_init(|| ort::init_from(runtime()).unwrap().with_name("ragpipe-ocr-tests").build().unwrap());
    Engine::load(&dir, env, EngineOptions { threads: 2, ..EngineOptions::default() })
        .unwrap_or_else(|e| panic!("{e} (scripts/provision-ocr.sh provisions the model)"))
}

fn read(engine: &mut Engine, name: &str) -> PageText {
    let bytes = std::fs::read(fixture(name)).unwrap();
    let mut pages = decode_pages(&bytes, DecodeLimits::default()).unwrap();
    let page = pages.next().unwrap().unwrap();
    assert!(pages.next().is_none());
    engine.read(&page).unwrap()
}

fn text(page: &PageText) -> String {
    page.lines.iter().map(|l| l.text.as_str()).collect::<Vec<_>>().join("\n")
}

fn reference(name: &str) -> String {
    std::fs::read_to_string(fixture(name)).unwrap()
}

#[test]
fn scans_read_within_a_small_error_rate_in_reading_order() {
    let mut engine = engine();
    // (image, reference, the CER it must stay under)
    for (image, truth, max) in [
        ("eurotext.png", "eurotext.txt", 0.02),
        ("eurotext.gif", "eurotext.txt", 0.02),
        ("eurotext.bmp", "eurotext.txt", 0.02),
        ("typewriter.png", "typewriter.txt", 0.02),
        ("linn.png", "linn.txt", 0.03),
    ] {
        let page = read(&mut engine, image);
        let got = text(&page);
        let rate = cer(&reference(truth), &got);
        eprintln!("{image}: CER {:.4}, confidence {:.3}\n{got}\n", rate, page.confidence());
        assert!(rate <= max, "{image}: CER {rate:.4} over {max}:\n{got}");
        assert!(page.confidence() > 0.8, "{image}: confidence {}", page.confidence());
        for l in &page.lines {
            assert!(l.rect.right() <= page.width && l.rect.bottom() <= page.height && l.rect.w > 0, "{l:?}");
        }
    }
}

#[test]
fn a_line_is_found_where_it_is_printed() {
    let mut engine = engine();
    let page = read(&mut engine, "eurotext.png");
    // "salta sobre o cão preguiçoso." is the last line, at about y 620-660
    // of the 1024 × 800 scan, starting near x 100.
    let last = page.lines.last().unwrap();
    assert!(last.text.contains("preguiçoso"), "{last:?}");
    assert!((90..=110).contains(&last.rect.x) && (600..=640).contains(&last.rect.y), "{last:?}");
    assert!(last.rect.h < 80 && last.rect.w > 500, "{last:?}");
}

#[test]
fn bad_bytes_have_reasons_not_panics() {
    // An icon is an image, not a scan.
    let err = decode_pages(&[0, 0, 1, 0, 1, 0, 16, 16], DecodeLimits::default()).err().unwrap();
    assert_eq!(err.to_string(), "unsupported image: ico images are not read");
    let err = decode_pages(b"hello", DecodeLimits::default()).err().unwrap();
    assert_eq!(err.to_string(), "unsupported image: not a PNG, JPEG, TIFF, WebP, GIF or BMP image");
    let gif = std::fs::read(fixture("eurotext.gif")).unwrap();
    let err = decode_pages(&gif[..4000], DecodeLimits::default()).unwrap().next().unwrap().unwrap_err();
    assert!(err.to_string().starts_with("unsupported image: "), "{err}");
    let png = std::fs::read(fixture("eurotext.png")).unwrap();
    let small = DecodeLimits { max_pixels: 100_000, max_pages: 10 };
    let err = decode_pages(&png, small).unwrap().next().unwrap().unwrap_err();
    assert_eq!(err.to_string(), "image too large: 1024 × 800 pixels exceeds 0.1 megapixels (max_image_megapixels)");
    let err = decode_pages(&png[..2000], DecodeLimits::default()).unwrap().next().unwrap().unwrap_err();
    assert!(err.to_string().starts_with("unsupported image: "), "{err}");
}
