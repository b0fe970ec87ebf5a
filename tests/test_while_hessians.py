"""Hessians where JAX's reverse mode stops: through a ``while_loop`` (a top-level one is
given a reverse sweep of its own, :mod:`dgraph.frontends.jaxpr_reverse_while`; through a
nested one the gradient graph is JAX's forward mode, ``jacfwd``:
:func:`dgraph.frontends.jax_hessian.gradient_graph`; its batched reads at the loop's
indices are gathers read as windows),
and of a double loop whose gradient writes at the outer counter in the inner loop (the
transpose of a take at run-time positions, its pattern the union over them). Values
against ``jax.jacfwd(jax.jacfwd(f))`` and ``jax.hessian``; refused before."""

from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy
lax = jax.lax
jax.config.update("jax_enable_x64", True)

import dgraph  # noqa: E402
from dgraph.frontends import from_jax  # noqa: E402
from dgraph.frontends.jaxpr_reverse_while import (  # noqa: E402
    SLOTS,
    extra_steps,
    reverse_loops,
    slots_for,
)
from tests import jax_reference as jref  # noqa: E402
from tests.jax_reference import Reference as Ref  # noqa: E402

X = np.array([0.5, 0.3, 1.2, 0.8])
C = jnp.linspace(0.2, 1.0, 5)


def _newton_sqrt(x):
    """Σ sqrt(x)·sin(x), the square roots by Newton's iteration run to convergence."""

    def cond(s):
        y, k = s
        return (jnp.max(jnp.abs(y * y - x)) > 1e-14) & (k < 50)

    def body(s):
        y, k = s
        return 0.5 * (y + x / y), k + 1

    y = lax.while_loop(cond, body, (jnp.ones_like(x), 0))[0]
    return jnp.sum(y * jnp.sin(x))


def _iterated(x):
    return lax.while_loop(lambda s: s[1] < 3, lambda s: (jnp.sin(s[0]) * x, s[1] + 1), (x, 0))[0]


def _coupled(x):
    """Every entry of the carry reads every entry of the last one: its tangents are dense."""
    return lax.while_loop(
        lambda s: s[1] < 3, lambda s: (jnp.sum(jnp.sin(s[0])) * x, s[1] + 1), (x, 0)
    )[0]


def _triangle(x):
    """Σ_{i<j} 1/(1 + (x_i - x_j)²): the inner fori_loop's bounds i + 1, n are known at
    run time only (a while_loop), and jacfwd's tangents read x[j] by a gather."""
    pair = lambda i: lambda j, a: a + 1 / (1 + (x[i] - x[j]) ** 2)  # noqa: E731
    return lax.fori_loop(0, 4, lambda i, a: lax.fori_loop(i + 1, 4, pair(i), a), 0.0)


def _pairs(x):
    outer = lambda i, a: lax.fori_loop(0, 4, lambda j, b: b + jnp.sin(x[i] * x[j]), a)  # noqa: E731
    return lax.fori_loop(0, 4, outer, 0.0)


def _diagonal(x):
    outer = lambda i, a: lax.fori_loop(0, 5, lambda j, b: b + jnp.sin(x[i] * C[j]), a)  # noqa: E731
    return lax.fori_loop(0, 4, outer, 0.0)


def _forward_over_forward(f, x, v=None):
    """``jax.jacfwd(jax.jacfwd(f))`` (of ``vᵀf`` where weighted): stored as data
    (tests/jax_reference_store.py), jitted where missed (one compilation, not one per
    primitive)."""
    weighted = f if v is None else lambda x: jnp.sum(v * f(x))
    return jref.forward_hessian(weighted)(x)


def _forward_over_forward_at(f, *xs):
    """:func:`_forward_over_forward` at several points: stored, the misses one
    compilation for them all."""
    return jref.references([Ref("forward_hessian", f, (x,)) for x in xs])


