#!/usr/bin/env bash
# Generates large files for `ragpipe bench extract` (not committed, not used
# by tests): a workbook of ROWS rows x 8 columns (openpyxl, write-only) and a
# PDF of PAGES pages of text (reportlab), both from PyPI in a throwaway venv.
#
#   scripts/make-bench-files.sh OUT_DIR [ROWS] [PAGES]
set -euo pipefail
out="${1:?usage: make-bench-files.sh OUT_DIR [ROWS] [PAGES]}"
rows="${2:-900000}"
pages="${3:-1000}"
venv="${RAGPIPE_CACHE:-$HOME/.cache/ragpipe}/bench-venv"
[[ -x "$venv/bin/python" ]] || python3 -m venv "$venv"
"$venv/bin/pip" install --quiet openpyxl==3.1.5 reportlab==4.4.4
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
PY
ls -la "$out"
