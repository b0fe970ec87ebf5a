"""Session 61: ``sympy.cse`` with every Piecewise held (element-level code generation).

``texts``: the generated texts (python, c, jax) of the element-level functions below
(every Piecewise-producing rule found: where, maximum, minimum, abs, clip, sign, floor,
mod, heaviside, arctan2, logaddexp, softplus, relu, elu, leaky_relu) and each check's
reported errors, hashed, one line each and a total: the same before and after a change
that only removes repeated work (run with ``PYTHONPATH`` at each tree).

``make``: CPU-s of one element-level ``from_function`` and ``make_function(graph,
"value_and_jacobian")`` of a softplus and a logaddexp at n = 4, 8, 16 (each in a fresh
process after one warm-up make, medians of ``--repeat``) and the growth exponents
between the sizes.

    PYTHONPATH=. python benchmarks/cse_pieces61.py texts
    PYTHONPATH=. python benchmarks/cse_pieces61.py make --repeat 3
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

X = np.array([1e-10, 2e-12, -3e-13, 0.3, -0.7, 1.3])


def _functions() -> list[tuple[str, object]]:
    import jax
    import jax.numpy as jnp

    return [
        ("logaddexp", lambda x: np.logaddexp(x, -40.0)),
        ("softplus", lambda x: np.logaddexp(0.0, x)),
        ("logaddexp_pairs", lambda x: np.logaddexp(x[:-1], x[1:])),
        ("softplus_sum", lambda x: np.sum(np.logaddexp(0.0, x)) * x),
        ("where", lambda x: np.where(x > 0, x**2, np.sin(x))),
        ("where_nested", lambda x: np.where(x > 0.1, np.log(x + 1), np.where(x < -0.5, x, x**3))),
        ("relu", lambda x: np.maximum(x, 0.0) * np.cos(x)),
        ("maximum", lambda x: np.maximum(x, 0.3 * x[::-1])),
        ("minimum", lambda x: np.minimum(x, np.cos(x))),
        ("abs", lambda x: np.abs(x) * x),
        ("clip", lambda x: np.clip(x, -0.5, 0.5) * np.exp(x)),
        ("sign", lambda x: np.sign(x) * x**2),
        ("floor", lambda x: np.floor(3 * x) + np.sin(x)),
        ("mod", lambda x: np.mod(x, 0.7) * x),
        ("heaviside", lambda x: np.heaviside(x, 0.5) * x),
        ("arctan2", lambda x: np.arctan2(x, x[::-1] + 2.0)),
        ("jax_softplus", lambda x: jax.nn.softplus(x) * x[0]),
        ("jax_relu", lambda x: jax.nn.relu(x) + jnp.sin(x)),
        ("jax_elu", lambda x: jax.nn.elu(x)),
        ("jax_leaky_relu", lambda x: jax.nn.leaky_relu(x, 0.1) * x),
        ("jax_logaddexp", lambda x: jnp.logaddexp(x, 2.0 * x[::-1])),
        ("jax_where_max", lambda x: jnp.where(x > 0, jnp.maximum(x, 0.2), -x)),
    ]


def _digest(made) -> str:
    g = made.generated
    c = g.check
    check = (c.ok, c.ran, c.detail, sorted(c.errors.items()), c.difference_error, c.points,
             c.parameters, c.skipped, c.against)  # fmt: skip
    text = g.text + "\n#check " + repr(check) + "\n#method " + repr(g.method)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def texts(langs: list[str]) -> None:
    import dgraph

    total = hashlib.sha256()
    for name, f in _functions():
        for lang in langs:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    made = dgraph.make_function(f, "value_and_jacobian", lang, point=[X])
                    line = _digest(made)
                except Exception as error:  # a refusal is a result too: its one line
                    line = "refused " + hashlib.sha256(str(error).encode()).hexdigest()[:16]
            print(f"{name:20s} {lang:6s} {line}")
            total.update(line.encode())
            sys.stdout.flush()
    print("TOTAL", total.hexdigest()[:16])


MAKES = {
    "softplus": lambda x: np.logaddexp(0.0, x),
    "logaddexp": lambda x: np.logaddexp(x[:-1], x[1:]),
}


def one_make(name: str, n: int, lang: str) -> float:
    """CPU-s of the first ``make_function`` of ``MAKES[name]`` at ``n`` elements in this
    process (after one make of another function: imports and JAX's start-up are not
    counted)."""
    import dgraph

    dgraph.make_function(lambda x: np.sin(x) * x[0], point=[np.linspace(0.1, 1.0, 3)])
    t0 = time.process_time()
    graph = dgraph.from_function(MAKES[name], sizes=[n], level="element")
    made = dgraph.make_function(graph, "value_and_jacobian", lang)
    spent = time.process_time() - t0
    assert made.generated.verified
    return spent


def make(sizes: list[int], repeat: int, lang: str) -> None:
    """:func:`one_make` in a fresh process each time, sizes and functions alternating;
    medians and growth exponents."""
    for name in MAKES:
        times: dict[int, list[float]] = {n: [] for n in sizes}
        for _ in range(repeat):
            for n in sizes:
                out = subprocess.run(
                    [sys.executable, __file__, "one", name, str(n), lang],
                    capture_output=True,
                    text=True,
                    check=True,
                )
                times[n].append(float(out.stdout.split()[-1]))
        medians = [statistics.median(times[n]) for n in sizes]
        for n, m in zip(sizes, medians, strict=True):
            every = [round(t, 3) for t in times[n]]
            print(f"{name} {lang} n={n:5d} make CPU-s median {m:.3f}  all {every}")
        for step in pairwise_exponents(sizes, medians):
            print(f"{name} {lang} exponent {step}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="what", required=True)
    t = sub.add_parser("texts")
    t.add_argument("--langs", nargs="+", default=["python", "c", "jax"])
    m = sub.add_parser("make")
    m.add_argument("--sizes", type=int, nargs="+", default=[4, 8, 16])
    m.add_argument("--repeat", type=int, default=3)
    m.add_argument("--lang", default="python")
    o = sub.add_parser("one")
    o.add_argument("name")
    o.add_argument("n", type=int)
    o.add_argument("lang")
    args = parser.parse_args()
    if args.what == "texts":
        texts(args.langs)
    elif args.what == "one":
        print(f"{one_make(args.name, args.n, args.lang):.4f}")
    else:
        make(args.sizes, args.repeat, args.lang)


if __name__ == "__main__":
    main()