def test_the_hessian_through_a_while_loop():
    """Newton's iteration to convergence: JAX's reverse mode refuses it (as
    ``jax.hessian`` does); dgraph's Hessian, of the gradient with the loop's own reverse
    sweep (:mod:`dgraph.frontends.jaxpr_reverse_while`), verifies and equals
    forward-over-forward's at the point and at another (one trip more or less)."""
    with pytest.raises(ValueError, match="Reverse-mode differentiation does not work"):
        jax.jit(jax.hessian(_newton_sqrt))(X)  # refused while tracing: nothing compiled
    h = dgraph.make_function(_newton_sqrt, "hessian", point=[X])
    assert h.generated.verified
    points = (X, 1.7 * X + 0.2)
    for x, want in zip(points, _forward_over_forward_at(_newton_sqrt, *points), strict=True):
        got = np.asarray(h(x))
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("lang", ["python", "c"])
def test_the_hessian_of_a_triangle_of_pairs(lang):
    """The batched read ``x_dot[:, j]`` is a gather at an index the inner while_loop
    computes: read as the window it is (refused before, as the reverse mode is)."""
    h = dgraph.make_function(_triangle, "hessian", lang, point=[X])
    assert h.generated.verified
    x = 1.1 * X
    np.testing.assert_allclose(
        np.asarray(h(x)), _forward_over_forward(_triangle, x), rtol=1e-12, atol=1e-13
    )


def test_the_lagrangian_hessian_through_a_while_loop():
    """The Hessian of vᵀf with a ``while_loop`` in f: ``H(x, v)``; before, the graph's
    note on the loop's trips was evaluated without the weights (a GraphError)."""
    v = np.array([1.0, -2.0, 0.5, 0.3])
    h = dgraph.make_function(_iterated, "hessian", point=[X], weights=v)
    assert h.generated.verified
    w = np.array([0.2, 0.1, -1.0, 0.4])
    got = np.asarray(h(X, w))
    np.testing.assert_allclose(got, _forward_over_forward(_iterated, X, w), rtol=1e-10, atol=1e-12)


def test_a_while_loop_with_parameters_has_its_note():
    def f(x, p):
        return lax.while_loop(lambda s: s[1] < 3, lambda s: (jnp.sin(s[0]) * p, s[1] + 1), (x, 0))[
            0
        ]

    g = from_jax(f, np.ones(3), np.full(3, 0.5), params=["p"], level="array")
    assert any("while_loop ran 3 trips at the point" in n for n in g.notes)


def test_a_double_loop_writing_at_the_outer_counter():
    """JAX's gradient of Σ_i Σ_j sin(x_i x_j) adds into the gradient at i, the outer
    counter, in the inner loop: equal to jax.hessian (refused before). The inner loop
    sums onto the outer carry (its initial value): mapped in the outer body, the outer
    loop is a sum then and mapped too, so the pattern of Σ_i Σ_j sin(x_i c_j) is exact, its
    diagonal (as a loop, the union over the outer counter's positions: all 16 entries)."""
    pairs, want = jref.references([Ref("hessian", _pairs, (X,)), Ref("hessian", _diagonal, (X,))])
    h = dgraph.make_function(_pairs, "hessian", point=[X])
    assert h.generated.verified
    np.testing.assert_allclose(np.asarray(h(X)), pairs, rtol=1e-12, atol=1e-13)
    s = dgraph.make_function(_diagonal, "hessian", point=[X], sparse=True)
    assert s.generated.verified
    got = s(X)
    want = np.asarray(want)
    np.testing.assert_allclose(got.toarray(), want, rtol=1e-12, atol=1e-13)
    assert np.count_nonzero(want) == 4 and got.nnz == 4


def test_dense_loop_tangents_past_their_limits_are_refused(monkeypatch):
    """The forward-mode gradient's Hessian (a while_loop nested in a cond keeps it) holds a
    body block over the n² tangents it carries, n⁴ dense (n = 300: 8.1e9 entries, a
    MemoryError); a loop's generated
    tangent sweep holds carried entries × input entries (a 200 × 200 carry: 1.6e9, killed
    for memory), or entries × colours where its sweep is compressed (an elementwise carry:
    2 colours, its own entries' and x's). Each is refused in one line before it is made
    (limits lowered here)."""
    from dgraph.codegen.tensor import module, regions
    from dgraph.errors import InputError

    monkeypatch.setattr(module, "DENSE_ENTRY", 10**4)
    x = np.linspace(0.5, 2.0, 12)
    nested = lambda x: lax.cond(x[0] > -10.0, _newton_sqrt, jnp.sum, x)  # noqa: E731
    with pytest.raises(InputError, match=r"a dense Jacobian entry of 144 × 144 = 20,736"):
        dgraph.make_function(nested, "hessian", point=[x], sparse=True)
    monkeypatch.undo()
    monkeypatch.setattr(regions, "TANGENT_LIMIT", 10**4)
    with pytest.raises(
        InputError, match=r"carries its tangents dense, 144 entries × 288 input entries = 41,472"
    ):
        dgraph.make_function(_coupled, "jacobian", point=[np.ones((12, 12))], sparse=True)
    monkeypatch.setattr(regions, "TANGENT_LIMIT", 200)
    with pytest.raises(
        InputError,
        match=r"tangents compressed, 144 entries × 2 colours of 288 input entries = 288,",
    ):
        dgraph.make_function(_iterated, "jacobian", point=[np.ones((12, 12))], sparse=True)


