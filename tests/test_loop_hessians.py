"""Hessians of loops that index by their counter (``fori_loop`` with ``x[i]``, a window
``dynamic_slice(x, (i,), (w,))``, ``.at[i].set``), and loops that write a window moving
over what they carry. JAX's gradient of such a loop stacks the counter as a residual and
its reverse sweep writes at it (``dynamic_update_slice`` of a row into zeros at ``r[t]``,
``r`` a ``scan`` output): :func:`~dgraph.frontends.jaxpr_loops._counted_outputs` computes
such outputs (integers that depend on no operand but the constants) before the program
runs, so the reverse sweep's writes are at known positions per step
(:mod:`dgraph.frontends.jaxpr_steps`). Values equal ``jax.hessian``'s; a residual folded
wrong on purpose is caught."""

from __future__ import annotations

import functools

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy
lax = jax.lax
jax.config.update("jax_enable_x64", True)

import dgraph  # noqa: E402
from dgraph.errors import DGraphError  # noqa: E402
from tests import jax_reference as jref  # noqa: E402
from tests.jax_events import counted  # noqa: E402

from .dense import dense as as_dense  # noqa: E402

X = np.random.default_rng(5).uniform(-1.0, 1.0, 6)
ROWS = np.random.default_rng(6).uniform(-0.6, 0.6, (4, 3))


def _rows(X):
    return lax.fori_loop(0, 4, lambda i, a: a * jnp.tanh(X[i] @ X[i]) + a, 1.0)


def _recurrence(x):
    body = lambda i, v: v.at[i + 1].set(jnp.sin(v[i]) * x[i] + v[i])  # noqa: E731
    return jnp.sum(lax.fori_loop(0, 5, body, jnp.ones(6) * 0.3) ** 3)


def _moving_write(x):
    def body(i, v):
        return lax.dynamic_update_slice(v, lax.dynamic_slice(v, (i,), (2,)) * x[i], (i + 1,))

    return jnp.sum(lax.fori_loop(0, 4, body, jnp.ones(6)) ** 2)


def _scan_with_a_counter(x):
    def body(c, xi):
        a, i = c
        return (a * jnp.cos(xi) + x[i] * a, i + 1), a

    return jnp.sum(lax.scan(body, (1.0, 0), x[::-1])[1] ** 2)


def _reverse_window(x):
    read = lambda i, a: a + jnp.prod(lax.dynamic_slice(x, (4 - i,), (2,))) * a**2  # noqa: E731
    return lax.fori_loop(0, 3, read, 0.5)


SERIES = jnp.asarray(np.random.default_rng(7).normal(size=12))


def _ar_loglik(theta):
    """An AR(1) model's negative log-likelihood: a constant series read at the counter,
    the parameters differentiated (JAX's gradient stacks ``y[i]``, a loop result of the
    constants alone, as a residual its reverse sweep multiplies by)."""

    def body(i, acc):
        r = SERIES[i + 1] - theta[0] * SERIES[i]
        return acc + 0.5 * r**2 * jnp.exp(-2 * theta[1]) + theta[1]

    return lax.fori_loop(0, 11, body, 0.0)


EMISSIONS = jnp.asarray(np.random.default_rng(8).uniform(0.1, 1.0, size=(3, 2)))
OBSERVED = jnp.asarray([0, 1, 1, 0, 1, 0])


def _hmm(logits):
    """An HMM's negative log-likelihood by the forward algorithm (``logsumexp`` in a
    scan): JAX's gradient stacks a mask of the body's sums (``sum ≥ 0``), a loop result
    no derivative reaches that its reverse sweep reads."""
    log_a = jax.nn.log_softmax(logits.reshape(3, 3), axis=1)

    def step(alpha, y):
        forward = jax.scipy.special.logsumexp(alpha[:, None] + log_a, axis=0)
        return forward + jnp.log(EMISSIONS[:, y]), None

    alpha, _ = lax.scan(step, jnp.log(jnp.ones(3) / 3), OBSERVED)
    return -jax.scipy.special.logsumexp(alpha)


