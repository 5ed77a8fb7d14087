#!/usr/bin/env python3
"""Generate a folder of hostile files beside good controls (issue 12).

    make_corpus.py OUT_DIR [--seed N] [--small] [--manifest PATH]

OUT_DIR must not exist. A sibling `outside/` folder (the target of the
symlinks that try to leave OUT_DIR) and the manifest (default
OUT_DIR/../manifest.json) are written next to it.

Every entry in the manifest has `name` (the key ragpipe would list: the path
relative to OUT_DIR; non-UTF-8 bytes as \\xNN escapes, with `name_hex` holding
the exact bytes), `kind` (the hostility) and `expect`:
  indexed  a good control (its name starts with `good-`): must be indexed
  failed   must end `failed` with a reason (empty, lies about its type,
           encrypted, over a limit)
  skipped  must never be indexed: symlinks leaving the folder, special
           files, loops, sidecars (read with their audio, not on their own)
  either   indexed or failed are both fine; never left pending
Entries with `dir: true` cover every key below them (a symlinked folder).
Entries with `leak_check: true` must not index /etc/passwd or the outside
marker if they get indexed (XXE).

Stdlib only: the files are mutated from the committed fixtures or written
byte by byte (formats.py), so the corpus is the same on every machine for a
given seed. --small makes a ~40-file subset for `cargo test`.
"""

import argparse
import base64
import io
import json
import os
import random
import shutil
import socket
import stat
import sys
import time
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import formats as F  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
FIX = REPO / "shared/extract/tests/fixtures"
SAMPLES = REPO / "samples"
# Written into ../outside: if it ever shows up in the index, a link leaked.
OUTSIDE_MARKER = "HOSTILE-OUTSIDE-MARKER-7f3a"
PARA = (
    "Platform teams point ragpipe at folders nobody has cleaned. This paragraph "
    "is ordinary prose so that a file whose only hostility is its name or its "
    "permissions would be indexed if the source can read it.\n"
)


def fx(rel: str) -> bytes:
    return (FIX / rel).read_bytes()


class Corpus:
    def __init__(self, out: Path, seed: int, small: bool):
        self.out, self.small = out, small
        self.rng = random.Random(seed)
        self.entries = []

    def path(self, name) -> bytes:
        raw = name if isinstance(name, bytes) else name.encode()
        return os.path.join(os.fsencode(self.out), raw)

    def record(self, name, kind, expect, note="", **extra):
        raw = name if isinstance(name, bytes) else name.encode()
        entry = {"name": raw.decode("utf-8", "backslashreplace"), "kind": kind, "expect": expect}
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError:
            entry["name_hex"] = raw.hex()
        if note:
            entry["note"] = note
        entry.update(extra)
        self.entries.append(entry)

    def add(self, name, data: bytes, kind, expect, note="", **extra):
        p = self.path(name)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "wb") as f:
            f.write(data)
        self.record(name, kind, expect, note, **extra)

    def add_stream(self, name, chunks, kind, expect, note=""):
        """Big files are written piece by piece: never hold 50 MB in a str."""
        with open(self.path(name), "wb") as f:
            for c in chunks:
                f.write(c)
        self.record(name, kind, expect, note)

    def sidecar(self, audio_name: str, sidecar_fixture: str):
        """Audio needs a transcript to be indexable; giving hostile audio one
        makes the decoder (not the missing transcript) decide the outcome."""
        stem = audio_name.rsplit(".", 1)[0]
        ext = sidecar_fixture.rsplit(".", 1)[1]
        self.add(f"{stem}.{ext}", fx(sidecar_fixture), "sidecar", "skipped", "transcript read with its audio")


AUDIO = {  # fixture -> its sidecar
    "audio/intro.wav": "audio/intro.vtt",
    "audio/intro-mp3.mp3": "audio/intro-mp3.srt",
    "audio/intro-flac.flac": "audio/intro-flac.srt",
    "audio/intro-ogg.ogg": "audio/intro-ogg.vtt",
    "audio/intro-m4a.m4a": "audio/intro-m4a.vtt",
}