def _newton_steps(x, loop=lax.while_loop):
    """Σ z², z³ + z = x solved by eight Newton steps, a counter in the carry (while_loop)
    or fori_loop's static bounds (JAX's reverse mode runs through it)."""
    step = lambda z: z - (z**3 + z - x) / (3 * z**2 + 1)  # noqa: E731
    if loop is lax.fori_loop:
        return jnp.sum(lax.fori_loop(0, 8, lambda i, z: step(z), x) ** 2)
    z = loop(lambda c: c[0] < 8, lambda c: (c[0] + 1, step(c[1])), (0, x))[1]
    return jnp.sum(z**2)


def test_a_while_loop_of_a_fixed_trip_count_is_read_as_a_scan():
    """``i < 8`` with ``i`` from 0 by 1: no input reaches the trip count, so the gradient
    is JAX's reverse mode of the scan of 8 steps, its Hessian diagonal (before: JAX's
    forward mode carried n tangents, the Hessian stored n² entries, refused from n = 200
    as 'a dense Jacobian entry of 40,000 × 40,000'). At another point too; a loop whose
    condition reads the inputs keeps the forward mode (above)."""
    x = np.linspace(-1.5, 1.5, 12)  # forward mode stored 144 entries here
    h = dgraph.make_function(_newton_steps, "hessian", point=[x], sparse=True)
    assert h.generated.verified
    exact = jref.hessian(lambda x: _newton_steps(x, lax.fori_loop))  # stored, or jitted
    for at in (x, 0.5 * x + 0.3):
        got = h(at)
        assert got.nnz == 12
        np.testing.assert_allclose(got.toarray(), exact(at), rtol=1e-12, atol=1e-13)


def _damped(x):
    """Σ x·sin(z), z³ + z = x solved by damped Newton (half steps) to a residual of 1e-3:
    its trip count the values decide (13, 18, 5 and 0 trips at D_POINTS), each trip
    moving the derivative."""

    def more(s):
        z, k = s
        return (jnp.max(jnp.abs(z**3 + z - x)) > 1e-3) & (k < 50)

    def body(s):
        z, k = s
        return z - 0.5 * (z**3 + z - x) / (3 * z**2 + 1), k + 1

    z = lax.while_loop(more, body, (x, 0))[0]
    return jnp.sum(x * jnp.sin(z))


def _damped_root(x):
    """The root of :func:`_damped` itself: a vector function (its Lagrangian vᵀz)."""
    more = lambda s: (jnp.max(jnp.abs(s[0] ** 3 + s[0] - x)) > 1e-3) & (s[1] < 50)  # noqa: E731
    body = lambda s: (s[0] - 0.5 * (s[0] ** 3 + s[0] - x) / (3 * s[0] ** 2 + 1), s[1] + 1)  # noqa: E731
    return lax.while_loop(more, body, (x, 0))[0]


D = np.linspace(-1.5, 1.5, 12)
D_POINTS = (D, 3 * D + 0.1, 0.2 * D, 1e-5 * D)


@jax.jit  # one compilation for the points (a jit of a new lambda per call: one each)
def _trips(x):
    return lax.while_loop(
        lambda s: (jnp.max(jnp.abs(s[0] ** 3 + s[0] - x)) > 1e-3) & (s[1] < 50),
        lambda s: (s[0] - 0.5 * (s[0] ** 3 + s[0] - x) / (3 * s[0] ** 2 + 1), s[1] + 1),
        (x, 0),
    )[1]