FUNCTIONS = {
    "an HMM's forward algorithm": (_hmm, np.random.default_rng(9).normal(size=9) * 0.3),
    "an AR(1) likelihood over a constant series": (_ar_loglik, np.array([0.5, 0.1])),
    "fori_loop of x[i]": (
        lambda x: lax.fori_loop(0, 6, lambda i, a: a + jnp.sin(x[i]) * a, 1.0),
        X,
    ),
    "rows X[i] @ X[i]": (_rows, ROWS),
    # a window read at i: test_a_window_read_at_the_counter_is_placed_by_numpy's (clamped)
    "a recurrence .at[i + 1].set": (_recurrence, X),
    "a window written over the carry": (_moving_write, X),
    "a scan over xs with a counter": (_scan_with_a_counter, X),
    "a window at 4 - i": (_reverse_window, X),
}


@functools.cache
def _references() -> dict[str, np.ndarray]:
    """``jax.hessian`` of every function of :data:`FUNCTIONS` at its second point
    ``0.8 x0 + 0.1``: stored (tests/jax_reference.py), or else one jitted program for them
    all (one compilation, not one a case)."""
    names = sorted(FUNCTIONS)
    found = jref.references(
        [jref.Reference("hessian", FUNCTIONS[n][0], (0.8 * FUNCTIONS[n][1] + 0.1,)) for n in names]
    )
    return dict(zip(names, found, strict=True))


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_hessians_of_loops_indexed_by_their_counter(name):
    """Refused before (``dynamic_update_slice with an index that depends on the inputs'
    values``: the reverse sweep's index, a stacked counter); now verified, the sparse
    Hessian JAX's at another point, its pattern JAX's nonzeros or a superset of them
    only where entries cancel at that point."""
    f, x0 = FUNCTIONS[name]
    x1 = 0.8 * x0 + 0.1
    h = dgraph.make_function(f, "hessian", "python", point=[x0], sparse=True)
    assert h.generated.verified
    got = h(x1).toarray()
    want = _references()[name].reshape(got.shape)
    np.testing.assert_allclose(got, want, rtol=1e-11, atol=1e-12 * np.abs(want).max())


def test_the_rk4_loop_s_lower_triangle_is_its_matrix_s():
    """The RK4 loop of a Duffing oscillator (benchmarks/hessian_loops.py), 3 steps, at a
    point where its build failed ("the generated lower triangle is not the matrix's":
    the triangle's program summed a narrowed scatter's parts in another order, one
    rounding off): now built, ``jax.hessian``'s at another point, and its lower
    triangle the matrix's bit for bit there."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "benchmarks" / "hessian_loops.py"
    spec = importlib.util.spec_from_file_location("hessian_loops", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    f, _ = module.programs(rk4_steps=3)["RK4 of a Duffing oscillator, fori_loop"]
    x0, x1 = np.array([1.07, 1.04]), np.array([1.0, 0.3])
    h = dgraph.make_function(f, "hessian", "python", point=[x0], sparse=True)
    got = h(x1)
    want = np.asarray(jref.hessian(f)(x1))
    np.testing.assert_allclose(got.toarray(), want, rtol=1e-12, atol=1e-14 * np.abs(want).max())
    low = h.generated.tril(x1)
    np.testing.assert_array_equal(low.toarray(), np.tril(got.toarray()))


def test_the_jax_code_of_a_loop_hessian():
    name = "fori_loop of x[i]"
    f, x0 = FUNCTIONS[name]
    h = dgraph.make_function(f, "hessian", "jax", point=[x0], sparse=True)
    want = _references()[name]  # at 0.8 x0 + 0.1, another point than x0
    got = as_dense(h(0.8 * x0 + 0.1))
    np.testing.assert_allclose(got, want, rtol=1e-11, atol=1e-12)


def test_counted_outputs_are_the_counter_s_values():
    """The forward loop of a gradient: its final counter and the counter stacked as a
    residual (integer results) depend on no operand but the constants and are computed
    as their values, 6 and 0 … 5; the float results stay the loop's."""
    from dgraph.frontends.jaxpr_hoist import constant_outputs

    f = FUNCTIONS["fori_loop of x[i]"][0]
    closed = jax.make_jaxpr(jax.grad(f))(X)
    scan = next(e for e in closed.jaxpr.eqns if e.primitive.name == "scan")
    body, n_consts, n_carry = scan.params["jaxpr"], scan.params["num_consts"], 2
    ins = [np.asarray(v.val) if hasattr(v, "val") else f"v{k}" for k, v in enumerate(scan.invars)]
    found = constant_outputs(body, n_consts, n_carry, ins, 6, False)
    ints = [j for j, v in enumerate(scan.outvars) if np.issubdtype(v.aval.dtype, np.integer)]
    assert sorted(found) == ints and 1 not in found  # the float carry stays the loop's
    assert int(found[0]) == 6
    stacked = [found[j] for j in ints if j >= n_carry]
    assert stacked and all(np.array_equal(a, np.arange(6)) for a in stacked)


