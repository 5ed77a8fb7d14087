#!/usr/bin/env python3
"""Build Whisper as three ONNX graphs, a tokenizer.json and ragpipe-asr.json
from a CTranslate2 (faster-whisper) model directory.

Like build_onnx.py this writes the graphs by hand with the onnx helper API:
the registry packages ship only CTranslate2's model.bin, and its layout is
plain. model.bin (binary version 6) is: u32 version, string spec name, u32
spec revision, u32 count, then per tensor: string name, u8 rank, u32 dims,
u8 dtype (0 f32, 1 i8, 2 i16, 3 i32, 4 f16, 5 bf16), u32 byte count, data;
then u32 count of (alias, target) string pairs. Strings are u16 length
(counting a trailing NUL), bytes, NUL. Model hyperparameters are tensors too
(scalars such as encoder/num_heads); dimensions come from the weight shapes.
CTranslate2 fuses self-attention Q|K|V (and cross-attention K|V) into one
Linear, and ties the output projection to the token embedding via an alias.

Graphs (fp32; `batch` is symbolic, and batch-1 cross_k/v broadcast over more
token rows, but the reference decoder uses 1; L layers, H heads,
D = d_model, Dh = D / H, A = n_audio_ctx = 1500, V = vocabulary size):
  encoder.onnx   mel f32 [batch, 80, 3000] -> audio_features f32 [batch, A, D]
  cross_kv.onnx  audio_features -> per decoder layer i, cross_k_i f32
                 [batch, H, Dh, A] (K already transposed for Q.K^T) and
                 cross_v_i f32 [batch, H, A, Dh]; run once per 30 s window
  decoder.onnx   tokens i64 [batch, n], offset i64 [1], cross_k_i, cross_v_i
                 (every layer), past_k, past_v f32 [L, batch, H, p, Dh]
                 -> logits f32 [batch, n, V], present_k, present_v
                    f32 [L, batch, H, offset + n, Dh]
`offset` is how many tokens the cache already holds (the position of
tokens[:, 0]). Only past[..., :offset, :] is read, so p may exceed offset and
the first call may pass p = 0 or a dummy p = 1 with offset 0. Feed present_*
back as past_* with offset += n; offset + n must stay <= n_text_ctx (448).
The cross keys and values are one tensor per layer, not one stacked tensor:
slicing a stacked input costs a copy of all of it (2 x 18 MB for base) on
every step, a quarter of a step's time (docs/BENCHMARKS.md, "int8 graphs").
With --int8, encoder-int8.onnx, cross_kv-int8.onnx and decoder-int8.onnx
have the same interfaces (see INT8 for what is quantised).

Usage: build_whisper.py MODEL_DIR --out-dir DIR [--name NAME] [--int8]
  MODEL_DIR holds model.bin, config.json, tokenizer.json and vocabulary.txt or
  vocabulary.json (CTranslate2's id -> token list, which decides the ids).
"""

from __future__ import annotations

import argparse
import json
import math
import re
import struct
import sys
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from build_onnx import IR_VERSION, OPSET, Graph, save_models

CT2_DTYPES = {0: "<f4", 1: "i1", 2: "<i2", 3: "<i4", 4: "<f2"}  # 5 (bfloat16) unsupported
EPS = 1e-5  # torch.nn.LayerNorm's default, which Whisper uses everywhere
SAMPLE_RATE, N_FFT, HOP, CHUNK_S = 16000, 400, 160, 30

# The int8 copies (--int8): the weights of every MatMul with a constant
# operand (the Linears and the decoder's output projection) int8 per output
# channel, activations quantised per call; everything else stays fp32.
# Chosen by measurement (docs/BENCHMARKS.md, "int8 graphs"): per-tensor
# scales and quantising the attention MatMuls (activation x activation) cost
# words; leaving the 51865 x 512 output projection fp32 keeps a third to half
# of a decoder step for no fidelity; the quantiser's default op list (Conv in
# the encoder, Gather of the token embedding) is no faster and less faithful.
# The decoder's copy is quantised from build_decoder(untied=True):
# onnxruntime's quantiser rewrites Gemm(transB) as a MatMul by transposing
# the Gemm's initializer in place, which would break the Gather that shares
# it (the graph then fails to load).
# reduce_range (7-bit weights): on x86 CPUs without VNNI (AVX2 only, e.g.
# older AMD EPYC) ONNX Runtime's u8 x s8 kernel sums pairs of products in
# 16 bits, which 8-bit weights overflow; the saturated sums garbled whole
# sentences of the voicemail recording there (eval/check_golden.py: 10
# spoken needles lost), 7-bit weights cannot overflow and keep every needle.
INT8 = {"op_types": ["MatMul"], "per_channel": True, "reduce_range": True}


