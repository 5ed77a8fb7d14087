#!/usr/bin/env bash
# Installs Debian's Chromium and ChromeDriver for the admin page's browser
# test, once (idempotent), and prints the paths as shell assignments:
#   eval "$(scripts/browser.sh)"
set -euo pipefail
if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
  echo "browser.sh: installing chromium and chromium-driver (Debian packages)" >&2
  sudo_cmd=()
  [[ $(id -u) -eq 0 ]] || sudo_cmd=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq >&2 || echo "browser.sh: apt-get update failed; trying the cached lists" >&2
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends chromium chromium-driver >&2
fi
echo "export RAGPIPE_TEST_CHROMIUM=$(command -v chromium)"
echo "export RAGPIPE_TEST_CHROMEDRIVER=$(command -v chromedriver)"
