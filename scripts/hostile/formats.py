"""Byte-level builders for the hostile corpus (stdlib only).

The machine that generates the corpus has no LibreOffice, so PDFs, OOXML and
ODF files are written by hand here. Each builder makes the *smallest* valid
container that ragpipe's readers accept, so that when a hostile variant fails
we know it failed for its hostility, not for a sloppy container (the corpus
holds `good-crafted.*` controls built by the same functions to prove it).
"""

import struct
import zlib

# ---------------------------------------------------------------- deflate


def deflate_repeat(head: bytes, body: bytes, count: int, tail: bytes, wrap: str = "raw"):
    """Compress head + body*count + tail without ever holding the expansion.

    Z_FULL_FLUSH resets the compressor's dictionary and byte-aligns its output,
    so the compressed form of `body` after a full flush decodes on its own:
    repeating those bytes `count` times is a valid stream of `count` bodies.
    That is how a few MB of file inflate to GBs while generation stays fast.
    Returns (compressed, crc32, adler32, uncompressed_size).
    """
    c = zlib.compressobj(9, zlib.DEFLATED, -15)  # raw deflate, we add wrappers
    first = c.compress(head) + c.flush(zlib.Z_FULL_FLUSH)
    block = c.compress(body) + c.flush(zlib.Z_FULL_FLUSH)
    last = c.compress(tail) + c.flush(zlib.Z_FINISH)
    crc = zlib.crc32(head)
    adler = zlib.adler32(head)
    want_adler = wrap == "zlib"  # adler32 over GBs costs seconds: only when needed
    for _ in range(count):
        crc = zlib.crc32(body, crc)
        if want_adler:
            adler = zlib.adler32(body, adler)
    crc = zlib.crc32(tail, crc)
    adler = zlib.adler32(tail, adler)
    data = first + block * count + last
    if wrap == "zlib":
        data = b"\x78\xda" + data + struct.pack(">I", adler)
    return data, crc & 0xFFFFFFFF, adler & 0xFFFFFFFF, len(head) + len(body) * count + len(tail)


# ---------------------------------------------------------------- zip


def zip_bytes(entries) -> bytes:
    """A zip from (name, data) or (name, (raw_deflate, crc, size)) entries.

    zipfile cannot take pre-compressed data, which the bombs need; a str/bytes
    entry is stored when its name is `mimetype` (ODF requires it first and
    uncompressed), deflated otherwise.
    """
    out, central = bytearray(), bytearray()
    for name, data in entries:
        fname = name.encode()
        if isinstance(data, tuple):
            comp, crc, size = data
            method = 8
        else:
            raw = data.encode() if isinstance(data, str) else data
            crc, size = zlib.crc32(raw) & 0xFFFFFFFF, len(raw)
            if name == "mimetype":
                comp, method = raw, 0
            else:
                co = zlib.compressobj(6, zlib.DEFLATED, -15)
                comp, method = co.compress(raw) + co.flush(), 8
        offset = len(out)
        out += struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, method, 0, 0x21, crc, len(comp), size, len(fname), 0)
        out += fname + comp
        central += struct.pack(
            "<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, method, 0, 0x21, crc, len(comp), size, len(fname), 0, 0, 0, 0, 0, offset
        )
        central += fname
    cd_offset = len(out)
    out += central
    out += struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(entries), len(entries), len(central), cd_offset, 0)
    return bytes(out)


# ---------------------------------------------------------------- xlsx / ods

