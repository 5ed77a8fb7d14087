# Sourced by the provisioning scripts. find_python sets PYTHON to a CPython
# 3.11 on linux x86_64 ($RAGPIPE_PYTHON, else python3.11, else python3), the
# only interpreter the pinned cp311 manylinux wheel hashes fit; any other
# would fail deep inside pip, so the caller's `die` stops here instead.
find_python() {
  local ok='import sys, platform; sys.exit(not (sys.version_info[:2] == (3, 11) and sys.platform == "linux" and platform.machine() == "x86_64"))'
  PYTHON="${RAGPIPE_PYTHON:-}"
  if [[ -z "$PYTHON" ]]; then
    for candidate in python3.11 python3; do
      if command -v "$candidate" >/dev/null && "$candidate" -c "$ok" 2>/dev/null; then
        PYTHON="$candidate"; break
      fi
    done
  fi
  if [[ -z "$PYTHON" ]] || ! "$PYTHON" -c "$ok"; then
    die "need CPython 3.11 on linux x86_64 (set RAGPIPE_PYTHON); the pinned wheel hashes are for that platform"
  fi
}