def fail(msg: str) -> None:
    sys.exit(f"build_whisper: {msg}")


def read_ct2(path: Path) -> dict[str, np.ndarray]:
    """All tensors of a CTranslate2 model.bin by name, aliases resolved."""
    buf = path.read_bytes()
    pos = 0

    def take(fmt: str) -> tuple:
        nonlocal pos
        vals = struct.unpack_from("<" + fmt, buf, pos)
        pos += struct.calcsize("<" + fmt)
        return vals

    def string() -> str:
        nonlocal pos
        (n,) = take("H")
        s = buf[pos:pos + n - 1].decode()
        pos += n
        return s

    (version,) = take("I")
    spec = string()
    (revision,) = take("I")
    if version != 6 or spec != "WhisperSpec":
        fail(f"{path} is {spec!r} binary version {version}; need WhisperSpec, version 6")
    tensors = {}
    for _ in range(take("I")[0]):
        name = string()
        (rank,) = take("B")
        dims = take(f"{rank}I")
        dtype, nbytes = take("BI")
        if dtype not in CT2_DTYPES:
            fail(f"{name}: unsupported dtype code {dtype}")
        tensors[name] = np.frombuffer(buf, CT2_DTYPES[dtype], nbytes // np.dtype(CT2_DTYPES[dtype]).itemsize,
                                      pos).reshape(dims)
        pos += nbytes
    for _ in range(take("I")[0]):
        alias, target = string(), string()
        tensors[alias] = tensors[target]
    if pos != len(buf):
        fail(f"{path}: {len(buf) - pos} trailing bytes")
    if any(n.endswith("weight_scale") for n in tensors):
        fail("quantised (int8) model; convert with --quantization float16 or float32")
    print(f"build_whisper: {path.name}: {spec} revision {revision}, {len(tensors)} tensors")
    return tensors


class Whisper:
    """Weights (as float32) and dimensions of one model."""

    def __init__(self, tensors: dict[str, np.ndarray]) -> None:
        self.w = tensors
        self.d_model, self.n_mels, _ = tensors["encoder/conv1/weight"].shape
        self.n_audio_ctx = tensors["encoder/position_encodings/encodings"].shape[0]
        self.n_text_ctx = tensors["decoder/position_encodings/encodings"].shape[0]
        self.n_vocab = tensors["decoder/embeddings/weight"].shape[0]
        self.enc_layers = sum(1 for n in tensors if re.fullmatch(r"encoder/layer_\d+/ffn/linear_0/weight", n))
        self.dec_layers = sum(1 for n in tensors if re.fullmatch(r"decoder/layer_\d+/ffn/linear_0/weight", n))
        self.enc_heads = int(tensors["encoder/num_heads"])
        self.dec_heads = int(tensors["decoder/num_heads"])
        # Only the plain Whisper decoder is implemented; refuse anything else.
        for flag, want in (("pre_norm", 1), ("activation", 3), ("scale_embeddings", 0), ("alibi", 0)):
            if int(tensors.get(f"decoder/{flag}", want)) != want:
                fail(f"decoder/{flag} = {int(tensors[f'decoder/{flag}'])}, expected {want}")

    def t(self, name: str) -> np.ndarray:
        return self.w[name].astype(np.float32)


