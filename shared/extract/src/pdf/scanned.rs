//! A PDF whose pages are pictures (no text layer): each page's largest
//! image is taken out of the file as it is stored and read by OCR.
//!
//! What that covers, measured on real scans: JPEG (`DCTDecode`, what
//! colour and grey scanners and most "scan to PDF" software write, e.g.
//! OCRmyPDF's `c03-29.pdf`) and Flate-compressed grey, RGB or 1-bit pixels
//! (Ghostscript's `pdfimage8`, ImageMagick, img2pdf of PNGs), and CCITT
//! Group 4 fax data (`CCITTFaxDecode`, `K < 0`: 1-bit office scanners, fax
//! software, img2pdf of a G4 TIFF) through the TIFF decoder. Not covered:
//! CCITT Group 3 (`K >= 0`), `JBIG2Decode` and `JPXDecode` page images
//! (JPEG 2000), which need a PDF renderer; such a page fails the document
//! with a reason that names the encoding. Only the image is read, so
//! rectangles are in pixels of that image.

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
        ["CCITTFaxDecode"] => {
            // One dictionary, or an array of one per filter.
            let params = img.origin_dict.get(b"DecodeParms").and_then(|p| pdf.dereference(p)).map(|(_, p)| p).ok();
            let params = params.and_then(|p| match p.as_array() {
                Ok(each) => each.first().and_then(|p| pdf.dereference(p).ok()).map(|(_, p)| p),
                Err(_) => Some(p),
            });
            let params = params.and_then(|p| p.as_dict().ok());
            let int = |key: &[u8]| params.and_then(|d| d.get(key).ok()).and_then(|v| v.as_i64().ok());
            if int(b"K").unwrap_or(0) >= 0 {
                return Err(unsupported(number, "a CCITT Group 3 image (needs a PDF renderer)"));
            }
            let columns = int(b"Columns").and_then(|c| u32::try_from(c).ok()).unwrap_or(w);
            let mut page = decode::fax_g4_page(columns, h, img.content, dl).map_err(ocr_error)?;
            // `/Decode [1 0]` inverts the samples.
            let inverted = img
                .origin_dict
                .get(b"Decode")
                .and_then(Object::as_array)
                .is_ok_and(|d| d.first().and_then(|v| v.as_float().ok()) == Some(1.0));
            if inverted {
                page.pixels_mut().for_each(|p| p.0[0] = 255 - p.0[0]);
            }
            Ok(Some(page))
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
