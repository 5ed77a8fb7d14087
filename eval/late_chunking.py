#!/usr/bin/env python3
"""Late chunking tried offline: each chunk's vector is the mean of its own
tokens' states computed with its neighbours in the model's window, so that
a chunk that says "it" or "this option" is read knowing what came before
(the chunk is still cut and cited as the index cut it; only its vector
changes). Against the chunk embedded alone; dense retrieval over every
chunk, as in `dense_prf.py` (a chunk answers when its content holds every
needle; fuzzy needles left out); paired with exact sign tests.

  python3 eval/late_chunking.py --data-dir D --ragpipe RAGPIPE \
      --model MODEL_DIR [--golden G --corpus C] [--context 64,128,256]
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from dense_prf import arguments, dense_setup, first_answer, show  # noqa: E402
from rerank import Encoder  # noqa: E402


def late_vectors(encoder: Encoder, docs: dict, context: int, window: int, batch: int = 8) -> np.ndarray:
    """Every chunk's vector pooled over its own tokens, read with up to
    `context` tokens of its neighbours' content on each side (less where
    the window of `window` tokens would overflow)."""
    tok = encoder.tokenizer
    tok.no_truncation()
    first, last = tok.encode("").ids[:1], tok.encode("").ids[-1:]
    prefix = tok.encode(encoder.prefixes[1], add_special_tokens=False).ids if encoder.prefixes[1] else []
    rows = []
    for chunks in docs.values():
        own = [tok.encode(c["text"], add_special_tokens=False).ids for c in chunks]
        body = [tok.encode(c["content"], add_special_tokens=False).ids for c in chunks]
        for i, ids in enumerate(own):
            ids = ids[: window - 2 - len(prefix)]
            room = window - 2 - len(prefix) - len(ids)
            left = [t for b in body[max(0, i - 3) : i] for t in b][-min(context, room // 2 + room % 2) :] if i and room else []
            right = [t for b in body[i + 1 : i + 4] for t in b][: min(context, room - len(left))]
            seq = first + prefix + left + ids + right + last
            start = 1 + len(prefix) + len(left)
            rows.append((seq, start, start + len(ids)))
    out = []
    for i in range(0, len(rows), batch):
        part = rows[i : i + batch]
        width = max(len(s) for s, _, _ in part)
        ids = np.zeros((len(part), width), np.int64)
        mask = np.zeros_like(ids)
        pool = np.zeros((len(part), width), np.float32)
        for j, (seq, a, b) in enumerate(part):
            ids[j, : len(seq)] = seq
            mask[j, : len(seq)] = 1
            pool[j, a:b] = 1
        feed = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in encoder.inputs:
            feed["token_type_ids"] = np.zeros_like(ids)
        hidden = encoder.session.run(None, feed)[0]
        v = (hidden * pool[..., None]).sum(1) / pool.sum(1, keepdims=True)
        out.append(v / np.linalg.norm(v, axis=1, keepdims=True))
        if i % (batch * 50) == 0:
            print(f"late {context}: {min(i + batch, len(rows))}/{len(rows)}", file=sys.stderr)
    return np.concatenate(out)


def main() -> None:
    ap = arguments()
    ap.add_argument("--context", default="64,128,256")
    ap.add_argument("--window", type=int, default=512)
    ap.add_argument("--split")
    args = ap.parse_args()

    docs, _, _, answers, encoder, queries, vectors = dense_setup(args, args.split)
    plain = queries @ vectors.T
    base = [first_answer(s, ok) for s, ok in zip(plain, answers)]
    show("chunk", base)
    for context in map(int, args.context.split(",")):
        late = queries @ late_vectors(encoder, docs, context, args.window).T
        show(f"late {context}", [first_answer(s, ok) for s, ok in zip(late, answers)], base)
        for w in (0.3, 0.5, 0.7):
            mix = w * late + (1 - w) * plain
            show(f"late {context} x{w}", [first_answer(s, ok) for s, ok in zip(mix, answers)], base)


if __name__ == "__main__":
    main()
