"""Good controls and damaged files: real fixtures copied as they are,
truncated, bit-flipped, or named as another type."""

import io
import os
import sys
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import formats as F  # noqa: E402
from corpus import AUDIO, FIX, PARA, SAMPLES, Corpus, fx, strip_id3, with_id3  # noqa: E402


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
            ("word/policy.docx", "good-policy.docx"),
            ("word/policy.rtf", "good-policy.rtf"),
            ("word/policy.doc", "good-policy.doc"),
            ("slides/review.pptx", "good-review.pptx"),
            ("slides/charts.pptx", "good-charts.pptx"),
            ("slides/charts.odp", "good-charts.odp"),
            ("slides/review.odp", "good-review.odp"),
            ("slides/review.ppt", "good-review.ppt"),
            ("slides/charts.ppt", "good-charts.ppt"),
            ("slides/embedded-simple-2007.ppt", "good-powerpoint-2007.ppt"),
            ("email/outage.eml", "good-outage.eml"),
            ("email/ops-list.mbox", "good-ops-list.mbox"),
            ("email/access-review.msg", "good-access-review.msg"),
            ("ebook/field-guide.epub", "good-field-guide.epub"),
            ("archive/handbook.zip", "good-handbook.zip"),
            ("archive/handbook.tar.gz", "good-handbook.tar.gz"),
            ("archive/notes.txt.gz", "good-notes.txt.gz"),
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
    # A transcript with no recording of its name is a document of its own;
    # one that does not parse fails like any malformed file.
    c.add("lone-captions.vtt", fx("audio/intro.vtt"), "transcript-alone", "indexed", "WebVTT, no recording beside it")
    c.add("lone-broken.srt", b"1\nhello\nworld\n", "transcript-alone", "failed", "SubRip with no timing line")
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
        c.add("good-crafted.pptx", F.pptx([F.SLIDE_HEAD + F.slide_text("Crafted control slide.") + F.SLIDE_TAIL]), k, "indexed")
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
    ("opus", "audio/intro-opus.opus"),
    ("html", "../../../../samples/rust-book-hash-maps.html"),
    ("tsx", "code/HydrationBoundary.tsx"),
    ("docx", "word/policy.docx"),
    ("rtf", "word/policy.rtf"),
    ("doc", "word/policy.doc"),
    ("pptx", "slides/review.pptx"),
    ("odp", "slides/review.odp"),
    ("ppt", "slides/review.ppt"),
    ("mbox", "email/ops-list.mbox"),
    ("msg", "email/access-review.msg"),
    ("epub", "ebook/field-guide.epub"),
    ("zip", "archive/handbook.zip"),
    ("tgz", "archive/handbook.tar.gz"),
    ("ipynb", "notebook/returns.ipynb"),
    ("mhtml", "web-archive/parking.mhtml"),
    ("fodt", "flat-odf/policy.fodt"),
    ("fods", "flat-odf/book.fods"),
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
            if ext in ("wav", "mp3", "flac", "ogg", "m4a", "opus"):
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
            if ext in ("wav", "mp3", "flac", "ogg", "m4a", "opus"):
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
            ("~$budget.xlsx", b"\x06alice" + b" " * 48 + b"\x06\x00a\x00l\x00i\x00c\x00e\x00" + b"\x00" * 98, "skipped", "an Office owner file, there while budget.xlsx is open"),
            ("data.xyz", PARA.encode(), "indexed", "text under an unknown extension is read as text"),
            ("README", PARA.encode(), "indexed", "text without an extension"),
            ("blob.xyz", bytes(range(256)) * 16, "failed", "binary under an unknown extension"),
            ("id_ed25519", b"-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU=\n-----END OPENSSH PRIVATE KEY-----\n", "failed", "a private key is text, not a document"),
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
            ("audio/briefing.webm", "webm-without-sidecar.webm", "no-text", "indexed", "stereo Opus in WebM, transcribed"),
            ("archive/truncated.tar.gz", "fixture-truncated.tar.gz", "truncated", "indexed", "the files before the damage"),
            ("archive/encrypted.zip", "encrypted.zip", "encrypted", "failed", "its one file under a password"),
            ("slides/encrypted.ppt", "encrypted.ppt", "encrypted", "failed", "password-protected PowerPoint 97-2003 deck"),
            ("archive/pictures.zip", "pictures.zip", "no-text", "failed", "a PNG only"),
        ]
    for src, name, kind, expect, note in items:
        c.add(name, fx(src), kind, expect, note)
        if name.endswith((".wav", ".mp3")) and "without-sidecar" not in name:
            c.sidecar(name, "audio/intro.vtt")


# ------------------------------------------------------------------ bombs
