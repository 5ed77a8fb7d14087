#!/usr/bin/env python3
"""A question of several sentences asked as several queries, tried offline:
a support ticket often tells a story ("I set b = a and now the compiler
refuses to let me touch a") and then asks ("why doesn't it just copy?").
One vector for both is the mean of two meanings; each sentence alone may
land nearer the passage that answers. Each sentence of three words or more
is embedded as a query of its own beside the whole question, and a chunk's
dense score combines the similarities:

  max        the best of the whole question and its sentences
  sent max   the best sentence alone (the whole when there is one)
  mean vec   the normalised mean of the whole's and the sentences' vectors
  whole+a·max the whole's similarity plus a times the best sentence's

Dense retrieval only, over every chunk (`ragpipe chunks`), paired against
the whole question with exact sign tests, as `dense_prf.py` does.

  python3 eval/multi_query.py --data-dir D --ragpipe target/debug/ragpipe \
      --model "$RAGPIPE_MODEL_DIR" [--golden eval/golden.jsonl --corpus eval/corpus]
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from dense_prf import arguments, first_answer, folded, show  # noqa: E402
from rerank import Encoder, load_chunks  # noqa: E402


def sentences(query: str) -> list[str]:
    parts = re.split(r"(?<=[.?!;])\s+", query.strip())
    return [p for p in parts if len(p.split()) >= 3]


def main() -> None:
    ap = arguments()
    ap.add_argument("--split", default=None, help="dev or test: only that split")
    args = ap.parse_args()

    docs = load_chunks(args.ragpipe, args.data_dir, Path(args.corpus))
    chunks = [c for cs in docs.values() for c in cs]
    contents = [folded(c["content"]) for c in chunks]
    golden = [json.loads(l) for l in Path(args.golden).read_text().splitlines() if l.strip()]
    golden = [q for q in golden if not q.get("fuzzy") and (args.split is None or q.get("split") == args.split)]
    answers = [np.array([all(folded(n) in c for n in q["needles"]) for c in contents]) for q in golden]

    encoder = Encoder(Path(args.model))
    vectors = encoder([c["text"] for c in chunks])
    wholes = encoder([q["query"] for q in golden], query=True)
    parts = [sentences(q["query"]) for q in golden]
    flat = [s for p in parts for s in p]
    flat_vecs = encoder(flat, query=True) if flat else np.zeros((0, vectors.shape[1]))
    per_query, at = [], 0
    for p in parts:
        per_query.append(flat_vecs[at : at + len(p)])
        at += len(p)

    def run(combine) -> list:
        ranks = []
        for whole, sents, ok in zip(wholes, per_query, answers):
            base = vectors @ whole
            scores = base if len(sents) < 2 else combine(whole, sents, base)
            ranks.append(first_answer(scores, ok))
        return ranks

    def mean_vec(whole, sents, _base):
        v = whole + sents.sum(0)
        return vectors @ (v / np.linalg.norm(v))

    base = run(lambda w, s, b: b)
    show("whole", base)
    show("max", run(lambda w, s, b: np.maximum(b, (vectors @ s.T).max(1))), base)
    show("sent max", run(lambda w, s, b: (vectors @ s.T).max(1)), base)
    show("mean vec", run(mean_vec), base)
    for a in (0.25, 0.5, 1.0):
        show(f"whole+{a}*max", run(lambda w, s, b, a=a: b + a * (vectors @ s.T).max(1)), base)
        show(f"whole+{a}*mean", run(lambda w, s, b, a=a: b + a * (vectors @ s.T).mean(1)), base)
    multi = [i for i, p in enumerate(parts) if len(p) >= 2]
    print(f"{len(multi)} of {len(golden)} questions have two sentences or more")


if __name__ == "__main__":
    main()
