"""A ``cond`` or ``switch`` inside a loop's body in generated code (issue 55): the
Hessian's gradient graph stacks each step's branch index and residuals as loop outputs no
derivative reaches, which the body's program now computes as a branch's are
(:func:`dgraph.codegen.tensor.module.extra_values`; the cond by
:func:`~dgraph.codegen.tensor.branches.emit_cond`, as at the top level). Refused before
("the array operation 'cond' is not supported"). Values against ``jax.hessian`` (or
forward-over-forward) at points whose predicate flips between two iterations, both ways,
the function made at one point and run at others (the branch chosen at run time)."""

from __future__ import annotations

import functools

import numpy as np
import pytest

jax = pytest.importorskip("jax", reason="JAX is not installed")
jnp = jax.numpy
lax = jax.lax
jax.config.update("jax_enable_x64", True)

import dgraph  # noqa: E402
from dgraph.codegen.c import compiler  # noqa: E402
from dgraph.codegen.ir import ArrayStatement, BinOp, Const, LoopBody, Name  # noqa: E402
from dgraph.codegen.tensor import branches  # noqa: E402
from dgraph.errors import DGraphError  # noqa: E402
from tests import jax_reference as jref  # noqa: E402

from .dense import dense as _dense  # noqa: E402

N = 6
X = np.linspace(0.1, 1.0, N)  # x > 0.5 from the fourth step on
POINTS = (X, X[::-1].copy(), 0.4 * X)  # false then true; true then false; always false
T = np.linspace(-1.0, 1.0, N)


def fori_cond(x):
    def body(i, c):
        return lax.cond(x[i] > 0.5, lambda c: c + x[i] ** 2, lambda c: c * x[i], c)

    return lax.fori_loop(0, N, body, 1.0)


def scan_carry_cond(x):
    """The predicate reads the carry."""

    def step(c, xi):
        c = lax.cond(c > 1.2, lambda c: jnp.sin(c) * xi, lambda c: c + xi**2, c)
        return c, c * xi

    c, ys = lax.scan(step, 0.5, x)
    return c + jnp.sum(ys**2)


def while_fixed(x):
    """A while_loop of a trip count no input reaches (read as scans)."""

    def body(s):
        i, c = s
        c = lax.cond(x[i] > 0.5, lambda c: c * x[i] + 1.0, lambda c: jnp.exp(x[i]) * c, c)
        return i + 1, c

    return lax.while_loop(lambda s: s[0] < N, body, (0, 1.0))[1]


def while_trips(x):
    """A while_loop whose trip count the values decide."""

    def body(s):
        c, k = s
        grow = lambda c: c * jnp.sum(x**2) + 0.1  # noqa: E731
        c = lax.cond(c > 1.0, grow, lambda c: c + jnp.sum(jnp.sin(x)), c)
        return c, k + 1

    return lax.while_loop(lambda s: (s[0] < 4.0) & (s[1] < 20), body, (jnp.sum(x) * 0.2, 0))[0]


def switch_fori(x):
    def body(i, c):
        k = jnp.clip(jnp.floor(x[i] * 3).astype(int), 0, 2)
        cases = [lambda c: c * x[i], lambda c: c + jnp.sin(x[i]) * c, lambda c: c - x[i] ** 3]
        return lax.switch(k, cases, c)

    return lax.fori_loop(0, N, body, 1.0)


def cond_cond_fori(x):
    def body(i, c):
        def outer(c):
            return lax.cond(x[i] > 0.75, lambda c: c * x[i] ** 2, lambda c: c + jnp.cos(x[i]), c)

        return lax.cond(x[i] > 0.3, outer, lambda c: c * jnp.exp(x[i]), c)

    return lax.fori_loop(0, N, body, 1.0)


def loop_in_loop(x):
    def body(i, c):
        def inner(j, d):
            return lax.cond(
                x[j] > x[i], lambda d: d + x[j] * x[i], lambda d: d * (1 + 0.1 * x[j]), d
            )

        return lax.fori_loop(0, N, inner, c)

    return lax.fori_loop(0, 3, body, 1.0)