def test_counted_outputs_run_by_numpy_lower_nothing(monkeypatch):
    """The counter part of the gradient's forward loop (integer adds, a comparison, a
    selection) runs step by step by NumPy (:func:`~dgraph.frontends.jaxpr_exact.exact_program`):
    nothing lowered, and the values, dtypes included, are ``lax.scan``'s (what runs past
    ``NUMPY_SCAN_MOST``)."""
    from dgraph.frontends import jaxpr_hoist

    f = FUNCTIONS["fori_loop of x[i]"][0]
    closed = jax.make_jaxpr(jax.grad(f))(X)
    scan = next(e for e in closed.jaxpr.eqns if e.primitive.name == "scan")
    body, n_consts = scan.params["jaxpr"], scan.params["num_consts"]
    ins = [np.asarray(v.val) if hasattr(v, "val") else f"v{k}" for k, v in enumerate(scan.invars)]

    def found(most: int) -> tuple[dict, int]:
        monkeypatch.setattr(jaxpr_hoist, "NUMPY_SCAN_MOST", most)
        lowered, outputs = counted(
            lambda: jaxpr_hoist.constant_outputs(body, n_consts, 2, ins, 6, False)
        )
        return outputs, lowered

    (mine, lowerings), (theirs, jax_lowerings) = found(4_000), found(0)
    assert lowerings == 0 and jax_lowerings > 0
    assert sorted(mine) == sorted(theirs) and len(mine) >= 2
    for j, value in mine.items():
        assert value.dtype == theirs[j].dtype and np.array_equal(value, theirs[j])


def test_a_window_read_at_the_counter_is_placed_by_numpy(monkeypatch):
    """A ``dynamic_slice`` at the counter: its positions per step from the starts clamped
    as JAX clamps them, by NumPy (no ``jax.vmap`` program); the Hessian is JAX's."""
    from dgraph.frontends import jaxpr_steps

    mapped = []
    real = jaxpr_steps._vmapped

    def spy(apply, eqn, stacked, where):
        mapped.append(eqn.primitive.name)
        return real(apply, eqn, stacked, where)

    monkeypatch.setattr(jaxpr_steps, "_vmapped", spy)

    def f(x):  # windows at 2 … 5 of 6 entries: the last two clamped back to 3
        read = lambda i, a: a + jnp.sum(jnp.sin(lax.dynamic_slice(x, (i + 2,), (3,)))) * a  # noqa: E731
        return lax.fori_loop(0, 4, read, 1.0)

    x0 = X
    h = dgraph.make_function(f, "hessian", "python", point=[x0])
    assert "dynamic_slice" not in mapped
    np.testing.assert_allclose(h(x0), jref.hessian(f)(x0), rtol=1e-11, atol=1e-12)


def test_a_counter_folded_wrong_is_caught(monkeypatch):
    """The stacked counter read one step late: the reverse sweep writes each row's
    derivative into the next row, and the Hessian does not verify."""
    from dgraph.frontends import jaxpr_loops

    real = jaxpr_loops._counted_outputs

    def shifted(*args):
        outs = real(*args)
        return [np.roll(o, 1) if isinstance(o, np.ndarray) and o.ndim == 1 else o for o in outs]

    monkeypatch.setattr(jaxpr_loops, "_counted_outputs", shifted)
    f, x0 = FUNCTIONS["fori_loop of x[i]"]
    with pytest.raises(DGraphError, match="verif"):
        dgraph.make_function(f, "hessian", "python", point=[x0], sparse=True)


def _chained(x):
    body = lambda i, acc: acc + 100.0 * (x[i + 1] - x[i] ** 2) ** 2 + (1.0 - x[i]) ** 2  # noqa: E731
    return lax.fori_loop(0, x.shape[0] - 1, body, 0.0)


