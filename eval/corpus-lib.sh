# Shared by eval/build-corpus.sh and eval/build-corpus-es.sh (sourced).

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
