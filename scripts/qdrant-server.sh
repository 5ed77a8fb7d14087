#!/usr/bin/env bash
# A local Qdrant server for tests and the distributed demo.
#
#   scripts/qdrant-server.sh start   # idempotent; prints export lines (RAGPIPE_TEST_QDRANT_URL)
#   scripts/qdrant-server.sh stop
#   scripts/qdrant-server.sh available   # exit 0 when a qdrant binary is there
#
# No package registry ships a Qdrant server binary, so this starts the one
# found on the PATH or at $QDRANT_BIN (developers' and CI machines get it from
# the team's build tool, shared/tools/build-qdrant.sh; users run Qdrant's
# official image, pinned in deploy/compose.yaml). The server binds loopback
# only, on free ports, with a throwaway storage folder that `stop` removes.
set -euo pipefail

# What a running server owns (state, log) lives in this checkout's target/:
# two checkouts on one machine each run and stop their own.
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/target/servers/qdrant"
STATE="$ROOT/server.env"

log() { printf 'qdrant-server: %s\n' "$*" >&2; }
# shellcheck source=lib/server.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/server.sh"

binary() {
  if [ -n "${QDRANT_BIN:-}" ]; then
    [ -x "$QDRANT_BIN" ] && echo "$QDRANT_BIN"
    return
  fi
  command -v qdrant || true
}

running() {
  # shellcheck disable=SC1090
  [ -f "$STATE" ] && . "$STATE" && answering "$QDRANT_PID" "http://127.0.0.1:$QDRANT_HTTP/readyz" ok
}

print_env() {
  # shellcheck disable=SC1090
  . "$STATE"
  printf 'export RAGPIPE_TEST_QDRANT_URL=http://127.0.0.1:%s\n' "$QDRANT_GRPC"
  printf 'export RAGPIPE_TEST_QDRANT_HTTP=http://127.0.0.1:%s\n' "$QDRANT_HTTP"
}

start() {
  local bin; bin=$(binary)
  [ -n "$bin" ] || { log "no qdrant binary on the PATH (or at \$QDRANT_BIN)"; exit 3; }
  if running; then print_env; return; fi
  local http grpc data
  http=$(free_port); grpc=$(free_port)
  data=$(mktemp -d "${TMPDIR:-/tmp}/ragpipe-qdrant.XXXXXX")
  mkdir -p "$ROOT"
  log "starting $("$bin" --version 2>/dev/null || echo qdrant) on 127.0.0.1 (REST :$http, gRPC :$grpc)"
  # Started from its data folder: the server writes `.qdrant-initialized`
  # into its working directory.
  (cd "$data" && QDRANT__SERVICE__HOST=127.0.0.1 QDRANT__SERVICE__HTTP_PORT="$http" \
    QDRANT__SERVICE__GRPC_PORT="$grpc" QDRANT__TELEMETRY_DISABLED=true \
    QDRANT__STORAGE__STORAGE_PATH="$data/storage" QDRANT__STORAGE__SNAPSHOTS_PATH="$data/snapshots" \
    exec nohup "$bin" --disable-telemetry > "$ROOT/server.log" 2>&1) &
  local pid=$!
  printf 'QDRANT_PID=%s\nQDRANT_HTTP=%s\nQDRANT_GRPC=%s\nQDRANT_DATA=%s\n' "$pid" "$http" "$grpc" "$data" > "$STATE"
  wait_answering "http://127.0.0.1:$http/readyz" "$pid" "$ROOT/server.log" 30 ok
  print_env
}

stop() {
  if [ -f "$STATE" ]; then
    # shellcheck disable=SC1090
    . "$STATE"
    kill "$QDRANT_PID" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$QDRANT_PID" 2>/dev/null || break; sleep 0.1; done
    rm -rf "$QDRANT_DATA"
    rm -f "$STATE"
  fi
}

case "${1:-start}" in
  start) start ;;
  stop) stop ;;
  available) [ -n "$(binary)" ] ;;
  *) echo "usage: $0 start|stop|available" >&2; exit 2 ;;
esac
