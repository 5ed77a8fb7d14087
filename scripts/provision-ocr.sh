#!/usr/bin/env bash
# Provision the OCR models for ragpipe (scanned PDF pages and image files),
# from PyPI only:
#
#   $CACHE/models/pp-ocrv6-small/PP-OCRv6_det_small.onnx   text detection (DB)
#   $CACHE/models/pp-ocrv6-small/PP-OCRv6_rec_small.onnx   text recognition; the
#                                   alphabet (18,708 entries) is in its ONNX
#                                   metadata under `character`, read at load time
#
# Both come from the `rapidocr==3.10.0` wheel (Apache-2.0), downloaded with
# --no-deps, pinned by sha256, unpacked (never installed). The orientation
# classifier it also carries is not used (it turned upright lines over).
# Idempotent: once its manifest verifies and this script is unchanged, a run
# only prints. Progress on stderr; stdout carries only the export line, so
#   eval "$(scripts/provision-ocr.sh)"
# sets RAGPIPE_OCR_DIR. Needs the venv scripts/provision-model.sh makes (its pip).
#
# Options: --force   unpack again even if the manifest verifies.
set -euo pipefail

CACHE="${RAGPIPE_CACHE:-$HOME/.cache/ragpipe}"
SCRIPTS="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
VENV="$CACHE/venv"
WHEELS="$CACHE/wheels"
NAME="pp-ocrv6-small"
OUT="$CACHE/models/$NAME"
MANIFEST="$CACHE/ocr.manifest.sha256"
RECIPE_FILE="$CACHE/ocr.manifest.recipe"

WHEEL="rapidocr-3.10.0-py3-none-any.whl"
WHEEL_SHA256="2fc34e26cd0f48514804a94f8832283039c7334076bff60768b1fed9ad068050"
DET="PP-OCRv6_det_small.onnx"
DET_SHA256="090f04abcd9d9a7498bc4ebf677e4cb9bdce1fe4197ddb7e529f1ef44e1ff94f"
REC="PP-OCRv6_rec_small.onnx"
REC_SHA256="6f327246b50388f3c176ae304bd95767ea6dc0c9ae92153ef8cbe210b3c14884"

TOOL=provision-ocr
# shellcheck source=lib/provision.sh
source "$SCRIPTS/lib/provision.sh"

force_args "$@"

lock_cache
RECIPE="$(recipe_of "$SCRIPTS/provision-ocr.sh")"
if [[ $FORCE == 0 ]] && manifest_ok "$MANIFEST" "$RECIPE_FILE" "$RECIPE"; then
  log "up to date (manifest verified): $OUT"
else
  [[ -x "$VENV/bin/python" ]] || die "no venv at $VENV: run scripts/provision-model.sh first"
  PIP=("$VENV/bin/python" -m pip --disable-pip-version-check)
  mkdir -p "$WHEELS"
  printf '%s --hash=sha256:%s\n' "rapidocr==3.10.0" "$WHEEL_SHA256" >"$WHEELS/ocr-wheels.txt"
  fetch_pinned "the pinned rapidocr wheel (~27 MB)" "$WHEELS/ocr-wheels.txt"
  verify_pins "$WHEEL:$WHEEL_SHA256"
  # Staged beside the final place and moved in at the end, so an interrupted
  # run never leaves a half-written graph where the Rust side would load it.
  STAGE="$CACHE/.ocr-staging"
  rm -rf "$STAGE"
  trap 'rm -rf "$STAGE"' EXIT
  mkdir -p "$STAGE"
  log "unpacking $DET and $REC"
  unzip -q -j -o "$WHEELS/$WHEEL" "rapidocr/models/$DET" "rapidocr/models/$REC" -d "$STAGE"
  [[ "$(sha256_of "$STAGE/$DET")" == "$DET_SHA256" ]] || die "$DET does not match its pinned sha256"
  [[ "$(sha256_of "$STAGE/$REC")" == "$REC_SHA256" ]] || die "$REC does not match its pinned sha256"
  rm -f "$MANIFEST" "$RECIPE_FILE"
  mkdir -p "$CACHE/models"
  rm -rf "$OUT"
  mv "$STAGE" "$OUT"
  write_manifest "$MANIFEST" "$RECIPE_FILE" "$RECIPE" "models/$NAME"
  log "done: $(du -sh "$OUT" | cut -f1) in $OUT"
fi
echo "export RAGPIPE_OCR_DIR=$(printf '%q' "$OUT")"