class Builder:
    """Transformer pieces over one Graph, in CTranslate2's naming."""

    def __init__(self, m: Whisper, heads: int) -> None:
        self.m, self.g, self.heads = m, Graph(), heads
        self.dh = m.d_model // heads
        self.consts: set[str] = set()

    def const(self, name: str, value: np.ndarray) -> str:
        """A small constant, added once however often it is asked for. Unlike
        Graph.const (whose np.ascontiguousarray makes scalars 1-D) it keeps
        0-d arrays 0-d, as Range and a rank-dropping Gather need."""
        if name not in self.consts:
            self.consts.add(name)
            self.g.initializers.append(numpy_helper.from_array(value, name))
        return name

    def linear(self, x: str, scope: str, q_rows: int = 0) -> str:
        """x @ W^T + b. CTranslate2 scales queries by 1/sqrt(Dh) at run time;
        the first q_rows output rows (the Q part) get that scale folded in."""
        w, b = self.m.t(f"{scope}/weight"), self.m.t(f"{scope}/bias")
        if q_rows:
            s = np.float32(1.0 / math.sqrt(self.dh))
            w[:q_rows] *= s
            b[:q_rows] *= s
        wt = self.g.const(f"{scope}/weight_t", np.ascontiguousarray(w.T))
        return self.g.op("Add", [self.g.op("MatMul", [x, wt]), self.g.const(f"{scope}/bias", b)])

    def layer_norm(self, x: str, scope: str, out: str | None = None) -> str:
        g = self.g
        return g.op("LayerNormalization", [x, g.const(f"{scope}/gamma", self.m.t(f"{scope}/gamma")),
                                           g.const(f"{scope}/beta", self.m.t(f"{scope}/beta"))],
                    out, axis=-1, epsilon=EPS)

    def gelu(self, x: str) -> str:  # exact (erf) GELU, fused back into one kernel by ORT
        g, c = self.g, self.const
        erf = g.op("Erf", [g.op("Div", [x, c("sqrt2", np.array(math.sqrt(2.0), dtype=np.float32))])])
        one_plus = g.op("Add", [erf, c("one", np.array(1.0, dtype=np.float32))])
        return g.op("Mul", [g.op("Mul", [x, one_plus]), c("half", np.array(0.5, dtype=np.float32))])

    def split(self, x: str, parts: int) -> list[str]:
        """Split the last axis into `parts` pieces of d_model (Graph.op has one output)."""
        outs = [f"{x}_part{i}" for i in range(parts)]
        sizes = self.const(f"split_{parts}", np.full(parts, self.m.d_model, dtype=np.int64))
        self.g.nodes.append(helper.make_node("Split", [x, sizes], outs, name=f"{x}_Split", axis=-1))
        return outs

    def heads_of(self, x: str, perm: list[int]) -> str:
        """[b, s, D] -> [b, H, s, Dh] (perm 0,2,1,3) or [b, H, Dh, s] (perm 0,2,3,1)."""
        shape = self.const("shape_split_heads", np.array([0, 0, self.heads, self.dh], dtype=np.int64))
        return self.g.op("Transpose", [self.g.op("Reshape", [x, shape])], perm=perm)

    def attend(self, q: str, k_t: str, v: str, bias: str | None = None) -> str:
        """softmax(q k^T + bias) v with heads merged back: [b, s, D]."""
        g = self.g
        scores = g.op("MatMul", [q, k_t])
        if bias:
            scores = g.op("Add", [scores, bias])
        ctx = g.op("MatMul", [g.op("Softmax", [scores], axis=-1), v])
        merged = self.const("shape_merge_heads", np.array([0, 0, self.m.d_model], dtype=np.int64))
        return g.op("Reshape", [g.op("Transpose", [ctx], perm=[0, 2, 1, 3]), merged])

    def ffn(self, x: str, scope: str) -> str:
        h = self.layer_norm(x, f"{scope}/layer_norm")
        h = self.linear(self.gelu(self.linear(h, f"{scope}/linear_0")), f"{scope}/linear_1")
        return self.g.op("Add", [x, h])

    def stack(self, xs: list[str], out: str) -> str:
        """Stack per-layer tensors on a new leading axis."""
        axis0 = self.const("axis_0", np.array([0], dtype=np.int64))
        return self.g.op("Concat", [self.g.op("Unsqueeze", [x, axis0]) for x in xs], out, axis=0)

    def layer_of(self, stacked: str, i: int) -> str:
        return self.g.op("Gather", [stacked, self.const(f"layer_{i}", np.array(i, dtype=np.int64))], axis=0)

    def model(self, name: str, inputs: list, outputs: list, doc: str) -> onnx.ModelProto:
        graph = helper.make_graph(self.g.nodes, name, inputs, outputs, initializer=self.g.initializers)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                                  producer_name="ragpipe/scripts/build_whisper.py")
        model.ir_version = IR_VERSION
        model.doc_string = doc
        return model


