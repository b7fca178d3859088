"""Benchmark: linclf's LogisticRegression and FisherLDA against scikit-learn.

* ``linclf.logistic.LogisticRegression(solver="newton", alpha=1/N)`` against
  ``sklearn.linear_model.LogisticRegression(solver="lbfgs", C=1)``: the same
  objective (mean cross-entropy + alpha/2 ||w||^2 with alpha = 1/(C N)).
* ``linclf.fisher.FisherLDA(threshold="bayes")`` against
  ``sklearn.discriminant_analysis.LinearDiscriminantAnalysis()``.

Two Gaussian classes, N = 10 000, d = 20, single-threaded BLAS. Prints the best
of five wall times, the ratio linclf/sklearn and how closely the two fitted
models agree (cosine of the weight vectors, fraction of equal predictions,
and for the logistic model the relative difference of the objective).

    python benchmarks/bench_models.py [--n 10000] [--d 20]
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402

import numpy as np  # noqa: E402
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis  # noqa: E402
from sklearn.linear_model import LogisticRegression as SkLogistic  # noqa: E402
from threadpoolctl import threadpool_limits  # noqa: E402

from linclf.fisher import FisherLDA  # noqa: E402
from linclf.logistic import LogisticRegression  # noqa: E402


def two_gaussians(n, d, seed=0):
    """Classes N(mu, Sigma) and N(-mu, Sigma) with a random covariance (overlapping)."""
    rng = np.random.default_rng(seed)
    A = rng.normal(size=(d, d)) / np.sqrt(d)
    mu = 0.2 * rng.normal(size=d) / np.sqrt(d)
    y = np.repeat([0, 1], n // 2)
    X = rng.normal(size=(n, d)) @ A.T + np.where(y[:, None] == 1, mu, -mu) + 0.5
    return X, y


def best_time(make, X, y, repeats=5):
    best, model = np.inf, None
    for _ in range(repeats):
        model = make()
        t0 = time.perf_counter()
        model.fit(X, y)
        best = min(best, time.perf_counter() - t0)
    return best, model


def cosine(a, b):
    a, b = np.ravel(a), np.ravel(b)
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def logistic_objective(w, b, X, y, alpha):
    z = X @ w + b
    s = np.where(y == 1, 1.0, -1.0)
    return float(np.mean(np.logaddexp(0.0, -s * z)) + 0.5 * alpha * w @ w)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10_000)
    parser.add_argument("--d", type=int, default=20)
    args = parser.parse_args(argv)
    X, y = two_gaussians(args.n, args.d)
    alpha = 1.0 / args.n  # sklearn's C = 1
    rows = []
    with threadpool_limits(limits=1), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # report agreement instead of warnings
        t_ours, ours = best_time(lambda: LogisticRegression(solver="newton", alpha=alpha), X, y)
        t_sk, sk = best_time(lambda: SkLogistic(C=1.0, solver="lbfgs", max_iter=1000), X, y)
        j_ours = logistic_objective(ours.coef_[0], ours.intercept_[0], X, y, alpha)
        j_sk = logistic_objective(sk.coef_[0], sk.intercept_[0], X, y, alpha)
        rows.append((
            "LogisticRegression newton vs lbfgs", t_ours, t_sk,
            cosine(ours.coef_, sk.coef_), np.mean(ours.predict(X) == sk.predict(X)),
            f"objective rel. diff {abs(j_ours - j_sk) / j_sk:.1e} (ours - sklearn = {j_ours - j_sk:+.1e})",
        ))
        t_ours, ours = best_time(lambda: FisherLDA(threshold="bayes"), X, y)
        t_sk, sk = best_time(lambda: LinearDiscriminantAnalysis(), X, y)
        rows.append((
            "FisherLDA vs LinearDiscriminantAnalysis", t_ours, t_sk,
            cosine(ours.coef_, sk.coef_), np.mean(ours.predict(X) == sk.predict(X)),
            f"intercept ratio {ours.intercept_[0] / sk.intercept_[0] * np.linalg.norm(sk.coef_) / np.linalg.norm(ours.coef_):.6f}",
        ))
    print(f"N = {args.n}, d = {args.d}, single-threaded BLAS, best of 5")
    for name, t_ours, t_sk, cos, agree, extra in rows:
        print(
            f"{name:42s} linclf {t_ours * 1e3:8.2f} ms  sklearn {t_sk * 1e3:8.2f} ms  "
            f"ratio {t_ours / t_sk:5.2f}  cos(w) {cos:.8f}  same predictions {agree:.4f}  {extra}"
        )


if __name__ == "__main__":
    main()
