"""Benchmark: grading time per submission, for every exercise set.

Each set's reference solution (``exercises/solutions/SET.py``, a correct submission)
is graded by :func:`linclf_grader.grade.grade_submission` with its public tests, as
``linclf-grade`` would (workers started in the sandbox, public tests, rules), plus
the hidden tests with ``--hidden``. Rounds alternate the sets; the best and the
median wall time per submission are kept. The goal is at most 1 s per submission on
every set. As a reference measured in the same run, the table also shows the time
of the unavoidable part, starting one bare worker interpreter that imports numpy
and sympy (``python -I -c "import numpy, sympy"``), and each set's ratio to it.

    .venv/bin/python benchmarks/bench_grader.py [--rounds 5] [--hidden] [--sets smo softmax]
    .venv/bin/python benchmarks/bench_grader.py --profile softmax   # where the time goes
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import resource  # noqa: E402
import shutil  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from linclf_grader import available_sets  # noqa: E402
from linclf_grader.grade import grade_submission  # noqa: E402

GOAL = 1.0


def _cpu():
    """CPU seconds of this process and of its reaped children (the workers)."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def floor_time():
    """(wall, CPU) seconds to start an isolated interpreter that imports numpy and sympy."""
    start, cpu = time.perf_counter(), _cpu()
    subprocess.run([sys.executable, "-I", "-c", "import numpy, sympy"], check=True)
    return time.perf_counter() - start, _cpu() - cpu


def grade_once(path, set_name, hidden):
    """(wall, CPU) seconds of grading one submission; CPU counts the grader and its workers,
    and is what a shared machine's load disturbs least."""
    tests = ROOT / "exercises" / "solutions" if hidden else None
    start, cpu = time.perf_counter(), _cpu()
    result = grade_submission(path, set_name, private_tests=tests, student="s2026001")
    seconds = time.perf_counter() - start, _cpu() - cpu
    if result["score"] != result["max_score"]:
        lost = [t["name"] for t in result["tests"] if t["score"] < t["max_score"]]
        raise SystemExit(f"{set_name}: the reference lost points: {lost}")
    return seconds


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--hidden", action="store_true", help="also run the hidden tests")
    parser.add_argument("--sets", nargs="*", default=available_sets())
    parser.add_argument("--profile", metavar="SET", help="profile grading one set, then exit")
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="bench-grader-"))
    try:
        paths = {}
        for s in args.sets + ([args.profile] if args.profile else []):
            folder = work / s
            folder.mkdir(exist_ok=True)
            paths[s] = folder / "s2026001.py"
            shutil.copy(ROOT / "exercises" / "solutions" / f"{s}.py", paths[s])
        if args.profile:
            import cProfile
            import pstats

            grade_once(paths[args.profile], args.profile, args.hidden)  # warm imports
            prof = cProfile.Profile()
            prof.enable()
            grade_once(paths[args.profile], args.profile, args.hidden)
            prof.disable()
            pstats.Stats(prof).sort_stats("cumulative").print_stats(25)
            return 0
        for s in args.sets:  # warm: imports of the sets, sympy, the parsers
            grade_once(paths[s], s, args.hidden)
        times = {s: [] for s in args.sets}
        floors = []
        for _ in range(args.rounds):
            floors.append(floor_time())
            for s in args.sets:
                times[s].append(grade_once(paths[s], s, args.hidden))
        floor = min(f[0] for f in floors)
        floor_cpu = min(f[1] for f in floors)
        print(f"grading one correct submission ({'public + hidden' if args.hidden else 'public'} "
              f"tests), {args.rounds} rounds; reference: a bare worker start "
              f"(import numpy, sympy) = {floor:.3f} s wall, {floor_cpu:.3f} s CPU")
        print(f"{'set':<15}{'best s':>9}{'median s':>10}{'CPU s':>8}{'CPU x start':>12}  goal {GOAL:g} s")
        worst = 0.0
        for s in args.sets:
            walls = [t[0] for t in times[s]]
            best, med = min(walls), statistics.median(walls)
            cpu = min(t[1] for t in times[s])
            worst = max(worst, best)
            mark = "ok" if best <= GOAL else "OVER"
            print(f"{s:<15}{best:>9.3f}{med:>10.3f}{cpu:>8.3f}{cpu / floor_cpu:>12.2f}  {mark}")
        print(f"slowest best: {worst:.3f} s per submission")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
