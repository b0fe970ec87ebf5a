"""Matrix-free ``jvp`` and ``vjp`` through loop regions (issue 54, item 1): the tangent
sweep inside the loop, the adjoint sweep backwards over a tape of states, bounded by
``tape=K`` (binomial checkpointing; equidistant kept for comparison), a while_loop's
reverse over the trips it counted.
Each against ``jax.jvp`` / ``jax.vjp``; the tape's states counted in an instrumented run
of the generated NumPy code."""

from __future__ import annotations

import functools
import math
import re

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")

import dgraph  # noqa: E402
from dgraph.codegen.python import load_python  # noqa: E402
from dgraph.codegen.tensor import loop_sweeps  # noqa: E402
from dgraph.codegen.tensor.loop_sweeps import segments  # noqa: E402
from dgraph.codegen.tensor.module import tensor_program  # noqa: E402
from dgraph.codegen.tensor.sweeps import sweep_module  # noqa: E402
from dgraph.errors import DGraphError  # noqa: E402
from dgraph.methods import accumulate  # noqa: E402

A = np.array([[0.5, 0.1, 0.0], [0.2, 0.3, 0.1], [0.0, 0.4, 0.2]])
X0, P = np.array([0.3, -0.2, 0.5]), np.array([1.1, 0.9, 1.3])


def _scan(reverse: bool = False):
    def f(x, p, xs):
        def step(c, xt):
            return jnp.tanh(A @ c) * p + xt, jnp.sin(c) * xt[0]

        return jax.lax.scan(step, x, xs, reverse=reverse)

    return f


def _fori(steps: int):
    return lambda x, p: jax.lax.fori_loop(0, steps, lambda i, c: jnp.sin(c) * p + 0.1 * c, x)


def _newton(a, b):
    def step(x):
        return x - (x**3 + b * x - a) / (3 * x**2 + b)

    return jax.lax.while_loop(lambda x: jnp.max(jnp.abs(x**3 + b * x - a)) > 1e-12, step, a)


def _nested(x, p):
    def outer(c, _):
        inner = jax.lax.scan(lambda d, __: (jnp.sin(d) * p + 0.3 * d, None), c, None, length=3)
        return inner[0] * 0.5 + c, jnp.cos(c)

    return jax.lax.scan(outer, x, None, length=4)


def _rng_like(rng, tree):
    return jax.tree_util.tree_map(lambda a: rng.normal(size=np.shape(a)), tree)


def _close(got, want):
    got_leaves = jax.tree_util.tree_leaves(got)
    want_leaves = jax.tree_util.tree_leaves(want)
    assert len(got_leaves) == len(want_leaves)
    for a, b in zip(got_leaves, want_leaves, strict=True):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-12, atol=1e-13)


CASES = {
    "scan": (_scan(False), (X0, P, np.linspace(0.1, 0.6, 15).reshape(5, 3))),
    "scan reverse": (_scan(True), (X0, P, np.linspace(0.1, 0.6, 15).reshape(5, 3))),
    "fori_loop": (_fori(7), (X0, P)),
    "while_loop": (_newton, (np.array([2.0, 3.0]), np.array([1.0, 0.5]))),
    "scan in scan": (_nested, (X0, P)),
}


@functools.cache
def _graph(case: str):
    """A case's graph, read once for the tests that share it."""
    f, args = CASES[case]
    with jax.enable_x64(True):
        return dgraph.from_jax(f, *args, level="array")


def _pullback(f, args, w):
    """wᵀ·J: JAX's own vjp, or (a while_loop, which JAX does not reverse) wᵀ·jacfwd."""
    try:
        return jax.vjp(f, *args)[1](w)
    except ValueError:
        J = jax.jacfwd(f, argnums=tuple(range(len(args))))(*args)
        return tuple(jnp.tensordot(w, j, axes=np.ndim(w)) for j in J)