def f32(name: str, dims: list) -> onnx.ValueInfoProto:
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, dims)


def build_encoder(m: Whisper) -> onnx.ModelProto:
    b = Builder(m, m.enc_heads)
    g, D = b.g, m.d_model
    n_frames = 2 * m.n_audio_ctx

    def conv(x: str, scope: str, stride: int) -> str:
        return b.gelu(g.op("Conv", [x, g.const(f"{scope}/weight", m.t(f"{scope}/weight")),
                                    g.const(f"{scope}/bias", m.t(f"{scope}/bias"))],
                           kernel_shape=[3], pads=[1, 1], strides=[stride]))

    x = conv(conv("mel", "encoder/conv1", 1), "encoder/conv2", 2)  # [b, D, A]
    x = g.op("Add", [g.op("Transpose", [x], perm=[0, 2, 1]),
                     g.const("encoder/position_encodings", m.t("encoder/position_encodings/encodings"))])
    for i in range(m.enc_layers):
        s = f"encoder/layer_{i}"
        h = b.layer_norm(x, f"{s}/self_attention/layer_norm")
        q, k, v = b.split(b.linear(h, f"{s}/self_attention/linear_0", q_rows=D), 3)
        a = b.attend(b.heads_of(q, [0, 2, 1, 3]), b.heads_of(k, [0, 2, 3, 1]), b.heads_of(v, [0, 2, 1, 3]))
        x = b.ffn(g.op("Add", [x, b.linear(a, f"{s}/self_attention/linear_1")]), f"{s}/ffn")
    b.layer_norm(x, "encoder/layer_norm", "audio_features")
    return b.model("whisper-encoder", [f32("mel", ["batch", m.n_mels, n_frames])],
                   [f32("audio_features", ["batch", m.n_audio_ctx, D])],
                   "Whisper encoder: log-mel [batch, n_mels, 3000] -> audio_features.")


def build_cross_kv(m: Whisper) -> onnx.ModelProto:
    b = Builder(m, m.dec_heads)
    ks, vs = [], []
    for i in range(m.dec_layers):
        k, v = b.split(b.linear("audio_features", f"decoder/layer_{i}/attention/linear_1"), 2)
        ks.append(b.heads_of(k, [0, 2, 3, 1]))
        vs.append(b.heads_of(v, [0, 2, 1, 3]))
    for i, (k, v) in enumerate(zip(ks, vs)):
        b.g.op("Identity", [k], f"cross_k_{i}")
        b.g.op("Identity", [v], f"cross_v_{i}")
    return b.model("whisper-cross-kv", [f32("audio_features", ["batch", m.n_audio_ctx, m.d_model])],
                   cross_values(m), "Cross-attention keys (pre-transposed) and values of every decoder layer.")


def cross_values(m: Whisper) -> list:
    """cross_k_i [batch, H, Dh, A] and cross_v_i [batch, H, A, Dh] of every layer i."""
    H, Dh, A = m.dec_heads, m.d_model // m.dec_heads, m.n_audio_ctx
    return [t for i in range(m.dec_layers)
            for t in (f32(f"cross_k_{i}", ["batch", H, Dh, A]), f32(f"cross_v_{i}", ["batch", H, A, Dh]))]


