#!/usr/bin/env bash
# Paired experiments behind ragpipe's defaults: each variant indexes the dev
# corpus into its own data dir, is scored on the golden set, and is compared
# query by query with the default run (exact sign test on discordant pairs).
# Usage: eval/experiments.sh [OUT_DIR]   (default eval/runs, not committed)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
out="${1:-eval/runs}"
mkdir -p "$out"
_env=$(scripts/provision-model.sh); eval "$_env"
# RAGPIPE_BIN: a prebuilt binary (e.g. a copy, so rebuilding during a run is safe).
if [[ -z "${RAGPIPE_BIN:-}" ]]; then
  cargo build --quiet -p ragpipe
fi
rp="${RAGPIPE_BIN:-${CARGO_TARGET_DIR:-target}/debug/ragpipe}"

run() { # name config [extra eval args]
  local name=$1 config=$2; shift 2
  local data="$out/$name.data"
  rm -rf "$data"
  "$rp" --config "$config" --data-dir "$data" ingest eval/corpus --quiet --json > "$out/$name.ingest.json"
  "$rp" --config "$config" --data-dir "$data" eval --golden eval/golden.jsonl --ood eval/ood.jsonl \
    --label "$name" --out "$out/$name.json" "$@" > "$out/$name.txt"
  echo "== $name"; head -3 "$out/$name.txt" | tail -2
}

run default eval/configs/default.toml
"$rp" --config eval/configs/default.toml --data-dir "$out/default.data" eval --golden eval/golden.jsonl \
  --ood eval/ood.jsonl --label dense-only --dense-only --out "$out/dense-only.json" > "$out/dense-only.txt"
echo "== dense-only"; head -3 "$out/dense-only.txt" | tail -2
# Search settings only: the default index, scored again.
"$rp" --config eval/configs/rrf.toml --data-dir "$out/default.data" eval --golden eval/golden.jsonl \
  --ood eval/ood.jsonl --label rrf --out "$out/rrf.json" > "$out/rrf.txt"
echo "== rrf"; head -3 "$out/rrf.txt" | tail -2
run no-header eval/configs/no-header.toml
run budget-128 eval/configs/budget-128.toml
run budget-192 eval/configs/budget-192.toml
run int8 eval/configs/int8.toml
run tables-linearised eval/configs/tables-linearised.toml

for variant in dense-only rrf no-header budget-128 budget-192 int8 tables-linearised; do
  echo
  echo "### default (A) vs $variant (B)"
  "$rp" eval --compare "$out/default.json" "$out/$variant.json"
done
