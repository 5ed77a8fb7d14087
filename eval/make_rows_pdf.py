"""The row-lookup set on PDF tables (docs/EVALUATION.md, "Tables on PDF
pages"): prints eval/rows/*.csv to PDF as LibreOffice Calc prints a sheet
(every cell as text, as the CSV writes it; the header on the first page
only) and writes eval/rows-pdf.jsonl, the questions of eval/rows.jsonl asked
of those PDFs. Run by Debian's python3 with python3-uno and
libreoffice-calc-nogui:

    python3 eval/make_rows_pdf.py

A needle is the row as eval/rows.jsonl has it (`2013/01/06 | 2.0 | 7.2`);
`ragpipe eval` reads a row's ` | ` as layout, so a build that reads the
table as lines of prose (`2013/01/06 2.0 7.2`) is measured on the same
needles.
"""
import csv, json, os, sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "shared", "extract", "tests", "fixtures", "word"))
from office import Office, prop

out = os.path.join(here, "rows-pdf")
with Office(out, "rows_pdf") as office:
    for name in ("seattle-weather", "stocks"):
        doc = office.desktop.loadComponentFromURL("private:factory/scalc", "_blank", 0, (prop("Hidden", True),))
        sheet = doc.Sheets.getByIndex(0)
        sheet.Name = name
        with open(os.path.join(here, "rows", f"{name}.csv"), newline="") as f:
            rows = list(csv.reader(f))
        area = sheet.getCellRangeByPosition(0, 0, len(rows[0]) - 1, len(rows) - 1)
        area.setDataArray(tuple(tuple(r) for r in rows))
        doc.storeToURL(f"file://{out}/{name}.pdf", (prop("FilterName", "calc_pdf_Export"),))
        doc.close(True)

with open(os.path.join(here, "rows.jsonl")) as src, open(os.path.join(here, "rows-pdf.jsonl"), "w") as dst:
    for line in src:
        q = json.loads(line)
        q["doc"], q["kind"] = q["doc"].replace(".csv", ".pdf"), "pdf"
        dst.write(json.dumps(q) + "\n")