def strip_id3(mp3: bytes) -> bytes:
    """ID3v2: 'ID3', 2 version bytes, 1 flag byte, 4-byte syncsafe size;
    the tag is 10 + size bytes (the footer flag 0x10 adds 10 more)."""
    if mp3[:3] != b"ID3":
        return mp3
    size = 0
    for b in mp3[6:10]:
        size = (size << 7) | (b & 0x7F)
    footer = 10 if mp3[5] & 0x10 else 0
    return mp3[10 + size + footer :]


def with_id3(mp3: bytes) -> bytes:
    """Prefix an ID3v2.3 tag (one TIT2 title frame) to a bare MP3."""
    title = b"\x00" + b"Hostile corpus control"
    frame = b"TIT2" + len(title).to_bytes(4, "big") + b"\x00\x00" + title
    size = len(frame)
    syncsafe = bytes((size >> s) & 0x7F for s in (21, 14, 7, 0))
    return b"ID3\x03\x00\x00" + syncsafe + frame + mp3


# ------------------------------------------------------------------ controls


def good_controls(c: Corpus):
    k = "good-control"
    copies = [
        ("pdf/handbook.pdf", "good-handbook.pdf"),
        ("sheets/book.xlsx", "good-book.xlsx"),
        ("sheets/penguins-raw.csv", "good-penguins.csv"),
    ]
    if not c.small:
        copies += [
            ("sheets/book.ods", "good-book.ods"),
            ("sheets/book.xls", "good-book.xls"),
            ("sheets/penguins.xlsx", "good-penguins.xlsx"),
            ("sheets/penguins.ods", "good-penguins.ods"),
            ("sheets/penguins.tsv", "good-penguins.tsv"),
            ("sheets/book-semicolon.csv", "good-book-semicolon.csv"),
        ]
    for src, dst in copies:
        c.add(dst, fx(src), k, "indexed")
    audio = list(AUDIO.items()) if not c.small else [("audio/intro.wav", "audio/intro.vtt")]
    for src, side in audio:
        name = "good-" + src.split("/")[1]
        c.add(name, fx(src), k, "indexed")
        c.sidecar(name, side)
    # The MP3 case: no ID3 tag, the file starts with frame sync.
    bare = strip_id3(fx("audio/intro-mp3.mp3"))
    assert bare[:2] in (b"\xff\xfb", b"\xff\xf3", b"\xff\xfa", b"\xff\xf2"), "fixture lost its frame sync"
    c.add("good-noid3.mp3", bare, "audio-no-id3", "indexed", "MP3 without ID3v2 tag: frame sync FF FB")
    c.sidecar("good-noid3.mp3", "audio/intro-mp3.srt")
    if not c.small:
        c.add("good-id3.mp3", with_id3(bare), k, "indexed", "same MP3 with an ID3v2.3 tag")
        c.sidecar("good-id3.mp3", "audio/intro-mp3.srt")
    samples = sorted(p for p in SAMPLES.iterdir() if not p.name.startswith("."))
    code = sorted(p for p in (FIX / "code").iterdir() if p.name != "SOURCES.md")
    if c.small:
        samples = [p for p in samples if p.suffix in (".html", ".md")][:2]
        code = [p for p in code if p.suffix == ".rs"][:1]
    for p in samples + code:
        c.add("good-" + p.name, p.read_bytes(), k, "indexed")
    # Built by formats.py: proves the builders that make the bombs and XXE
    # files produce containers the readers accept.
    c.add("good-crafted.xlsx", F.xlsx(F.SHEET_HEAD + F.rows_xml([["name", "value"], ["alpha", "1"]]) + F.SHEET_TAIL), k, "indexed")
    if not c.small:
        c.add("good-crafted.ods", F.ods(F.ODS_HEAD + F.ods_row(["name", "value"]) + F.ods_row(["alpha", "1"]) + F.ODS_TAIL), k, "indexed")
        c.add("good-crafted.pdf", F.simple_pdf(["Crafted control page one.", "Crafted control page two."]), k, "indexed")
    # A symlink to a file inside the folder is fine and must be followed.
    os.symlink("good-handbook.pdf", c.path("good-link-to-handbook.pdf"))
    c.record("good-link-to-handbook.pdf", "symlink-inside", "indexed", "symlink to a file inside the folder")


