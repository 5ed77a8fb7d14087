"""Files that test limits: decompression bombs, deep nesting, scale,
external entities (XXE), text encodings and very long lines."""

import base64
import os
import random
import struct
import sys
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import formats as F  # noqa: E402
from corpus import PARA, Corpus  # noqa: E402

def bombs(c: Corpus):
    k = "decompression-bomb"
    mib = 1 << 20
    row = '<row><c t="inlineStr"><is><t>lol</t></is></c></row>'
    body = (row * (mib // len(row) + 1))[: (mib // len(row)) * len(row)].encode()
    # --small: just over the 1 GiB max_decompressed_bytes default, to stay fast.
    mibs = 1280 if c.small else 2048
    raw, crc, _, size = F.deflate_repeat(F.SHEET_HEAD.encode(), body, mibs, F.SHEET_TAIL.encode())
    sheet_bomb = F.xlsx((raw, crc, size))
    c.add(f"bomb-sheet-{mibs // 1024}g.xlsx" if not c.small else "bomb-sheet.xlsx", sheet_bomb, k, "failed", f"sheet XML inflates to {size >> 20} MiB")
    pattern = b"BT /F1 12 Tf 72 720 Td (bomb) Tj ET\n"
    pbody = pattern * (mib // len(pattern))
    pmibs = 1280 if c.small else 4096
    z, _, _, size = F.deflate_repeat(b"", pbody, pmibs, b"", wrap="zlib")
    stream = b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(z) + z + b"\nendstream"
    c.add(f"bomb-flate-{pmibs // 1024}g.pdf" if not c.small else "bomb-flate.pdf", bomb_pdf([stream]), k, "failed", f"one content stream inflating to {size >> 20} MiB")
    if c.small:
        return
    # A huge shared string: one cell, 1.5 GiB of text.
    sst_head = f'<?xml version="1.0"?>\n<sst xmlns="{F.NS_MAIN}" count="1" uniqueCount="1"><si><t>'.encode()
    raw, crc, _, size = F.deflate_repeat(sst_head, b"A" * mib, 1536, b"</t></si></sst>")
    sheet = F.SHEET_HEAD + '<row r="1"><c r="A1" t="s"><v>0</v></c></row>' + F.SHEET_TAIL
    c.add("bomb-sharedstring-1.5g.xlsx", F.xlsx(sheet, sst=(raw, crc, size)), k, "failed", "one shared string of 1.5 GiB")
    orow = F.ods_row(["lol", "lol", "lol"])
    obody = (orow * (mib // len(orow))).encode()
    raw, crc, _, size = F.deflate_repeat(F.ODS_HEAD.encode(), obody, 2048, F.ODS_TAIL.encode())
    c.add("bomb-content-2g.ods", F.ods((raw, crc, size)), k, "failed", "content.xml inflates to 2 GiB")
    # 32 pages x 64 MiB: no single stream is large, the document is.
    z, _, _, size = F.deflate_repeat(b"", pbody, 64, b"", wrap="zlib")
    stream = b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(z) + z + b"\nendstream"
    c.add("bomb-32-pages-2g.pdf", bomb_pdf([stream] * 32), k, "failed", "32 streams of 64 MiB each")
    # Repeat attributes: a tiny file that claims 16384 x 1048576 cells.
    rep = (
        F.ODS_HEAD
        + '<table:table-row table:number-rows-repeated="1048576">'
        + '<table:table-cell table:number-columns-repeated="16384" office:value-type="string"><text:p>x</text:p></table:table-cell>'
        + "</table:table-row>"
        + F.ODS_TAIL
    )
    c.add("bomb-repeat-attrs.ods", F.ods(rep), k, "failed", "number-rows/columns-repeated claim 17 G cells")
    flat = rep.replace("<office:document-content ", '<office:document office:mimetype="application/vnd.oasis.opendocument.spreadsheet" ')
    flat = flat.replace("</office:document-content>", "</office:document>")
    c.add("bomb-repeat-attrs.fods", flat.encode(), k, "failed", "the same claim in a flat ODS")
    # Archives: a zip and a gzip of 2 GiB of text, and a zip whose one bomb
    # (a 2 GiB sheet) fails alone while the note beside it is read.
    lol = b"lol " * (mib // 4)
    raw, crc, _, size = F.deflate_repeat(b"", lol, 2048, b"")
    c.add("bomb-text-2g.zip", F.zip_bytes([("lol.txt", (raw, crc, size))]), k, "failed", "one file inflating to 2 GiB")
    gz = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\x03" + raw + struct.pack("<II", crc, size & 0xFFFFFFFF)
    c.add("bomb-text-2g.txt.gz", gz, k, "failed", "a gzip stream inflating to 2 GiB")
    note = b"Quarterly note: the sheet beside this file is a decompression bomb."
    inside = F.zip_bytes([("reports/bomb.xlsx", sheet_bomb), ("reports/note.txt", note)])
    c.add("bomb-inside.zip", inside, k, "indexed", "a 2 GiB sheet fails alone; the note beside it is read")
    corner = F.SHEET_HEAD.replace("<sheetData>", '<dimension ref="A1:XFD1048576"/><sheetData>')
    corner += '<row r="1"><c r="A1" t="inlineStr"><is><t>top</t></is></c></row>'
    corner += '<row r="1048576"><c r="XFD1048576" t="inlineStr"><is><t>corner</t></is></c></row>' + F.SHEET_TAIL
    c.add("sparse-corner.xlsx", F.xlsx(corner), k, "either", "two cells at A1 and XFD1048576: a dense grid is 17 G cells")


def bomb_pdf(streams) -> bytes:
    pages = []
    objs = [b"<< /Type /Catalog /Pages 2 0 R >>", None, F.FONT]
    for i, s in enumerate(streams):
        page_no, content_no = 4 + 2 * i, 5 + 2 * i
        pages.append(b"%d 0 R" % page_no)
        objs.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
            b"/Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>" % content_no
        )
        objs.append(s)
    objs[1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (b" ".join(pages), len(streams))
    return F.pdf(objs)


# ------------------------------------------------------------------ nesting


def nesting(c: Corpus):
    k = "deep-nesting"
    n = 100_000
    texts = ["A page of text beside a deeply nested object."]
    c.add("deep-arrays.pdf", F.simple_pdf(texts, b"/Nest 6 0 R ", [b"[" * n + b"]" * n]), k, "either", "100k nested arrays")
    c.add("deep-div.html", b"<html><body>" + b"<div>" * n + b"deep" + b"</div>" * n + b"</body></html>", k, "either", "100k nested <div>")
    c.add("deep-list.md", b"- " * 10_000 + b"deep\n", k, "either", "10k nested list items on one line")
    deep = "<w:p><w:r><w:t>deep</w:t></w:r>" * n + "</w:p>" * n
    c.add("deep-paragraphs.docx", F.docx(F.DOCX_HEAD + deep + F.DOCX_TAIL), k, "either", "100k paragraphs nested in text boxes")
    if c.small:
        return
    groups = "<p:grpSp>" * n + F.slide_text("deep") + "</p:grpSp>" * n
    c.add("deep-groups.pptx", F.pptx([F.SLIDE_HEAD + groups + F.SLIDE_TAIL]), k, "either", "a text box in 100k nested shape groups")
    paragraphs = "<p:sp><p:txBody>" + "<a:p><a:r><a:t>deep</a:t></a:r>" * n + "</a:p>" * n + "</p:txBody></p:sp>"
    c.add("deep-paragraphs.pptx", F.pptx([F.SLIDE_HEAD + paragraphs + F.SLIDE_TAIL]), k, "either", "100k paragraphs nested in a shape")
    mime = "".join(f'Content-Type: multipart/mixed; boundary="b{i}"\r\n\r\n--b{i}\r\n' for i in range(n))
    closing = "".join(f"--b{i}--\r\n" for i in reversed(range(n)))
    message = "From: a@example.com\r\nSubject: deep\r\nMIME-Version: 1.0\r\n" + mime + "Content-Type: text/plain\r\n\r\ndeep\r\n" + closing
    c.add("deep-multipart.eml", message.encode(), k, "either", "a text part inside 100k nested multipart bodies")
    c.add("deep-groups.rtf", b"{\\rtf1 " + b"{" * n + b"deep" + b"}" * n + b"}", k, "either", "100k nested RTF groups")
    c.add("deep-dicts.pdf", F.simple_pdf(texts, b"/Nest 6 0 R ", [b"<< /A " * n + b">>" * n]), k, "either", "100k nested dicts")
    # Page tree 10k levels deep: recursive page walkers overflow the stack.
    depth = 10_000
    # objects: 1 catalog, 2 font, 3..depth+2 Pages nodes, then the page and content
    objs = [b"<< /Type /Catalog /Pages 3 0 R >>", F.FONT]
    page_no = depth + 3
    for d in range(depth):
        me = 3 + d
        kid = me + 1 if d < depth - 1 else page_no
        parent = b"/Parent %d 0 R " % (me - 1) if d else b""
        objs.append(b"<< /Type /Pages %s/Kids [%d 0 R] /Count 1 >>" % (parent, kid))
    objs.append(
        b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 2 0 R >> >> /Contents %d 0 R >>"
        % (page_no - 1, page_no + 1)
    )
    objs.append(F.text_stream("The only page, under 10k levels of page tree."))
    c.add("deep-page-tree.pdf", F.pdf(objs), k, "either", "page tree 10k levels deep")
    cyc = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R 2 0 R] /Count 2 >>",  # lists itself as a kid
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>",
        F.FONT,
        F.text_stream("A page whose page tree contains itself."),
    ]
    c.add("page-tree-cycle.pdf", F.pdf(cyc), k, "either", "Pages node lists itself in /Kids")
    c.add("deep-ul.html", b"<html><body>" + b"<ul><li>" * n + b"deep" + b"</li></ul>" * n + b"</body></html>", k, "either", "100k nested lists")
    c.add("deep-unclosed.html", b"<html><body>" + b"<span><b><i>" * 50_000 + b"never closed", k, "either", "150k unclosed inline tags")
    c.add("deep-quote.md", b"> " * 10_000 + b"deep\n", k, "either", "10k nested blockquotes")
    # Navigation bars are found by their links before the page is read
    # (html/chrome.rs): a page of nothing but such links, or of table cells
    # each holding one, must not cost a climb per link.
    nav = b'<a rel="next" accesskey="n" href="p.html">n</a> ' * 200_000
    c.add("nav-links.html", b"<html><body><div>" + nav + b"</div><p>after</p></body></html>", k, "either", "200k navigation links in one bar")
    cells = b'<tr><td><a accesskey="p" href="x">Prev</a> words here</td></tr>' * 200_000
    c.add("nav-cells.html", b"<html><body><table>" + cells + b"</table></body></html>", k, "either", "200k table cells, each with an access-key link")
    # A page's own table of contents is found by its links to the page's
    # sections (html/chrome.rs): one of 200,000 entries must cost one
    # climb per section list, and 200,000 links to 200,000 anchors that
    # start no section must cost one look for a heading per anchor.
    toc = b"".join(b'<li><a href="#s%d">Step %d</a></li>' % (i % 3, i % 3) for i in range(200_000))
    steps = b"".join(b'<h2 id="s%d">Step %d</h2><p>Do step %d.</p>' % (i, i, i) for i in range(3))
    c.add("toc-links.html", b"<html><body><ul>" + toc + b"</ul>" + steps + b"</body></html>", k, "either", "a table of contents of 200k entries")
    anchors = b"".join(b'<a id="t%d"></a><a href="#t%d">x</a> ' % (i, (i + 1) % 200_000) for i in range(200_000))
    c.add("toc-anchors.html", b"<html><body><p>" + anchors + b"</p></body></html>", k, "either", "200k links to 200k anchors")
    # Each of 30,000 sections opens with a contents list (markdown.rs): the
    # lists found are looked up per event by bisection, not one by one.
    tocs = b"".join(b"## Step %d\n\n- [Step %d](#step-%d)\n- [Again](#step-%d)\n- [Once more](#step-%d)\n\nText %d.\n\n" % ((i,) * 6) for i in range(30_000))
    c.add("many-contents.md", tocs, k, "either", "30k sections, each with a contents list")
    # A PDF page's tables are found by its words' geometry and its rules
    # (pdf/tables.rs): 60,000 lines of three cells on one page, every third
    # line out of line with the others, under 100,000 rule segments, must
    # cost a bounded look per line, and the rules are kept to a cap.
    c.add("table-lines.pdf", table_page_pdf(60_000, 100_000), k, "either", "60k table lines and 100k rules on one page")
    c.add("deep-ordered.md", b"1. " * 10_000 + b"deep\n", k, "either", "10k nested ordered lists")
    c.add("deep-indent.md", b"".join(b"  " * i + b"- level %d\n" % i for i in range(1000)), k, "either", "1000 indented list levels")
    c.add("deep-emphasis.md", b"*" * 20_000 + b"x" + b"_" * 20_000 + b"\n" + b"[" * 20_000 + b"\n", k, "either", "delimiter runs, 20k open brackets")
    c.add("deep-nest.js", b"var x = " + b"[" * n + b"]" * n + b";\n", k, "either", "100k nested array literal")
    c.add("deep-nest.py", b"x = " + b"(" * n + b")" * n + b"\n", k, "either", "100k nested parentheses")
    c.add("deep-nest.rs", b"fn f() " + b"{" * n + b"}" * n + b"\n", k, "either", "100k nested blocks")
    c.add("deep-nest.go", b"package p\nvar x = " + b"f(" * 50_000 + b")" * 50_000 + b"\n", k, "either", "50k nested calls")
    deep_xml = F.SHEET_HEAD + '<row r="1"><c r="A1" t="inlineStr"><is><t>v</t></is></c></row>' + "</sheetData>"
    deep_xml += "<extLst>" + "<ext>" * n + "</ext>" * n + "</extLst></worksheet>"
    c.add("deep-xml.xlsx", F.xlsx(deep_xml), k, "either", "100k nested elements in the sheet XML")


def table_page_pdf(lines: int, rules: int) -> bytes:
    """One page of `lines` rows of three cells set in 0.01 pt type (so they
    fit), the third cell of every third row moved off its column, and
    `rules` horizontal rule segments."""
    ops = [b"BT /F1 0.01 Tf"]
    for i in range(lines):
        y = 780 - i * 0.012
        ops.append(b"1 0 0 1 72 %.3f Tm (k%d) Tj 1 0 0 1 150 %.3f Tm (v%d) Tj 1 0 0 1 %d %.3f Tm (w) Tj" % (y, i, y, i, 300 + 40 * (i % 3 == 2), y))
    ops.append(b"ET 0.1 w")
    ops.extend(b"72 %.3f m 400 %.3f l S" % (780 - j * 0.007, 780 - j * 0.007) for j in range(rules))
    body = b"\n".join(ops)
    stream = b"<< /Length %d >>\nstream\n%s\nendstream" % (len(body), body)
    page = b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents 5 0 R >>"
    return F.pdf([b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [4 0 R] /Count 1 >>", F.FONT, page, stream])


# ------------------------------------------------------------------ scale


def scale(c: Corpus):
    k = "huge-counts"
    pages = 10_000 if not c.small else 6_000
    c.add(f"pages-{pages // 1000}k.pdf", F.simple_pdf([f"Page {i + 1} of a very long report." for i in range(pages)]), k, "failed", f"{pages} pages > max_pages 5000")
    if c.small:
        return
    one = F.SLIDE_HEAD + F.slide_text("The one slide that is there.") + F.SLIDE_TAIL
    c.add("slides-10k.pptx", F.pptx([one], listed=10_000), k, "failed", "10000 slides listed > max_pages 5000")
    rows = 1_048_576  # Excel's maximum, above the 1,000,000 max_rows default
    c.add_stream("rows-1m.csv", (b"".join(b"%d,r%d\n" % (i, i) for i in range(j, min(j + 65536, rows))) for j in range(0, rows, 65536)), k, "failed", f"{rows} rows")
    # Sheet XML for 1M rows is ~45 MB: written with zipfile in streaming mode.
    p = c.path("rows-1m.xlsx")
    with zipfile.ZipFile(os.fsdecode(p), "w", zipfile.ZIP_DEFLATED, compresslevel=1) as z:
        for name, data in [
            ("[Content_Types].xml", F.CONTENT_TYPES),
            ("_rels/.rels", F.ROOT_RELS),
            ("xl/workbook.xml", F.WORKBOOK),
            ("xl/_rels/workbook.xml.rels", F.WORKBOOK_RELS),
            ("xl/sharedStrings.xml", F.EMPTY_SST),
        ]:
            z.writestr(name, data)
        with z.open("xl/worksheets/sheet1.xml", "w", force_zip64=True) as w:
            w.write(F.SHEET_HEAD.encode())
            for j in range(0, rows, 65536):
                w.write("".join(f'<row r="{i}"><c r="A{i}"><v>{i}</v></c></row>' for i in range(j + 1, min(j + 65536, rows) + 1)).encode())
            w.write(F.SHEET_TAIL.encode())
    c.record("rows-1m.xlsx", k, "failed", f"{rows} rows > max_rows")
    cols = 16_384
    header = ",".join(f"c{i}" for i in range(cols)) + "\n"
    body = "".join(",".join(str(r * cols + i) for i in range(cols)) + "\n" for r in range(20))
    c.add("cols-16k.csv", (header + body).encode(), k, "either", "16384 columns x 21 rows")
    sheet_rows = [[f"c{i}" for i in range(cols)]] + [[str(r * cols + i) for i in range(cols)] for r in range(5)]
    c.add("cols-16k.xlsx", F.xlsx(F.SHEET_HEAD + F.rows_xml(sheet_rows) + F.SHEET_TAIL), k, "either", "16384 columns (A..XFD) x 6 rows")


# ------------------------------------------------------------------ XXE


def xxe(c: Corpus):
    k = "xxe"
    ext = '<!DOCTYPE {root} [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>'
    laughs = '<!DOCTYPE {root} [<!ENTITY lol "lol">' + "".join(
        f'<!ENTITY lol{i} "{("&lol%s;" % (i - 1 if i > 1 else "")) * 10}">' for i in range(1, 10)
    ) + "]>"
    dtd = '<!DOCTYPE {root} SYSTEM "http://127.0.0.1:9/evil.dtd">'

    def sheet(doctype, ref):
        return F.SHEET_HEAD.replace("\n", "\n" + doctype.format(root="worksheet") + "\n") + (
            f'<row r="1"><c r="A1" t="inlineStr"><is><t>{ref}</t></is></c></row>' + F.SHEET_TAIL
        )

    def content(doctype, ref):
        return F.ODS_HEAD.replace("\n", "\n" + doctype.format(root="office:document-content") + "\n") + F.ods_row([ref]) + F.ODS_TAIL

    def document(doctype, ref):
        return F.DOCX_HEAD.replace("\n", "\n" + doctype.format(root="w:document") + "\n") + F.docx_paragraph(ref) + F.DOCX_TAIL

    def text(doctype, ref):
        return F.ODT_HEAD.replace("\n", "\n" + doctype.format(root="office:document-content") + "\n") + f"<text:p>{ref}</text:p>" + F.ODT_TAIL

    c.add("xxe-sheet.xlsx", F.xlsx(sheet(ext, "&xxe;")), k, "either", "external entity file:///etc/passwd in a cell", leak_check=True)
    c.add("billion-laughs.ods", F.ods(content(laughs, "&lol9;")), k, "either", "entity expansion to 10^9 lol", leak_check=True)
    c.add("xxe.docx", F.docx(document(ext, "before &xxe; after")), k, "either", "external entity file:///etc/passwd in a paragraph", leak_check=True)
    c.add("billion-laughs.odt", F.odt(text(laughs, "&lol9;")), k, "either", "entity expansion to 10^9 lol", leak_check=True)
    if c.small:
        return
    slide = F.SLIDE_HEAD.replace("\n", "\n" + ext.format(root="p:sld") + "\n") + F.slide_text("before &xxe; after") + F.SLIDE_TAIL
    c.add("xxe.pptx", F.pptx([slide]), k, "either", "external entity file:///etc/passwd in a slide", leak_check=True)
    c.add("billion-laughs.xlsx", F.xlsx(sheet(laughs, "&lol9;")), k, "either", "entity expansion to 10^9 lol", leak_check=True)
    c.add("xxe-external-dtd.xlsx", F.xlsx(sheet(dtd, "dtd")), k, "either", "external DTD over the network (port 9)", leak_check=True)
    sst = F.EMPTY_SST.replace("\n", "\n" + ext.format(root="sst") + "\n").replace(
        'count="0" uniqueCount="0"></sst>', 'count="1" uniqueCount="1"><si><t>&xxe;</t></si></sst>'
    )
    c.add("xxe-sharedstrings.xlsx", F.xlsx(F.SHEET_HEAD + '<row r="1"><c r="A1" t="s"><v>0</v></c></row>' + F.SHEET_TAIL, sst=sst), k, "either", "XXE in sharedStrings.xml", leak_check=True)
    wb = F.WORKBOOK.replace("?>", "?>" + ext.format(root="workbook")).replace('name="Sheet1"', 'name="&xxe;"')
    c.add("xxe-workbook.xlsx", F.xlsx(F.SHEET_HEAD + F.rows_xml([["a"]]) + F.SHEET_TAIL, workbook=wb), k, "either", "XXE in the sheet name", leak_check=True)
    c.add("xxe.ods", F.ods(content(ext, "&xxe;")), k, "either", "external entity file:///etc/passwd in content.xml", leak_check=True)
    c.add("xxe-external-dtd.ods", F.ods(content(dtd, "dtd")), k, "either", "external DTD over the network", leak_check=True)


# ------------------------------------------------------------------ encodings


def encodings(c: Corpus):
    k = "encoding"
    text = PARA * 20
    bad = bytearray(text.encode())
    rng = random.Random(7)
    for _ in range(200):  # lone continuation, overlong, encoded surrogate, 0xFF
        i = rng.randrange(len(bad))
        bad[i:i] = rng.choice([b"\x80", b"\xc0\xaf", b"\xed\xa0\x80", b"\xff", b"\xe2\x82"])
    bad = bytes(bad) + b"\xe2\x82"  # cut mid-sequence at the end
    c.add("invalid-utf8.txt", bad, k, "either", "stray and overlong bytes")
    c.add("utf16le-bom.txt", b"\xff\xfe" + text.encode("utf-16-le"), k, "either", "UTF-16LE with BOM")
    if c.small:
        return
    c.add("invalid-utf8.md", b"# Title\n\n" + bad, k, "either")
    c.add("invalid-utf8.html", b"<html><body><p>" + bad + b"</p></body></html>", k, "either")
    c.add("invalid-utf8.csv", b"a,b\n" + bad.replace(b",", b";").replace(b"\n", b",x\n"), k, "either")
    c.add("invalid-utf8.py", b"# " + bad.replace(b"\n", b"\n# "), k, "either")
    c.add("latin1.txt", ("Caf\u00e9 cr\u00e8me br\u00fbl\u00e9e. " * 50).encode("latin-1"), k, "either", "Latin-1, no BOM")
    c.add("utf16be-bom.txt", b"\xfe\xff" + text.encode("utf-16-be"), k, "either", "UTF-16BE with BOM")
    c.add("utf16le-nobom.txt", text.encode("utf-16-le"), k, "either", "UTF-16LE, no BOM: NUL every other byte")
    c.add("utf16be-nobom.txt", text.encode("utf-16-be"), k, "either", "UTF-16BE, no BOM")
    lone = text.encode("utf-16-le")
    lone = b"\xff\xfe" + lone[:200] + b"\x00\xd8" + lone[200:400] + b"\x00\xdc\x00\xdc" + lone[400:]
    c.add("utf16le-unpaired-surrogates.txt", lone, k, "either", "lone high and low surrogates")
    c.add("utf16le-bom.csv", b"\xff\xfe" + "name,value\nalpha,1\nbeta,2\n".encode("utf-16-le"), k, "either")
    c.add("utf16le-bom.html", b"\xff\xfe" + f"<html><body><p>{text}</p></body></html>".encode("utf-16-le"), k, "either")
    c.add("utf32le-bom.txt", b"\xff\xfe\x00\x00" + text.encode("utf-32-le"), k, "either")
    c.add("nul-bytes.txt", text.encode().replace(b" ", b"\x00"), k, "either", "NUL instead of spaces")
    c.add("utf8-bom.md", b"\xef\xbb\xbf# Title\n\n" + text.encode(), k, "either")


# ------------------------------------------------------------------ long lines


def long_lines(c: Corpus):
    """The issue's killers: one line, tens of MB. Built from a 64 KiB block of
    seeded words repeated, so generation is fast and the text tokenises like
    prose rather than one repeated token."""
    k = "long-line"
    words = ["ingest", "folder", "memory", "bounded", "parser", "chunk", "token", "queue", "limit", "report", "the", "of", "and", "a"]
    rng = random.Random(11)
    block = " ".join(rng.choice(words) for _ in range(10_000)).encode()[: 64 * 1024]
    # --small keeps the shape (one line) at a size a debug-build test embeds
    # in seconds: 50 MB -> 128 KiB, 5 MB and 10 MB -> 64 KiB.
    size = (lambda mb: mb << 20) if not c.small else (lambda mb: (128 if mb == 50 else 64) << 10)

    def reps(mb, piece=block):
        return max(1, size(mb) // len(piece))

    c.add_stream("one-line-50mb.html" if not c.small else "one-line.html", [b"<html><body><p>"] + [block + b" "] * reps(50) + [b"</p></body></html>"], k, "either", "one paragraph on one line")
    js_stmt = b"".join(b"var v%d=function(a,b){return a*%d+b};" % (i, i) for i in range(2000))
    c.add_stream("minified-5mb.js" if not c.small else "minified.js", [js_stmt] * reps(5, js_stmt), k, "either", "minified JavaScript, no newline")
    cells = ",".join(words * 40).encode() + b","
    c.add_stream("one-line-10mb.csv" if not c.small else "one-line.csv", [cells] * reps(10, cells), k, "either", "a CSV that is one line")
    if c.small:
        return
    letters = bytes(rng.choice(b"abcdefghijklmnopqrstuvwxyz") for _ in range(1 << 16))
    c.add_stream("one-word-20mb.txt", [letters] * 320, k, "either", "20 MB, no spaces, no newline: one giant word")
    blob = base64.b64encode(random.Random(13).randbytes(3 << 20))  # 4 MiB of base64, repeated
    c.add_stream("base64-10mb.txt", [blob] * 2 + [blob[: 2 << 20]], k, "either", "10 MB base64 blob on one line")
    c.add_stream("one-paragraph-2mb.md", [block] * 32, k, "either", "a 2 MB Markdown paragraph")
    record = b'{"id":1,"note":"' + block[:200] + b'"},'
    c.add_stream("minified-1mb.json", [b"["] + [record] * ((1 << 20) // len(record)) + [b"{}]"], k, "either", "minified JSON, no newline: code without a grammar")
    c.add("unclosed-quote.csv", b'a,b\n1,"never closed\n' + (b"2,row\n" * 100_000), k, "either", "an opening quote swallows 100k lines")


# ------------------------------------------------------------------ file system
