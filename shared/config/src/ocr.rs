//! `[ocr]`: optical character recognition for image files and PDF pages
//! without a text layer (PP-OCRv6 on ONNX Runtime, in the extraction child).

use serde::Deserialize;
use std::path::PathBuf;

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct OcrConfig {
    /// `pp-ocrv6` (default) or `off` (image files and scanned PDFs fail as
    /// OCR disabled). Env: `RAGPIPE_OCR_ENGINE`.
    pub engine: String,
    /// The models' folder (default: the provisioning cache's
    /// `models/pp-ocrv6-small`, scripts/provision-ocr.sh). Env: `RAGPIPE_OCR_DIR`.
    pub dir: Option<PathBuf>,
    /// Intra-op threads of one page; 0 = all cores. Env: `RAGPIPE_OCR_THREADS`.
    pub threads: usize,
    /// The longest side, pixels, a page is scaled to for text detection
    /// (recognition always reads the full resolution).
    pub det_max_side: u32,
    /// Pages read with a lower mean character confidence (0-1) are
    /// reported as low-confidence.
    pub low_confidence: f32,
    /// Pixels of one page image, millions; a larger one fails as too large.
    pub max_image_megapixels: u64,
    /// Extraction seconds allowed per page image, on top of
    /// `limits.extract_timeout_secs`.
    pub seconds_per_page: f64,
    /// Address space an OCR child gets on top of `limits.extract_memory_mib`, MiB.
    pub memory_mib: u64,
}

impl Default for OcrConfig {
    fn default() -> Self {
        OcrConfig {
            engine: "pp-ocrv6".into(),
            dir: None,
            threads: 0,
            det_max_side: 1600,
            low_confidence: 0.8,
            max_image_megapixels: 50,
            seconds_per_page: 30.0,
            memory_mib: 2048,
        }
    }
}

impl OcrConfig {
    /// Whether OCR is on.
    pub fn enabled(&self) -> bool {
        self.engine != "off"
    }

    pub(crate) fn validate(&self) -> Result<(), String> {
        if !matches!(self.engine.as_str(), "pp-ocrv6" | "off") {
            return Err(format!("ocr.engine must be pp-ocrv6 or off, not {:?}", self.engine));
        }
        if !(64..=8192).contains(&self.det_max_side) {
            return Err(format!("ocr.det_max_side must be within 64..=8192, not {}", self.det_max_side));
        }
        if !(0.0..=1.0).contains(&self.low_confidence) {
            return Err(format!("ocr.low_confidence must be within 0..=1, not {}", self.low_confidence));
        }
        if self.max_image_megapixels == 0 {
            return Err("ocr.max_image_megapixels must be positive".into());
        }
        if self.seconds_per_page.is_nan() || self.seconds_per_page <= 0.0 {
            return Err(format!("ocr.seconds_per_page must be positive, not {}", self.seconds_per_page));
        }
        Ok(())
    }
}