# ------------------------------------------------------------------ mutations

MUTATE = [  # (extension, fixture) truncated and bit-flipped
    ("pdf", "pdf/handbook.pdf"),
    ("xlsx", "sheets/book.xlsx"),
    ("ods", "sheets/book.ods"),
    ("xls", "sheets/book.xls"),
    ("xlsb", "sheets/book-sheetjs.xlsb"),
    ("csv", "sheets/penguins-raw.csv"),
    ("wav", "audio/intro.wav"),
    ("mp3", "audio/intro-mp3.mp3"),
    ("flac", "audio/intro-flac.flac"),
    ("ogg", "audio/intro-ogg.ogg"),
    ("m4a", "audio/intro-m4a.m4a"),
    ("html", "../../../../samples/rust-book-hash-maps.html"),
    ("tsx", "code/HydrationBoundary.tsx"),
]
TEXT_TRUNC = [("md", "../../../../samples/walkdir-README.md"), ("txt", "../../../../samples/dpkg-rootless-builds.txt"), ("rs", "code/hex.rs")]


def mutations(c: Corpus):
    src = MUTATE + TEXT_TRUNC
    fractions = [0.1, 0.5, 0.9] if not c.small else [0.5]
    for ext, rel in src if not c.small else [s for s in src if s[0] in ("pdf", "xlsx")]:
        data = fx(rel)
        for frac in fractions:
            name = f"truncated-{int(frac * 100)}pct.{ext}"
            c.add(name, data[: int(len(data) * frac)], "truncated", "either", f"first {frac:.0%} of {Path(rel).name}")
            if ext in ("wav", "mp3", "flac", "ogg", "m4a"):
                c.sidecar(name, AUDIO[rel])
    flips = [1, 16, 256] if not c.small else [16]
    for ext, rel in MUTATE if not c.small else [s for s in src if s[0] in ("xlsx", "wav")]:
        data = fx(rel)
        for n in flips:
            buf = bytearray(data)
            # Spare the first 16 bytes: a flipped magic number only tests
            # detection; flips further in reach the parsers.
            for _ in range(n):
                i = c.rng.randrange(16, len(buf))
                buf[i] ^= 1 << c.rng.randrange(8)
            name = f"bitflip-{n}.{ext}"
            c.add(name, bytes(buf), "bit-flipped", "either", f"{n} seeded random bit flips in {Path(rel).name}")
            if ext in ("wav", "mp3", "flac", "ogg", "m4a"):
                c.sidecar(name, AUDIO[rel])
    exts = ["txt", "md", "html", "pdf", "xlsx", "ods", "xls", "csv", "wav", "mp3", "rs", "py"]
    for ext in exts if not c.small else ["pdf"]:
        c.add(f"zero-byte.{ext}", b"", "zero-byte", "failed")
    if not c.small:
        c.add("zero-byte-noext", b"", "zero-byte", "failed")


# ------------------------------------------------------------------ lies


