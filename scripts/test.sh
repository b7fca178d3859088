#!/usr/bin/env bash
# Run every test: the library, the exercises and grader, the built book in headless Chromium.
# Builds the book first (scripts/book.sh) so the browser tests check the real site.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)

bash scripts/setup.sh

# The browser tests drive Debian's Chromium through Playwright (never `playwright install`).
if [ ! -x /usr/bin/chromium ]; then
  echo "test: installing Debian's chromium for the browser tests"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
fi

# The grader runs every submission under Debian's bubblewrap (tests/test_grader*.py).
if [ ! -x /usr/bin/bwrap ]; then
  echo "test: installing Debian's bubblewrap for the grader's sandbox"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq bubblewrap >/dev/null
fi

# The chapters are executed once for both builds: the PDF build executes every
# chapter from scratch into an emptied jupyter-cache, and the website build
# restores those outputs (their code is unchanged). The build report says which
# chapters were restored and when they were executed (book_ext/execution_cache.py,
# tests/test_book.py).
export LINCLF_EXECUTION_CACHE="$PWD/_build/.jupyter_cache"
rm -rf "$LINCLF_EXECUTION_CACHE"
mkdir -p "$LINCLF_EXECUTION_CACHE"
date +%s > "$LINCLF_EXECUTION_CACHE/emptied-at"

# The PDF edition first (it installs TeX Live from Debian's packages when
# missing), so that the website built next serves it (tests/test_pdf.py).
bash scripts/pdf.sh

bash scripts/book.sh
unset LINCLF_EXECUTION_CACHE

export LINCLF_SITE_BUILT=1
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1
status=0
.venv/bin/python -m pytest -n 2 --dist loadgroup -p no:cacheprovider --durations=25 "$@" || status=$?
echo "test: total wall time $(( $(date +%s) - start )) s"
exit $status