def _chained_hessian(x: np.ndarray) -> np.ndarray:
    """The chained Rosenbrock's Hessian written out (an independent reference, NumPy):
    each step's 100 (x_{i+1} - x_i²)² + (1 - x_i)² adds 1200 x_i² - 400 x_{i+1} + 2 and
    200 on the diagonal, -400 x_i beside it."""
    h = np.zeros((x.size, x.size))
    i = np.arange(x.size - 1)
    h[i, i] += 1200.0 * x[:-1] ** 2 - 400.0 * x[1:] + 2.0
    h[i + 1, i + 1] += 200.0
    h[i, i + 1] = h[i + 1, i] = -400.0 * x[:-1]
    return h


@pytest.mark.usefixtures("loops_as_regions")
def test_long_loops_selecting_in_what_they_carry_are_refused_in_one_line(monkeypatch):
    """The per-step selections hold the positions each step selects (the reverse
    sweep's writes: one per step) and the patterns recompute the rows they reach: past
    ``STEP_LIMIT`` the reader refuses in one line before its tables are made, and so
    do the region's patterns as their sweep goes (the limits lowered here to 10: 19
    steps, 19 positions)."""
    from dgraph.core import regions
    from dgraph.frontends import jaxpr_steps

    x = np.linspace(-0.8, 0.9, 20)
    monkeypatch.setattr(jaxpr_steps, "STEP_LIMIT", 10)
    with pytest.raises(DGraphError) as caught:
        dgraph.hessian(_chained, x)
    assert "\n" not in str(caught.value) and "19 steps" in str(caught.value)
    assert "19 entries, over 10" in str(caught.value)
    monkeypatch.setattr(jaxpr_steps, "STEP_LIMIT", 10**6)
    monkeypatch.setattr(regions, "STEP_LIMIT", 10)
    with pytest.raises(DGraphError) as caught:
        dgraph.hessian(_chained, x)
    assert "\n" not in str(caught.value) and "a loop of 19 steps" in str(caught.value)


@pytest.mark.usefixtures("loops_as_regions")
def test_the_gradient_loop_carries_its_tangents_compressed(monkeypatch):
    """The reverse loop of a chained Rosenbrock's gradient carries n gradient entries
    over at least 3(n - 1) input columns (three slices a step); its generated tangent
    sweep holds a few colours of them
    (:mod:`dgraph.codegen.tensor.loop_columns`), as many at n = 40 as at n = 20 (a count
    of what it holds, not a time), the values still verified and equal to the Hessian
    written out (:func:`_chained_hessian`)."""
    from dgraph.codegen.tensor import regions

    found: list[tuple[int, int | None]] = []
    colours = regions.loop_colours

    def spied(r, columns, needed=None):
        out = colours(r, columns, needed)
        found.append((columns[-1][1], None if out is None else int(out[0].max()) + 1))
        return out

    monkeypatch.setattr(regions, "loop_colours", spied)
    held = []
    for n in (20, 40):
        found.clear()
        x = np.linspace(-0.8, 0.9, n)
        h = dgraph.make_function(_chained, "hessian", point=[x], sparse=True)
        assert h.generated.verified
        want = _chained_hessian(x + 0.01)
        np.testing.assert_allclose(h(x + 0.01).toarray(), want, rtol=1e-12, atol=1e-12)
        compressed = [(width, k) for width, k in found if k is not None]
        assert compressed and all(3 * (n - 1) <= width and k < width for width, k in compressed)
        held.append(min(k for _, k in compressed))  # the reverse loop's
        # the forward loop too: its running sum reads every slice, but no block of the
        # gradient reads the sum's tangent, so its rows are not carried and its ys'
        # rows compress (main carried (1 + 3T) × 3T entries: n² growth)
        assert len(compressed) == len(found) >= 2
        assert max(k for _, k in compressed) <= 8
    assert held[0] == held[1] <= 8


