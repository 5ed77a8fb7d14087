#!/usr/bin/env python3
"""Abstention evidence from more than the next document: does a question
stand out from the *field* of documents, not only from the runner-up?

The shipped rule for all-MiniLM-L6-v2 answers when d1 - 1.5 x margin <= t,
the credit capped at 0.3 t, where d1 is the nearest chunk's cosine distance
and the margin is d2 - d1, d2 the nearest chunk of any other document
(docs/EVALUATION.md, "Abstention"). One runner-up is a noisy witness: an
out-of-domain question can have one document a little nearer by chance, and
an answerable one can have a sibling document (two pages of one manual) just
behind its answer. Here each question's per-document nearest distances
d1 <= d2 <= ... are computed over every chunk of the corpus and these credits
tried in place of the margin:

  margin      d2 - d1 (the shipped evidence, recomputed here as control)
  field k     mean(d2..d(k+1)) - d1: how far the answer stands from the
              next k documents
  z k         (mean(d2..d(k+1)) - d1) / std(d2..d(k+1)): the same in units
              of the field's own spread

Each rule is d1 - a x min(credit, 0.3 t) <= t. Parameters are fitted on the
dev split (equal cost: share refused + share answered out of domain) and
scored on test; the whole-set column is the spec's rule (the largest t
answering at most 10 % of out-of-domain questions) for the dev-fitted a.

  ragpipe --data-dir D ingest eval/corpus
  python3 eval/abstention_spread.py --data-dir D --ragpipe target/debug/ragpipe \
      --model MINILM_DIR [--golden eval/golden.jsonl --ood eval/ood.jsonl]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from rerank import Encoder, corpus_args, load_chunks  # noqa: E402

CAP = 0.3  # ragpipe_core::abstention::MAX_CREDIT


def read(path: str) -> list[dict]:
    return [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]


def per_document(q_vec: np.ndarray, c_vec: np.ndarray, owner: np.ndarray, n_docs: int, kept: int) -> np.ndarray:
    """Each question's nearest cosine distance per document, sorted, as the
    search sees it: among its `kept` nearest chunks (the dense candidates),
    a document with no chunk there at the last candidate's distance (a lower
    bound, as `Answer::next_document_distance` takes it)."""
    dist = 1.0 - q_vec @ c_vec.T
    best = np.full((len(q_vec), n_docs), np.inf)
    for d in range(n_docs):
        best[:, d] = dist[:, owner == d].min(axis=1)
    if kept:
        bound = np.sort(dist, axis=1)[:, kept - 1 : kept]
        best = np.minimum(best, bound)
    return np.sort(best, axis=1)


def credits(field: np.ndarray) -> dict[str, np.ndarray]:
    d1 = field[:, 0]
    out = {"margin": field[:, 1] - d1}
    for k in (3, 5, 10, 20):
        rest = field[:, 1 : k + 1]
        out[f"field {k}"] = rest.mean(axis=1) - d1
        out[f"z {k}"] = (rest.mean(axis=1) - d1) / np.maximum(rest.std(axis=1), 1e-3)
    return out


def answered(d1: np.ndarray, credit: np.ndarray, t: float, a: float) -> np.ndarray:
    return d1 - np.minimum(a * np.maximum(credit, 0.0), CAP * t) <= t


def main() -> None:
    ap = argparse.ArgumentParser()
    corpus_args(ap)
    ap.add_argument("--kept", type=int, default=50, help="dense candidates a search sees (0: every chunk)")
    args = ap.parse_args()

    docs = load_chunks(args.ragpipe, args.data_dir, Path(args.corpus))
    texts, owner = [], []
    for d, chunks in enumerate(docs.values()):
        for c in chunks:
            texts.append(c["text"])
            owner.append(d)
    enc = Encoder(Path(args.model))
    c_vec = enc(texts)
    golden, ood = read(args.golden), read(args.ood)
    qs = golden + ood
    inside = np.array([i < len(golden) for i in range(len(qs))])
    split = np.array([q.get("split", "dev") for q in qs])
    field = per_document(enc([q["query"] for q in qs], query=True), c_vec, np.array(owner), len(docs), args.kept)
    d1 = field[:, 0]
    print(f"{len(texts)} chunks of {len(docs)} documents; {inside.sum()} answerable, {(~inside).sum()} out of domain")

    ts = np.round(np.arange(0.30, 0.80, 0.005), 3)
    print("| credit | a | dev-fit t | dev refused / bluffed | test refused / bluffed | whole set at <= 10 % bluffs: t, refused |")
    print("|---|---|---|---|---|---|")
    for name, credit in credits(field).items():
        for a in ([0.0] if name == "margin" else []) + ([0.5, 1.0, 1.5, 2.0, 3.0] if not name.startswith("z") else [0.01, 0.02, 0.04, 0.06, 0.08]):
            def counts(t: float, part: np.ndarray) -> tuple[int, int, int, int]:
                ok = answered(d1, credit, t, a)
                refused = int((inside & part & ~ok).sum())
                bluffed = int((~inside & part & ok).sum())
                return refused, int((inside & part).sum()), bluffed, int((~inside & part).sum())

            dev, test, whole = split == "dev", split == "test", np.ones_like(inside)
            cost = lambda t: (lambda r, n, b, m: r / n + b / m)(*counts(t, dev))  # noqa: E731
            t_dev = min(ts, key=lambda t: (cost(t), -t))
            r1, n1, b1, m1 = counts(t_dev, dev)
            r2, n2, b2, m2 = counts(t_dev, test)
            within = [t for t in ts if (lambda r, n, b, m: b <= 0.10 * m)(*counts(t, whole))]
            t_all = max(within) if within else float("nan")
            r3, n3, _, _ = counts(t_all, whole) if within else (0, 1, 0, 0)
            print(f"| {name} | {a} | {t_dev:.3f} | {r1}/{n1} / {b1}/{m1} | {r2}/{n2} / {b2}/{m2} | {t_all:.3f}, {r3}/{n3} ({r3 / n3:.1%}) |")


if __name__ == "__main__":
    main()