@functools.cache
def _jax_reference(case: str):
    """A case's tangents and cotangents (seeded) and JAX's jvp and vjp there, each one
    compiled program (eager, every primitive and its rules compile apart), once for
    both tape bounds."""
    f, args = CASES[case]
    rng = np.random.default_rng(0)
    with jax.enable_x64(True):
        tangents = _rng_like(rng, args)
        w = _rng_like(rng, jax.eval_shape(f, *args))
        jvp = jax.jit(lambda a, t: jax.jvp(f, a, t)[1])(args, tangents)
        vjp = jax.jit(functools.partial(_pullback, f))(args, w)
    return tangents, w, jvp, vjp


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("tape", [None, 2])
def test_jvp_and_vjp_through_loops_equal_jax(case, tape):
    """NumPy ``jvp``/``vjp`` (vjp with every state kept, and under a bound of 2 states:
    T = 5 and 7, not multiples of the segment) equal jax.jvp / jax.vjp to 1e-12; the
    text says how each loop is swept."""
    _, args = CASES[case]
    tangents, w, jvp, vjp = _jax_reference(case)
    with jax.enable_x64(True):
        g = _graph(case)
        if tape is None:
            text = sweep_module(g, "jvp", "python").text
            assert "a tangent sweep inside the loop" in text
            got = load_python(text).jvp(*args, *tangents)
            _close(got, jvp)
        text = sweep_module(g, "vjp", "python", tape).text
        assert "an adjoint sweep backwards" in text or "counts its trips" in text
        w_list = list(w) if isinstance(w, tuple) else [w]
        got = load_python(text).vjp(*args, *w_list)
        _close(got, vjp)


def test_make_function_checks_a_taped_vjp():
    """make_function's vjp under a tape bound: checked against the expression set's
    wᵀ·J before it is returned; its metadata says how the loop is swept."""
    f, args = CASES["scan"]
    with jax.enable_x64(True):
        g = dgraph.from_jax(f, *args, level="array")
        vjp = dgraph.make_function(g, "vjp", method="forward", tape=2)
    assert vjp.generated.verified
    # T = 5 under 2 stored states: 6 forward steps, the first sweep's 4 and 2 recomputed
    assert (
        "at most 2 stored states besides the current one, 2 steps recomputed"
        in (vjp.generated.loops[0])
    )


def _rd(steps: int, dt: float = 0.1):
    def f(u, d):
        def step(u, _):
            lap = jnp.roll(u, 1) + jnp.roll(u, -1) - 2.0 * u
            return u + dt * (d * lap + u - u**3), None

        return jax.lax.scan(step, u, None, length=steps)[0]

    return f


class _Counting:
    """numpy, with ``stack`` recording the number of rows of each state tape it makes."""

    def __init__(self, cells: int) -> None:
        self.cells = cells
        self.rows: list[int] = []

    def __getattr__(self, name):
        return getattr(np, name)

    def stack(self, arrays, *args, **kwargs):
        out = np.stack(arrays, *args, **kwargs)
        if out.ndim == 2 and out.shape[1] == self.cells:
            self.rows.append(out.shape[0])
        return out


@pytest.mark.parametrize(("steps", "tape"), [(23, 5), (24, 6), (23, None)])
def test_the_tape_bound_bounds_the_states_kept(steps, tape, monkeypatch):
    """23 steps under a bound of 5 states: segments of s = 5 steps, 4 checkpoints, the
    first 3 steps before them; the NumPy vjp's stacked state arrays, counted as it runs:
    the checkpoints (4 rows), each segment's recomputed states (5 rows, 4 times) and
    the first steps' (3): never more than max(4, 5) rows at once, all 23 states
    recomputed once; without a bound one tape of 23. Equal to jax.vjp either way.
    (Equidistant checkpointing, kept for comparison; binomial, the default:
    tests/test_revolve.py.)"""
    monkeypatch.setattr(loop_sweeps, "CHECKPOINTS", "equidistant")
    cells = 6
    f = _rd(steps)
    u0, d0 = np.linspace(0.2, 0.8, cells), np.array(0.3)
    w = np.cos(np.arange(cells))
    s, q, rem = segments(steps, tape)
    with jax.enable_x64(True):
        g = dgraph.from_jax(f, u0, d0, level="array", name="rd")
        want = jax.vjp(f, u0, d0)[1](w)
    text = sweep_module(g, "vjp", "python", tape).text
    module = load_python(text)
    counting = _Counting(cells)
    module.numpy = counting
    got = module.vjp(u0, d0, w)
    _close(got, want)
    if tape is None:
        assert counting.rows == [steps]
        return
    assert s == math.ceil(steps / tape) and q <= tape and q * s + rem == steps and rem < s
    expected = [q] + [s] * q + ([rem] if rem else [])
    assert sorted(counting.rows) == sorted(expected)
    assert max(counting.rows) <= max(tape, s) < steps
    assert f"a tape of {q} checkpoints" in text


