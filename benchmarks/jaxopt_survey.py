"""jaxopt's objectives, losses, projections and prox operators through dgraph, unmodified.

``python jaxopt_survey.py DIR [NAME,...] [--cases c1,c2]`` where ``DIR`` holds jaxopt
(``pip install --no-deps --target DIR jaxopt``; nothing of it is copied here).
``python jaxopt_survey.py table OUT...`` counts the outcomes.

Each function of ``jaxopt.objective``, ``jaxopt.loss``, ``jaxopt.projection`` and
``jaxopt.prox`` (and a few of the functions of jaxopt's own tests) is taken at a few
sizes (n = 3..50 differentiated numbers) with its data (``X``, labels, bounds) drawn at
random with seed 0 and closed over, as a user of jaxopt writes ``lambda w: fun(w, data)``;
at ``rand`` (a random point) and, for the piecewise functions, at ``kink`` (a coordinate
exactly at a box bound, ties in a simplex projection, ``|x| = l1reg`` of a prox, a
margin of exactly 1). Cases:

- ``accum``: ``dgraph.jacobian(f, point=[w])`` (its ``verified``),
- ``jac``: ``dgraph.make_function(f, "jacobian", point=[w])`` against ``jax.jacfwd(f)(w)``,
- ``args`` (functions with data): ``make_function(fun, "jacobian", point=[w, data],
  params=["data"])`` called on the same data against ``jax.jacfwd``,
- ``hess`` / ``hess-sp`` (scalar objectives): ``make_function(f, "hessian", point=[w],
  sparse=...)`` against ``jax.hessian(f)(w)``.

At a kink JAX's own derivative is one of the one-sided ones: a ``NOTVER`` (or refusal)
there is the honest answer; ``WRONG`` with ``verified=True`` would be a bug. Outcomes as
in ``optimistix_survey.py``: ``ok`` right and verified, ``NOTVER`` right and not verified,
``WRONG`` above ``TOL`` of the largest |reference| (at least 1), ``REFUSED`` a one-line
``DGraphError``, ``ERROR`` anything else, ``SLOW`` over ``LIMIT`` CPU-s (SIGPROF).
"""

from __future__ import annotations

import argparse
import functools
import os
import sys
import warnings
from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np

jax.config.update("jax_enable_x64", True)
from harness import survey_case  # noqa: E402
from optimistix_survey import case as optimistix_case  # noqa: E402
from optimistix_survey import table as survey_table  # noqa: E402

warnings.simplefilter("ignore")
LIMIT = 60.0
CASES = ["accum", "jac", "args", "hess", "hess-sp"]
SIZES = tuple(int(s) for s in os.environ.get("JAXOPT_SIZES", "3,12,50").split(","))

#: ``(name, fun, w, data)``: ``fun(w, data)`` the function, ``data`` ``None`` or a
#: pytree of arrays (the ``args`` case), at point ``w``.
Problem = tuple[str, Callable, object, object]


def data(n: int, rng: np.random.Generator, classes: int = 0) -> tuple:
    """``(X, y)``: ``X`` of ``m = n + 2`` samples and ``n`` features, ``y`` real values
    or ``classes`` integer labels (0..classes-1, every class present where m allows)."""
    m = n + 2
    X = jnp.asarray(rng.standard_normal((m, n)))
    if classes:
        y = jnp.asarray(np.arange(m) % classes, dtype=jnp.int32)
    else:
        y = jnp.asarray(rng.standard_normal(m))
    return X, y


