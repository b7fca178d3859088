"""How long each chapter's notebook takes to run, against a reference measured in the same run.

The speed goal of the book (each chapter executes in under 20 s on a quiet
2-core machine) lives here, not in the build: `scripts/book.sh` only reports
slow notebooks, because a busy machine must not fail a build. To make the
figures comparable across machines and loads, every notebook's time is also
printed as a ratio to a fixed reference workload (a numpy/sympy mix timed
before and after the notebooks, best of 3) measured in the same run.

Usage: ``.venv/bin/python benchmarks/bench_notebooks.py [NN_name ...]``
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import nbformat
import numpy as np
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]
GOAL_SECONDS = 20.0


def reference_workload():
    """A fixed mix of what chapters do: small dense algebra and a sympy simplification."""
    import sympy as sp

    rng = np.random.default_rng(0)
    t0 = time.perf_counter()
    for _ in range(40):
        A = rng.normal(size=(200, 200))
        np.linalg.solve(A @ A.T + np.eye(200), rng.normal(size=200))
    x = sp.symbols("x")
    sp.simplify(sp.diff(sp.log(1 + sp.exp(-x)), x, 2))
    return time.perf_counter() - t0


def best_of(fn, n=3):
    return min(fn() for _ in range(n))


def run_notebook(path):
    nb = nbformat.read(path, as_version=4)
    os.environ.pop("LINCLF_BOOK_BUILD", None)
    t0 = time.perf_counter()
    NotebookClient(nb, timeout=600, kernel_name="python3",
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    return time.perf_counter() - t0


def main(argv):
    wanted = set(argv)
    paths = [p for p in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
             if not wanted or p.stem in wanted]
    ref_before = best_of(reference_workload)
    times = {p.stem: run_notebook(p) for p in paths}
    ref = min(ref_before, best_of(reference_workload))
    print(f"reference workload: {ref:.3f} s (best of 6, before and after)")
    print(f"{'notebook':<22}{'seconds':>9}{'/ reference':>13}  goal < {GOAL_SECONDS:.0f} s")
    for name, sec in times.items():
        flag = "" if sec < GOAL_SECONDS else "  over the goal"
        print(f"{name:<22}{sec:>9.1f}{sec / ref:>13.1f}{flag}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