@pytest.mark.usefixtures("loops_as_regions")
def test_selections_at_the_counter_hold_the_positions_each_step_selects(monkeypatch):
    """The reverse sweep of a chained Rosenbrock's gradient writes one entry of the
    carried gradient per step (three writes): each per-step table holds one position
    per step, not a mask over the gradient's n entries, and the patterns, swept row by
    row, recompute a few rows per step. So with ``STEP_LIMIT`` at 2·10⁵, n = 2,000
    (T·n = 4·10⁶: masks over the gradient would be refused) reads and takes its
    patterns, the chain's: the gradient's entries each over its own few steps."""
    from dgraph.core import regions
    from dgraph.core.regions import regions_of
    from dgraph.frontends import jaxpr_steps
    from dgraph.frontends.jax_hessian import gradient_graph

    monkeypatch.setattr(jaxpr_steps, "STEP_LIMIT", 200_000)
    monkeypatch.setattr(regions, "STEP_LIMIT", 200_000)
    n = 2_000
    graph = gradient_graph(_chained, np.linspace(-0.8, 0.9, n))
    loops = [r for _, r in regions_of(graph) if r.step_tables]
    tables = [table for r in loops for table in r.step_tables.values()]
    assert len(loops) == 1 and len(tables) == 3
    assert all(table.shape == (n - 1, 1) for table in tables)
    nnz = sum(m.nnz for m in loops[0]._patterns().values())
    assert 0 < nnz < 30 * n


def _keys_scanned(x):
    keys = jax.random.split(jax.random.key(0), 4)
    body = lambda a, k: (a + jnp.sin(x) * a * jax.random.normal(k, x.shape), None)  # noqa: E731
    return jnp.sum(lax.scan(body, jnp.ones(x.shape), keys)[0] ** 2)


def _key_carried(x):
    def body(i, c):
        a, k = c
        k, sub = jax.random.split(k)
        return a + jnp.sin(x[i]) * a * jax.random.uniform(sub), k

    return lax.fori_loop(0, 4, body, (1.0, jax.random.key(0)))[0]


@pytest.mark.parametrize("f", [_keys_scanned, _key_carried], ids=["keys scanned", "key carried"])
def test_random_draws_in_a_loop_are_constants_of_each_step(f):
    """A loop that draws from a key (one per step scanned over, or one it carries and
    splits): the draws depend on the constants alone, so they are computed before the
    program runs and read as new ``xs`` (``jaxpr_hoist``; refused before: no array form
    for ``random_bits``); value, gradient and Hessian JAX's."""
    x = X[:5]
    h = dgraph.make_function(f, "value_gradient_hessian", "python", point=[x])
    value, gradient, hessian = h(x + 0.1)
    jax_value, jax_gradient, jax_hessian = jref.value_gradient_hessian(f)(jnp.asarray(x + 0.1))
    np.testing.assert_allclose(value, jax_value, rtol=1e-13)
    np.testing.assert_allclose(gradient, jax_gradient, rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(hessian, jax_hessian, rtol=1e-11, atol=1e-12)


def test_a_loop_that_loses_its_dependence_is_caught(monkeypatch):
    """The hoisted body made wrong on purpose (the carry passed through, as a first
    version of ``jaxpr_hoist`` did): the graph's output no longer depends on ``x``, it
    has no block, and the check, which compares every output with JAX's ``jvp`` (one
    with no block too, as zero), finds it wrong where it once compared nothing."""
    from jax.extend.core import ClosedJaxpr, Jaxpr

    from dgraph.frontends import jaxpr_hoist, jaxpr_loops

    real = jaxpr_hoist.hoist

    def passed_through(*args):
        found = real(*args)
        j = found.closed.jaxpr
        outs = [j.invars[1], *j.outvars[1:]]  # x is the constant, the carry input 1
        body = ClosedJaxpr(
            Jaxpr(j.constvars, j.invars, outs, j.eqns, j.effects), found.closed.consts
        )
        return jaxpr_hoist.Hoisted(body, found.operands, found.outputs, found.stand_ins)

    monkeypatch.setattr(jaxpr_loops, "hoist", passed_through)
    with pytest.raises(DGraphError, match="verif"):
        dgraph.make_function(_keys_scanned, "jacobian", "python", point=[X[:3]])


def _pairs(x):
    """Σ_i Σ_j 1/(|p_i - p_j|² + 1) as two fori_loops, the inner body reading p[i] (the
    outer counter) and p[j]: ``d * d`` reads ``d`` twice, so the body's block of d·d by d
    is a sum of two positions, and by ``p[i]`` (d's block by it the identity) the same."""
    p = x.reshape(-1, 2)

    def outer(i, a):
        def inner(j, b):
            d = p[i] - p[j]
            return b + 1.0 / (jnp.sum(d * d) + 1.0)

        return a + lax.fori_loop(0, p.shape[0], inner, 0.0)

    return lax.fori_loop(0, p.shape[0], outer, 0.0)


def _damped_pairs(x):
    """The same with an inner recurrence, not a sum: a region without the fixture."""
    p = x.reshape(-1, 2)

    def outer(i, a):
        def inner(j, b):
            d = p[i] - p[j]
            return 0.5 * b + 1.0 / (jnp.sum(d * d) + 1.0)

        return a + lax.fori_loop(0, p.shape[0], inner, 0.0)

    return lax.fori_loop(0, p.shape[0], outer, 0.0)


PAIRS = np.random.default_rng(0).normal(size=8)


@pytest.mark.parametrize("lang", ["python", "jax", "c"])
def test_a_leaf_summed_over_positions_keeps_its_name_in_a_loop_body(loops_as_regions, lang):
    """The body's leaf block of ``d * d`` (its two positions summed, a temporary ``t1``)
    was renamed when a reference returned it alone (``r1 = d·d by d`` times the identity)
    while the leaves kept ``t1`` for the next reference: ``NameError: name 't1' is not
    defined`` from the generated gradient and Hessian (nested loops, and one loop alike;
    in C "inferring shapes: t1 is not defined").
    Now the sum is named when made; values are JAX's."""
    x1 = 0.7 * PAIRS + 0.2
    g = dgraph.make_function(_pairs, "jacobian", lang, point=[PAIRS])
    want = np.asarray(jref.jacobian(_pairs)(x1))  # the gradient, jitted once for the langs
    np.testing.assert_allclose(np.asarray(g(x1)), want, rtol=1e-12, atol=1e-14)
    if lang == "c":  # C's Hessian: the take at the outer counter (arange) is refused
        return
    want = np.asarray(jref.hessian(_pairs)(x1))
    # NumPy's dense (its sparse form reads nothing more: per-test coverage), JAX's both
    for sparse in (True, False) if lang == "jax" else (False,):
        h = dgraph.hessian(_pairs, PAIRS, sparse=sparse, lang=lang)
        got = h(x1)
        got = np.asarray(got.todense() if sparse else got)
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-13)


