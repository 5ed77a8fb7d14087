#!/usr/bin/env python3
"""Writes eval/rows.jsonl: row lookups whose key is written differently
from the table cell (issue 18's "tables found by their keys").

Seattle weather rows are keyed by a date written `2012/01/01`; the
questions write it as `January 1st, 2012`, `1 Jan 2012`, `01/01/2012`
(US order), `2012-01-01` or `1.1.2012`. Stock rows are keyed by a symbol
and a date written `Jan 1 2000`; the questions write `2000-01-01`,
`01/01/2000`, `1 January 2000`; and, since the table is monthly, ten more
ask for the month alone (`March 2004`, `Mar 2004`, `2004-03`; their own
seed, so the first forty stay as they were). The needle is the row as a table chunk
renders it (`cell | cell | …`). Fixed seed: the same set every time.

    python3 eval/make_rows.py
"""
import csv, json, random
from datetime import date
from pathlib import Path

HERE = Path(__file__).resolve().parent / "rows"
rng = random.Random(18)
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August",
          "September", "October", "November", "December"]
NAMES = {"MSFT": "Microsoft", "AMZN": "Amazon", "IBM": "IBM", "GOOG": "Google", "AAPL": "Apple"}


def ordinal(n):
    return f"{n}{'th' if 11 <= n % 100 <= 13 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def written(d, style):
    return {
        "long": f"{MONTHS[d.month - 1]} {ordinal(d.day)}, {d.year}",
        "day-first": f"{d.day} {MONTHS[d.month - 1][:3]} {d.year}",
        "us": f"{d.month:02}/{d.day:02}/{d.year}",
        "iso": d.isoformat(),
        "dotted": f"{d.day}.{d.month}.{d.year}",
        "full": f"{d.day} {MONTHS[d.month - 1]} {d.year}",
    }[style]


out = []
weather = list(csv.DictReader(open(HERE / "seattle-weather.csv")))
for i, row in enumerate(rng.sample(weather, 20)):
    d = date(*map(int, row["date"].split("/")))
    style = ["long", "day-first", "us", "iso", "dotted"][i % 5]
    ask = [f"What was the maximum temperature in Seattle on {written(d, style)}?",
           f"How much precipitation fell in Seattle on {written(d, style)} and what was the weather?"][i % 2]
    needle = " | ".join([row["date"], row["precipitation"], row["temp_max"]])
    out.append({"id": f"w{i:02}", "qid": f"w{i:02}", "style": style, "query": ask,
                "doc": "seattle-weather.csv", "kind": "csv", "needles": [needle]})
stocks = list(csv.DictReader(open(HERE / "stocks.csv")))
for i, row in enumerate(rng.sample(stocks, 20)):
    month, day, year = row["date"].split()
    d = date(int(year), MONTHS.index(next(m for m in MONTHS if m.startswith(month))) + 1, int(day))
    style = ["iso", "us", "full", "long"][i % 4]
    ask = f"What was the {NAMES[row['symbol']]} ({row['symbol']}) share price on {written(d, style)}?"
    needle = " | ".join([row["symbol"], row["date"], row["price"]])
    out.append({"id": f"s{i:02}", "qid": f"s{i:02}", "style": style, "query": ask,
                "doc": "stocks.csv", "kind": "csv", "needles": [needle]})
by_month = random.Random(1804)
for i, row in enumerate(by_month.sample(stocks, 10)):
    month, _, year = row["date"].split()
    name = next(m for m in MONTHS if m.startswith(month))
    style = ["month", "month-abbr", "iso-month"][i % 3]
    asked = {"month": f"{name} {year}", "month-abbr": f"{name[:3]} {year}",
             "iso-month": f"{year}-{MONTHS.index(name) + 1:02}"}[style]
    ask = f"What did {NAMES[row['symbol']]} ({row['symbol']}) stock trade at in {asked}?"
    needle = " | ".join([row["symbol"], row["date"], row["price"]])
    out.append({"id": f"m{i:02}", "qid": f"m{i:02}", "style": style, "query": ask,
                "doc": "stocks.csv", "kind": "csv", "needles": [needle]})
(HERE.parent / "rows.jsonl").write_text("".join(json.dumps(q) + "\n" for q in out))
print(f"wrote {len(out)} questions to eval/rows.jsonl")