def test_a_while_loop_to_a_tolerance_has_a_sparse_hessian():
    """A trip count the inputs reach: the loop runs as written and counts its trips, and
    its reverse sweep runs that many steps (jaxpr_reverse_while), so JAX's reverse mode
    gives the gradient and the Hessian is diagonal (before: JAX's forward mode, n
    tangents through the loop, n² entries stored). Generated once at D (13 trips), its
    values equal forward-over-forward's at points of 18, 5 and 0 trips: each call's
    derivative is that of its own trip count. The check compares with JAX's forward mode
    of the loop as written, so a reverse sweep one step short (or a state recomputed one
    step too far) does not verify. The NumPy module's loops, the reverse sweep's
    recomputation nested in it included, multiply their sparse body blocks by their
    entries: no dense n × n block a step (2,000 × 2,000 a step at n = 2,000 before)."""
    assert [int(_trips(p)) for p in D_POINTS] == [13, 18, 5, 0]
    with pytest.raises(ValueError, match="Reverse-mode differentiation does not work"):
        jax.jit(jax.grad(_damped))(D)  # refused while tracing: nothing compiled
    h = dgraph.make_function(_damped, "hessian", point=[D], sparse=True)
    assert h.generated.verified
    notes = h.generated.graph.notes
    assert any("while_loop ran 13 trips at the point" in n for n in notes)
    assert any("reverse sweep" in n for n in notes)
    assert "einsum" not in h.source
    want = _forward_over_forward_at(_damped, *D_POINTS)
    for x, w in zip(D_POINTS, want, strict=True):
        got = h(x)
        assert got.nnz == 12
        np.testing.assert_allclose(got.toarray(), w, rtol=1e-10, atol=1e-12)


def test_a_while_loop_of_no_trips_at_the_point():
    """Built where the loop runs no trip (its reverse sweep none), then called where it
    runs 13 and 18: the patterns hold for any trip count, the values are each point's."""
    h = dgraph.make_function(_damped, "hessian", point=[D_POINTS[3]], sparse=True)
    assert h.generated.verified
    points = D_POINTS[:2]
    for x, w in zip(points, _forward_over_forward_at(_damped, *points), strict=True):
        np.testing.assert_allclose(h(x).toarray(), w, rtol=1e-10, atol=1e-12)


def test_a_while_loop_to_a_tolerance_in_a_jit():
    """The loop inside ``jax.jit`` (a call equation at the top level): the call is looked
    into and the loop given its reverse sweep, so the Hessian is diagonal (forward mode
    before: 144 entries stored for 12)."""
    f = lambda x: 2.0 * jax.jit(_damped)(x)  # noqa: E731
    h = dgraph.make_function(f, "hessian", point=[D], sparse=True)
    assert h.generated.verified
    points = D_POINTS[1:3]
    for x, w in zip(points, _forward_over_forward_at(f, *points), strict=True):
        got = h(x)
        assert got.nnz == 12
        np.testing.assert_allclose(got.toarray(), w, rtol=1e-10, atol=1e-12)


def _bisect(x, width=1e-9):
    """Σ x·sin(lo + hi) over a bisection of z³ + z = x from [−|x| − 1, |x| + 1] to a
    ``width``: 33 trips at [0.7, −1.2] (1e-9), 42 at [0.7] (1e-12)."""

    def more(s):
        return jnp.max(s[1] - s[0]) > width

    def body(s):
        lo, hi = s
        mid = 0.5 * (lo + hi)
        low = mid**3 + mid - x < 0
        return jnp.where(low, mid, lo), jnp.where(low, hi, mid)

    lo, hi = lax.while_loop(more, body, (-jnp.abs(x) - 1.0, jnp.abs(x) + 1.0))
    return jnp.sum(jnp.sin(lo + hi) * x)


@pytest.mark.parametrize(
    ("x", "width", "trips", "reversed_"),
    [([0.7, -1.2], 1e-9, 33, True), ([0.7], 1e-12, 42, False)],
)
def test_a_long_while_loop_over_few_unknowns(x, width, trips, reversed_):
    """A loop is reversed where its checkpointed recomputation's extra body steps are at
    most the trips × unknowns of JAX's forward mode (jaxpr_reverse_while.worth_reversing):
    33 trips in 2 unknowns take 48 (d = 2: 32 to store 17 checkpoints, 16 recomputed)
    ≤ 66, reversed (kept in forward mode when recomputation from the first state took
    528); 42 trips in 1 unknown take 61 > 42, forward mode. The Hessian equals
    forward-over-forward's either way."""
    x = np.array(x)
    f = lambda x: _bisect(x, width)  # noqa: E731
    h = dgraph.make_function(f, "hessian", point=[x], sparse=True)
    assert h.generated.verified
    notes = h.generated.graph.notes
    assert any(f"while_loop ran {trips} trips" in n for n in notes)
    assert any("reverse sweep" in n for n in notes) == reversed_
    np.testing.assert_allclose(h(x).toarray(), _forward_over_forward(f, x), atol=1e-13)


