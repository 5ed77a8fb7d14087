#!/usr/bin/env bash
# Rebuilds the derived OCR fixtures in shared/ocr/tests/fixtures from the real
# scans there (see its README.md): two-pages.tif, a two-page CCITT Group 4
# TIFF (typewriter.png at half size, then eurotext.png), as office scanners
# and fax software write them, and fax-two-pages.pdf, the same two pages in a
# PDF as CCITTFaxDecode images (img2pdf 0.6.1 from PyPI embeds G4 data as it
# is). Needs ImageMagick (Debian `imagemagick`).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../shared/ocr/tests/fixtures"
command -v convert >/dev/null && convert -version 2>/dev/null | grep -q '^Version: ImageMagick' \
  || { echo "make-ocr-fixtures: needs ImageMagick: apt-get install imagemagick" >&2; exit 1; }
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
convert typewriter.png -resize 50% -type Grayscale -depth 8 "$tmp/typewriter-half.png"
convert "$tmp/typewriter-half.png" eurotext.png -monochrome -compress group4 two-pages.tif
python3 -m venv "$tmp/venv"
"$tmp/venv/bin/pip" install -q --disable-pip-version-check img2pdf==0.6.1 >&2
"$tmp/venv/bin/img2pdf" two-pages.tif -o fax-two-pages.pdf
echo "make-ocr-fixtures: wrote $(pwd)/two-pages.tif and fax-two-pages.pdf" >&2
