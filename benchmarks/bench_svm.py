"""Benchmark: linclf.SVC (SMO in numpy) against sklearn.svm.SVC (libsvm).

Both are fitted in the same process, on the same data, with the same kernel,
C = 1, tol = 1e-3 and gamma = 1/(d Var X), with single-threaded BLAS. For each
case the script prints the time ratio linclf/sklearn, both iteration counts
and the relative difference of the dual objectives, both computed the same
way from ``dual_coef_`` and the Gram matrix of the support vectors. It ends
with the median and worst ratio.

    python benchmarks/bench_svm.py            # all 32 cases
    python benchmarks/bench_svm.py --quick    # a small subset
    python benchmarks/bench_svm.py --selection mvp
    python benchmarks/bench_svm.py --seeds 0 1 2   # reproduce a run

Every run draws ``--fresh`` (default 3) new data seeds from the OS, so the
solver is measured on data it was not tuned on; each case's ratio is the
median over the seeds and the table shows its spread (min, max).

The results are also written as JSON (default ``benchmarks/results/svm.json``,
read by the book's SMO chapter; ``--output`` to change it, ``--output ''``
for none): one record per case plus the summary and the versions used.

Target (from the project issue): median ratio <= 0.8, worst <= 3, dual
objectives equal to 1e-6 relative. Both solvers stop at tol = 1e-3, which
bounds the KKT violation, not the objective: where the two objectives differ
by more than 1e-6 the script fits libsvm again at tol = 1e-8 and prints how far
each is from that optimum; the objective target counts as met where linclf is
the nearer one. The "excess" column is how much higher (worse) linclf's
objective is than libsvm's.
"""

from __future__ import annotations

import os

# Single-threaded BLAS for both libraries; must happen before numpy is imported.
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import secrets  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import sklearn  # noqa: E402
from sklearn.svm import SVC as SkSVC  # noqa: E402
from threadpoolctl import threadpool_info, threadpool_limits  # noqa: E402

from linclf.kernels import gram_matrix  # noqa: E402
from linclf.svm import SVC, dual_objective  # noqa: E402


