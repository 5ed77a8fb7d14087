#!/usr/bin/env bash
# Ingest a generated folder of hostile files (issue 12) under a process-tree
# memory cap and a wall limit; print ONE JSON summary on stdout.
#
#   scripts/hostile.sh [--small] [--keep]
#
#   --small  the ~40-file subset (what `cargo test` keeps), minutes not tens
#   --keep   keep the work folder (corpus, data dir, raw JSON) and print it
#
# Env: RAGPIPE_BIN          use this binary instead of building target/debug/ragpipe
#      HOSTILE_RSS_CAP_MIB  tree RSS cap, default 2048 (the issue's 2 GiB)
#      HOSTILE_WALL_SECS    wall limit of the ingest, default 1800
#      HOSTILE_SEED         corpus seed, default 12
#
# The binary is the workspace's dev build, the one the tests use: its
# dependencies (ONNX Runtime calls, qdrant-edge, tokenizers, parsers) are
# compiled at opt-level 3 (Cargo.toml), so memory and the parsers' cost are
# what a release build shows, without a second 20-minute build.
# Exit status: 0 when every check passes,
# 1 when one fails (the summary says which), 2 on a setup error.
# Progress goes to stderr.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
HERE="$ROOT/scripts/hostile"
log() { printf 'hostile: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 2; }

SMALL=() KEEP=0
for arg in "$@"; do
  case "$arg" in
    --small) SMALL=(--small) ;;
    --keep) KEEP=1 ;;
    -h|--help) sed -n '2,21p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; exit 0 ;;
    *) die "unknown argument: $arg" ;;
  esac
done

PY="${RAGPIPE_PYTHON:-python3}"
"$PY" -c 'import sys; sys.exit(sys.version_info < (3, 11))' || die "need Python >= 3.11 (set RAGPIPE_PYTHON)"

if [[ -n "${RAGPIPE_BIN:-}" ]]; then
  BIN="$(realpath "$RAGPIPE_BIN")"
  [[ -x "$BIN" ]] || die "RAGPIPE_BIN=$RAGPIPE_BIN is not executable"
  log "using $BIN"
else
  log "building ragpipe (cargo build -p ragpipe): minutes on a cold target dir, seconds after the tests"
  (cd "$ROOT" && cargo build -p ragpipe >&2) || die "build failed"
  BIN="$ROOT/target/debug/ragpipe"
fi

_env=$("$ROOT/scripts/provision-model.sh"); eval "$_env"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/ragpipe-hostile.XXXXXX")"
cleanup() {
  if [[ $KEEP == 1 ]]; then
    log "kept $WORK (corpus/, data/, manifest.json, *.json)"
  else
    # The corpus holds a chmod 000 folder: make it removable for non-root.
    chmod -R u+rwx "$WORK" 2>/dev/null || true
    rm -rf "$WORK"
  fi
}
trap cleanup EXIT

log "generating the corpus in $WORK/corpus"
"$PY" "$HERE/make_corpus.py" "$WORK/corpus" --manifest "$WORK/manifest.json" \
  --seed "${HOSTILE_SEED:-12}" "${SMALL[@]}" || die "corpus generation failed"

DATA="$WORK/data"
mkdir -p "$DATA"
# Run from the work folder so no ./ragpipe.toml of the caller's is picked up.
cd "$WORK"
log "ingest started: cap ${HOSTILE_RSS_CAP_MIB:-2048} MiB of tree RSS, wall limit ${HOSTILE_WALL_SECS:-1800}s"
set +e
"$PY" "$HERE/watch.py" --stats "$WORK/watch.json" --stdout "$WORK/ingest.json" \
  --state-db "$DATA/state.db" \
  -- "$BIN" --data-dir "$DATA" ingest "$WORK/corpus" --json
INGEST_RC=$?
set -e
log "ingest exited with $INGEST_RC (1 means some documents failed, as they should)"

"$BIN" --data-dir "$DATA" documents --json --limit 1000 >"$WORK/documents.json" || log "warning: documents --json failed"
"$BIN" --data-dir "$DATA" status --json >"$WORK/status.json" || log "warning: status --json failed"

set +e
"$PY" "$HERE/summarize.py" --manifest "$WORK/manifest.json" --folder "$WORK/corpus" \
  --documents "$WORK/documents.json" --status "$WORK/status.json" --watch "$WORK/watch.json" \
  --ingest "$WORK/ingest.json" --state-db "$DATA/state.db" --bin "$BIN" --data-dir "$DATA"
RC=$?
set -e
[[ $RC == 0 ]] && log "all checks passed" || log "some checks failed: see failed_checks"
exit $RC
