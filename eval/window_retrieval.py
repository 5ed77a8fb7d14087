#!/usr/bin/env python3
"""Windows as the unit of dense retrieval, tried offline: each chunk scored
by its best window of about `--window` words (half-overlapping, each under
the chunk's heading; what a multi-vector point searched by max-sim would
give), or by a mix of that and the chunk's own similarity, against the
chunk's similarity alone. Dense retrieval over every chunk, as in
`dense_prf.py` (a chunk answers when its content holds every needle;
fuzzy needles left out); paired with exact sign tests.

  python3 eval/window_retrieval.py --data-dir D --ragpipe RAGPIPE \
      --model MODEL_DIR [--golden G --corpus C] [--window 32,64]
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from dense_prf import arguments, dense_setup, first_answer, show  # noqa: E402
from rerank import windows  # noqa: E402


def main() -> None:
    ap = arguments()
    ap.add_argument("--window", default="32,64")
    ap.add_argument("--split")
    args = ap.parse_args()

    _, chunks, golden, answers, encoder, queries, vectors = dense_setup(args, args.split)
    heads = [c["text"][: len(c["text"]) - len(c["content"])].strip() if c["text"].endswith(c["content"]) else "" for c in chunks]
    chunk_sim = queries @ vectors.T
    base = [first_answer(s, ok) for s, ok in zip(chunk_sim, answers)]
    show("chunk", base)
    for words in map(int, args.window.split(",")):
        texts, owner = [], []
        for i, c in enumerate(chunks):
            for w in windows(c["content"], words):
                texts.append(f"{heads[i]}\n{w}" if heads[i] else w)
                owner.append(i)
        wv = encoder(texts)
        owner = np.array(owner)
        win = np.full((len(golden), len(chunks)), -1.0)
        sims = queries @ wv.T
        for i in range(len(chunks)):
            win[:, i] = sims[:, owner == i].max(1)
        print(f"{words} words: {len(texts)} windows for {len(chunks)} chunks")
        show(f"window {words}", [first_answer(s, ok) for s, ok in zip(win, answers)], base)
        show(f"max {words}", [first_answer(s, ok) for s, ok in zip(np.maximum(win, chunk_sim), answers)], base)
        for a in (0.3, 0.5, 0.7):
            mix = a * chunk_sim + (1 - a) * win
            show(f"{a} chunk + win {words}", [first_answer(s, ok) for s, ok in zip(mix, answers)], base)


if __name__ == "__main__":
    main()
