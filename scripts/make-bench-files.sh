#!/usr/bin/env bash
# Generates large files for `ragpipe bench extract` (not committed, not used
# by tests): a workbook of ROWS rows x 8 columns (openpyxl, write-only), a
# PDF of PAGES pages of text (reportlab), a Word document of PAGES
# sections of headings, paragraphs, list items and a table (python-docx) and
# a deck of PAGES slides of a title, bullets and speaker notes, every fifth
# with a table (python-pptx), all from PyPI in a throwaway venv, and a
# mailbox of 10 x PAGES messages of three paragraphs each (Python's own
# `mailbox`) and an e-book of PAGES chapters of a heading, six paragraphs
# and, every fifth, a table (EbookLib); big.zip and big.tar.gz hold the
# Word document, the PDF and the e-book (Python's zipfile and tarfile);
# big.rtf and big.doc are LibreOffice's conversions of big.docx, and big.ppt
# of big.pptx, when soffice is installed.
#
#   scripts/make-bench-files.sh OUT_DIR [ROWS] [PAGES]
set -euo pipefail
out="${1:?usage: make-bench-files.sh OUT_DIR [ROWS] [PAGES]}"
rows="${2:-900000}"
pages="${3:-1000}"
venv="${RAGPIPE_CACHE:-$HOME/.cache/ragpipe}/bench-venv"
[[ -x "$venv/bin/python" ]] || python3 -m venv "$venv"
"$venv/bin/pip" install --quiet openpyxl==3.1.5 reportlab==4.4.4 python-docx==1.2.0 python-pptx==1.0.2 ebooklib==0.19
mkdir -p "$out"
"$venv/bin/python" - "$out" "$rows" "$pages" <<'PY'
import random, sys
from datetime import date, timedelta
import openpyxl
from reportlab.lib.pagesizes import A4
from reportlab.pdfgen import canvas

out, rows, pages = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rnd = random.Random(7)
words = ("station causeway logbook tide survey nest colony storm island harbour ferry "
         "warden beacon channel marsh dune heron curlew plover gull tern").split()

wb = openpyxl.Workbook(write_only=True)
ws = wb.create_sheet("Observations")
ws.append(["Id", "Date", "Site", "Species", "Count", "Weight", "Verified", "Note"])
start = date(2020, 1, 1)
for i in range(rows):
    ws.append([i + 1, start + timedelta(days=i % 1500), f"Site {rnd.randrange(400)}",
               rnd.choice(words).title(), rnd.randrange(1, 500), round(rnd.uniform(0.1, 90.0), 3),
               rnd.random() < 0.5, " ".join(rnd.choice(words) for _ in range(6))])
wb.save(f"{out}/big.xlsx")

c = canvas.Canvas(f"{out}/big.pdf", pagesize=A4)
for p in range(pages):
    c.setFont("Helvetica", 10)
    c.drawString(72, 800, "Field Station Survey Report")
    y = 770
    for _ in range(55):
        c.drawString(72, y, " ".join(rnd.choice(words) for _ in range(12)).capitalize() + ".")
        y -= 13
    c.drawString(290, 40, f"{p + 1}")
    c.showPage()
c.save()

import docx
d = docx.Document()
d.core_properties.title = "Field Station Survey Report"
sentence = lambda: " ".join(rnd.choice(words) for _ in range(12)).capitalize() + "."
for p in range(pages):
    d.add_heading(f"Survey {p + 1}", level=1)
    for _ in range(8):
        d.add_paragraph(" ".join(sentence() for _ in range(4)))
    for _ in range(3):
        d.add_paragraph(sentence(), style="List Bullet")
    table = d.add_table(rows=1, cols=4)
    for cell, name in zip(table.rows[0].cells, ["Site", "Species", "Count", "Note"]):
        cell.text = name
    for _ in range(10):
        cells = table.add_row().cells
        cells[0].text, cells[1].text = f"Site {rnd.randrange(400)}", rnd.choice(words).title()
        cells[2].text, cells[3].text = str(rnd.randrange(1, 500)), sentence()
d.save(f"{out}/big.docx")

