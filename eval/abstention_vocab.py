#!/usr/bin/env python3
"""Does the question name things the corpus never mentions? Tried offline as
abstention evidence beside the nearest distance and the margin
(docs/EVALUATION.md, "Abstention"): an out-of-domain question about Redis,
Terraform or pancakes carries words no document holds, while a question the
corpus answers mostly does not, however it is phrased.

Per question: the share of its content words (lower-cased, English stop
words dropped, Snowball-stemmed) that occur in no chunk of the index
(`unknown`). Rules of the form distance − credit(margin) + c × unknown ≤ t
are fitted on the dev split by equal cost and scored on test, and on the
whole set at a bluff budget.

  python3 eval/abstention_vocab.py --report R.json --data-dir D \
      --ragpipe RAGPIPE [--golden G --ood O --corpus C] [--margin-weight 1.5]

Needs numpy-free Python plus `snowballstemmer` (PyPI, pure Python; not in
the project's venv: `pip install snowballstemmer==2.2.0`).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from abstention import frange  # noqa: E402
from rerank import load_chunks  # noqa: E402

STOP = set("""a about above after again against all am an and any are as at be because been before being
below between both but by can could did do does doing down during each few for from further had has have
having he her here hers herself him himself his how i if in into is it its itself just me more most my
myself no nor not now of off on once only or other our ours ourselves out over own same she should so some
such than that the their theirs them themselves then there these they this those through to too under until
up very was we were what when where which while who whom why will with would you your yours yourself
yourselves get got i'm it's don't doesn't can't won't isn't""".split())


def terms(text: str, stem) -> list[str]:
    words = re.findall(r"[^\W_]+", text.lower())
    return [stem(w) for w in words if w not in STOP and len(w) > 1]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--report", required=True)
    ap.add_argument("--golden", default="eval/golden.jsonl")
    ap.add_argument("--ood", default="eval/ood.jsonl")
    ap.add_argument("--corpus", default="eval/corpus")
    ap.add_argument("--data-dir", required=True)
    ap.add_argument("--ragpipe", default="target/debug/ragpipe")
    ap.add_argument("--language", default="english")
    ap.add_argument("--margin-weight", type=float, default=1.5)
    ap.add_argument("--budget", type=float, default=0.10, help="bluff share allowed on the whole set")
    args = ap.parse_args()

    import snowballstemmer

    stemmer = snowballstemmer.stemmer(args.language)
    stem = stemmer.stemWord
    vocab = set()
    for chunks in load_chunks(args.ragpipe, args.data_dir, Path(args.corpus)).values():
        for c in chunks:
            vocab.update(terms(c["text"], stem))
    print(f"{len(vocab)} distinct terms in the corpus")

    text, split = {}, {}
    for path in (args.golden, args.ood):
        for line in Path(path).read_text().splitlines():
            if line.strip():
                q = json.loads(line)
                text[q["id"]], split[q["id"]] = q["query"], q.get("split", "dev")
    r = json.loads(Path(args.report).read_text())

    def row(q):
        ts = terms(text[q["id"]], stem)
        unknown = [t for t in ts if t not in vocab]
        return split[q["id"]], q["nearest_distance"], q.get("margin", 0.0), len(unknown) / max(len(ts), 1), unknown

    inside = [row(q) for q in r["queries"]]
    outside = [row(o) for o in r["ood"]]
    for name, rows in (("in-domain", inside), ("out-of-domain", outside)):
        u = [x[3] for x in rows]
        print(f"{name}: mean unknown share {sum(u) / len(u):.3f}, none unknown {sum(1 for x in u if x == 0)} of {len(u)}")
    for o in sorted(outside, key=lambda x: -x[3]):
        print(f"  ood {o[3]:.2f} d {o[1]:.3f} m {o[2]:.3f} {' '.join(o[4])}")

    a = args.margin_weight

    def answers(p, d, m, u):
        t, c = p
        return d - min(a * max(m, 0.0), 0.3 * t) + c * u <= t

    def count(p, rows_in, rows_out):
        refused = sum(1 for s, d, m, u, _ in rows_in if not answers(p, d, m, u))
        bluffed = sum(1 for s, d, m, u, _ in rows_out if answers(p, d, m, u))
        return refused, bluffed

    by = lambda rows, s: [x for x in rows if x[0] == s]  # noqa: E731
    dev_in, dev_out, test_in, test_out = by(inside, "dev"), by(outside, "dev"), by(inside, "test"), by(outside, "test")
    ds = [x[1] for x in inside + outside]
    ts = frange(round(min(ds), 2), round(max(ds), 2), 0.005)
    print("| c | dev-fit t | dev refused / bluffed | test refused / bluffed | whole set refused at ≤ budget |")
    print("|---|---|---|---|---|")
    for c in frange(0.0, 0.5, 0.05):
        grid = [(t, c) for t in ts]
        best = min(grid, key=lambda p: (count(p, dev_in, dev_out)[0] / len(dev_in) + count(p, dev_in, dev_out)[1] / len(dev_out), p))
        dr, db = count(best, dev_in, dev_out)
        tr, tb = count(best, test_in, test_out)
        ok = [p for p in grid if count(p, [], outside)[1] <= args.budget * len(outside)]
        whole = min((count(p, inside, outside) for p in ok), default=(len(inside), 0))
        print(f"| {c:.2f} | {best[0]:.3f} | {dr}/{len(dev_in)} / {db}/{len(dev_out)} | {tr}/{len(test_in)} / {tb}/{len(test_out)} "
              f"| {whole[0]}/{len(inside)} ({100 * whole[0] / len(inside):.1f} %), {whole[1]} bluffs |")


if __name__ == "__main__":
    main()