def scan_switch_cond(x):
    """A switch of three, one branch a cond, over xs (no read at the counter: C)."""

    def step(c, xi):
        k = jnp.clip(jnp.floor(xi * 3).astype(int), 0, 2)
        inner = lambda c: lax.cond(xi > 0.5, lambda c: c * xi**2, lambda c: c + jnp.cos(xi) * c, c)  # noqa: E731
        c = lax.switch(k, [lambda c: c * jnp.sin(xi), inner, lambda c: c - xi**3 * c], c)
        return c, c * xi

    c, ys = lax.scan(step, 1.0, x)
    return c + jnp.sum(ys**2)


def _reference(f, x) -> np.ndarray:
    """Forward over forward (JAX's reverse mode refuses a while_loop)."""
    return np.asarray(jref.forward_hessian(f)(jnp.asarray(x)))


@functools.cache
def _forward_all(f):
    """``x ↦ (f(x), jacfwd(f)(x), jacfwd(jacfwd(f))(x))`` jitted, once per function: one
    compilation for the three (not the value run eagerly and two programs)."""
    return jax.jit(lambda x: (f(x), jax.jacfwd(f)(x), jax.jacfwd(jax.jacfwd(f))(x)))


def _agrees(f, mode: str, lang: str = "python", sparse: bool = False, points=POINTS) -> None:
    """``f``'s generated ``mode``, made at the first point, against JAX at each point."""
    fn = dgraph.make_function(f, mode, point=(points[0],), lang=lang, sparse=sparse)
    assert fn.generated.verified is True
    for x in points:
        H = None if mode == "value_gradient_hessian" else _reference(f, x)
        if mode == "hessian":
            got = _dense(fn(x))
        elif mode == "hvp":
            got, H = np.asarray(fn(x, T)), H @ T
        else:
            value, gradient, got = fn(x)
            want_value, want_gradient, H = _forward_all(f)(jnp.asarray(x))
            np.testing.assert_allclose(value, want_value, rtol=1e-13)
            np.testing.assert_allclose(gradient, want_gradient, rtol=1e-12)
            got = _dense(got)
        np.testing.assert_allclose(got.reshape(H.shape), H, rtol=1e-11, atol=1e-12)


def test_the_points_take_both_branches_and_flip_between_two_steps():
    """X's predicate is false for three steps, then true; reversed, the other way."""
    assert (X > 0.5).tolist() == [False] * 3 + [True] * 3
    assert (POINTS[1] > 0.5).tolist() == [True] * 3 + [False] * 3
    assert not (POINTS[2] > 0.5).any()


def test_a_cond_in_a_fori_loop_s_value_gradient_and_hessian():
    """The other modes and storages meet a cond in a loop in the tests below (every pair
    of mode, storage and language met once, each loop shape once or twice): dense and
    sparse ``hessian`` (``while_fixed``, ``switch_fori``), JAX's (``cond_cond_fori``: a
    cond in a cond in a fori_loop), ``hvp`` (``loop_in_loop``; C's of a scan and of a
    while loop), sparse ``value_gradient_hessian`` (``scan_carry_cond``)."""
    _agrees(fori_cond, "value_gradient_hessian")


def test_a_scan_with_a_cond_on_its_carry():
    c, taken = 0.5, []
    for xi in X:  # the predicate as the loop runs: both branches, in different steps
        taken.append(c > 1.2)
        c = np.sin(c) * xi if c > 1.2 else c + xi**2
    assert any(taken) and not all(taken)
    _agrees(scan_carry_cond, "value_gradient_hessian", sparse=True, points=(X, 1.3 * X))


def test_while_loops_with_a_cond():
    _agrees(while_fixed, "hessian")
    _agrees(while_trips, "hessian", sparse=True, points=(X, 1.5 * X))


def test_a_switch_of_three_in_a_fori_loop():
    assert set(np.clip(np.floor(X * 3), 0, 2).astype(int)) == {0, 1, 2}
    _agrees(switch_fori, "hessian", sparse=True)  # its hvp: scan_switch_cond's, in C


