# Sourced by the scripts that start local servers for tests (s3-server.sh,
# qdrant-server.sh): a free loopback port, and waiting for a server to answer.

# Prints a TCP port free on 127.0.0.1 now.
free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

# wait_answering URL PID LOG SECONDS [ok]: returns once URL answers (with
# `ok`: answers with a success status); exits 1 with the log's tail when the
# process dies or SECONDS pass first.
wait_answering() {
  local url=$1 pid=$2 logfile=$3 secs=$4
  for _ in $(seq 1 $((secs * 5))); do
    answering "$pid" "$url" "${5:-}" && return 0
    kill -0 "$pid" 2>/dev/null || { log "server died; see $logfile"; tail -20 "$logfile" >&2; exit 1; }
    sleep 0.2
  done
  log "server did not answer in ${secs}s; see $logfile"; exit 1
}

# answering PID URL [ok]: whether the server process PID is alive and URL
# answers (with `ok`: with a success status).
answering() {
  local flags=-s
  [ "${3:-}" = ok ] && flags=-sf
  kill -0 "$1" 2>/dev/null && curl "$flags" -o /dev/null "$2"
}