def wrong_extensions(c: Corpus):
    pdf, xlsx = fx("pdf/handbook.pdf"), fx("sheets/book.xlsx")
    html = (SAMPLES / "rust-book-hash-maps.html").read_bytes()
    md = (SAMPLES / "walkdir-README.md").read_bytes()
    elf = b"\x7fELF\x02\x01\x01" + b"\x00" * 57
    png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x02\x00\x00\x00"
    pe = b"MZ\x90\x00\x03\x00\x00\x00\x04\x00\x00\x00\xff\xff" + b"\x00" * 48
    zbuf = io.BytesIO()
    with zipfile.ZipFile(zbuf, "w") as z:
        z.writestr("notes.txt", PARA)
    lies = [  # (name, bytes, expect, note)
        ("pdf-named.xlsx", pdf, "failed", "PDF bytes"),
        ("html-named.pdf", html, "failed", "HTML bytes"),
        ("zip-named.csv", zbuf.getvalue(), "failed", "plain zip"),
    ]
    if not c.small:
        lies += [
            ("pdf-named.csv", pdf, "failed", "PDF bytes"),
            ("pdf-named.txt", pdf, "failed", "PDF bytes"),
            ("pdf-named.mp3", pdf, "failed", "PDF bytes"),
            ("pdf-named.md", pdf, "failed", "PDF bytes"),
            ("html-named.xlsx", html, "failed", "HTML bytes"),
            ("xlsx-named.csv", xlsx, "failed", "OOXML zip"),
            ("xlsx-named.pdf", xlsx, "failed", "OOXML zip"),
            ("zip-named.txt", zbuf.getvalue(), "failed", "plain zip"),
            ("wav-named.pdf", fx("audio/intro.wav"), "failed", "WAV bytes"),
            ("mp3-named.xlsx", fx("audio/intro-mp3.mp3"), "failed", "MP3 bytes"),
            ("markdown-named.pdf", md, "failed", "Markdown text"),
            ("csv-named.xlsx", fx("sheets/penguins-raw.csv"), "failed", "CSV text"),
            ("elf-named.txt", elf, "failed", "ELF header"),
            ("png-named.pdf", png, "failed", "PNG header"),
            ("setup.exe", pe, "failed", "PE executable: unsupported type"),
            ("data.xyz", PARA.encode(), "failed", "unknown extension"),
            ("xlsx-named.ods", xlsx, "either", "a spreadsheet in another spreadsheet format"),
            ("wav-named.mp3", fx("audio/intro.wav"), "either", "audio in another audio format"),
            ("html-named.txt", html, "either", "HTML is text"),
            ("pdf-without-extension", pdf, "either", "content says PDF, no extension"),
        ]
    for name, data, expect, note in lies:
        c.add(name, data, "wrong-extension", expect, note)
    for ext in ("wav", "mp3"):
        for name in [n for n, *_ in lies if n.endswith("." + ext)]:
            c.sidecar(name, AUDIO["audio/intro.wav"])


def fixtures_as_is(c: Corpus):
    """The committed broken fixtures, unchanged."""
    items = [
        ("pdf/encrypted.pdf", "encrypted.pdf", "encrypted", "failed", "user password"),
        ("sheets/encrypted.xlsx", "encrypted.xlsx", "encrypted", "failed", "password-protected workbook"),
        ("audio/rate0.wav", "rate0.wav", "corrupt-audio", "failed", "sample rate 0"),
        ("audio/corrupt-header.wav", "corrupt-header.wav", "corrupt-audio", "failed", "corrupt header"),
        ("word/truncated.docx", "truncated.docx", "truncated", "failed", "the first half of a docx"),
    ]
    if not c.small:
        items += [
            ("pdf/owner-only.pdf", "owner-only.pdf", "encrypted", "either", "owner password only: readable"),
            ("pdf/scanned.pdf", "scanned.pdf", "no-text", "either", "image-only page"),
            ("pdf/truncated.pdf", "fixture-truncated.pdf", "truncated", "either", ""),
            ("sheets/truncated.xlsx", "fixture-truncated.xlsx", "truncated", "either", ""),
            ("sheets/junk.xlsx", "junk.xlsx", "wrong-extension", "failed", "junk bytes"),
            # 64 MiB inflated: under the 1 GiB default, so it may be read.
            ("sheets/bomb.xlsx", "fixture-bomb.xlsx", "decompression-bomb", "either", "inflates to 64 MiB"),
            # SheetJS's compact xlsb records: refused, not read with holes.
            ("sheets/book-sheetjs.xlsb", "book-sheetjs.xlsb", "unsupported-variant", "failed", "compact xlsb cell records"),
            ("audio/truncated.mp3", "fixture-truncated.mp3", "truncated", "either", ""),
            ("audio/intro-mp3.mp3", "mp3-without-sidecar.mp3", "no-text", "indexed", "transcribed: speech recognition"),
        ]
    for src, name, kind, expect, note in items:
        c.add(name, fx(src), kind, expect, note)
        if name.endswith((".wav", ".mp3")) and "without-sidecar" not in name:
            c.sidecar(name, "audio/intro.vtt")


