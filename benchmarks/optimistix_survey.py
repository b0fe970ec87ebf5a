"""optimistix's test problems through dgraph, unmodified.

``python optimistix_survey.py DIR [NAME,...] [--cases c1,c2]`` where ``DIR`` holds
optimistix's ``tests/`` folder (``git archive HEAD tests | tar -x`` of a checkout of
github.com/patrick-kidger/optimistix), importable with optimistix, equinox, lineax,
optax, diffrax, jaxtyping on ``PYTHONPATH`` (``pip install --no-deps --target``); nothing
of it is copied here. ``python optimistix_survey.py table OUT...`` counts the outcomes.

Each problem of ``tests/helpers.py`` (minimisation, least squares, root finding by
bisection, fixed point, bounded minimisation, golden search; JAX functions ``fn(y,
args)`` of pytrees ``y``, some with equinox's ``ω`` and ``eqx.nn.MLP``) is taken at its own
initial point and at a random point of the same tree (seed 0, every leaf moved by
U(-0.5, 0.5)), given to dgraph as a user of optimistix would, ``lambda y: fn(y, args)``
(``args`` closed over), through

- ``accum``: ``dgraph.jacobian(f, point=[y])`` (its ``verified``),
- ``jac``: ``dgraph.make_function(f, "jacobian", point=[y])`` against ``jax.jacfwd(f)(y)``,
  tree for tree (``TREE``: the values are right but nested otherwise than JAX's),
- ``args``: the same with ``fn`` itself and ``point=[y, args], params=["args"]`` (where
  ``args`` is a pytree of arrays),
- ``hess`` / ``hess-sp`` (scalar objectives): ``make_function(f, "hessian", point=[y],
  sparse=...)`` against ``jax.hessian(f)(y)`` (the sparse one against the Hessian of
  ``f`` of ``ravel_pytree``'s flat vector).

Outcomes as in ``go_functions_survey.py``: ``ok`` right and verified, ``NOTVER`` right
and not verified, ``WRONG`` above ``TOL`` of the largest |reference| (at least 1),
``REFUSED`` a one-line ``DGraphError``, ``ERROR`` anything else, ``SLOW`` over ``LIMIT``
CPU-s (SIGPROF).
"""

from __future__ import annotations

import argparse
import functools
import inspect
import sys
import warnings

import jax
import jax.flatten_util  # flat_hessian's ravel_pytree
import jax.numpy as jnp
import numpy as np

jax.config.update("jax_enable_x64", True)
from harness import made_verdict, survey_case, survey_table  # noqa: E402

import dgraph  # noqa: E402

warnings.simplefilter("ignore")
TOL = 1e-8
LIMIT = 60.0
CASES = ["accum", "jac", "args", "hess", "hess-sp"]


def problems(h: object) -> list[tuple[str, object, object, object]]:
    """``(name, fn, y0, args)`` of every problem of optimistix's ``tests/helpers.py``
    (``h``), its tables as written there, and the problems its comments skip (their
    initial points as the comments give them)."""
    out = []
    tables = [
        ("min", h.minimisation_fn_minima_init_args, lambda r: (r[0], r[2], r[3])),
        ("lsq", h.least_squares_fn_minima_init_args, lambda r: (r[0], r[2], r[3])),
        ("bisect", h.bisection_fn_init_options_args, lambda r: (r[0], r[1], r[3])),
        ("fixed", h.fixed_point_fn_init_args, lambda r: (r[0], r[1], r[2])),
        ("bounded", h.bounded_paraboloids, lambda r: (r[0], r[1], r[2])),
        ("local", h.minimise_bounded_with_local_minima, lambda r: (r[0], r[1], r[2])),
        ("golden", h.golden_search_fn_y0_options_expected, lambda r: (r[0], r[1], None)),
        ("ode", h.forward_only_fn_init_options_expected, lambda r: (r[0], r[1], None)),
    ]
    for table, rows, pick in tables:
        for i, row in enumerate(rows):
            fn, y0, args = pick(row)
            name = getattr(fn, "__name__", "fn").strip("_").replace("<lambda>", "lambda")
            out.append((f"{table}{i}:{name}", fn, y0, args))
    one = jnp.array(1.0)
    skipped = [
        ("variably_dimensioned", 1 - jnp.arange(1, 11) / 10),
        ("variably_dimensioned", (1 - jnp.arange(1, 7) / 10, {"a": 1 - jnp.arange(7, 11) / 10})),
        ("trigonometric", jnp.ones(70) / 70),
        ("trigonometric", ((jnp.ones(40) / 70, (), {"a": jnp.ones(20) / 70}), jnp.ones(10) / 70)),
    ]
    for i, (name, y0) in enumerate(skipped):
        out.append((f"skip{i}:{name}", getattr(h, name), y0, one))
    return out


def moved(y0: object, rng: np.random.Generator) -> object:
    """``y0`` with every leaf moved by U(-0.5, 0.5), each leaf's type kept (a Python
    float stays one; an integer leaf becomes floats)."""

    def move(leaf: object) -> object:
        if isinstance(leaf, float):
            return leaf + float(rng.uniform(-0.5, 0.5))
        a = np.asarray(leaf, dtype=float)
        return jnp.asarray(a + rng.uniform(-0.5, 0.5, a.shape))

    return jax.tree_util.tree_map(move, y0)


