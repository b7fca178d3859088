#!/usr/bin/env bash
# Build the book: a clean, warnings-as-errors Jupyter Book build into _build/html.
#
#   bash scripts/book.sh
#
# On a fresh machine (python3 + pip, and npm for the first vendoring) it creates
# .venv and installs requirements/lock.txt and linclf (scripts/setup.sh; a no-op
# when already installed), vendors MathJax / the widget manager / RequireJS from
# the npm registry at pinned versions (scripts/vendor_assets.py; cached in
# _vendor_cache/), then executes every chapter from scratch while building
# (scripts/test.sh alone lets it restore the chapters its PDF build has just
# executed: book_ext/execution_cache.py).
# It prints the build's wall time and the slowest notebooks, and lists those
# over 20 s; slowness never fails the build (a busy machine is no error), any
# warning does. The speed goal lives in benchmarks/bench_notebooks.py.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh
.venv/bin/python scripts/vendor_assets.py

# The generated notebooks (Binder/Colab) should match their sources;
# tests/test_notebooks.py fails when they do not. Report it here too.
if ! .venv/bin/python scripts/sync_notebooks.py --check; then
  echo "book: WARNING: notebooks/ is out of step with chapters/ (see above)" >&2
fi

# Kernels started by the build inherit this: linclf.interactive then renders
# static HTML sliders instead of live widgets.
export LINCLF_BOOK_BUILD=1
export PYDEVD_DISABLE_FILE_VALIDATION=1

rm -rf _build/html _build/jupyter_execute _build/.doctrees _build/exec_times.json _build/build-report.json
BUILD=(.venv/bin/jupyter-book build . --builder html -W -n --keep-going)
start=$(date +%s.%N)
status=0
"${BUILD[@]}" || status=$?
end=$(date +%s.%N)

# Summarise, and leave _build/build-report.json for tests/test_book.py.
.venv/bin/python - "$start" "$end" "$status" "${BUILD[*]}" <<'PY'
import json, sys
from pathlib import Path
start, end, status, command = float(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
print(f"book: build {'succeeded' if status == 0 else 'FAILED'} in {end - start:.1f} s wall time")
report = Path("_build/exec_times.json")
execution = json.loads(report.read_text()) if report.is_file() else {"notebooks": {}}
Path("_build").mkdir(exist_ok=True)
Path("_build/build-report.json").write_text(json.dumps(
    {"returncode": status, "command": command, "wall_seconds": round(end - start, 1),
     "execution": execution}, indent=1) + "\n")
notebooks = execution["notebooks"]
ran = {doc: nb["seconds"] for doc, nb in notebooks.items() if nb["executed"]}
restored = sorted(doc for doc, nb in notebooks.items() if not nb["executed"])
if restored:
    print(f"book: {len(restored)} notebooks restored from {execution['cache']} (executed by the "
          "build before this one: scripts/test.sh shares one execution between its two builds)")
if ran:
    slow = sorted(ran.items(), key=lambda kv: -kv[1])
    print(f"book: {len(ran)} notebooks executed, {sum(ran.values()):.1f} s in total; slowest:")
    for doc, sec in slow[:8]:
        print(f"  {sec:6.1f} s  {doc}")
    over = [doc for doc, sec in slow if sec > 20]
    if over:
        print(f"book: reported, not failed: {len(over)} notebook(s) over 20 s: {', '.join(over)}")
PY
exit $status