def test_an_inner_recurrence_at_the_outer_counter_has_its_hessian():
    """The inner loop a recurrence (a region whatever ``MAP_LIMIT``): the same NameError
    before; its sparse Hessian is JAX's."""
    x1 = 0.7 * PAIRS + 0.2
    h = dgraph.hessian(_damped_pairs, PAIRS, sparse=True)
    want = np.asarray(jref.hessian(_damped_pairs)(x1))
    np.testing.assert_allclose(h(x1).toarray(), want, rtol=1e-12, atol=1e-13)


_YV = jnp.array([-1.0, 0.2, 0.9])


def _sinkhorn(x):
    """Log-domain Sinkhorn (four ``fori_loop`` steps) and its transport cost: JAX's
    gradient loop resets a carry to an array of zeros each step."""
    C = (x[:, None] - _YV[None, :]) ** 2
    log_a = jnp.log(jnp.full(3, 1.0 / 3.0))

    def step(_, fg):
        fu, gv = fg
        fu = -0.5 * jax.nn.logsumexp((gv[None, :] - C) / 0.5, axis=1) + 0.5 * log_a
        gv = -0.5 * jax.nn.logsumexp((fu[:, None] - C) / 0.5, axis=0) + 0.5 * log_a
        return fu, gv

    fu, gv = lax.fori_loop(0, 4, step, (jnp.zeros(3), jnp.zeros(3)))
    return jnp.sum(jnp.exp((fu[:, None] + gv[None, :] - C) / 0.5) * C)


def test_a_loop_output_of_constant_zeros_is_printed():
    """A body output that is a constant array of one number (zeros) is ``full`` of it:
    the Sinkhorn loop's Hessian equals ``jax.hessian``'s (main refused: "a loop output
    that is a constant array")."""
    x = np.array([0.1, -0.5, 0.7])
    got = np.asarray(dgraph.hessian(_sinkhorn, x)(x))
    want = np.asarray(jref.hessian(_sinkhorn)(x))
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-10 * np.abs(want).max())
