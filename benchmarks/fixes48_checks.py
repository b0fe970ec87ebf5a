"""Session 48 (fixes48): the four defects' cases, one line each, on whichever dgraph is
first on PYTHONPATH (run it on the branch and on a ``git archive`` of main).

    PYTHONPATH=. python benchmarks/fixes48_checks.py
"""

from __future__ import annotations

import sys
import warnings

import numpy as np
import scipy.special as sps

import dgraph

warnings.simplefilter("ignore")
sys.path.insert(0, "benchmarks/programs_survey/programs")


def row(name: str, run) -> None:
    try:
        print(f"{name}: {run()}")
    except Exception as exc:  # a refusal is a result here
        print(f"{name}: {type(exc).__name__}: {str(exc).splitlines()[0][:110]}")


def project(x):
    n = np.linalg.norm(x)
    return np.where(n >= 1, x / n, x)


def case1(mode: str, lang: str, x: np.ndarray) -> str:
    v = np.array([0.3, -0.2, 0.7])
    fn = dgraph.make_function(project, mode, lang, point=[x])
    n = np.linalg.norm(x)
    J = np.eye(3) if n < 1 else (np.eye(3) - np.outer(x, x) / n**2) / n
    want = J @ v if mode == "jvp" else v @ J
    got = np.asarray(fn(x, v))
    return f"error {np.max(np.abs(got - want)):.1e}, verified {fn.generated.verified}"


TAILS = np.array([1e-12, 1e-20, 1e-100, 0.3, 0.6, 1 - 1e-10])


def quantiles(p):
    return 2.0 * sps.ndtri(p) + sps.erfcinv(p)


def case2(lang: str) -> str:
    fn = dgraph.make_function(quantiles, "value_and_jacobian", lang, point=[TAILS])
    g = fn.generated
    at_user = g.check.points[:1] == (tuple(TAILS),)
    return f"verified {g.verified}, user's point compared {at_user}"


def case3(mode: str) -> str:
    import poincare_np

    point = poincare_np.POINT(np.random.default_rng(0))
    fn = dgraph.make_function(poincare_np.f, mode, point=point, params=["pos", "neg"])
    return f"verified {fn.generated.verified}"


def case4(lang: str) -> str:
    x = np.array([-0.3, 0.0, 0.3, 2.5, 40.0])
    fn = dgraph.make_function(
        lambda x: np.real(sps.lambertw(x)) * (1 + x), "value_and_jacobian", lang, point=[x]
    )
    w = sps.lambertw(x).real
    want = np.exp(-w) / (1 + w) * (1 + x) + w
    value, J = fn(x)
    error = np.max(np.abs(np.diag(np.asarray(J)) - want) / np.abs(want))
    off = np.max(np.abs(value - w * (1 + x)))
    return f"J error {error:.1e}, value error {off:.1e}, verified {fn.generated.verified}"


if __name__ == "__main__":
    import jax

    jax.config.update("jax_enable_x64", True)
    for x in (np.zeros(3), np.array([0.1, 0.2, 0.3]), np.array([1.0, 2.0, 0.5])):
        for mode in ("jvp", "vjp"):
            for lang in ("python", "c", "jax"):
                row(
                    f"1 where(n>=1, x/n, x) {mode} {lang} at {x}",
                    lambda m=mode, la=lang, p=x: case1(m, la, p),
                )
    for lang in ("python", "c", "jax"):
        row(f"2 ndtri tails value_and_jacobian {lang}", lambda la=lang: case2(la))
    for mode in ("jacobian", "jvp", "vjp"):
        row(f"3 poincare np {mode}", lambda m=mode: case3(m))
    for lang in ("python", "c", "jax"):
        row(f"4 lambertw value_and_jacobian {lang}", lambda la=lang: case4(la))