def objectives(jo: object, n: int, rng: np.random.Generator) -> list[Problem]:
    """``jaxopt.objective``'s functions with ``n`` parameters (about: a matrix W of
    ``d x k`` with ``d * k`` near ``n``)."""
    o = jo.objective
    k = 3
    d = max(1, n // k)
    out: list[Problem] = []
    X, y = data(n, rng)
    out.append(("least_squares", o.least_squares, jnp.asarray(rng.standard_normal(n)), (X, y)))
    out.append(
        (
            "ridge_regression",
            lambda w, D: o.ridge_regression(w, 0.3, D),
            jnp.asarray(rng.standard_normal(n)),
            (X, y),
        )
    )
    Xb, yb = data(n, rng, classes=2)
    out.append(("binary_logreg", o.binary_logreg, jnp.asarray(rng.standard_normal(n)), (Xb, yb)))
    Xc, yc = data(d, rng, classes=k)
    W = jnp.asarray(rng.standard_normal((d, k)))
    b = jnp.asarray(rng.standard_normal(k))
    out.append(("multiclass_logreg", o.multiclass_logreg, W, (Xc, yc)))
    out.append(
        ("multiclass_logreg_with_intercept", o.multiclass_logreg_with_intercept, (W, b), (Xc, yc))
    )
    out.append(
        ("l2_multiclass_logreg", lambda w, D: o.l2_multiclass_logreg(w, 0.1, D), W, (Xc, yc))
    )
    out.append(
        (
            "l2_multiclass_logreg_with_intercept",
            lambda w, D: o.l2_multiclass_logreg_with_intercept(w, 0.1, D),
            (W, b),
            (Xc, yc),
        )
    )
    # The dual of the multiclass SVM: beta of shape (samples, classes), Y one-hot.
    m = max(1, n // k)
    Xs = jnp.asarray(rng.standard_normal((m, 4)))
    Ys = jax.nn.one_hot(np.arange(m) % k, k)
    beta = jnp.asarray(rng.uniform(0, 1, (m, k)))
    out.append(
        (
            "multiclass_linear_svm_dual",
            lambda w, D: o.multiclass_linear_svm_dual(w, 0.5, D),
            beta,
            (Xs, Ys),
        )
    )
    return out


def losses(jo: object, n: int, rng: np.random.Generator) -> list[Problem]:
    """``jaxopt.loss``'s functions summed over ``n`` samples (``jax.vmap`` over the
    multiclass ones, as jaxopt's objectives do)."""
    L = jo.loss
    k = 3
    out: list[Problem] = []
    lab2 = jnp.asarray(np.arange(n) % 2, dtype=jnp.int32)
    z = jnp.asarray(rng.standard_normal(n) * 2)
    target = jnp.asarray(rng.standard_normal(n))
    for name in (
        "binary_logistic_loss",
        "binary_sparsemax_loss",
        "binary_hinge_loss",
        "binary_perceptron_loss",
    ):
        fn = getattr(L, name)
        out.append((name, lambda w, lab, fn=fn: jnp.sum(fn(lab, w)), z, lab2))
    out.append(("huber_loss", lambda w, t: jnp.sum(L.huber_loss(t, w)), z, target))
    out.append(("sparse_plus", lambda w, _: jnp.sum(L.sparse_plus(w)), z, None))
    out.append(("sparse_sigmoid", lambda w, _: L.sparse_sigmoid(w), z, None))
    m = max(1, n // k)
    labk = jnp.asarray(np.arange(m) % k, dtype=jnp.int32)
    S = jnp.asarray(rng.standard_normal((m, k)))
    for name in (
        "multiclass_logistic_loss",
        "multiclass_sparsemax_loss",
        "multiclass_hinge_loss",
        "multiclass_perceptron_loss",
    ):
        fn = getattr(L, name)
        out.append((name, lambda w, lab, fn=fn: jnp.sum(jax.vmap(fn)(lab, w)), S, labk))
    fy = L.make_fenchel_young_loss(jax.scipy.special.logsumexp)
    Yk = jax.nn.one_hot(np.arange(m) % k, k)
    out.append(("fenchel_young_logsumexp", lambda w, Y: jnp.sum(jax.vmap(fy)(Y, w)), S, Yk))
    return out


def projections(jo: object, n: int, rng: np.random.Generator) -> list[Problem]:
    """``jaxopt.projection``'s closed-form projections of ``n`` numbers."""
    P = jo.projection
    x = jnp.asarray(rng.standard_normal(n))
    lo = jnp.asarray(rng.uniform(-1, 0, n))
    hi = jnp.asarray(rng.uniform(0, 1, n))
    a = jnp.asarray(rng.standard_normal(n))
    A = jnp.asarray(rng.standard_normal((max(1, n // 3), n)))
    bA = jnp.asarray(rng.standard_normal(max(1, n // 3)))
    out: list[Problem] = [
        ("projection_non_negative", lambda w, _: P.projection_non_negative(w), x, None),
        ("projection_box", lambda w, B: P.projection_box(w, B), x, (lo, hi)),
        ("projection_hypercube", lambda w, _: P.projection_hypercube(w, 0.8), x, None),
        ("projection_simplex", lambda w, _: P.projection_simplex(w), x, None),
        ("projection_simplex_value", lambda w, _: P.projection_simplex(w, 2.5), x, None),
        (
            "projection_sparse_simplex",
            lambda w, _: P.projection_sparse_simplex(w, max(1, n // 2)),
            x,
            None,
        ),
        ("projection_l1_sphere", lambda w, _: P.projection_l1_sphere(w, 1.5), x, None),
        ("projection_l1_ball", lambda w, _: P.projection_l1_ball(w, 1.5), x, None),
        ("projection_l2_sphere", lambda w, _: P.projection_l2_sphere(w, 1.5), x, None),
        ("projection_l2_ball", lambda w, _: P.projection_l2_ball(w, 1.5), x, None),
        ("projection_linf_ball", lambda w, _: P.projection_linf_ball(w, 0.5), x, None),
        (
            "projection_hyperplane",
            lambda w, H: P.projection_hyperplane(w, H),
            x,
            (a, jnp.asarray(0.7)),
        ),
        (
            "projection_halfspace",
            lambda w, H: P.projection_halfspace(w, H),
            x,
            (a, jnp.asarray(-0.7)),
        ),
        ("projection_affine_set", lambda w, H: P.projection_affine_set(w, H), x, (A, bA)),
    ]
    return out


def proxes(jo: object, n: int, rng: np.random.Generator) -> list[Problem]:
    """``jaxopt.prox``'s operators of ``n`` numbers."""
    X = jo.prox
    x = jnp.asarray(rng.standard_normal(n))
    lam = jnp.asarray(rng.uniform(0.1, 0.5, n))
    return [
        ("prox_none", lambda w, _: X.prox_none(w), x, None),
        ("prox_lasso", lambda w, _: X.prox_lasso(w, 0.4), x, None),
        ("prox_lasso_weights", lambda w, L: X.prox_lasso(w, L, 0.5), x, lam),
        ("prox_non_negative_lasso", lambda w, _: X.prox_non_negative_lasso(w, 0.4), x, None),
        ("prox_elastic_net", lambda w, _: X.prox_elastic_net(w, (0.4, 0.6)), x, None),
        ("prox_group_lasso", lambda w, _: X.prox_group_lasso(w, 0.5), x, None),
        (
            "prox_group_lasso_vmap",
            lambda w, _: jax.vmap(X.prox_group_lasso, (0, None))(w.reshape(-1, 1), 0.5).ravel(),
            x,
            None,
        ),
        ("prox_ridge", lambda w, _: X.prox_ridge(w, 0.7, 2.0), x, None),
        ("prox_non_negative_ridge", lambda w, _: X.prox_non_negative_ridge(w, 0.7), x, None),
    ]


def from_tests(jo: object, n: int, rng: np.random.Generator) -> list[Problem]:
    """Functions written in jaxopt's tests (tests/common_test.py, projection_test.py,
    loss_test.py), as they are written there."""
    P = jo.projection
    x = jnp.asarray(rng.uniform(0.1, 1.0, n))
    k = 3
    m = max(1, n // k)
    Xm = jnp.asarray(rng.standard_normal((m, k)))
    lab2 = jnp.asarray(np.arange(n) % 2, dtype=jnp.int32)
    z = jnp.asarray(rng.standard_normal(n))
    return [
        # common_test.py: the mirror descent's generating function.
        ("kl_generating_fun", lambda w, _: -jnp.sum(jax.scipy.special.entr(w) + w), x, None),
        # common_test.py: the KL projection (a softmax of each row).
        ("kl_projection", lambda w, _: jax.nn.softmax(w, -1), Xm, None),
        # projection_test.py, test_projection_simplex_vmap_diff: a vmapped projection, summed.
        (
            "simplex_vmap_sum",
            lambda w, _: jnp.sum(jax.vmap(P.projection_simplex)(w) ** 2),
            Xm,
            None,
        ),
        # loss_test.py: the binary logistic loss's reference.
        ("logistic_reference", lambda w, lab: jnp.sum(jax.nn.softplus(w) - lab * w), z, lab2),
    ]


def kinks(jo: object, n: int) -> list[Problem]:
    """Points where a projection, prox or loss is at a kink or a tie: JAX's derivative
    there is one of the one-sided ones."""
    P, X, L = jo.projection, jo.prox, jo.loss
    lo, hi = -jnp.ones(n) * 0.5, jnp.ones(n) * 0.5
    at_box = jnp.asarray(np.linspace(-0.8, 0.8, n)).at[0].set(0.5).at[-1].set(-0.5)
    tie = jnp.asarray(np.r_[[0.6, 0.6], np.linspace(-1, 0.1, n - 2)])
    at_lasso = jnp.asarray(np.linspace(-1, 1, n)).at[0].set(0.4).at[-1].set(-0.4)
    at_zero = jnp.asarray(np.linspace(-1, 1, n)).at[0].set(0.0)
    at_l2 = jnp.asarray(np.ones(n) * 1.5 / np.sqrt(n))
    # The simplex's support ends at a tie: x_(1..2) give 0.5 each and x_3 is exactly on
    # the threshold (its projection is 0 from both sides only at first order).
    simplex_edge = jnp.asarray(np.r_[[0.7, 0.7, 0.2], -np.ones(n - 3)])
    lab2 = jnp.asarray(np.arange(n) % 2, dtype=jnp.int32)
    margin = jnp.where(lab2 == 1, 1.0, -1.0) * jnp.ones(n)
    huber_t = jnp.zeros(n)
    huber_at = jnp.asarray(np.linspace(-2, 2, n)).at[0].set(1.0)
    return [
        ("projection_box", lambda w, B: P.projection_box(w, B), at_box, (lo, hi)),
        ("projection_non_negative", lambda w, _: P.projection_non_negative(w), at_zero, None),
        ("projection_simplex", lambda w, _: P.projection_simplex(w), tie, None),
        ("projection_simplex_edge", lambda w, _: P.projection_simplex(w), simplex_edge, None),
        ("projection_l1_ball", lambda w, _: P.projection_l1_ball(w, 1.5), at_zero, None),
        ("projection_l2_ball", lambda w, _: P.projection_l2_ball(w, 1.5), at_l2, None),
        ("prox_lasso", lambda w, _: X.prox_lasso(w, 0.4), at_lasso, None),
        ("prox_elastic_net", lambda w, _: X.prox_elastic_net(w, (0.4, 0.6)), at_lasso, None),
        ("binary_hinge_loss", lambda w, lab: jnp.sum(L.binary_hinge_loss(lab, w)), margin, lab2),
        ("huber_loss", lambda w, t: jnp.sum(L.huber_loss(t, w)), huber_at, huber_t),
        ("sparse_plus", lambda w, _: jnp.sum(L.sparse_plus(w)), at_box * 2, None),
    ]


def problems(jo: object) -> list[tuple[str, str, Problem]]:
    """``(name, where, problem)`` of every surveyed function, size and point."""
    out = []
    for n in SIZES:
        rng = np.random.default_rng(0)
        for group in (objectives, losses, projections, proxes, from_tests):
            for p in group(jo, n, rng):
                out.append((f"{p[0]}@{n}", "rand", p))
        for p in kinks(jo, n):
            out.append((f"{p[0]}@{n}", "kink", p))
    return out


def case(fn: Callable, w: object, args: object, kind: str) -> str:
    """One case of ``fn(w, args)`` as a user of jaxopt writes it: optimistix_survey's."""
    return optimistix_case(fn, args, kind, w)


def run(name: str, where: str, problem: Problem, cases: list[str]) -> None:
    _, fn, w, args = problem
    for kind in cases:
        msg, cpu = survey_case(functools.partial(case, fn, w, args, kind), LIMIT)
        if not msg.startswith("SKIP"):
            print(f"{name:40s} {where:4s} {kind:8s} {cpu:6.2f}s {msg}", flush=True)


def main() -> None:
    if sys.argv[1:2] == ["table"]:
        survey_table(sys.argv[2:])
        return
    parser = argparse.ArgumentParser()
    parser.add_argument("folder")
    parser.add_argument("names", nargs="?", default="")
    parser.add_argument("--cases", default=",".join(CASES))
    args = parser.parse_args()
    sys.path.insert(0, args.folder)
    import jaxopt  # from the folder given

    wanted = set(args.names.split(",")) if args.names else None
    for name, where, problem in problems(jaxopt):
        if wanted is None or name in wanted or name.split("@")[0] in wanted:
            run(name, where, problem, args.cases.split(","))


if __name__ == "__main__":
    main()
