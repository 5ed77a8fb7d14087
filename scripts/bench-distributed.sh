#!/usr/bin/env bash
# End-to-end throughput of the distributed mode: a coordinator run over a
# folder (default: the eval corpus), two extractor workers and 1 then 2
# embedder workers, against the machine's PostgreSQL and RabbitMQ. Prints
# documents/s and chunks/s for each; every run gets a fresh schema, queue
# namespace and vector store, removed afterwards.
#
#   scripts/bench-distributed.sh [folder] [embedder counts, default "1 2"]
#
# Vectors go to the embedded store, which one process owns, so "2 embedders"
# means two embedder tasks in one `serve embedder` process (workers.embedders
# = 2); with a Qdrant server (RAGPIPE_QDRANT_URL) they would be processes.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
FOLDER="$(realpath "${1:-eval/corpus}")"
COUNTS="${2:-1 2}"
eval "$(scripts/provision-model.sh)"
# The test profile by default (dependencies at opt-level 3, ragpipe's own
# code at 1), which the tests already built; PROFILE=release for a release build.
PROFILE="${PROFILE:-dev}"
cargo build --quiet --profile "$PROFILE" -p ragpipe
BIN="${CARGO_TARGET_DIR:-$PWD/target}/$([[ $PROFILE == dev ]] && echo debug || echo "$PROFILE")/ragpipe"
export PGOPTIONS="--client-min-messages=warning"
PG="${RAGPIPE_TEST_POSTGRES_URL:-postgres://postgres@127.0.0.1:5432/test}"
export RAGPIPE_AMQP_URL="${RAGPIPE_AMQP_URL:-amqp://guest:guest@127.0.0.1:5672/%2f}"

for n in $COUNTS; do
  tag="bench_$$_$n"
  work=$(mktemp -d)
  psql -q "$PG" -c "CREATE SCHEMA $tag"
  export RAGPIPE_STATE_URL="$PG?options=-c%20search_path%3D$tag" RAGPIPE_AMQP_NAMESPACE="$tag"
  export RAGPIPE_SOURCE="$FOLDER" RAGPIPE_DATA_DIR="$work/data"
  printf '[workers]\nextractors = 2\nembedders = %s\n' "$n" > "$work/ragpipe.toml"
  export RAGPIPE_CONFIG="$work/ragpipe.toml"
  "$BIN" status --json >/dev/null   # creates the schema's tables before the clock starts
  start=$(date +%s.%N)
  "$BIN" serve extractor 2>"$work/extractor.log" & ex=$!
  "$BIN" serve embedder 2>"$work/embedder.log" & em=$!
  "$BIN" sync >"$work/sync.json"
  while :; do
    pending=$("$BIN" status --json | python3 -c 'import json,sys; d=json.load(sys.stdin)["documents"]; print(d["queued"]+d["extracting"]+d["embedding"])')
    [[ "$pending" == 0 ]] && break
    sleep 0.2
  done
  end=$(date +%s.%N)
  kill -TERM $ex $em; wait $ex $em || true
  "$BIN" status --json | python3 -c '
import json, sys
d = json.load(sys.stdin); secs = float(sys.argv[2]) - float(sys.argv[1])
failed, chunks = d["documents"]["failed"], d["chunks"]
docs = d["documents"]["indexed"] + failed
print(f"embedders={sys.argv[3]}  {docs} documents ({failed} failed), {chunks} chunks in {secs:.1f} s: "
      f"{docs / secs:.2f} documents/s, {chunks / secs:.1f} chunks/s")' "$start" "$end" "$n"
  psql -q "$PG" -c "DROP SCHEMA $tag CASCADE"
  if command -v rabbitmqctl >/dev/null; then
    for q in extract embed; do for s in "" .retry .dead; do
      rabbitmqctl -q delete_queue "$tag.$q$s" >/dev/null 2>&1 || true
    done; done
  fi
  rm -rf "$work"
done
