"""The cost of bubblewrap per submission: the same submission graded with and without it.

Grades the reference solution of a set ``--repeat`` times with ``isolation="bwrap"``
and as many with ``isolation="none"`` (interleaved, so both see the same machine
load), and prints the median time per submission of each, their difference (the
sandbox's overhead) and their ratio.  Also times one bare worker start, the part
bwrap changes.

    .venv/bin/python benchmarks/bench_sandbox.py [--set perceptron] [--repeat 15]
"""

import argparse
import os
import statistics
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from linclf_grader.grade import grade_submission  # noqa: E402
from linclf_grader.sandbox import Worker, check_isolation  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def _time(fn):
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def _start_only(isolation):
    with Worker([(0, "def f():\n    return 1\n")], isolation=isolation) as w:
        w.start()
        assert w.call("f")["value"] == 1


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", default="perceptron")
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    print(f"bwrap mode: {check_isolation('bwrap')}")
    sub = ROOT / "exercises" / "solutions" / f"{args.set}.py"
    grade_submission(sub, args.set, isolation="bwrap")  # warm the imports and caches
    timing = {"bwrap": {"grade": [], "start": []}, "none": {"grade": [], "start": []}}
    for _ in range(args.repeat):
        for isolation in ("bwrap", "none"):
            res = {}
            timing[isolation]["grade"].append(
                _time(lambda: res.update(grade_submission(sub, args.set, isolation=isolation))))
            assert res["score"] == res["max_score"], res.get("error")
            timing[isolation]["start"].append(_time(lambda: _start_only(isolation)))
    for what in ("start", "grade"):
        b = statistics.median(timing["bwrap"][what])
        n = statistics.median(timing["none"][what])
        label = "worker start + 1 call" if what == "start" else f"grading {args.set}"
        print(f"{label:>24}: bwrap {b * 1000:7.1f} ms, none {n * 1000:7.1f} ms, "
              f"overhead {(b - n) * 1000:+6.1f} ms, ratio {b / n:.2f}")


if __name__ == "__main__":
    main()
