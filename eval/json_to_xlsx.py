"""Writes a vega_datasets JSON table as a workbook with a title row.

    json_to_xlsx.py IN.json OUT.xlsx SHEET TITLE COLUMN...

A `Year` column holding a date ("1970-01-01") is written as the year; a
missing value stays an empty cell. Run with openpyxl 3.1.5
(eval/build-corpus.sh).
"""

import json
import sys

import openpyxl

src, dst, sheet, title, *cols = sys.argv[1:]
rows = json.load(open(src))
wb = openpyxl.Workbook()
ws = wb.active
ws.title = sheet
ws.append([title])
ws.append(cols)
for r in rows:
    ws.append([int(r[c][:4]) if c == "Year" and isinstance(r.get(c), str) else r.get(c) for c in cols])
wb.save(dst)
