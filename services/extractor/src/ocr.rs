//! OCR inside the extraction child: the settings that cross the pipe, and
//! the PP-OCRv6 engine behind the extractor's [`PageReader`] port.
//!
//! Why in the child: the pages are decoded from untrusted bytes (image and
//! PDF decoders) and read by native inference for seconds each, so OCR gets
//! the isolation every parser gets, with a wall clock and address space
//! raised for it (see [`OcrSettings::extra_time`]). The engine is loaded on
//! the first page that needs it, so a PDF with a text layer never pays for it.

use ragpipe_config::Config;
use ragpipe_extract::PageReader;
use ragpipe_ocr::{Engine, EngineOptions, GrayImage, PageText};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::time::Duration;

/// Where the models are and how to run them, as the child is told.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OcrSettings {
    pub dir: PathBuf,
    /// The ONNX Runtime library.
    pub runtime: PathBuf,
    pub threads: usize,
    pub det_max_side: u32,
    pub low_confidence: f32,
    pub max_image_pixels: u64,
    pub seconds_per_page: f64,
    /// Extra address space of an OCR child, bytes.
    pub extra_memory_bytes: u64,
}

/// The smallest a scanned page is stored in (CCITT G4 at 200 dpi is
/// ~20-40 KiB; JPEG and Flate pages are larger): the page count a file's
/// size stands for, erring long, when the child's clock is set.
const MIN_PAGE_BYTES: u64 = 20 << 10;

impl OcrSettings {
    /// From `[ocr]` (None when `engine = "off"`).
    pub fn from_config(config: &Config) -> Option<Self> {
        let o = &config.ocr;
        if !o.enabled() {
            return None;
        }
        let dir = o
            .dir
            .clone()
            .unwrap_or_else(|| ragpipe_embed::ModelFiles::cache_root().join("models").join(ragpipe_ocr::MODEL_LABEL));
        let threads =
            if o.threads == 0 { std::thread::available_parallelism().map_or(1, |n| n.get()) } else { o.threads };
        Some(OcrSettings {
            dir,
            runtime: ragpipe_embed::ModelFiles::runtime_path(config.model.runtime.as_deref()),
            threads,
            det_max_side: o.det_max_side,
            low_confidence: o.low_confidence,
            max_image_pixels: o.max_image_megapixels.saturating_mul(1_000_000),
            seconds_per_page: o.seconds_per_page,
            extra_memory_bytes: o.memory_mib << 20,
        })
    }

    /// What an OCR'd document records (`ocr:pp-ocrv6-small/1600`): a change
    /// of model or detection size makes its text stale.
    pub fn label(&self) -> String {
        format!("ocr:{}/{}", ragpipe_ocr::MODEL_LABEL, self.det_max_side)
    }

    /// The wall clock a file of `bytes` (of at most `max_pages` pages) gets
    /// beyond the base timeout.
    pub fn extra_time(&self, bytes: u64, max_pages: u32) -> Duration {
        let pages = (bytes / MIN_PAGE_BYTES).clamp(1, u64::from(max_pages.max(1)));
        Duration::from_secs_f64(pages as f64 * self.seconds_per_page)
    }

    /// Loads the engine (in the child, or on a blocking thread in-process).
    pub fn load(&self) -> Result<Engine, String> {
        let env = ragpipe_embed::runtime_environment(&self.runtime).map_err(|e| e.to_string())?;
        let opts = EngineOptions { threads: self.threads, det_max_side: self.det_max_side, ..EngineOptions::default() };
        Engine::load(&self.dir, &env, opts).map_err(|e| e.to_string())
    }
}

/// The engine as the extractor's port, loaded on the first page.
pub struct OcrReader<'a> {
    settings: &'a OcrSettings,
    engine: Option<Engine>,
}

impl<'a> OcrReader<'a> {
    pub fn new(settings: &'a OcrSettings) -> Self {
        OcrReader { settings, engine: None }
    }
}

impl PageReader for OcrReader<'_> {
    fn read(&mut self, page: &GrayImage) -> Result<PageText, String> {
        let engine = match &mut self.engine {
            Some(e) => e,
            None => self.engine.insert(self.settings.load()?),
        };
        engine.read(page).map_err(|e| e.to_string())
    }

    fn low_confidence(&self) -> f32 {
        self.settings.low_confidence
    }
}