def test_a_cond_in_a_cond_in_a_fori_loop():
    """Every path taken at X (x ≤ 0.3; 0.3 < x ≤ 0.75; x > 0.75). In JAX each branch
    returns the same types (lax.switch asks it): the inner cond's index, an integer in one
    branch and a zero in the other, is returned as doubles by both. (NumPy's dense
    Hessian of a cond in a loop: ``while_fixed``'s; the nesting is the code IR's, one
    for every printer.)"""
    assert {int(x > 0.3) + int(x > 0.75) for x in X} == {0, 1, 2}
    _agrees(cond_cond_fori, "hessian", "jax", sparse=True)


def test_a_loop_in_a_loop_body_with_a_cond():
    """The inner loop's stacked residuals read as data by the outer loop's step: a loop
    emitted by the body's program; hvp's tangent loop gives the values it reads."""
    _agrees(loop_in_loop, "hessian", sparse=True, points=(X, POINTS[1]))
    _agrees(loop_in_loop, "hvp", points=(X,))


@pytest.mark.skipif(compiler() is None, reason="needs a C compiler")
def test_a_switch_and_a_cond_in_a_scan_in_c():
    assert set(np.clip(np.floor(X * 3), 0, 2).astype(int)) == {0, 1, 2}
    _agrees(scan_switch_cond, "hessian", "c", sparse=True)
    _agrees(scan_switch_cond, "hvp", "c", points=(X,))


@pytest.mark.skipif(compiler() is None, reason="needs a C compiler")
def test_an_hvp_through_a_while_loop_with_a_cond_in_c():
    """The loop's tangent sweep starts from zeros (a leaf ``zeros(…)`` in the loop's
    initial values), printed in C as 0.0: refused as outside the C vocabulary before
    (a scan's: :func:`test_a_switch_and_a_cond_in_a_scan_in_c`)."""
    _agrees(while_trips, "hvp", "c", points=(X,))


def test_a_wrong_rule_in_one_branch_is_caught(monkeypatch):
    """sin's derivative off by 1%: only the taken-when-true branch inside the loop reads
    sin, and the Hessian is refused (the check fails), never returned wrong (with the
    rule right, such a branch verifies: ``switch_fori``'s branch 1)."""
    import sympy

    from dgraph.blocks import arrays

    def f(x):
        def body(i, c):
            return lax.cond(x[i] > 0.5, lambda c: c + jnp.sin(x[i]) * c, lambda c: c * x[i], c)

        return lax.fori_loop(0, N, body, 1.0)

    a = sympy.Symbol("a", real=True)
    monkeypatch.setitem(arrays.ELEMENTWISE, "sin", (np.sin, (sympy.cos(a) * 1.01,)))
    arrays._derivative_function.cache_clear()
    try:
        with pytest.raises(DGraphError, match="did not verify"):
            dgraph.make_function(f, "hessian", point=(X,))
    finally:
        monkeypatch.undo()
        arrays._derivative_function.cache_clear()


def test_a_wrong_tangent_in_one_branch_s_code_is_caught(monkeypatch):
    """The generated code of branch 1 (x > 0.5: the last three steps at X) returns its
    tangents scaled by 1.001: the generated code's check refuses it."""
    made = branches._branch

    def wrong(r, b, *args):
        names, part, used, constants = made(r, b, *args)
        if b != 1:
            return names, part, used, constants
        n = len(r.out_shapes)
        scaled = tuple(
            ArrayStatement(f"_wrong{k}", BinOp("*", Const(1.001), Name(t)))
            for k, t in enumerate(part.results[n:])
        )
        results = (*part.results[:n], *(s.target for s in scaled))
        part = LoopBody(part.arguments, (*part.statements, *scaled), results)
        return names, part, used | {s.target for s in scaled}, constants

    monkeypatch.setattr(branches, "_branch", wrong)
    with pytest.raises(DGraphError, match="check FAILED"):
        dgraph.make_function(fori_cond, "hessian", point=(X,))