S = SLOTS  # the reverse sweep's checkpoints


def _relaxed(x):
    """x₀ − ½ trips (x₀ sets the trip count; the derivative does not flow through the
    condition) of z ← 0.9 z + 0.05 sin(x z), Σ z²·x."""

    def body(s):
        t, z = s
        return t + 1.0, 0.9 * z + 0.05 * jnp.sin(x * z)

    return jnp.sum(lax.while_loop(lambda s: s[0] < x[0], body, (0.0, x))[1] ** 2 * x)


TRIPS = (1, 2, S - 1, S, S + 1, 3 * S + 2)


def _at_trips(trips):
    return np.array([trips - 0.5, 0.3, -0.7])


def test_the_hessian_about_the_checkpoint_count():
    """The reverse sweep stores S checkpoints (d = ⌈n/S⌉ apart) and recomputes each
    step's state from its segment's: built where the loop runs S + 1 trips (S
    checkpoints: :func:`slots_for`), called where it
    runs 1, 2, S − 1, S, S + 1 and 3S + 2 (d = 1, 1, 1, 1, 2, 4; the last two end in a
    segment of 1 and 2 steps), the values equal forward-over-forward's at each point's own trips."""
    h = dgraph.make_function(_relaxed, "hessian", point=[_at_trips(S + 1)])
    assert h.generated.verified
    assert any("reverse sweep" in n for n in h.generated.graph.notes)
    points = [_at_trips(n) for n in TRIPS]
    for x, want in zip(points, _forward_over_forward_at(_relaxed, *points), strict=True):
        np.testing.assert_allclose(np.asarray(h(x)), want, rtol=1e-10, atol=1e-12)


def test_the_reverse_sweep_s_body_steps():
    """Body steps of JAX's gradient through the reversed loop, counted by a callback in
    the body (not timed): n forward, n pullbacks and extra_steps(n) to store the
    checkpoints and recompute from them, 2n + n − 1 while n ≤ S; 437 at 3S + 2 = 98 trips
    (4,949 when each state is recomputed from the first: n(n − 1)/2 extra). Made where
    the loop runs 2 trips (at most RECOMPUTE_MOST), it is: one segment (slots_for)."""
    calls = []

    def f(x):
        def body(s):
            t, z = s
            jax.debug.callback(lambda: calls.append(1))
            return t + 1.0, 0.9 * z + 0.05 * jnp.sin(x * z)

        return jnp.sum(lax.while_loop(lambda s: s[0] < x[0], body, (0.0, x))[1] ** 2 * x)

    def counts(built: int) -> list[int]:
        grad = jax.jit(jax.grad(reverse_loops(jax, f, [_at_trips(built)], 3)))
        counted = []
        for n in TRIPS:
            calls.clear()
            jax.block_until_ready(grad(_at_trips(n)))
            counted.append(len(calls))
        return counted

    checkpointed, from_first = counts(S + 1), counts(2)  # each program traced, run once
    assert checkpointed == [2, 5, 92, 95, 114, 437]
    assert checkpointed == [2 * n + extra_steps(n) for n in TRIPS]
    assert from_first == [2, 5, 527, 560, 594, 4949]  # made at 2 trips: from the first state
    assert from_first == [2 * n + extra_steps(n, slots_for(2)) for n in TRIPS]


