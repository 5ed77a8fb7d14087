#!/usr/bin/env python3
"""Dual-model fusion tried offline: two `ragpipe eval --out` runs of the same
golden set (e.g. all-MiniLM-L6-v2 and multilingual-e5-small over the same
corpus and chunking) fused by reciprocal rank of their ranked hits, scored
like `ragpipe eval` and paired against each run with exact sign tests.

  python3 eval/fuse.py RUN_A.json RUN_B.json [--k 60] [--split test]

A hit is `document#locator`; chunks are the same in both runs when the
chunking is (same budget), so a chunk both models rank high adds up.
"""

from __future__ import annotations

import argparse
import json
from math import comb
from pathlib import Path

KS = (1, 4, 8, 20)


def sign_p(won: int, lost: int) -> float:
    n = won + lost
    if n == 0:
        return 1.0
    tail = sum(comb(n, i) for i in range(0, min(won, lost) + 1)) / 2 ** n
    return min(1.0, 2 * tail)


def fused_rank(a: list, b: list, k: float) -> int | None:
    score: dict[str, float] = {}
    answers: dict[str, bool] = {}
    for hits in (a, b):
        for rank, (chunk, ok) in enumerate(hits, 1):
            score[chunk] = score.get(chunk, 0.0) + 1.0 / (k + rank)
            answers[chunk] = answers.get(chunk, False) or ok
    order = sorted(score, key=lambda c: -score[c])[:20]
    return next((i for i, c in enumerate(order, 1) if answers[c]), None)


def summary(name: str, ranks: dict) -> None:
    n = len(ranks)
    rec = " ".join(f"@{k} {sum(1 for r in ranks.values() if r and r <= k) / n:.3f}" for k in KS)
    mrr = sum(1 / r for r in ranks.values() if r) / n
    print(f"{name:>8}: n {n}  {rec}  MRR {mrr:.3f}")


def paired(name: str, base: dict, other: dict) -> None:
    cells = []
    for k in KS:
        won = sum(1 for q in base if (other[q] or 99) <= k < (base[q] or 99))
        lost = sum(1 for q in base if (base[q] or 99) <= k < (other[q] or 99))
        cells.append(f"@{k} +{won}/-{lost} p {sign_p(won, lost):.3f}")
    print(f"  fused vs {name}: " + "  ".join(cells))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--k", type=float, default=60.0)
    ap.add_argument("--split", help="dev or test (needs --golden)")
    ap.add_argument("--golden")
    args = ap.parse_args()
    runs = [json.loads(Path(p).read_text()) for p in (args.a, args.b)]
    keep = None
    if args.split:
        keep = {json.loads(l)["id"] for l in Path(args.golden).read_text().splitlines()
                if l.strip() and json.loads(l).get("split") == args.split}
    qa = {q["id"]: q for q in runs[0]["queries"] if keep is None or q["id"] in keep}
    qb = {q["id"]: q for q in runs[1]["queries"] if q["id"] in qa}
    ra = {i: q["rank"] for i, q in qa.items()}
    rb = {i: qb[i]["rank"] for i in qa}
    fused = {i: fused_rank(qa[i]["top"], qb[i]["top"], args.k) for i in qa}
    summary("A", ra)
    summary("B", rb)
    summary("fused", fused)
    paired("A", ra, fused)
    paired("B", rb, fused)
    for style in ("doc", "ticket"):
        ids = [i for i in qa if qa[i]["style"] == style]
        summary(f"A {style}", {i: ra[i] for i in ids})
        summary(f"F {style}", {i: fused[i] for i in ids})


if __name__ == "__main__":
    main()