def test_the_jax_sweeps_are_jitted_and_equal_jax():
    f = _rd(11)
    u0, d0 = np.linspace(0.2, 0.8, 8), np.array(0.3)
    w = np.sin(np.arange(8.0))
    with jax.enable_x64(True):
        g = dgraph.from_jax(f, u0, d0, level="array", name="rd")
        text = sweep_module(g, "vjp", "jax", tape=3).text
        # binomial: the forward sweep storing checkpoints, the reverse a scan over the turns
        assert text.count(" = _jit_scan(") == 2 and " = _jit_switch(" not in text
        got = jax.jit(load_python(text).vjp)(u0, d0, w)
        _close(got, jax.vjp(f, u0, d0)[1](w))
        text = sweep_module(g, "jvp", "jax").text
        v = (np.cos(np.arange(8.0)), np.array(0.5))
        got = jax.jit(load_python(text).jvp)(u0, d0, *v)
        _close(got, jax.jvp(f, (u0, d0), v)[1])
        f, args = CASES["while_loop"]  # a while loop inside the reverse while loop
        text = sweep_module(_graph("while_loop"), "vjp", "jax").text
        assert text.count(" = _jit_while(") == 3  # forward, reverse, recompute
        w = np.array([0.3, -0.7])
        _close(jax.jit(load_python(text).vjp)(*args, w), _pullback(f, args, w))


def test_segments_and_a_bad_tape():
    assert segments(10_000, 100) == (100, 100, 0)
    assert segments(10, 3) == (4, 2, 2)
    assert segments(5, 2) == (3, 1, 2)
    assert segments(7, None) == (7, 1, 0) == segments(7, 7)
    with jax.enable_x64(True):
        g = dgraph.from_jax(_fori(3), X0, P, level="array")
    with pytest.raises(DGraphError, match="tape= bounds the states a vjp keeps"):
        dgraph.make_function(g, "jvp", tape=3)
    with pytest.raises(DGraphError, match="tape= bounds"):
        dgraph.make_function(g, "vjp", tape=0)
    with pytest.raises(DGraphError, match="tape= is for a tensor graph"):
        dgraph.make_function(lambda x: [x[0] * x[1]], "vjp", sizes=[2], tape=2)


def _stencil_with_xs(steps: int):
    def f(u, d, xs):
        def step(u, x):
            lap = jnp.roll(u, 1) + jnp.roll(u, -1) - 2.0 * u
            return u + 0.1 * (d * lap + u - u**3) + 0.01 * x, None

        return jax.lax.scan(step, u, xs, length=steps)[0]

    return f


def _body_text(text: str, name: str) -> str:
    body = text[text.index(f"def {name}_body") :]
    return body[: body.index("return")]


def test_a_stencil_body_is_multiplied_by_its_entries_in_the_jacobian_loop():
    """16 cells, 4 steps: the body's tridiagonal block (48 of 256 entries) enters each
    step's update by its entries, three gathers of whole rows (one a slot of each row's
    entries), not as a dense 16 × 16 matrix: in the tangent loop (a scan with xs) and in
    the adjoint loop the chain DP chooses for the plain scan (16 rows, 17 columns); each
    equals jax.jacfwd."""
    u0, d0 = np.linspace(0.2, 0.8, 16), np.array(0.3)
    xs = np.linspace(0.0, 1.0, 64).reshape(4, 16)
    cases = [(_stencil_with_xs(4), (u0, d0, xs), "tangent"), (_rd(4), (u0, d0), "adjoint")]
    for f, args, sweep in cases:
        with jax.enable_x64(True):
            g = dgraph.from_jax(f, *args, level="array", name="rd")
            want = jax.jit(jax.jacfwd(f, argnums=tuple(range(len(args)))))(*args)
        text = tensor_program(accumulate(g, "forward", verify=False)).text  # unchecked
        assert f"Loop rd (4 steps): the {sweep} sweep" in text
        body = _body_text(text, "_loop_rd" if sweep == "tangent" else "_adjoint_rd")
        slots = re.findall(r"\(-1, 1\)\) \* _t\d+\[_t\d+\]", body)
        assert len(slots) == 3  # the stencil's 3 slots
        # the tangent loop's xs enter by their diagonal: one slot, its rows in order (no
        # gather of every row: the seed itself)
        diagonal = re.findall(r"\(-1, 1\)\) \* _t\d+(?!\[)", body)
        assert len(diagonal) == (sweep == "tangent")
        assert "bincount" not in body and "_scatter(256," not in body
        _close(load_python(text).jacobian(*args), want)
