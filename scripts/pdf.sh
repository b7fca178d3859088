#!/usr/bin/env bash
# Build the PDF edition of the book: _build/latex/linear-classifiers.pdf.
#
#   bash scripts/pdf.sh
#
# Installs what it needs: the Python stack (scripts/setup.sh) and, when xelatex
# is missing, TeX Live with the CJK fonts from Debian's packages. Executes every
# chapter (as the website build does), writes LaTeX with the book's corrections
# (book_ext/latex_edition.py) and runs xelatex through latexmk. Fails on any
# "Missing character" (a glyph the fonts lack would silently vanish).
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh
# _config.yml names the vendored static directory; Sphinx warns (and -W fails)
# if it is absent, so a PDF-only build on a clean checkout vendors it too.
.venv/bin/python scripts/vendor_assets.py

TEX_PACKAGES="texlive-xetex texlive-latex-extra texlive-fonts-recommended texlive-lang-chinese \
fonts-noto-cjk fonts-freefont-otf fonts-dejavu-core latexmk xindy poppler-utils"
if ! command -v xelatex >/dev/null || ! command -v latexmk >/dev/null || ! command -v pdftotext >/dev/null \
   || ! fc-list | grep "Noto Serif CJK SC" >/dev/null; then
  echo "pdf: installing TeX Live and fonts from Debian's packages"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  # shellcheck disable=SC2086
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $TEX_PACKAGES >/dev/null
fi

export LINCLF_BOOK_BUILD=1
export PYDEVD_DISABLE_FILE_VALIDATION=1
OUT=${LINCLF_PDF_OUT:-.}
# no environment of an earlier build: Sphinx would re-read (and execute) only changed chapters
rm -rf "$OUT/_build/latex" "$OUT/_build/.doctrees"
start=$(date +%s)
.venv/bin/jupyter-book build . --builder pdflatex --path-output "$OUT" -W -n --keep-going
pdf="$OUT/_build/latex/linear-classifiers.pdf"
[ -f "$pdf" ] || { echo "pdf: $pdf was not written" >&2; exit 1; }
if grep -h "Missing character" "$OUT"/_build/latex/*.log; then
  echo "pdf: FAILED: the fonts lack the characters above" >&2
  exit 1
fi
pages=$(pdfinfo "$pdf" | awk '/^Pages:/{print $2}')
echo "pdf: $pdf, $pages pages, built in $(( $(date +%s) - start )) s"