NS_MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
CONTENT_TYPES = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
    '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
    '<Default Extension="xml" ContentType="application/xml"/>'
    '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
    '<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>'
    '<Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/>'
    "</Types>"
)
ROOT_RELS = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
    '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/>'
    "</Relationships>"
)
WORKBOOK = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    f'<workbook xmlns="{NS_MAIN}" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">'
    '<sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>'
)
WORKBOOK_RELS = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
    '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/>'
    '<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings" Target="sharedStrings.xml"/>'
    "</Relationships>"
)
SHEET_HEAD = f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<worksheet xmlns="{NS_MAIN}"><sheetData>'
SHEET_TAIL = "</sheetData></worksheet>"
EMPTY_SST = f'<?xml version="1.0" encoding="UTF-8"?>\n<sst xmlns="{NS_MAIN}" count="0" uniqueCount="0"></sst>'


def col_name(i: int) -> str:
    """0 -> A, 16383 -> XFD."""
    s = ""
    i += 1
    while i:
        i, r = divmod(i - 1, 26)
        s = chr(65 + r) + s
    return s


def inline_cell(ref: str, text: str) -> str:
    return f'<c r="{ref}" t="inlineStr"><is><t>{text}</t></is></c>'


def xlsx(sheet, sst=EMPTY_SST, workbook=WORKBOOK, content_types=CONTENT_TYPES) -> bytes:
    """A one-sheet workbook; `sheet` is the whole sheet XML (str/bytes) or a
    pre-deflated (raw, crc, size) tuple for bombs."""
    return zip_bytes(
        [
            ("[Content_Types].xml", content_types),
            ("_rels/.rels", ROOT_RELS),
            ("xl/workbook.xml", workbook),
            ("xl/_rels/workbook.xml.rels", WORKBOOK_RELS),
            ("xl/sharedStrings.xml", sst),
            ("xl/worksheets/sheet1.xml", sheet),
        ]
    )


def rows_xml(rows) -> str:
    """Rows of strings as inline-string cells (no shared strings needed)."""
    out = []
    for r, row in enumerate(rows, 1):
        cells = "".join(inline_cell(f"{col_name(c)}{r}", v) for c, v in enumerate(row))
        out.append(f'<row r="{r}">{cells}</row>')
    return "".join(out)


ODS_NS = (
    'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
    'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
    'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"'
)
ODS_HEAD = (
    f'<?xml version="1.0" encoding="UTF-8"?>\n<office:document-content {ODS_NS} office:version="1.2">'
    '<office:body><office:spreadsheet><table:table table:name="Sheet1">'
)
ODS_TAIL = "</table:table></office:spreadsheet></office:body></office:document-content>"
ODS_MANIFEST = (
    '<?xml version="1.0" encoding="UTF-8"?>'
    '<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2">'
    '<manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.spreadsheet"/>'
    '<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/>'
    "</manifest:manifest>"
)


def ods_row(values, repeat_cols: int = 0) -> str:
    cells = "".join(
        f'<table:table-cell office:value-type="string"><text:p>{v}</text:p></table:table-cell>' for v in values
    )
    if repeat_cols:
        cells += f'<table:table-cell table:number-columns-repeated="{repeat_cols}" office:value-type="string"><text:p>x</text:p></table:table-cell>'
    return f"<table:table-row>{cells}</table:table-row>"


def ods(content) -> bytes:
    """`content` is the whole content.xml, or a (raw, crc, size) tuple."""
    return zip_bytes(
        [
            ("mimetype", "application/vnd.oasis.opendocument.spreadsheet"),
            ("META-INF/manifest.xml", ODS_MANIFEST),
            ("content.xml", content),
        ]
    )


# ---------------------------------------------------------------- word processing

DOCX_TYPES = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
    '<Default Extension="xml" ContentType="application/xml"/>'
    '<Override PartName="/word/document.xml" '
    'ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>'
)
DOCX_HEAD = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>'
)
DOCX_TAIL = "</w:body></w:document>"
ODT_HEAD = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
    'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"><office:body><office:text>'
)
ODT_TAIL = "</office:text></office:body></office:document-content>"


def docx_paragraph(text: str) -> str:
    return f"<w:p><w:r><w:t>{text}</w:t></w:r></w:p>"