def floats(y: object) -> object:
    return jax.tree_util.tree_map(lambda v: jnp.asarray(v, dtype=float), y)


def compare(ours: object, ref: object) -> tuple[str, float]:
    """``ok``/``WRONG`` and the error relative to the largest |reference| (at least 1);
    ``TREE`` where the leaves' values agree but the nesting or shapes differ."""
    ref_leaves = [np.asarray(v, dtype=float) for v in jax.tree_util.tree_leaves(ref)]
    our_leaves = [dense(v) for v in jax.tree_util.tree_leaves(ours)]
    a = np.concatenate([v.ravel() for v in our_leaves]) if our_leaves else np.zeros(0)
    b = np.concatenate([v.ravel() for v in ref_leaves]) if ref_leaves else np.zeros(0)
    if a.shape != b.shape:
        return "WRONG-SIZE", float("inf")
    scale = max(1.0, float(np.abs(b).max(initial=0.0)))
    err = float(np.abs(a - b).max(initial=0.0) / scale) if np.isfinite(a).all() else np.inf
    if err > TOL:
        return "WRONG", err
    same = jax.tree_util.tree_structure(ours) == jax.tree_util.tree_structure(ref) and all(
        u.shape == v.shape for u, v in zip(our_leaves, ref_leaves, strict=True)
    )
    return ("ok" if same else "TREE"), err


def dense(a: object) -> np.ndarray:
    if hasattr(a, "toarray"):
        return a.toarray()
    return np.asarray(a, dtype=float)


def flat_hessian(f: object, y: object) -> np.ndarray:
    flat, unravel = jax.flatten_util.ravel_pytree(floats(y))
    return np.asarray(jax.hessian(lambda v: f(unravel(v)))(flat))


def scalar(f: object, y: object) -> bool:
    """Whether ``f`` returns one number at ``y`` (True where JAX cannot run it: dgraph's
    answer is what is surveyed)."""
    try:
        leaves = jax.tree_util.tree_leaves(jax.eval_shape(f, y))
        return len(leaves) == 1 and np.size(leaves[0]) == 1
    except Exception:
        return True


def case(fn: object, args: object, kind: str, y: object) -> str:
    f = lambda y: fn(y, args)  # noqa: E731  as a user of optimistix writes it
    if kind == "accum":
        es = dgraph.jacobian(f, point=[y])
        if es.verified:
            return "ok verified=True"
        return f"NOTVER {getattr(es.verification, 'detail', es.verification)}"[:240]
    if kind == "args":
        leaves = jax.tree_util.tree_leaves(args)
        if args is None or not leaves or not all(hasattr(v, "dtype") for v in leaves):
            return "SKIP args not a pytree of arrays"
        second = list(inspect.signature(fn).parameters)[1]  # args, as the problem names it
        made = dgraph.make_function(fn, "jacobian", point=[y, args], params=[second])
        value, ref = made(y, args), jax.jacfwd(fn)(floats(y), args)
    elif kind == "jac":
        made = dgraph.make_function(f, "jacobian", point=[y])
        value, ref = made(y), jax.jacfwd(f)(floats(y))
    else:
        if not scalar(f, y):
            return "SKIP not scalar"
        sparse = kind == "hess-sp"
        made = dgraph.make_function(f, "hessian", point=[y], sparse=sparse)
        value = made(y)
        ref = flat_hessian(f, y) if sparse else jax.hessian(f)(floats(y))
        if sparse:
            value = dense(value)
    return made_verdict(made, compare(value, ref))


def run(name: str, fn: object, y0: object, args: object, cases: list[str]) -> None:
    rng = np.random.default_rng(0)
    for where, y in (("init", y0), ("rand", moved(y0, rng))):
        for kind in cases:
            msg, cpu = survey_case(functools.partial(case, fn, args, kind, y), LIMIT)
            if not msg.startswith("SKIP"):
                print(f"{name:30s} {where:4s} {kind:8s} {cpu:6.2f}s {msg}", flush=True)


def table(paths: list[str]) -> None:
    """:func:`harness.survey_table` of the logs at ``paths``, by problem."""
    survey_table(paths, CASES, "problems")


def main() -> None:
    if sys.argv[1:2] == ["table"]:
        table(sys.argv[2:])
        return
    parser = argparse.ArgumentParser()
    parser.add_argument("folder")
    parser.add_argument("names", nargs="?", default="")
    parser.add_argument("--cases", default=",".join(CASES))
    args = parser.parse_args()
    sys.path.insert(0, args.folder)
    import tests.helpers as helpers  # optimistix's, from the folder given

    wanted = set(args.names.split(",")) if args.names else None
    for name, fn, y0, fargs in problems(helpers):
        if wanted is None or name in wanted or name.split(":")[1] in wanted:
            run(name, fn, y0, fargs, args.cases.split(","))


if __name__ == "__main__":
    main()
