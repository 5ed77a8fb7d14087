# Shared by the eval/build-corpus*.sh scripts (sourced).

# copy_sources OUT "NAME SOURCE"...: copies each SOURCE to OUT/NAME.
copy_sources() {
  local out=$1 line name src
  shift
  for line in "$@"; do
    read -r name src <<<"$line"
    [[ -f "$src" ]] || { echo "missing source: $src" >&2; exit 1; }
    install -m 0644 "$src" "$out/$name"
    echo "$name <- $src"
  done
}

# ensure_packages PKG...: installs the Debian packages not yet installed.
ensure_packages() {
  local p missing=() sudo=""
  for p in "$@"; do
    dpkg-query -W -f '${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' || missing+=("$p")
  done
  ((${#missing[@]})) || return 0
  [[ $(id -u) -eq 0 ]] || sudo=sudo
  $sudo apt-get update
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y --no-install-recommends "${missing[@]}"
}
