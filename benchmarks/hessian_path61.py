"""Session 61: the Hessian path's repeated work (make_hessian).

``texts``: the generated texts (python/jax/c, dense and sparse, hessian / hvp /
value_gradient_hessian) and each check's reported errors for 20+ functions of the
Hessian test files, hashed, one line each and a total: the same before and after a
change that only removes repeated work (run with ``PYTHONPATH`` at each tree).

``build``: ``dgraph.make_function(f, "hessian", point=[x])`` build CPU-s for an
extended-Rosenbrock-like objective (NumPy) at n = 10, 100, 1000 (each the first build
of a fresh process, medians of ``--repeat``), and the growth exponent between the sizes.

    PYTHONPATH=. python benchmarks/hessian_path61.py texts
    PYTHONPATH=. python benchmarks/hessian_path61.py build --repeat 3
"""

from __future__ import annotations

import argparse
import hashlib
import statistics
import subprocess
import sys
import time
import warnings

import numpy as np
from harness import pairwise_exponents

WEIGHTS = np.array([1.0, -0.5, 2.0, 0.3])


def _functions() -> list[tuple[str, object, list[np.ndarray], dict]]:
    """(name, f, point, extra keywords): functions of the Hessian test files."""
    from tests import test_hessian_numpy as hn
    from tests import test_loop_hessians as lh
    from tests import test_numpy_composites as nc
    from tests import test_special_more as sm
    from tests import test_while_hessians as wh

    x7 = hn.X
    x9 = np.linspace(-0.8, 1.1, 9)
    cases = [
        ("rosenbrock_np", hn.rosenbrock_np, [x7], {}),
        ("quadratic_np", hn.quadratic_np, [x7], {}),
        ("logsum_np", hn.logsum_np, [x7], {}),
        ("rosenbrock_jnp", hn.rosenbrock_jnp, [x7], {}),
        ("fem_np", hn._fem_np, [np.linspace(0.1, 0.9, 9)], {}),
        ("repeats_np", hn._repeats_np, [np.linspace(0.2, 1.1, 6)], {}),
        ("special_program", sm._program, [sm.X], {}),
    ]
    for name in ("triu_tril", "cross", "kron", "trapezoid", "polyval", "split", "unwrap"):
        f, _ = nc.PAIRS[name]
        cases.append((f"composite_{name}", f, [x9], {}))
    for name in ("an HMM's forward algorithm", "fori_loop of x[i]", "rows X[i] @ X[i]",
                 "a recurrence .at[i + 1].set", "a scan over xs with a counter"):  # fmt: skip
        f, x0 = lh.FUNCTIONS[name]
        cases.append((f"loop {name}", f, [np.asarray(x0)], {}))
    cases += [
        ("while_newton_sqrt", wh._newton_sqrt, [wh.X], {}),
        ("while_triangle", wh._triangle, [wh.X], {}),
        ("while_pairs", wh._pairs, [wh.X], {}),
        ("while_iterated_weights", wh._iterated, [wh.X], {"weights": WEIGHTS}),
    ]
    return cases


VARIANTS = [  # (mode, lang, sparse, tril)
    ("hessian", "python", False, False),
    ("hessian", "python", True, False),
    ("hessian", "jax", True, False),
    ("hvp", "python", False, False),
    ("value_gradient_hessian", "python", True, True),
]
C_VARIANTS = [("hessian", "c", True, False)]  # for the first few functions (a compiler each)


def _digest(made) -> str:
    g = made.generated
    c = g.check
    check = (c.ok, c.ran, c.detail, sorted(c.errors.items()), c.difference_error, c.points,
             c.parameters, c.skipped, c.against)  # fmt: skip
    text = g.text + "\n#check " + repr(check)
    inner = getattr(made, "gradient", None)
    if inner is not None and inner.generated is not g:
        text += "\n#inner " + inner.generated.text
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def texts(c_count: int) -> None:
    import dgraph

    total = hashlib.sha256()
    for k, (name, f, point, extra) in enumerate(_functions()):
        for mode, lang, sparse, tril in VARIANTS + (C_VARIANTS if k < c_count else []):
            keywords = dict(extra)
            if mode != "hvp":
                keywords.update(sparse=sparse, tril=tril)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    made = dgraph.make_function(f, mode, lang, point=point, **keywords)
                    line = _digest(made)
                except Exception as error:  # a refusal is a result too: its one line
                    line = "refused " + hashlib.sha256(str(error).encode()).hexdigest()[:16]
            print(f"{name:45s} {mode:24s} {lang:6s} sparse={sparse:d} tril={tril:d} {line}")
            total.update(line.encode())
            sys.stdout.flush()
    print("TOTAL", total.hexdigest()[:16])


def _rosenbrock(x):
    """An extended Rosenbrock-like objective (chained, with a coupling term)."""
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2) + np.sum(np.sin(x) * x)


def _warm(x):
    return np.sum(np.cos(x) * x[0])


def one_build(n: int) -> float:
    """CPU-s of the first ``make_function(_rosenbrock, "hessian")`` at ``n`` unknowns in
    this process (after one build of another function: imports and JAX's start-up are
    not counted), sparse past 100 unknowns."""
    import dgraph

    dgraph.make_function(_warm, "hessian", point=[np.linspace(0.1, 1.0, 3)])
    x = np.linspace(-1.0, 1.0, n)
    t0 = time.process_time()
    made = dgraph.make_function(_rosenbrock, "hessian", point=[x], sparse=n > 100)
    spent = time.process_time() - t0
    assert made.generated.verified
    return spent


def build(sizes: list[int], repeat: int) -> None:
    """:func:`one_build` in a fresh process each time (what a user's first call costs),
    ``repeat`` times per size, sizes alternating; medians and growth exponents."""
    times: dict[int, list[float]] = {n: [] for n in sizes}
    for _ in range(repeat):
        for n in sizes:
            out = subprocess.run(
                [sys.executable, __file__, "one", str(n)],
                capture_output=True,
                text=True,
                check=True,
            )
            times[n].append(float(out.stdout.split()[-1]))
    medians = [statistics.median(times[n]) for n in sizes]
    for n, m in zip(sizes, medians, strict=True):
        print(f"n={n:7d} build CPU-s median {m:.3f}  all {[round(t, 3) for t in times[n]]}")
    for step in pairwise_exponents(sizes, medians):
        print(f"exponent {step}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="what", required=True)
    t = sub.add_parser("texts")
    t.add_argument("--c", type=int, default=4, help="functions whose C Hessian is made too")
    b = sub.add_parser("build")
    b.add_argument("--sizes", type=int, nargs="+", default=[10, 100, 1000])
    b.add_argument("--repeat", type=int, default=3)
    o = sub.add_parser("one")
    o.add_argument("n", type=int)
    args = parser.parse_args()
    if args.what == "texts":
        texts(args.c)
    elif args.what == "one":
        print(f"{one_build(args.n):.4f}")
    else:
        build(args.sizes, args.repeat)


if __name__ == "__main__":
    main()
