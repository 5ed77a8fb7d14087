//! A PDF whose pages are pictures (no text layer): each page's largest
//! image is taken out of the file as it is stored and read by OCR.
//!
//! What that covers, measured on real scans: JPEG (`DCTDecode`, what
//! colour and grey scanners and most "scan to PDF" software write, e.g.
//! OCRmyPDF's `c03-29.pdf`) and Flate-compressed grey, RGB or 1-bit pixels
//! (Ghostscript's `pdfimage8`, ImageMagick, img2pdf of PNGs). Not covered:
//! `JBIG2Decode`, `CCITTFaxDecode` and `JPXDecode` page images (1-bit office
//! scanners, JPEG 2000), which need a PDF renderer; such a page fails the
//! document with a reason that names the encoding. Only the image is read,
//! so rectangles are in pixels of that image.

use crate::ocr::{PageReader, assemble, decode_limits, ocr_error};
use crate::{ExtractError, Limits};
use pdf_extract::{Document as Pdf, Object};
use ragpipe_core::{Document, Kind};
use ragpipe_ocr::{GrayImage, PageText, decode};

pub(crate) fn extract(
    pdf: &Pdf,
    title: String,
    reader: &mut dyn PageReader,
    limits: &Limits,
) -> Result<Document, ExtractError> {
    let mut pages = Vec::new();
    for (number, id) in pdf.get_pages() {
        let image = page_image(pdf, id, number, limits)?;
        pages.push(match image {
            Some(image) => reader.read(&image).map_err(ExtractError::Malformed)?,
            None => PageText::default(),
        });
    }
    assemble(title, Kind::Pdf, &pages, reader.low_confidence())
}

/// The page's largest image, decoded to grey; `None` for a page without one.
fn page_image(
    pdf: &Pdf,
    id: pdf_extract::ObjectId,
    number: u32,
    limits: &Limits,
) -> Result<Option<GrayImage>, ExtractError> {
    let images = pdf.get_page_images(id).map_err(|e| malformed(number, &e.to_string()))?;
    let Some(img) = images.iter().max_by_key(|i| i.width.saturating_mul(i.height)) else { return Ok(None) };
    let filters = img.filters.clone().unwrap_or_default();
    let (w, h) = (u32::try_from(img.width).unwrap_or(0), u32::try_from(img.height).unwrap_or(0));
    let dl = decode_limits(limits);
    match filters.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
        ["DCTDecode"] => {
            let mut pages = ragpipe_ocr::decode_pages(img.content, dl).map_err(ocr_error)?;
            pages.next().transpose().map_err(ocr_error)
        }
        [] | ["FlateDecode"] => {
            let stream =
                pdf.get_object(img.id).and_then(Object::as_stream).map_err(|e| malformed(number, &e.to_string()))?;
            let data = if filters.is_empty() {
                stream.content.clone()
            } else {
                stream.decompressed_content().map_err(|e| malformed(number, &e.to_string()))?
            };
            let components = match img.color_space.as_deref() {
                Some("DeviceGray" | "CalGray") | None => 1,
                Some("DeviceRGB" | "CalRGB") => 3,
                Some(other) => return Err(unsupported(number, &format!("a {other} image"))),
            };
            let bits = img.bits_per_component.unwrap_or(8) as u8;
            decode::raw_page(w, h, components, bits, &data, dl).map(Some).map_err(ocr_error)
        }
        other => Err(unsupported(number, &format!("a {} image (needs a PDF renderer)", other.join("+")))),
    }
}

fn malformed(page: u32, why: &str) -> ExtractError {
    ExtractError::Malformed(format!("malformed PDF: page {page}: {why}"))
}

fn unsupported(page: u32, what: &str) -> ExtractError {
    ExtractError::Malformed(format!("unsupported image: page {page} is {what}"))
}
