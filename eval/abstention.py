#!/usr/bin/env python3
"""Abstention rules tried on the evidence `ragpipe eval --out` records per
question: the nearest chunk's cosine distance, the margin to the nearest chunk
of any other document, and the share of the query's BM25 terms the first hit
holds (docs/EVALUATION.md, "Abstention").

Each rule's parameters are chosen on the dev split (in-domain questions and
out-of-domain ones) by equal cost: share of answerable questions refused plus
share of out-of-domain questions answered. The chosen rule is then scored on
the test split, which it never saw.

  python3 eval/abstention.py REPORT.json GOLDEN.jsonl OOD.jsonl [REPORT GOLDEN OOD ...]

Several triples (e.g. the English set with MiniLM and the Spanish set with
e5) are pooled per split only when given the same model; otherwise run it
once per set.
"""

from __future__ import annotations

import itertools
import json
import sys
from pathlib import Path


def load(report: str, golden: str, ood: str):
    r = json.loads(Path(report).read_text())
    split = {}
    for path in (golden, ood):
        for line in Path(path).read_text().splitlines():
            if line.strip():
                q = json.loads(line)
                split[q["id"]] = q.get("split", "dev")
    inside = [(split[q["id"]], q["nearest_distance"], q.get("margin", 0.0), q.get("lexical_overlap", 0.0))
              for q in r["queries"]]
    outside = [(split[o["id"]], o["nearest_distance"], o.get("margin", 0.0), o.get("lexical_overlap", 0.0))
               for o in r["ood"]]
    return inside, outside


def frange(lo: float, hi: float, step: float):
    n = int(round((hi - lo) / step))
    return [round(lo + i * step, 4) for i in range(n + 1)]


# A rule answers a question given (distance, margin, lexical).
def rules(ts):
    yield "distance", [(t,) for t in ts], lambda p, d, m, l: d <= p[0]
    yield ("distance, or margin within reach",
           [(t, dt, mm) for t in ts for dt in frange(0.01, 0.10, 0.01) for mm in frange(0.02, 0.30, 0.02)],
           lambda p, d, m, l: d <= p[0] or (d <= p[0] + p[1] and m >= p[2]))
    yield ("distance, or lexical within reach",
           [(t, dt, ll) for t in ts for dt in frange(0.01, 0.06, 0.01) for ll in frange(0.4, 0.9, 0.1)],
           lambda p, d, m, l: d <= p[0] or (d <= p[0] + p[1] and l >= p[2]))
    yield ("distance minus a x margin",
           [(t, a) for t in ts for a in frange(0.0, 5.0, 0.25)],
           lambda p, d, m, l: d - p[1] * m <= p[0])
    yield ("distance, or margin alone",
           [(t, mm) for t in ts for mm in frange(0.02, 0.40, 0.02)],
           lambda p, d, m, l: d <= p[0] or m >= p[1])


def score(rule, params, inside, outside):
    refused = sum(1 for _, d, m, l in inside if not rule(params, d, m, l))
    bluffed = sum(1 for _, d, m, l in outside if rule(params, d, m, l))
    return refused, bluffed


def main(argv: list[str]) -> None:
    if len(argv) < 3 or len(argv) % 3:
        sys.exit(__doc__)
    inside, outside = [], []
    for report, golden, ood in zip(argv[0::3], argv[1::3], argv[2::3]):
        i, o = load(report, golden, ood)
        inside += i
        outside += o
    by = lambda rows, s: [r for r in rows if r[0] == s]  # noqa: E731
    dev_in, dev_out, test_in, test_out = by(inside, "dev"), by(outside, "dev"), by(inside, "test"), by(outside, "test")
    lo = min(d for _, d, _, _ in inside + outside)
    hi = max(d for _, d, _, _ in inside + outside if d < 2.0)
    ts = frange(round(lo, 2), round(hi, 2), 0.01)
    print(f"dev: {len(dev_in)} in-domain / {len(dev_out)} out-of-domain; "
          f"test: {len(test_in)} / {len(test_out)}")
    mean = lambda rows, k: sum(r[k] for r in rows) / max(len(rows), 1)  # noqa: E731
    for name, rows in (("in-domain", inside), ("out-of-domain", outside)):
        print(f"  {name}: mean distance {mean(rows, 1):.3f}, margin {mean(rows, 2):.3f}, lexical {mean(rows, 3):.2f}")
    print("| rule | parameters (chosen on dev) | dev refused | dev bluffed | test refused | test bluffed |")
    print("|---|---|---|---|---|---|")
    for name, grid, rule in rules(ts):
        def cost(p):
            r, b = score(rule, p, dev_in, dev_out)
            # Equal cost; ties go to the rule that bluffs less, then the simplest.
            return (r / max(len(dev_in), 1) + b / max(len(dev_out), 1), b, p)
        best = min(grid, key=cost)
        dr, db = score(rule, best, dev_in, dev_out)
        tr, tb = score(rule, best, test_in, test_out)
        pct = lambda n, d: f"{n} ({100 * n / max(d, 1):.0f} %)"  # noqa: E731
        print(f"| {name} | {best} | {pct(dr, len(dev_in))} | {pct(db, len(dev_out))} | "
              f"{pct(tr, len(test_in))} | {pct(tb, len(test_out))} |")


if __name__ == "__main__":
    main(sys.argv[1:])