def build_decoder(m: Whisper, untied: bool = False) -> onnx.ModelProto:
    """The decoder step. `untied` is the layout the int8 copy is quantised
    from (see INT8): the output projection gets its own [D, V] copy of the
    embedding table for a MatMul, and the token lookup reads float16."""
    b = Builder(m, m.dec_heads)
    g, L, H, Dh = b.g, m.dec_layers, m.dec_heads, b.dh

    # Positions offset .. offset+n-1, and the causal bias [n, offset+n]: new
    # token i (at offset+i) may see key j iff j <= offset+i.
    offset = g.op("Squeeze", ["offset"])
    n = g.op("Squeeze", [g.op("Shape", ["tokens"], start=1, end=2)])
    total = g.op("Add", [offset, n], "total_len")
    step = b.const("step", np.array(1, dtype=np.int64))
    q_pos = g.op("Range", [offset, total, step], "positions")
    k_pos = g.op("Range", [b.const("zero", np.array(0, dtype=np.int64)), total, step])
    future = g.op("Greater", [k_pos, g.op("Unsqueeze", [q_pos, b.const("axis_1", np.array([1], dtype=np.int64))])])
    causal = g.op("Where", [future, b.const("mask_min", np.array(np.finfo(np.float32).min, dtype=np.float32)),
                            b.const("fzero", np.array(0.0, dtype=np.float32))], "causal_bias")

    if untied:  # the lookup reads the checkpoint's own (float16) table: the same values, half the bytes
        table = m.w["decoder/embeddings/weight"]
        if table.dtype != np.float16:
            table = m.t("decoder/embeddings/weight")
        emb = g.const("decoder/embeddings/table", table)
        token_emb = g.op("Cast", [g.op("Gather", [emb, "tokens"])], to=TensorProto.FLOAT)
    else:
        emb = g.const("decoder/embeddings/weight", m.t("decoder/embeddings/weight"))
        token_emb = g.op("Gather", [emb, "tokens"])
    x = g.op("Add", [token_emb,
                     g.op("Gather", [g.const("decoder/position_encodings", m.t("decoder/position_encodings/encodings")),
                                     q_pos])])
    starts = b.const("starts_0", np.array([0], dtype=np.int64))
    axes_2 = b.const("axes_2", np.array([2], dtype=np.int64))
    present_k, present_v = [], []
    for i in range(L):
        s = f"decoder/layer_{i}"
        h = b.layer_norm(x, f"{s}/self_attention/layer_norm")
        q, k, v = b.split(b.linear(h, f"{s}/self_attention/linear_0", q_rows=m.d_model), 3)
        # Grow this layer's cache: past[..., :offset, :] ++ new.
        k_all = g.op("Concat", [g.op("Slice", [b.layer_of("past_k", i), starts, "offset", axes_2]),
                                b.heads_of(k, [0, 2, 1, 3])], axis=2)
        v_all = g.op("Concat", [g.op("Slice", [b.layer_of("past_v", i), starts, "offset", axes_2]),
                                b.heads_of(v, [0, 2, 1, 3])], axis=2)
        present_k.append(k_all)
        present_v.append(v_all)
        a = b.attend(b.heads_of(q, [0, 2, 1, 3]), g.op("Transpose", [k_all], perm=[0, 1, 3, 2]), v_all, causal)
        x = g.op("Add", [x, b.linear(a, f"{s}/self_attention/linear_1")])

        h = b.layer_norm(x, f"{s}/attention/layer_norm")
        qc = b.heads_of(b.linear(h, f"{s}/attention/linear_0", q_rows=m.d_model), [0, 2, 1, 3])
        a = b.attend(qc, f"cross_k_{i}", f"cross_v_{i}")
        x = b.ffn(g.op("Add", [x, b.linear(a, f"{s}/attention/linear_2")]), f"{s}/ffn")
    b.stack(present_k, "present_k")
    b.stack(present_v, "present_v")

    # Output projection tied to the embedding: Gemm with transB reads the
    # [V, D] table as is, so the file holds it once and nothing is transposed.
    x = b.layer_norm(x, "decoder/layer_norm")
    flat = g.op("Reshape", [x, b.const("shape_flat", np.array([-1, m.d_model], dtype=np.int64))])
    if untied:
        proj = g.const("decoder/output_projection_t", np.ascontiguousarray(m.t("decoder/embeddings/weight").T))
        logits_2d = g.op("MatMul", [flat, proj])
    else:
        logits_2d = g.op("Gemm", [flat, emb], transB=1)
    out_shape = g.op("Concat", [g.op("Shape", ["tokens"]), b.const("vocab", np.array([m.n_vocab], dtype=np.int64))],
                     axis=0)
    g.op("Reshape", [logits_2d, out_shape], "logits")

    def cache(name: str, length: str) -> onnx.ValueInfoProto:
        return f32(name, [L, "batch", H, length, Dh])

    return b.model(
        "whisper-decoder",
        [helper.make_tensor_value_info("tokens", TensorProto.INT64, ["batch", "n"]),
         helper.make_tensor_value_info("offset", TensorProto.INT64, [1]),
         *cross_values(m), cache("past_k", "past"), cache("past_v", "past")],
        [f32("logits", ["batch", "n", m.n_vocab]), cache("present_k", "total"), cache("present_v", "total")],
        "Whisper decoder step with a self-attention KV cache; feed present_* back as past_* with offset += n.")


