//! A PDF whose pages are pictures (no text layer): each page's largest
//! image is taken out of the file as it is stored and read by OCR.
//!
//! What that covers, measured on real scans: JPEG (`DCTDecode`, what
//! colour and grey scanners and most "scan to PDF" software write, e.g.
//! OCRmyPDF's `c03-29.pdf`), Flate-compressed grey, RGB or 1-bit pixels
//! (Ghostscript's `pdfimage8`, ImageMagick, img2pdf of PNGs), CCITT fax
//! data of Group 4 and Group 3 (`CCITTFaxDecode`: 1-bit office scanners,
//! fax software), JBIG2 with shared symbol dictionaries (`JBIG2Decode`:
//! archive scanners, jbig2enc, OCRmyPDF's optimiser) and JPEG 2000
//! (`JPXDecode`), the last three by `ragpipe_ocr::filters`. A page image
//! in any other encoding (or a chain of filters) fails the document with
//! a reason that names it. Only the image is read, so rectangles are in
//! pixels of that image.

use crate::ocr::{PageReader, assemble, decode_limits, ocr_error};
use crate::{ExtractError, Limits};
use pdf_extract::xobject::PdfImage;
use pdf_extract::{Dictionary, Document as Pdf, Object};
use ragpipe_core::{Document, Kind};
use ragpipe_ocr::filters::{self, Fax};
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
            let params = decode_params(pdf, img);
            let int = |key: &[u8]| params.and_then(|d| d.get(key).ok()).and_then(|v| v.as_i64().ok());
            let flag = |key: &[u8], default| {
                params.and_then(|d| d.get(key).ok()).and_then(|v| v.as_bool().ok()).unwrap_or(default)
            };
            let size = |key: &[u8], default| {
                int(key).and_then(|v| u32::try_from(v).ok()).filter(|&v| v > 0).unwrap_or(default)
            };
            let fax = Fax {
                k: int(b"K").unwrap_or(0),
                columns: size(b"Columns", w),
                rows: size(b"Rows", h),
                end_of_line: flag(b"EndOfLine", false),
                byte_align: flag(b"EncodedByteAlign", false),
                end_of_block: flag(b"EndOfBlock", true),
            };
            let page = filters::fax_page(&fax, img.content, dl).map_err(ocr_error)?;
            Ok(Some(apply_decode(img, page)))
        }
        ["JBIG2Decode"] => {
            // The symbol dictionaries the document's pages share.
            let globals = decode_params(pdf, img)
                .and_then(|d| d.get(b"JBIG2Globals").ok())
                .map(|g| stream_bytes(pdf, g).map_err(|e| malformed(number, &format!("JBIG2Globals: {e}"))))
                .transpose()?;
            let page = filters::jbig2_page(img.content, globals.as_deref(), dl).map_err(ocr_error)?;
            Ok(Some(apply_decode(img, page)))
        }
        ["JPXDecode"] => filters::jpx_page(img.content, dl).map(Some).map_err(ocr_error),
        other => Err(unsupported(number, &format!("a {} image", other.join("+")))),
    }
}

/// The image's `DecodeParms` (one dictionary, or an array of one per filter).
fn decode_params<'a>(pdf: &'a Pdf, img: &PdfImage<'a>) -> Option<&'a Dictionary> {
    let params = img.origin_dict.get(b"DecodeParms").and_then(|p| pdf.dereference(p)).map(|(_, p)| p).ok()?;
    let params = match params.as_array() {
        Ok(each) => each.first().and_then(|p| pdf.dereference(p).ok()).map(|(_, p)| p)?,
        Err(_) => params,
    };
    params.as_dict().ok()
}

/// A stream object's data, its own filters undone.
fn stream_bytes(pdf: &Pdf, object: &Object) -> Result<Vec<u8>, pdf_extract::Error> {
    let (_, object) = pdf.dereference(object)?;
    let stream = object.as_stream()?;
    if stream.dict.has(b"Filter") { stream.decompressed_content() } else { Ok(stream.content.clone()) }
}

/// `/Decode [1 0]` inverts a 1-bit image's samples.
fn apply_decode(img: &PdfImage<'_>, mut page: GrayImage) -> GrayImage {
    let inverted = img
        .origin_dict
        .get(b"Decode")
        .and_then(Object::as_array)
        .is_ok_and(|d| d.first().and_then(|v| v.as_float().ok()) == Some(1.0));
    if inverted {
        page.pixels_mut().for_each(|p| p.0[0] = 255 - p.0[0]);
    }
    page
}

fn malformed(page: u32, why: &str) -> ExtractError {
    ExtractError::Malformed(format!("malformed PDF: page {page}: {why}"))
}

fn unsupported(page: u32, what: &str) -> ExtractError {
    ExtractError::Malformed(format!("unsupported image: page {page} is {what}"))
}
