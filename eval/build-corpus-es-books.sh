#!/usr/bin/env bash
# Rebuilds eval/corpus-es-books/ (the second Spanish evaluation corpus: two
# whole books in the forms their publishers ship) from Debian 12 packages,
# installing them with apt-get if they are missing, so the provenance of every
# file is recorded here. The copies are committed: CI and the evaluator read
# eval/corpus-es-books/ and never need this script.
#
# Sources: debian-edu-doc-es 2.12.23~deb12u1 (the Debian Edu / Skolelinux 12
# manual as DBLaTeX set it to PDF, 104 pages) and debian-handbook 11.20220922
# (ten section pages of the es-ES edition of the Debian Administrator's
# Handbook, Publican HTML, parts of it still in English). Other package
# versions may change the text.
#
# corpus-es-books/SOURCES.md (origins and licenses) is kept by hand. After
# refreshing, run (the PDF is read through ragpipe, so build it first)
#   python3 eval/check_golden.py --golden eval/golden-es-books.jsonl \
#       --ood eval/ood-es.jsonl --corpus eval/corpus-es-books
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
out="$here/corpus-es-books"
EDU=/usr/share/doc/debian-edu-doc-es
BOOK=/usr/share/doc/debian-handbook/html/es-ES

pkgs=(debian-edu-doc-es debian-handbook)
. "$here/corpus-lib.sh"
ensure_packages "${pkgs[@]}"

# corpus name <- source path (copied unchanged)
files=("debian-edu-bookworm-manual.pdf $EDU/debian-edu-bookworm-manual.pdf")
for page in apt-get backup creating-accounts dhcp firewall-packet-filtering \
  http-web-server quotas remote-login syslog task-scheduling-cron-atd; do
  files+=("handbook-$page.html $BOOK/sect.$page.html")
done

mkdir -p "$out"
copy_sources "$out" "${files[@]}"