import pptx
from pptx.util import Cm
deck = pptx.Presentation()
deck.core_properties.title = "Field Station Survey Briefing"
for p in range(pages):
    if p % 5 == 4:
        s = deck.slides.add_slide(deck.slide_layouts[5])
        s.shapes.title.text = f"Counts {p + 1}"
        table = s.shapes.add_table(11, 4, Cm(1), Cm(4), Cm(23), Cm(14)).table
        for c, name in enumerate(["Site", "Species", "Count", "Note"]):
            table.cell(0, c).text = name
        for r in range(1, 11):
            values = [f"Site {rnd.randrange(400)}", rnd.choice(words).title(), str(rnd.randrange(1, 500)), sentence()]
            for c, value in enumerate(values):
                table.cell(r, c).text = value
    else:
        s = deck.slides.add_slide(deck.slide_layouts[1])
        s.shapes.title.text = f"Survey {p + 1}"
        body = s.placeholders[1].text_frame
        body.text = sentence()
        for _ in range(5):
            body.add_paragraph().text = sentence()
    s.notes_slide.notes_text_frame.text = " ".join(sentence() for _ in range(4))
deck.save(f"{out}/big.pptx")

import mailbox
from email.message import EmailMessage
box = mailbox.mbox(f"{out}/big.mbox")
box.lock()
for m in range(10 * pages):
    msg = EmailMessage()
    msg["Subject"] = f"Re: {sentence()[:40]} #{m}"
    msg["From"] = f"User {m % 97} <user{m % 97}@example.com>"
    msg["To"] = "ops-list@example.com"
    msg["Date"] = "Mon, 04 May 2026 09:00:00 +0000"
    msg.set_content("\n\n".join(" ".join(sentence() for _ in range(2)) for _ in range(3)))
    box.add(msg)
box.flush()
box.unlock()
box.close()

from ebooklib import epub
book = epub.EpubBook()
book.set_identifier("ragpipe-bench")
book.set_title("Bench book")
book.set_language("en")
chapters = []
for c in range(pages):
    body = "".join(f"<p>{' '.join(sentence() for _ in range(3))}</p>" for _ in range(6))
    if c % 5 == 4:
        rows = "".join(f"<tr><td>{r}</td><td>{sentence()}</td></tr>" for r in range(10))
        body += f"<table><tr><th>Row</th><th>Note</th></tr>{rows}</table>"
    ch = epub.EpubHtml(title=f"Chapter {c + 1}", file_name=f"c{c}.xhtml", lang="en")
    ch.content = f"<html><body><h1>Chapter {c + 1}</h1>{body}</body></html>"
    book.add_item(ch)
    chapters.append(ch)
book.add_item(epub.EpubNcx())
book.add_item(epub.EpubNav())
book.spine = chapters
epub.write_epub(f"{out}/big.epub", book)
PY

# Archives of three of them, as a share holds a folder zipped.
python3 - "$out" <<'PY'
import sys, tarfile, zipfile
out = sys.argv[1]
members = ["big.docx", "big.pdf", "big.epub"]
with zipfile.ZipFile(f"{out}/big.zip", "w", zipfile.ZIP_DEFLATED) as z:
    for m in members:
        z.write(f"{out}/{m}", f"reports/{m}")
with tarfile.open(f"{out}/big.tar.gz", "w:gz") as t:
    for m in members:
        t.add(f"{out}/{m}", f"reports/{m}")
PY
ls -la "$out"

# RTF, Word 97 and PowerPoint 97 as an office suite writes them: LibreOffice's
# conversions of big.docx and big.pptx, when LibreOffice is installed (Debian
# libreoffice-writer and libreoffice-impress).
if command -v soffice >/dev/null; then
  profile="$(mktemp -d)"
  for target in docx:rtf docx:doc pptx:ppt; do
    from="${target%%:*}" format="${target##*:}"
    echo "make-bench-files: converting big.$from to big.$format with LibreOffice" >&2
    soffice --headless --norestore -env:UserInstallation="file://$profile" \
      --convert-to "$format" --outdir "$out" "$out/big.$from" >/dev/null 2>&1
  done
  rm -rf "$profile"
else
  echo "make-bench-files: no soffice (Debian libreoffice-writer, -impress), so no big.rtf, big.doc or big.ppt" >&2
fi
