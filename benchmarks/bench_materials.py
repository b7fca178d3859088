"""Benchmark: per-student material for a class, in one call, against one process per file.

The course goal (issue 23): templates and notebooks for 60 students and the 11
sets in under 30 s. This script times ``linclf-grade --materials`` (one process,
``linclf_grader.materials.write_materials``) for a roster of ``--students`` ids
and every set, (with one and with two processes) and, as the reference measured in the same run, the way an
instructor did it before: one ``linclf-grade --template SET --student ID``
process per file, timed on a sample of ``--sample`` files and scaled to the
class. It prints both times, the files per second, the ratio, the CPU time of
the one call (its wall time on an idle core: a shared machine's load inflates
the wall time) and the sets whose per-student data take longest to draw; it
asserts nothing (times depend on the machine).

    python benchmarks/bench_materials.py [--students 60] [--sample 6]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from linclf_grader.framework import available_sets, get_set
from linclf_grader.materials import write_materials


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--students", type=int, default=60)
    p.add_argument("--sample", type=int, default=6,
                   help="template processes timed for the one-process-per-file reference")
    args = p.parse_args(argv)
    sets = available_sets()
    ids = [f"s{1000 + i}" for i in range(args.students)]
    exe = Path(sys.executable).with_name("linclf-grade")
    with tempfile.TemporaryDirectory() as tmp:
        start, cpu = time.perf_counter(), time.process_time()
        n_files = write_materials(ids, sets, Path(tmp) / "material")
        batch, batch_cpu = time.perf_counter() - start, time.process_time() - cpu
        per_set = {}
        for name in sets:   # where the time goes: drawing each student's data, per set
            t = time.process_time()
            for sid in ids[:5]:
                get_set(name).template(sid)
            per_set[name] = (time.process_time() - t) / 5
        start = time.perf_counter()
        write_materials(ids, sets, Path(tmp) / "material2", jobs=2)
        batch2 = time.perf_counter() - start

        start = time.perf_counter()
        for k in range(args.sample):
            subprocess.run([str(exe), "--template", sets[k % len(sets)], "--student", ids[k]],
                           check=True, capture_output=True)
        per_process = (time.perf_counter() - start) / args.sample
    templates = args.students * len(sets)
    reference = per_process * templates   # templates only: the old way wrote no notebooks
    print(f"{args.students} students x {len(sets)} sets: {n_files} files "
          f"({templates} templates + {templates} notebooks)")
    print(f"  one call (--materials):            {batch:7.2f} s  ({n_files / batch:,.0f} files/s; "
          f"{batch_cpu:.2f} s of CPU: the wall time on an otherwise idle core)")
    print(f"  one call, --jobs 2:                {batch2:7.2f} s  ({n_files / batch2:,.0f} files/s)")
    print(f"  one process per template, scaled:  {reference:7.2f} s  "
          f"({per_process * 1000:.0f} ms per process, {args.sample} timed)")
    print(f"  ratio (per-process / one call):    {reference / batch:7.1f}x, and the one call also "
          "writes the notebooks")
    print(f"  course goal: under 30 s for 60 x 11: {'met' if batch < 30 else 'NOT met'} on this "
          f"machine now (CPU time {batch_cpu:.1f} s)")
    top = sorted(per_set.items(), key=lambda kv: -kv[1])[:3]
    print("  CPU per student template, slowest sets: "
          + ", ".join(f"{name} {sec * 1000:.0f} ms" for name, sec in top))


if __name__ == "__main__":
    main()