def two_gaussians(n, d, rng):
    """N(+e1, I) against N(-e1, I): overlapping classes (Bayes error 16 %)."""
    y = np.repeat([-1, 1], n // 2)
    X = rng.normal(size=(n, d))
    X[:, 0] += y
    return X, y


def noisy_circles(n, d, rng):
    """Circles of radius 1 and 0.5 in the first two coordinates, N(0, 0.15^2) noise in all."""
    y = np.repeat([-1, 1], n // 2)
    radius = np.where(y > 0, 0.5, 1.0)
    angle = rng.uniform(0, 2 * np.pi, n)
    X = rng.normal(scale=0.15, size=(n, d))
    X[:, 0] += radius * np.cos(angle)
    X[:, 1] += radius * np.sin(angle)
    return X, y


DATASETS = {"gauss": two_gaussians, "circles": noisy_circles}


def timed_fits(models, X, y, min_repeats=3, max_repeats=15, budget=1.0):
    """Best wall time and best CPU time of each model, fitting them in turn, and the rounds run.

    Alternating the two libraries inside each round exposes both to the same
    machine load, and the best time filters out the rest of it. Rounds go on
    until ``budget`` seconds have been spent on the case (at least
    ``min_repeats``, at most ``max_repeats`` rounds): on a shared VM a fit of
    a few milliseconds is slowed by up to a third in some time slices, so the
    short cases need more rounds than the long ones to be seen at full speed.
    The CPU time of this process (BLAS on one thread) leaves out the slices other
    jobs took altogether; on an idle machine the two agree.
    """
    best = [np.inf] * len(models)
    best_cpu = [np.inf] * len(models)
    spent = 0.0
    rounds = 0
    while rounds < min_repeats or (rounds < max_repeats and spent < budget):
        for k, model in enumerate(models):
            t0, c0 = time.perf_counter(), time.process_time()
            model.fit(X, y)
            elapsed = time.perf_counter() - t0
            best[k] = min(best[k], elapsed)
            best_cpu[k] = min(best_cpu[k], time.process_time() - c0)
            spent += elapsed
        rounds += 1
    return best, best_cpu, rounds


def cpu_and_blas():
    """numpy's SIMD targets in use and OpenBLAS's kernel family.

    The RBF cases depend on them: numpy has a SIMD float64 ``exp`` only for
    AVX-512, and libsvm's ``exp`` is scalar either way (benchmarks/README.md).
    ``NPY_DISABLE_CPU_FEATURES`` and ``OPENBLAS_CORETYPE`` change them.
    """
    try:  # private, but what numpy.show_runtime() reads
        from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__

        simd = [f for f in __cpu_dispatch__ if __cpu_features__.get(f)]
    except ImportError:  # pragma: no cover - other numpy layouts
        simd = []
    blas = [
        f"{info['internal_api']} {info['version']} {info.get('architecture', '')}".strip()
        for info in threadpool_info() if info["user_api"] == "blas"
    ]
    return simd, blas


def objective(model, kernel, gamma):
    params = {} if kernel == "linear" else {"gamma": gamma}
    sv = model.support_vectors_
    return dual_objective(model.dual_coef_, gram_matrix(sv, kernel, **params))


def measure(name, d, n, kernel, selection, seed):
    """Fit both libraries on one case drawn with ``seed``; one result row."""
    rng = np.random.default_rng([seed, d, n])
    X, y = DATASETS[name](n, d, rng)
    gamma = 1.0 / (d * X.var())
    ours = SVC(C=1.0, kernel=kernel, gamma=gamma, tol=1e-3, selection=selection)
    theirs = SkSVC(C=1.0, kernel=kernel, gamma=gamma, tol=1e-3)
    (t_ours, t_theirs), (c_ours, c_theirs), rounds = timed_fits([ours, theirs], X, y)
    o_ours = objective(ours, kernel, gamma)
    o_theirs = objective(theirs, kernel, gamma)
    # Both stop at tol = 1e-3, so their objectives may differ by more than
    # 1e-6 with either one the nearer to the optimum: then libsvm at tol 1e-8
    # (the independent reference) says how far each is from the optimum.
    gap_ours = gap_theirs = None
    if abs(o_ours - o_theirs) > 1e-6 * abs(o_theirs):
        exact = objective(SkSVC(C=1.0, kernel=kernel, gamma=gamma, tol=1e-8).fit(X, y), kernel, gamma)
        gap_ours = (o_ours - exact) / abs(exact)
        gap_theirs = (o_theirs - exact) / abs(exact)
    return {
        "data": name, "d": d, "n": n, "kernel": kernel, "seed": seed,
        "time_linclf": t_ours, "time_sklearn": t_theirs, "ratio": t_ours / t_theirs,
        "cpu_ratio": c_ours / c_theirs,
        "n_iter_linclf": int(ours.n_iter_), "n_iter_sklearn": int(theirs.n_iter_[0]),
        "dual_objective_linclf": o_ours, "dual_objective_sklearn": o_theirs,
        "rel_dual_objective_diff": abs(o_ours - o_theirs) / abs(o_theirs), "rounds": rounds,
        # how much higher (worse: the dual is minimised) linclf's objective is than libsvm's
        "rel_excess_linclf": max(0.0, (o_ours - o_theirs) / abs(o_theirs)),
        "rel_to_optimum_linclf": gap_ours, "rel_to_optimum_sklearn": gap_theirs,
        "n_support_linclf": int(ours.support_.size),
        "n_support_sklearn": int(theirs.support_.size),
    }


def run(cases, selection="wss2", seeds=(0,)):
    """Every case on data drawn with every seed.

    Returns the per-run rows, one row per case (its median ratio over the
    seeds, the spread, the worst objective difference) and the summary.
    """
    header = (
        f"{'data':8s} {'d':>3s} {'N':>5s} {'kernel':6s} | {'ratio med':>9s} {'min':>5s} {'max':>5s} {'cpu':>5s} | "
        f"{'it linclf':>9s} {'it sk':>7s} | {'rel dObj':>9s} {'excess':>9s}"
    )
    print(header)
    print("-" * len(header))
    runs, rows = [], []
    for name, d, n, kernel in cases:
        mine = [measure(name, d, n, kernel, selection, seed) for seed in seeds]
        runs += mine
        ratios = [r["ratio"] for r in mine]
        row = {
            "data": name, "d": d, "n": n, "kernel": kernel,
            "ratio": float(np.median(ratios)), "ratio_min": min(ratios), "ratio_max": max(ratios),
            "cpu_ratio": float(np.median([r["cpu_ratio"] for r in mine])),
            "time_linclf": float(np.median([r["time_linclf"] for r in mine])),
            "time_sklearn": float(np.median([r["time_sklearn"] for r in mine])),
            "n_iter_linclf": int(np.median([r["n_iter_linclf"] for r in mine])),
            "n_iter_sklearn": int(np.median([r["n_iter_sklearn"] for r in mine])),
            "rel_dual_objective_diff": max(r["rel_dual_objective_diff"] for r in mine),
            "rel_excess_linclf": max(r["rel_excess_linclf"] for r in mine),
        }
        rows.append(row)
        print(
            f"{name:8s} {d:3d} {n:5d} {kernel:6s} | {row['ratio']:9.2f} {row['ratio_min']:5.2f} "
            f"{row['ratio_max']:5.2f} {row['cpu_ratio']:5.2f} | {row['n_iter_linclf']:9d} {row['n_iter_sklearn']:7d} | "
            f"{row['rel_dual_objective_diff']:9.1e} {row['rel_excess_linclf']:9.1e}",
            flush=True,
        )
        for r in mine:
            if r["rel_to_optimum_linclf"] is not None:
                print(f"    seed {r['seed']}: objectives differ by {r['rel_dual_objective_diff']:.1e}; "
                      f"from the optimum (libsvm, tol 1e-8): linclf {r['rel_to_optimum_linclf']:.1e}, "
                      f"libsvm {r['rel_to_optimum_sklearn']:.1e}", flush=True)
    print("-" * len(header))
    per_seed = [float(np.median([r["ratio"] for r in runs if r["seed"] == s])) for s in seeds]
    summary = {
        "median_ratio": float(np.median([r["ratio"] for r in rows])),
        "worst_ratio": float(max(r["ratio"] for r in rows)),
        "worst_single_run_ratio": float(max(r["ratio"] for r in runs)),
        "worst_rel_dual_objective_diff": float(max(r["rel_dual_objective_diff"] for r in runs)),
        "worst_rel_excess_linclf": float(max(r["rel_excess_linclf"] for r in runs)),
        "seeds": list(seeds),
        "median_ratio_per_seed": per_seed,
        "median_cpu_ratio": float(np.median([r["cpu_ratio"] for r in rows])),
        "worst_cpu_ratio": float(max(r["cpu_ratio"] for r in rows)),
        "target": {"median_ratio": 0.8, "worst_ratio": 3.0, "rel_dual_objective_diff": 1e-6},
        "target_met": None,
    }
    print(
        f"median ratio {summary['median_ratio']:.2f} (per seed: "
        f"{', '.join(f'{m:.2f}' for m in per_seed)}), worst case ratio {summary['worst_ratio']:.2f} "
        f"(worst single run {summary['worst_single_run_ratio']:.2f}), worst relative "
        f"dual-objective difference {summary['worst_rel_dual_objective_diff']:.1e} "
        f"(linclf's objective above libsvm's by at most {summary['worst_rel_excess_linclf']:.1e})"
    )
    print(f"in CPU time (column cpu): median ratio {summary['median_cpu_ratio']:.2f}, worst case "
          f"ratio {summary['worst_cpu_ratio']:.2f}")
    # the objective target holds where the two agree to 1e-6, or where linclf is
    # the one nearer the optimum
    objective_ok = all(
        r["rel_dual_objective_diff"] <= 1e-6
        or (r["rel_to_optimum_linclf"] is not None
            and abs(r["rel_to_optimum_linclf"]) <= max(1e-6, abs(r["rel_to_optimum_sklearn"])))
        for r in runs
    )
    summary["target_met"] = bool(summary["median_ratio"] <= 0.8 and summary["worst_ratio"] <= 3.0
                                 and objective_ok)
    print(f"target (median <= 0.8, worst <= 3, objective within 1e-6 of libsvm's or nearer the "
          f"optimum): {'met' if summary['target_met'] else 'NOT met'}")
    return runs, rows, summary


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="N in {500, 2000}, d = 2 and 20")
    parser.add_argument("--selection", default="wss2", choices=["wss2", "mvp", "platt"])
    parser.add_argument("--seeds", type=int, nargs="*", default=None,
                        help="data seeds (default: --fresh new ones from the OS)")
    parser.add_argument("--fresh", type=int, default=3,
                        help="how many fresh random data seeds to draw when --seeds is not given")
    parser.add_argument(
        "--output", default=str(Path(__file__).resolve().parent / "results" / "svm.json"),
        help="JSON file for the results ('' for none)",
    )
    args = parser.parse_args(argv)
    sizes = (500, 2000) if args.quick else (500, 1000, 2000, 5000)
    cases = [
        (name, d, n, kernel)
        for name in DATASETS
        for d in (2, 20)
        for n in sizes
        for kernel in ("linear", "rbf")
    ]
    simd, blas = cpu_and_blas()
    print(f"numpy SIMD dispatch: {' '.join(simd) or '?'}; BLAS: {'; '.join(blas) or '?'}")
    # Fresh data on every run: a solver must not be tuned to the benchmark's draws.
    seeds = args.seeds if args.seeds else [secrets.randbits(32) for _ in range(args.fresh)]
    print(f"data seeds: {seeds}")
    with threadpool_limits(limits=1):
        runs, rows, summary = run(cases, selection=args.selection, seeds=seeds)
    if args.output:
        out = Path(args.output)
        out.parent.mkdir(parents=True, exist_ok=True)
        record = {
            "benchmark": "linclf.SVC vs sklearn.svm.SVC",
            "settings": {"C": 1.0, "tol": 1e-3, "gamma": "1/(d Var X)",
                         "timing": "best of 3 to 15 rounds (until 1 s is spent on the "
                                   "case), libraries alternated in each round", "blas_threads": 1,
                         "selection": args.selection, "seeds": seeds, "quick": args.quick},
            "versions": {"python": platform.python_version(), "numpy": np.__version__,
                         "scikit-learn": sklearn.__version__, "machine": platform.machine(),
                         "numpy_simd": simd, "blas": blas},
            "cases": rows,
            "runs": runs,
            "summary": summary,
        }
        out.write_text(json.dumps(record, indent=1) + "\n")
        print(f"results written to {out}")


if __name__ == "__main__":
    main()
