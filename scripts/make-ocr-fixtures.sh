#!/usr/bin/env bash
# Rebuilds the derived OCR fixtures in shared/ocr/tests/fixtures from the real
# scans there (see its README.md): two-pages.tif, a two-page CCITT Group 4
# TIFF (typewriter.png at half size, then eurotext.png), as office scanners
# and fax software write them, and fax-two-pages.pdf, the same two pages in a
# PDF as CCITTFaxDecode images (img2pdf 0.6.1 from PyPI embeds G4 data as it
# is); eurotext-g3.pdf, eurotext.png as CCITT Group 3 (K = 0) by Ghostscript's
# pdfwrite; eurotext-jpx.pdf, eurotext.png as JPEG 2000 (ImageMagick's
# OpenJPEG writer at quality 30, embedded as JPXDecode by img2pdf);
# eurotext.gif and eurotext.bmp (1-bit, Windows 3 BMP), ImageMagick's.
# linn-jbig2.pdf is not made here: it is `tests/resources/jbig2.pdf` of the
# ocrmypdf==17.13.0 sdist as it is. Needs ImageMagick and Ghostscript (Debian
# `imagemagick`, `ghostscript`).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../shared/ocr/tests/fixtures"
command -v convert >/dev/null && convert -version 2>/dev/null | grep -q '^Version: ImageMagick' \
  || { echo "make-ocr-fixtures: needs ImageMagick: apt-get install imagemagick" >&2; exit 1; }
command -v gs >/dev/null || { echo "make-ocr-fixtures: needs Ghostscript: apt-get install ghostscript" >&2; exit 1; }
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
convert typewriter.png -resize 50% -type Grayscale -depth 8 "$tmp/typewriter-half.png"
convert "$tmp/typewriter-half.png" eurotext.png -monochrome -compress group4 two-pages.tif
python3 -m venv "$tmp/venv"
"$tmp/venv/bin/pip" install -q --disable-pip-version-check img2pdf==0.6.1 >&2
"$tmp/venv/bin/img2pdf" two-pages.tif -o fax-two-pages.pdf
# Group 3: Ghostscript re-encodes the 1-bit image of a G4 PDF of eurotext.png
# (its DecodeParms then name only Columns: K = 0).
convert eurotext.png -monochrome -compress group4 "$tmp/eurotext-g4.tif"
"$tmp/venv/bin/img2pdf" "$tmp/eurotext-g4.tif" -o "$tmp/eurotext-g4.pdf"
gs -q -dNOPAUSE -dBATCH -dSAFER -sDEVICE=pdfwrite -dAutoFilterMonoImages=false \
  -dMonoImageFilter=/CCITTFaxEncode -dDownsampleMonoImages=false -sOutputFile=eurotext-g3.pdf \
  -c "<< /MonoImageDict << /K 0 >> >> setdistillerparams" -f "$tmp/eurotext-g4.pdf"
convert eurotext.png -type Grayscale -quality 30 "$tmp/eurotext.jp2"
"$tmp/venv/bin/img2pdf" "$tmp/eurotext.jp2" -o eurotext-jpx.pdf
convert eurotext.png eurotext.gif
convert eurotext.png -monochrome BMP3:eurotext.bmp
echo "make-ocr-fixtures: wrote $(pwd)/two-pages.tif, fax-two-pages.pdf, eurotext-g3.pdf, eurotext-jpx.pdf, eurotext.gif and eurotext.bmp" >&2