@pytest.mark.parametrize("lang", ["jax", "c"])
def test_the_lagrangian_through_a_while_loop_to_a_tolerance(lang):
    """H(x, v) of vᵀz, z the damped Newton root, in JAX and C, at points of 13 and 18
    trips. Their loops (the reverse sweep's recomputation nested in one) multiply the
    diagonal body blocks by their entries, as NumPy's do: no dense 12 × 12 product a step
    (JAX's ``einsum`` of its blocks' delta form, C's contraction ``k2 < 12``, before)."""
    v = np.linspace(-1.0, 2.0, 12)
    h = dgraph.make_function(_damped_root, "hessian", lang, point=[D], weights=v, sparse=True)
    assert h.generated.verified
    assert ("einsum" if lang == "jax" else "k2 < 12L") not in h.source
    for x in D_POINTS[:2]:
        got = h(x, 0.5 * v)
        got = np.asarray(got.todense() if lang == "jax" else got.toarray())
        want = _forward_over_forward(_damped_root, x, 0.5 * v)
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("static", [True, False])
def test_counting_a_loop_s_trips_runs_nothing_after_it(static):
    """Counting a ``while_loop``'s trips (a fixed count: read as a scan; to a tolerance:
    reversed) runs the equations the loop reads and the loop, not what comes after it (run
    eagerly, each kind of equation there compiled an XLA program): a host callback after
    the loop is not called (it is where the rewritten function runs)."""
    from dgraph.frontends.jaxpr_static_while import static_trip_loops

    called = []

    def f(x):
        y = 2.0 * x
        if static:
            y = lax.while_loop(lambda s: s[1] < 3, lambda s: (jnp.sin(s[0]) * x, s[1] + 1), (y, 0))[
                0
            ]
        else:
            y = lax.while_loop(lambda s: jnp.max(jnp.abs(s)) > 0.1, lambda s: 0.5 * s, y)
        jax.debug.callback(lambda v: called.append(np.asarray(v)), y)
        return jnp.sum(jnp.exp(y) * jnp.cos(x))

    x = jnp.asarray(X)
    rewritten = static_trip_loops(jax, f, [x]) if static else reverse_loops(jax, f, [x], 4)
    assert rewritten is not None and called == []
    rewritten(x)  # run whole, it calls back: what the counting skipped
    assert len(called) == 1 and np.all(np.abs(called[0]) <= (1.0 if static else 0.1))


def _halved_index(x):
    """A while_loop of 6 trips whose body indexes x at i // 2 (lax.div of integers after
    jnp's floor correction) and at (7i − 3) // 2 mod 6 from i = −3 (negative quotients),
    and weighs by them."""

    def body(s):
        i, acc = s
        j = (i * 7 - 3) // 2
        return i + 1, acc + x[j % 6] * (j + 0.5) + x[i + 3] * x[(i + 3) // 2] * (i // 2)

    return lax.while_loop(
        lambda s: s[0] < 3 + 0 * x[0].astype(jnp.int32), body, (jnp.int32(-3), 0.0)
    )[1]


@pytest.mark.parametrize("lang", ["python", "jax", "c"])
def test_integer_division_in_a_while_body(lang):
    """lax.div of integers is C's quotient, toward zero: read as a float division it gave
    a Hessian that did not verify ('method forward gave an expression set that did not
    verify'); the counter a static-trip loop's map steps keeps its int32 (an int64 step
    made lax.mul refuse int64 × int32 with a TypeError). Values equal JAX's."""
    x = np.linspace(0.3, 1.1, 6)
    h = dgraph.make_function(_halved_index, "hessian", lang, point=[x], sparse=True)
    assert h.generated.verified
    got = h(x)
    got = got.toarray() if hasattr(got, "toarray") else np.asarray(got.todense())  # BCOO
    np.testing.assert_allclose(got, _forward_over_forward(_halved_index, x), atol=1e-13)


A_ROOT = np.array([0.5, 1.0, 2.0, 0.3])


def _root_with_data(x):
    """z + a·exp(z) = x by Newton's iteration until max|residual| ≤ 1e-13, the data ``a`` a
    constant array the condition reads too (folded into it); Σ z² + x·z."""

    def residual(z):
        return z + A_ROOT * jnp.exp(z) - x

    def step(z):
        return z - residual(z) / (1.0 + A_ROOT * jnp.exp(z))

    z = lax.while_loop(lambda z: jnp.max(jnp.abs(residual(z))) > 1e-13, step, jnp.zeros_like(x))
    return jnp.sum(z**2) + jnp.sum(x * z)


def test_a_while_condition_reading_a_constant_array():
    """A condition reading a constant array (survey57h: an inner Newton solve of data
    ``a``) is an invariant of the printed loop, in the Hessian's loops and the tangent
    sweep's (hvp). Refused before: "a loop output reading a constant array"."""
    x, t = np.array([0.3, 1.0, 2.0, -0.5]), np.array([1.0, -2.0, 0.5, 3.0])
    h = dgraph.make_function(_root_with_data, "hessian", point=[x], sparse=True)
    hvp = dgraph.make_function(_root_with_data, "hvp", point=[x])
    assert h.generated.verified and hvp.generated.verified
    points = [x, x + 1.0]
    for p, w in zip(points, _forward_over_forward_at(_root_with_data, *points), strict=True):
        np.testing.assert_allclose(h(p).toarray(), w, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(hvp(p, t), w @ t, rtol=1e-9, atol=1e-12)
