#!/usr/bin/env bash
# End-to-end throughput of the distributed mode: a coordinator run over a
# folder (default: the eval corpus), two extractor workers and 1 then 2
# embedders, against the machine's PostgreSQL and RabbitMQ. Prints
# documents/s and chunks/s for each; every run gets a fresh schema, queue
# namespace and vector store, removed afterwards.
#
#   scripts/bench-distributed.sh [--qdrant] [folder] [embedder counts, default "1 2"]
#
# Without --qdrant, vectors go to the embedded store, which one process
# owns, so "2 embedders" means two embedder tasks in one `serve embedder`
# process (workers.embedders = 2). With --qdrant a Qdrant server
# (scripts/qdrant-server.sh: the `qdrant` binary on the PATH) holds them and
# "2 embedders" are two `serve embedder` processes, each with model.threads
# = cores / embedders.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
QDRANT=
if [[ "${1:-}" == --qdrant ]]; then QDRANT=1; shift; fi
FOLDER="$(realpath "${1:-eval/corpus}")"
COUNTS="${2:-1 2}"
CORES=$(nproc)
_env=$(scripts/provision-model.sh); eval "$_env"
if [[ -n $QDRANT ]]; then
  _env=$(scripts/qdrant-server.sh start); eval "$_env"
  trap 'scripts/qdrant-server.sh stop' EXIT
  export RAGPIPE_QDRANT_URL="$RAGPIPE_TEST_QDRANT_URL"
fi
# The test profile by default (dependencies at opt-level 3, ragpipe's own
# code at 1), which the tests already built; PROFILE=release for a release build.
PROFILE="${PROFILE:-dev}"
echo "bench-distributed: building ragpipe ($PROFILE profile)" >&2
cargo build --profile "$PROFILE" -p ragpipe
BIN="${CARGO_TARGET_DIR:-$PWD/target}/$([[ $PROFILE == dev ]] && echo debug || echo "$PROFILE")/ragpipe"
export PGOPTIONS="--client-min-messages=warning"
PG="${RAGPIPE_TEST_POSTGRES_URL:-postgres://postgres@127.0.0.1:5432/test}"
export RAGPIPE_AMQP_URL="${RAGPIPE_AMQP_URL:-amqp://guest:guest@127.0.0.1:5672/%2f}"

# Deletes the namespace's collections and alias on the Qdrant server.
drop_collections() {
  python3 - "$RAGPIPE_TEST_QDRANT_HTTP" "$1" <<'PY'
import json, sys, urllib.error, urllib.request
base, ns = sys.argv[1], sys.argv[2] + "_"
def call(method, path, body=None):
    req = urllib.request.Request(base + path, method=method, data=body and json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    return json.load(urllib.request.urlopen(req))
try:
    call("POST", "/collections/aliases", {"actions": [{"delete_alias": {"alias_name": ns + "chunks"}}]})
except urllib.error.HTTPError:
    pass  # no alias: nothing was indexed
for c in call("GET", "/collections")["result"]["collections"]:
    if c["name"].startswith(ns):
        call("DELETE", "/collections/" + c["name"])
PY
}

for n in $COUNTS; do
  tag="bench_$$_$n"
  work=$(mktemp -d)
  psql -q "$PG" -c "CREATE SCHEMA $tag"
  export RAGPIPE_STATE_URL="$PG?options=-c%20search_path%3D$tag" RAGPIPE_AMQP_NAMESPACE="$tag"
  export RAGPIPE_SOURCE="$FOLDER" RAGPIPE_DATA_DIR="$work/data"
  if [[ -n $QDRANT ]]; then
    procs=$n threads=$(( CORES / n > 0 ? CORES / n : 1 ))
    printf '[workers]\nextractors = 2\nembedders = 1\n[model]\nthreads = %s\n' "$threads" > "$work/ragpipe.toml"
  else
    procs=1
    printf '[workers]\nextractors = 2\nembedders = %s\n' "$n" > "$work/ragpipe.toml"
  fi
  export RAGPIPE_CONFIG="$work/ragpipe.toml"
  "$BIN" status --json >/dev/null   # creates the schema's tables before the clock starts
  echo "bench-distributed: $n embedder(s)${QDRANT:+ as processes on the Qdrant server}; indexing $FOLDER" >&2
  start=$(date +%s.%N)
  "$BIN" serve extractor 2>"$work/extractor.log" & ex=$!
  em=""
  for i in $(seq 1 "$procs"); do "$BIN" serve embedder 2>"$work/embedder$i.log" & em="$em $!"; done
  "$BIN" sync >"$work/sync.json"
  while :; do
    pending=$("$BIN" status --json | python3 -c 'import json,sys; d=json.load(sys.stdin)["documents"]; print(d["queued"]+d["extracting"]+d["embedding"])')
    [[ "$pending" == 0 ]] && break
    sleep 0.2
  done
  end=$(date +%s.%N)
  kill -TERM $ex $em; wait $ex $em || true
  [[ -n $QDRANT ]] && drop_collections "$tag"
  "$BIN" status --json | python3 -c '
import json, sys
d = json.load(sys.stdin); secs = float(sys.argv[2]) - float(sys.argv[1])
failed, chunks = d["documents"]["failed"], d["chunks"]
docs = d["documents"]["indexed"] + failed
print(f"embedders={sys.argv[3]}{sys.argv[4]}  {docs} documents ({failed} failed), {chunks} chunks in {secs:.1f} s: "
      f"{docs / secs:.2f} documents/s, {chunks / secs:.1f} chunks/s")' "$start" "$end" "$n" "${QDRANT:+ (processes, Qdrant server)}"
  psql -q "$PG" -c "DROP SCHEMA $tag CASCADE"
  if command -v rabbitmqctl >/dev/null; then
    for q in extract embed; do for s in "" .retry .dead; do
      rabbitmqctl -q delete_queue "$tag.$q$s" >/dev/null 2>&1 || true
    done; done
  fi
  rm -rf "$work"
done