def load_vocabulary(model_dir: Path) -> list[str]:
    if (model_dir / "vocabulary.json").exists():
        return json.loads((model_dir / "vocabulary.json").read_text(encoding="utf-8"))
    if (model_dir / "vocabulary.txt").exists():
        return (model_dir / "vocabulary.txt").read_text(encoding="utf-8").rstrip("\n").split("\n")
    fail(f"no vocabulary.json or vocabulary.txt in {model_dir}")


def build_tokenizer(model_dir: Path, vocab: list[str]) -> dict:
    """The model's tokenizer.json, completed to the model's vocabulary: some
    conversions (e.g. tiny.en's) lack the 1501 timestamp tokens. Every token
    from <|endoftext|> on is marked special, so decoding with
    skip_special_tokens drops timestamps too. The post-processor (which would
    wrap encode() in <|startoftranscript|><|notimestamps|>...) is removed: the
    caller builds the prompt from ragpipe-asr.json."""
    tok = json.loads((model_dir / "tokenizer.json").read_text(encoding="utf-8"))
    bpe = tok["model"]["vocab"]
    eot = vocab.index("<|endoftext|>")
    for i, piece in enumerate(vocab[:eot]):
        if bpe.get(piece) != i:
            fail(f"tokenizer.json maps {piece!r} to {bpe.get(piece)}, model vocabulary to {i}")
    added = {t["id"]: t for t in tok["added_tokens"]}
    for i in range(eot, len(vocab)):
        t = added.get(i) or {"id": i, "content": vocab[i], "single_word": False, "lstrip": False,
                             "rstrip": False, "normalized": False}
        if t["content"] != vocab[i]:
            fail(f"tokenizer.json token {i} is {t['content']!r}, model vocabulary has {vocab[i]!r}")
        added[i] = {**t, "normalized": False, "special": True}
    tok["added_tokens"] = [added[i] for i in sorted(added)]
    tok["post_processor"] = None
    return tok


