#!/usr/bin/env bash
# What a reindex costs in the embedded mode: ingests a folder (default: the
# eval corpus) into a fresh data dir, then times `ragpipe reindex
# --pipeline-version bench` while a search loop runs beside it, and prints
# the ingest and reindex wall time and peak RSS, and the searches' latency
# during the build and after the swap; then reindexes once more with no
# searches beside it. Figures only; nothing is asserted.
#
#   scripts/bench-reindex.sh [folder]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
FOLDER="$(realpath "${1:-eval/corpus}")"
_env=$(scripts/provision-model.sh); eval "$_env"
cargo build --quiet -p ragpipe
BIN="${CARGO_TARGET_DIR:-$PWD/target}/debug/ragpipe"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
rp() { "$BIN" --data-dir "$work/data" "$@"; }

# Wall seconds and peak RSS (KiB, the largest process it waited for) of a command.
timed() {
  python3 -c 'import resource, subprocess, sys, time
t = time.time()
subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL)
print(f"{time.time() - t:.2f} {resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}")' "$@"
}

read -r ingest_s ingest_kib < <(timed "$BIN" --data-dir "$work/data" ingest "$FOLDER" --quiet)
chunks=$(rp status --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["chunks"])')
search_ms() {
  local t0 t1
  t0=$(date +%s%N)
  rp search "how do threads share state safely" --json > "$work/hit.json"
  t1=$(date +%s%N)
  echo $(( (t1 - t0) / 1000000 ))
}
# One search before, as a baseline.
base=$(search_ms)
(timed "$BIN" --data-dir "$work/data" reindex --pipeline-version bench --quiet > "$work/reindex.time") &
pid=$!
: > "$work/during"
while kill -0 "$pid" 2>/dev/null; do
  ms=$(search_ms)
  version=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["index"]["pipeline_version"])' "$work/hit.json")
  echo "$ms $version" >> "$work/during"
done
wait "$pid"
read -r reindex_s reindex_kib < "$work/reindex.time"
after=$(search_ms)
# Once more with nothing beside it: the reindex alone.
read -r alone_s alone_kib < <(timed "$BIN" --data-dir "$work/data" reindex --pipeline-version alone --quiet)
python3 - "$work/during" <<PY
import statistics, sys
rows = [line.split() for line in open(sys.argv[1]) if line.strip()]
old = sorted(int(ms) for ms, v in rows if v != "bench")
new = sorted(int(ms) for ms, v in rows if v == "bench")
def show(name, xs):
    if xs:
        p95 = xs[min(len(xs) - 1, int(0.95 * len(xs)))]
        print(f"  {name}: {len(xs)} searches, median {statistics.median(xs):.0f} ms, p95 {p95} ms")
print(f"folder: $FOLDER ({$chunks} chunks)")
print(f"ingest:  {float('$ingest_s'):.1f} s, {$chunks / float('$ingest_s'):.1f} chunks/s, peak RSS {int('$ingest_kib') // 1024} MiB")
print(f"reindex with a search loop beside it: {float('$reindex_s'):.1f} s, {$chunks / float('$reindex_s'):.1f} chunks/s, peak RSS {int('$reindex_kib') // 1024} MiB")
print(f"reindex, no searches beside it: {float('$alone_s'):.1f} s, {$chunks / float('$alone_s'):.1f} chunks/s, peak RSS {int('$alone_kib') // 1024} MiB")
print(f"search (whole process: state, model load, query): before {$base} ms, after the swap {$after} ms")
print("searches while the reindex ran:")
show("on the old index (during the build)", old)
show("on the new index (after the swap)", new)
PY