# ------------------------------------------------------------------ bombs


def bombs(c: Corpus):
    k = "decompression-bomb"
    mib = 1 << 20
    row = '<row><c t="inlineStr"><is><t>lol</t></is></c></row>'
    body = (row * (mib // len(row) + 1))[: (mib // len(row)) * len(row)].encode()
    # --small: just over the 1 GiB max_decompressed_bytes default, to stay fast.
    mibs = 1280 if c.small else 2048
    raw, crc, _, size = F.deflate_repeat(F.SHEET_HEAD.encode(), body, mibs, F.SHEET_TAIL.encode())
    c.add(f"bomb-sheet-{mibs // 1024}g.xlsx" if not c.small else "bomb-sheet.xlsx", F.xlsx((raw, crc, size)), k, "failed", f"sheet XML inflates to {size >> 20} MiB")
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


# ------------------------------------------------------------------ scale


def scale(c: Corpus):
    k = "huge-counts"
    pages = 10_000 if not c.small else 6_000
    c.add(f"pages-{pages // 1000}k.pdf", F.simple_pdf([f"Page {i + 1} of a very long report." for i in range(pages)]), k, "failed", f"{pages} pages > max_pages 5000")
    if c.small:
        return
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
    c.add("unclosed-quote.csv", b'a,b\n1,"never closed\n' + (b"2,row\n" * 100_000), k, "either", "an opening quote swallows 100k lines")


# ------------------------------------------------------------------ file system


def file_system(c: Corpus):
    outside = c.out.parent / "outside"
    outside.mkdir(exist_ok=True)
    (outside / "secret.txt").write_text(f"{OUTSIDE_MARKER} this file lives outside the ingested folder.\n")
    links = [  # (name, target, note, is_dir)
        ("link-to-etc-passwd.txt", "/etc/passwd", "absolute link out of the folder", False),
        ("link-dangling.txt", "does-not-exist.txt", "dangling", False),
        ("loop-a.txt", "loop-b.txt", "a -> b -> a", False),
        ("loop-b.txt", "loop-a.txt", "b -> a -> b", False),
    ]
    if not c.small:
        links += [
            ("link-outside-dir", "../outside", "relative link to a sibling folder", True),
            ("link-outside-file.txt", "../outside/secret.txt", "relative link to a file outside", False),
            ("link-to-etc", "/etc", "absolute link to a folder", True),
            ("loop-self.txt", "loop-self.txt", "links to itself", False),
        ]
    for name, target, note, is_dir in links:
        os.symlink(target, c.path(name))
        c.record(name, "symlink", "skipped", note, **({"dir": True} if is_dir else {}))
    if not c.small:
        # A folder link back to its ancestor: following it would list forever.
        (c.out / "loopdir").mkdir()
        (c.out / "loopdir" / "good-inside.md").write_text("# Inside\n\n" + PARA)
        c.record("loopdir/good-inside.md", "good-control", "indexed", "beside a loop link: the loop must not stop the walk")
        os.symlink("..", c.path("loopdir/up"))
        c.record("loopdir/up", "symlink", "skipped", "link to its own ancestor", dir=True)
    specials = [("fifo.txt", "fifo")] + ([("fifo.pdf", "fifo"), ("device-null.txt", (1, 3)), ("device-zero.txt", (1, 5)), ("socket.txt", "socket")] if not c.small else [])
    for name, what in specials:
        p = c.path(name)
        try:
            if what == "fifo":
                os.mkfifo(p)
            elif what == "socket":
                s = socket.socket(socket.AF_UNIX)
                s.bind(p)
                s.close()
            else:
                os.mknod(p, stat.S_IFCHR | 0o644, os.makedev(*what))
        except OSError as e:  # no CAP_MKNOD in most containers
            print(f"make_corpus: cannot create {name}: {e}", file=sys.stderr)
            continue
        c.record(name, "special-file", "skipped", "reading it would block (FIFO) or never end (/dev/zero)")
    body = PARA.encode()
    names = [b"name\nwith-newline.txt", b"bad-\xff\xfe-bytes.txt"]
    if not c.small:
        names += [
            b"-rf.txt",
            b"tab\there.txt",
            b"ctrl-\x01\x07\x1b[31mred.txt",
            b"--help.md",
            b"-",
            b"a" * 251 + b".txt",  # 255 bytes: the longest name ext4 allows
            b"latin1-caf\xe9.txt",
            b"<img src=x onerror=alert(1)>.txt",
            b"<script>alert('name')<\xe2\x88\x95script>.md",
            b"'; DROP TABLE documents;--.txt",
            b"page#page=3.txt",
            b"query?x=1&y=..%2f..%2fetc.txt",
            b"rtl-\xe2\x80\xaetxt.exe.txt",
            b" leading and trailing space .txt",
            b"\xf0\x9f\x92\xa5 emoji.txt",
        ]
    for raw in names:
        with open(c.path(raw), "wb") as f:
            f.write(body)
        c.record(raw, "name", "either", "ordinary text; only the name is hostile")
    if not c.small:
        # A path longer than PATH_MAX (4096): 20 folders of 200 bytes each,
        # made with dir_fd because the full path cannot be opened.
        fd = os.open(c.out, os.O_RDONLY)
        rel = []
        for i in range(20):
            d = f"{i:02d}" + "d" * 198
            os.mkdir(d, dir_fd=fd)
            nfd = os.open(d, os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = nfd
            rel.append(d)
        wfd = os.open("deep.txt", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
        os.write(wfd, body)
        os.close(wfd)
        os.close(fd)
        c.record("/".join(rel + ["deep.txt"]), "name", "either", "path longer than PATH_MAX")
    c.add("unreadable.txt", body, "permission", "either", "chmod 000 (root still reads it)")
    os.chmod(c.path("unreadable.txt"), 0)
    if not c.small:
        (c.out / "unreadable-dir").mkdir()
        (c.out / "unreadable-dir" / "inside.txt").write_bytes(body)
        os.chmod(c.out / "unreadable-dir", 0)
        c.record("unreadable-dir/inside.txt", "permission", "either", "in a chmod 000 folder")
    # Sparse: 3 GiB of apparent size, no blocks on disk.
    for name in ["sparse-3g.txt"] + (["sparse-3g.pdf"] if not c.small else []):
        with open(c.path(name), "wb") as f:
            if name.endswith(".pdf"):
                f.write(b"%PDF-1.7\n")
            f.truncate(3 << 30)
        c.record(name, "sparse", "failed", "3 GiB apparent size > max_file_bytes")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out_dir", type=Path)
    ap.add_argument("--seed", type=int, default=12)
    ap.add_argument("--small", action="store_true", help="a ~40-file subset for cargo test")
    ap.add_argument("--manifest", type=Path, help="default: OUT_DIR/../manifest.json")
    args = ap.parse_args()
    started = time.monotonic()
    out = args.out_dir.absolute()
    out.mkdir(parents=True)  # must not exist: never mix with an old corpus
    c = Corpus(out, args.seed, args.small)
    for step in (good_controls, mutations, wrong_extensions, fixtures_as_is, bombs, nesting, scale, xxe, encodings, long_lines, file_system):
        step(c)
    manifest = args.manifest or out.parent / "manifest.json"
    counts = {}
    for e in c.entries:
        counts[e["kind"]] = counts.get(e["kind"], 0) + 1
    doc = {
        "folder": str(out),
        "seed": args.seed,
        "small": args.small,
        "outside_marker": OUTSIDE_MARKER,
        "counts": dict(sorted(counts.items())),
        "entries": c.entries,
    }
    manifest.write_text(json.dumps(doc, indent=1, ensure_ascii=True) + "\n")
    print(
        f"make_corpus: {len(c.entries)} entries ({sum(1 for e in c.entries if e['kind'] != 'sidecar')} besides sidecars) "
        f"in {out} in {time.monotonic() - started:.1f}s; manifest {manifest}",
        file=sys.stderr,
    )


if __name__ == "__main__":
    main()