def docx(document) -> bytes:
    """`document` is the whole word/document.xml."""
    return zip_bytes([("[Content_Types].xml", DOCX_TYPES), ("word/document.xml", document)])


def odt(content) -> bytes:
    """`content` is the whole content.xml."""
    return zip_bytes([("mimetype", "application/vnd.oasis.opendocument.text"), ("content.xml", content)])


PPTX_TYPES = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
    '<Default Extension="xml" ContentType="application/xml"/>'
    '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
    '<Override PartName="/ppt/presentation.xml" '
    'ContentType="application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml"/></Types>'
)
PPTX_NS = (
    'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" '
    'xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main" '
    'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"'
)
SLIDE_HEAD = f'<?xml version="1.0" encoding="UTF-8"?>\n<p:sld {PPTX_NS}><p:cSld><p:spTree>'
SLIDE_TAIL = "</p:spTree></p:cSld></p:sld>"


def slide_text(text: str) -> str:
    """A text box shape holding one paragraph."""
    return f"<p:sp><p:txBody><a:p><a:r><a:t>{text}</a:t></a:r></a:p></p:txBody></p:sp>"


def pptx(slides, listed: int = 0) -> bytes:
    """`slides` are whole ppt/slides/slideN.xml parts; `listed` (when larger)
    is how many slides ppt/presentation.xml claims, the rest missing."""
    count = max(len(slides), listed)
    ids = "".join(f'<p:sldId id="{256 + i}" r:id="rId{i + 1}"/>' for i in range(count))
    rels = "".join(
        f'<Relationship Id="rId{i + 1}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/slide" '
        f'Target="slides/slide{i + 1}.xml"/>'
        for i in range(count)
    )
    return zip_bytes(
        [
            ("[Content_Types].xml", PPTX_TYPES),
            ("ppt/presentation.xml", f'<?xml version="1.0" encoding="UTF-8"?>\n<p:presentation {PPTX_NS}><p:sldIdLst>{ids}</p:sldIdLst></p:presentation>'),
            ("ppt/_rels/presentation.xml.rels", f'<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">{rels}</Relationships>'),
        ]
        + [(f"ppt/slides/slide{i + 1}.xml", xml) for i, xml in enumerate(slides)]
    )


# ---------------------------------------------------------------- pdf

FONT = b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"


def text_stream(text: str) -> bytes:
    """An uncompressed content stream object body showing one line of text."""
    safe = text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
    ops = f"BT /F1 12 Tf 72 720 Td ({safe}) Tj ET".encode("latin-1", "replace")
    return b"<< /Length %d >>\nstream\n%s\nendstream" % (len(ops), ops)


def pdf(objects, root: int = 1, trailer_extra: bytes = b"") -> bytes:
    """Serialise objects (list of bodies; object n is objects[n-1]) with a
    correct xref table, so a failure is never 'xref broken' by accident."""
    out = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for n, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % n + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for off in offsets:
        out += b"%010d 00000 n \n" % off
    out += b"trailer\n<< /Size %d /Root %d 0 R %s>>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        root,
        trailer_extra,
        xref,
    )
    return bytes(out)


def simple_pdf(texts, catalog_extra: bytes = b"", extra_objects=()) -> bytes:
    """Catalog 1, Pages 2, Font 3, then page/content pairs, then extras
    (numbered from 4 + 2*len(texts)); catalog_extra can reference them."""
    n = len(texts)
    kids = b" ".join(b"%d 0 R" % (4 + 2 * i) for i in range(n))
    objs = [
        b"<< /Type /Catalog /Pages 2 0 R " + catalog_extra + b">>",
        b"<< /Type /Pages /Kids [%s] /Count %d >>" % (kids, n),
        FONT,
    ]
    for i, t in enumerate(texts):
        objs.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
            b"/Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>" % (5 + 2 * i)
        )
        objs.append(text_stream(t))
    objs.extend(extra_objects)
    return pdf(objs)