def asr_spec(m: Whisper, vocab: list[str], cfg: dict, name: str) -> dict:
    ids = {t: i for i, t in enumerate(vocab)}
    multilingual = m.n_vocab >= 51865  # Whisper's own test
    no_speech = ids.get("<|nospeech|>", ids.get("<|nocaptions|>"))
    ts_begin = ids["<|0.00|>"]
    if ts_begin != ids["<|notimestamps|>"] + 1 or vocab[-1] != "<|30.00|>":
        fail("timestamp tokens are not <|notimestamps|>+1 .. the last id")
    langs = {t[2:-2]: i for t, i in ids.items()
             if ids["<|startoftranscript|>"] < i < ids["<|translate|>"]}
    return {
        "name": name,
        "multilingual": multilingual,
        "files": {"encoder": "encoder.onnx", "cross_kv": "cross_kv.onnx", "decoder": "decoder.onnx",
                  "tokenizer": "tokenizer.json"},
        "audio": {"sample_rate": SAMPLE_RATE, "n_fft": N_FFT, "hop_length": HOP, "n_mels": m.n_mels,
                  "chunk_seconds": CHUNK_S, "n_frames": CHUNK_S * SAMPLE_RATE // HOP,
                  "mel": "of the audio plus 30 s of zeros: periodic Hann window, centred reflect-padded STFT, "
                         "power, last frame dropped, Slaney mel filters (librosa's defaults: htk=False, "
                         "norm='slaney', 0..8000 Hz), log10(max(x, 1e-10)), max(x, x.max() - 8), (x + 4) / 4; "
                         "a window is n_frames frames from the audio's own len // hop_length frames, "
                         "zero-padded (0.0) to n_frames"},
        "model": {"d_model": m.d_model, "n_audio_ctx": m.n_audio_ctx, "n_text_ctx": m.n_text_ctx,
                  "n_vocab": m.n_vocab, "encoder_layers": m.enc_layers, "encoder_heads": m.enc_heads,
                  "decoder_layers": m.dec_layers, "decoder_heads": m.dec_heads,
                  "head_dim": m.d_model // m.dec_heads},
        "tokens": {"eot": ids["<|endoftext|>"], "sot": ids["<|startoftranscript|>"],
                   "translate": ids["<|translate|>"], "transcribe": ids["<|transcribe|>"],
                   "sot_lm": ids["<|startoflm|>"], "sot_prev": ids["<|startofprev|>"], "no_speech": no_speech,
                   "no_timestamps": ids["<|notimestamps|>"], "timestamp_begin": ts_begin,
                   "timestamp_end": len(vocab) - 1, "seconds_per_timestamp": 0.02},
        # The prompt: English-only models take no language or task token after sot.
        "sot_sequence": ["sot", "language", "transcribe"] if multilingual else ["sot"],
        "sot_sequence_en": ([ids["<|startoftranscript|>"], ids["<|en|>"], ids["<|transcribe|>"]] if multilingual
                            else [ids["<|startoftranscript|>"]]),
        "languages": langs if multilingual else {},
        "suppress_tokens": cfg.get("suppress_ids", []),
        "suppress_blank": cfg.get("suppress_ids_begin", []),
        "max_initial_timestamp": 1.0,
        "alignment_heads": cfg.get("alignment_heads", []),
        "interface": {
            "encoder": {"inputs": {"mel": "f32 [1, n_mels, n_frames]"},
                        "outputs": {"audio_features": "f32 [1, n_audio_ctx, d_model]"}},
            "cross_kv": {"inputs": {"audio_features": "f32 [1, n_audio_ctx, d_model]"},
                         "outputs": {"cross_k_{i}": "f32 [1, decoder_heads, head_dim, n_audio_ctx] for each "
                                                    "layer i in 0..decoder_layers",
                                     "cross_v_{i}": "f32 [1, decoder_heads, n_audio_ctx, head_dim]"}},
            "decoder": {"inputs": {"tokens": "i64 [1, n]", "offset": "i64 [1] (tokens already in the cache)",
                                   "cross_k_{i}": "from cross_kv", "cross_v_{i}": "from cross_kv",
                                   "past_k": "f32 [decoder_layers, 1, decoder_heads, p >= offset, head_dim]",
                                   "past_v": "same as past_k"},
                        "outputs": {"logits": "f32 [1, n, n_vocab]",
                                    "present_k": "f32 [decoder_layers, 1, decoder_heads, offset + n, head_dim]",
                                    "present_v": "same as present_k"},
                        "cache": "pass present_* back as past_* and add n to offset; only past[..., :offset, :] "
                                 "is read, so the first call may pass p = 0 (or a dummy p = 1); "
                                 "offset + n <= n_text_ctx"}},
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("model_dir", type=Path)
    ap.add_argument("--out-dir", type=Path, required=True)
    ap.add_argument("--name", help="model name for ragpipe-asr.json (default: MODEL_DIR's name)")
    ap.add_argument("--int8", action="store_true", help="also write the int8 copies (*-int8.onnx; see INT8)")
    args = ap.parse_args()
    src, out = args.model_dir, args.out_dir
    out.mkdir(parents=True, exist_ok=True)

    m = Whisper(read_ct2(src / "model.bin"))
    vocab = load_vocabulary(src)
    if len(vocab) != m.n_vocab:
        fail(f"vocabulary has {len(vocab)} tokens, the model {m.n_vocab}")

    for stem, build in (("encoder", build_encoder), ("cross_kv", build_cross_kv), ("decoder", build_decoder)):
        int8_from = build_decoder(m, untied=True) if args.int8 and stem == "decoder" else None
        save_models(build(m), out / f"{stem}.onnx", out / f"{stem}-int8.onnx" if args.int8 else None,
                    tool="build_whisper", int8_from=int8_from, **INT8)

    (out / "tokenizer.json").write_text(json.dumps(build_tokenizer(src, vocab), ensure_ascii=False), encoding="utf-8")
    cfg = json.loads((src / "config.json").read_text(encoding="utf-8"))
    spec = asr_spec(m, vocab, cfg, args.name or src.resolve().name)
    text = json.dumps(spec, indent=2, ensure_ascii=False)
    text = re.sub(r"\[[\d,\s-]*\]", lambda mt: json.dumps(json.loads(mt.group())), text)  # number lists on one line
    (out / "ragpipe-asr.json").write_text(text + "\n", encoding="utf-8")
    print(f"build_whisper: wrote tokenizer.json and ragpipe-asr.json to {out}")


if __name__ == "__main__":
    main()
