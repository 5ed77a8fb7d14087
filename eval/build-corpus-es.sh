#!/usr/bin/env bash
# Rebuilds eval/corpus-es/ (the Spanish evaluation corpus) from Debian 12
# packages, installing them with apt-get if they are missing, so the
# provenance of every file is recorded here. The copies are committed: CI and
# the evaluator read eval/corpus-es/ and never need this script.
#
# Sources: debian-reference-es 2.100 (chapter HTML of the Debian Reference),
# maint-guide-es 1.2.53 (chapter HTML of the New Maintainers' Guide) and
# manpages-es 4.18.1-1 (manual pages, rendered to plain text with man-db and
# groff in a UTF-8 locale, 80 columns, without hyphenation or justification so
# a quote never breaks inside a word, then `col -bx` to drop overstrikes and
# tabs). Other package versions may change the text.
#
# corpus-es/SOURCES.md (origins and licenses) is kept by hand; update it when
# the list changes. After refreshing, run
#   python3 eval/check_golden.py --golden eval/golden-es.jsonl \
#       --ood eval/ood-es.jsonl --corpus eval/corpus-es
# the golden needles are verbatim quotes and break if a document's text changes.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
out="$here/corpus-es"
REF=/usr/share/debian-reference
GUIDE=/usr/share/doc/maint-guide-es/html
MAN=/usr/share/man/es

pkgs=(debian-reference-es maint-guide-es manpages-es man-db groff-base bsdextrautils)
. "$here/corpus-lib.sh"
ensure_packages "${pkgs[@]}"

# corpus name <- source path (copied unchanged)
files=(
  "debref-ch03-inicializacion.html   $REF/ch03.es.html"
  "debref-ch04-autenticacion.html    $REF/ch04.es.html"
  "debref-ch05-red.html              $REF/ch05.es.html"
  "debref-ch06-aplicaciones-red.html $REF/ch06.es.html"
  "debref-ch08-i18n-l10n.html        $REF/ch08.es.html"
  "maint-guide-first.html            $GUIDE/first.es.html"
  "maint-guide-build.html            $GUIDE/build.es.html"
  "maint-guide-update.html           $GUIDE/update.es.html"
)
# corpus name <- manual page source (rendered to text)
pages=(
  "man-fstab.5.txt      $MAN/man5/fstab.5.gz"
  "man-logrotate.8.txt  $MAN/man8/logrotate.8.gz"
  "man-at.1.txt         $MAN/man1/at.1.gz"
  "man-chmod.1.txt      $MAN/man1/chmod.1.gz"
)

mkdir -p "$out"
copy_sources "$out" "${files[@]}"
for line in "${pages[@]}"; do
  read -r name src <<<"$line"
  [[ -f "$src" ]] || { echo "missing source: $src" >&2; exit 1; }
  LC_ALL=C.UTF-8 MANWIDTH=80 MAN_KEEP_FORMATTING= man --no-hyphenation --no-justification -l "$src" 2>/dev/null \
    | col -bx >"$out/$name"
  chmod 0644 "$out/$name"
  echo "$name <- $src (man | col -bx)"
done
