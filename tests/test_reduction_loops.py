"""Loops whose steps only add up terms (``fori_loop(0, n, lambda i, a: a + h(i), a0)``)
run as maps before JAX differentiates them (``dgraph.frontends.jaxpr_reductions``): the
Hessian's gradient graph has no loop, its values equal ``jax.hessian``'s, and it is
checked against JAX's derivative of the loops as written (a map that drops a step is
refused). Loops whose steps read what earlier ones computed stay regions."""

from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy
lax = jax.lax
jax.config.update("jax_enable_x64", True)

import dgraph  # noqa: E402
from dgraph.errors import DGraphError, VerificationError  # noqa: E402
from dgraph.frontends import jaxpr_reductions  # noqa: E402
from dgraph.frontends.jax_hessian import gradient_graph  # noqa: E402
from tests import jax_reference as jref  # noqa: E402

W = np.linspace(0.3, 1.1, 6)


def chained_rosenbrock(x):
    body = lambda i, a: a + 100.0 * (x[i + 1] - x[i] ** 2) ** 2 + (1.0 - x[i]) ** 2  # noqa: E731
    return lax.fori_loop(0, x.shape[0] - 1, body, 0.0)


def scan_with_outputs(x):
    """A vector sum carry over xs rows, a constant weight, stacked outputs read after."""
    rows = x.reshape(-1, 6)
    total, ys = lax.scan(lambda c, r: (c + jnp.sin(r) * W, jnp.sum(r**2)), jnp.zeros(6), rows)
    return jnp.sum(total**2) + jnp.sum(jnp.exp(0.1 * ys))


def backward_counter(x):
    """``reverse=True`` with a counter carry, a subtraction, a carry passed on unchanged."""

    def body(c, r):
        i, s, k = c
        return (i + 2, s - r * jnp.cos(i * r) * k, k), r * i

    (_, s, _), ys = lax.scan(body, (1, 0.5, 3.0), x, reverse=True)
    return s**2 + jnp.sum(jnp.sin(ys) * x)


def window(x):  # the term reads the carry: each step reads the one before
    body = lambda i, a: a + jnp.sum(jnp.sin(lax.dynamic_slice(x, (i,), (3,)))) * a  # noqa: E731
    return lax.fori_loop(0, x.shape[0] - 2, body, 1e-3)


def running_sums(x):  # the stacked outputs read the sum: a cumulative sum, not a map
    total, ys = lax.scan(lambda c, r: (c + r**2, jnp.sin(c)), 0.0, x)
    return total + jnp.sum(ys)


def product(x):
    return lax.fori_loop(0, x.shape[0], lambda i, a: a * (1.0 + 0.1 * x[i] ** 2), 1.0)


def loops(graph) -> int:
    return sum(1 for v in graph.nx if (op := graph.op(v)) is not None and op.primitive == "loop")


# The method make_function's choice gives each function's Hessian (the same generated
# text), named so that the tests, of how loops are read, do not build and cost every
# candidate's program: the choice is codegen's (tests/test_codegen_choice.py).
CHOSEN = {
    "chained_rosenbrock": "markowitz",
    "scan_with_outputs": "forward",
    "backward_counter": "markowitz",
    "window": "forward",
    "running_sums": "forward",
    "product": "forward",
    "pair_energy": "reverse",
    "fill": "markowitz",
    "add_rows": "reverse",
    "rows_and_sum": "reverse",
    "repeated_sets": "forward",
    "forces_in_time_steps": "forward",
    "two_levels_in_time_steps": "markowitz",
}


def _checked(f, x) -> int:
    """The sparse Hessian built at ``x`` (by :data:`CHOSEN`'s method), at another point
    against ``jax.hessian``; the number of loops in its gradient graph (the
    :func:`gradient_graph` it is built from, not traced a second time)."""
    H = dgraph.hessian(f, x, sparse=True, method=CHOSEN[f.__name__])
    assert H.generated.verified
    x2 = x + 0.03 * np.cos(np.arange(x.size))
    ref = np.asarray(jref.hessian(f)(jnp.asarray(x2)))
    h = H(x2)
    assert h.nnz == np.count_nonzero(ref)
    np.testing.assert_allclose(h.toarray(), ref, rtol=1e-11, atol=1e-11 * abs(ref).max())
    return loops(H.generated.graph)


@pytest.mark.parametrize(
    "f, n", [(chained_rosenbrock, 40), (scan_with_outputs, 24), (backward_counter, 9)]
)
def test_loops_that_sum_terms_are_maps(f, n):
    x = np.linspace(-0.8, 0.9, n)
    assert _checked(f, x) == 0  # main: the loop and its gradient's


@pytest.mark.parametrize("f", [window, running_sums, product])
def test_loops_whose_steps_read_earlier_ones_stay_regions(f):
    x = np.linspace(-0.8, 0.9, 10)
    assert _checked(f, x) >= 1


def test_a_lagrangian_s_sum_loop_is_a_map():
    """A vector function whose entries are loop sums, with weights: H(x, v) as
    scipy.optimize's ``hess(x, v)``."""

    def f(x):
        body = lambda i, a: a + jnp.array([x[i] ** 3, jnp.sin(x[i] * x[i + 1])])  # noqa: E731
        return lax.fori_loop(0, x.shape[0] - 1, body, jnp.zeros(2))

    x, v = np.linspace(0.2, 1.4, 12), np.array([0.7, -1.3])
    H = dgraph.make_function(f, "hessian", point=[x], weights=v, method="markowitz")  # CHOSEN
    assert loops(H.generated.graph) == 0  # the gradient graph's
    ref = jref.hessian(lambda x: jnp.dot(v, f(x)))(jnp.asarray(x))
    np.testing.assert_allclose(np.asarray(H(x, v)).reshape(12, 12), ref, rtol=1e-12, atol=1e-12)


def test_the_map_s_size_is_bounded(monkeypatch):
    """Past MAP_LIMIT entries over all steps the loop stays a loop (13 equations of one
    entry, 39 steps: 507 entries)."""
    x = np.linspace(-0.8, 0.9, 40)
    monkeypatch.setattr(jaxpr_reductions, "MAP_LIMIT", 100)
    assert loops(gradient_graph(chained_rosenbrock, x)) >= 1


def _dropping(real):
    """``as_map`` leaving out the loop's last step."""

    def dropping(jax, eqn, ins, plan):
        params = dict(eqn.params, length=eqn.params["length"] - 1)
        return real(jax, eqn.replace(params=params), ins, plan)

    return dropping


def test_a_map_that_drops_a_step_is_refused(monkeypatch):
    """The check compares the map's Hessian with JAX's derivative of the loop as written:
    a map that leaves out the last step does not verify."""
    monkeypatch.setattr(jaxpr_reductions, "as_map", _dropping(jaxpr_reductions.as_map))
    x = np.linspace(-0.8, 0.9, 12)
    with pytest.raises(DGraphError, match="did not verify"):
        dgraph.hessian(chained_rosenbrock, x, sparse=True)


def loglik(theta):
    """A likelihood summed in a fori_loop, each term reading a neighbour (mod n)."""
    n = theta.shape[0]

    def body(i, a):
        r = theta[i] - 0.5 * theta[(i + 1) % n]
        return a + jnp.log1p(r**2)

    return lax.fori_loop(0, n, body, 0.0)


def test_a_gradient_of_a_sum_loop_is_read_as_a_map():
    """The Jacobian path reads the same map (a likelihood's gradient): no loop in the
    graph, values equal ``jax.grad``'s, checked against JAX's jvp of the loop (16 terms:
    the map reads any count; at 30 the build's symbolic passes took twice the CPU)."""
    x = np.linspace(-0.8, 0.9, 16)
    assert loops(dgraph.from_jax(loglik, x, level="array")) == 0
    g = dgraph.make_function(loglik, point=[x], method="reverse")  # the choice's
    assert g.generated.verified
    np.testing.assert_allclose(np.ravel(g(x + 0.1)), jref.jacrev(loglik)(x + 0.1), rtol=1e-13)


def test_a_jacobian_map_that_drops_a_step_is_refused(monkeypatch):
    monkeypatch.setattr(jaxpr_reductions, "as_map", _dropping(jaxpr_reductions.as_map))
    with pytest.raises(VerificationError):
        dgraph.make_function(loglik, point=[np.linspace(-0.8, 0.9, 12)])


def pair_energy(x):
    """A sum over pairs as two fori_loops: the inner one, batched by the outer map, is
    mapped in a second round."""
    p = x.reshape(-1, 2)
    m = p.shape[0]

    def outer(i, a):
        def inner(j, b):
            d = p[i] - p[j]
            r2 = jnp.sum(d * d) + 1.0
            return b + 1.0 / r2 + 0.1 * r2

        return a + lax.fori_loop(0, m, inner, 0.0)

    return lax.fori_loop(0, m, outer, 0.0)


def test_a_sum_loop_inside_a_sum_loop_is_mapped_too(monkeypatch):
    x = np.random.default_rng(0).normal(size=16)
    assert loops(dgraph.from_jax(pair_energy, x, level="array")) == 0
    assert _checked(pair_energy, x) == 0
    monkeypatch.setattr(jaxpr_reductions, "NESTING", 1)  # one round: the inner loop stays
    assert loops(dgraph.from_jax(pair_energy, x, level="array")) >= 1


def fill(x):
    """``out.at[i].set(…)`` in a fori_loop: refused from 1,000 steps as a loop."""
    body = lambda i, o: o.at[i].set(jnp.sin(x[i]) * x[i + 1])  # noqa: E731
    return jnp.sum(lax.fori_loop(0, x.shape[0] - 1, body, jnp.zeros(x.shape[0] - 1)) ** 2)


def add_rows(x):
    m = x.reshape(-1, 3)
    body = lambda i, o: o.at[i % 2].add(jnp.tanh(m[i]) * m[i, 0])  # noqa: E731
    out = lax.fori_loop(0, m.shape[0], body, jnp.zeros((2, 3)))
    return jnp.sum(out**2) + jnp.sum(out[0] * out[1])


def rows_and_sum(x):
    m = x.reshape(-1, 2)

    def body(i, c):
        o, s = c
        return o.at[i].set(m[i] * m[i, ::-1]), s + jnp.exp(m[i, 0])

    o, s = lax.fori_loop(0, m.shape[0], body, (jnp.zeros_like(m), 0.0))
    return jnp.sum(o**3) * s


def repeated_sets(x):  # two steps set each position: the later is kept, as a loop
    body = lambda i, o: o.at[i // 2].set(x[i] ** 3)  # noqa: E731
    return jnp.sum(jnp.sin(lax.fori_loop(0, x.shape[0], body, jnp.ones(x.shape[0] // 2))))


@pytest.mark.parametrize("f", [fill, add_rows, rows_and_sum])
def test_writes_at_the_counter_are_one_scatter(f):
    x = np.random.default_rng(1).normal(size=12)
    assert loops(dgraph.from_jax(f, x, level="array")) == 0
    assert _checked(f, x) == 0  # main: the loop and its gradient's


def test_sets_that_repeat_a_position_stay_a_loop():
    """Values JAX's (the loop's pattern keeps the overwritten steps' entries, zeros)."""
    x = np.random.default_rng(1).normal(size=12)
    H = dgraph.hessian(repeated_sets, x, sparse=True, method=CHOSEN["repeated_sets"])
    assert loops(H.generated.graph) >= 1  # the gradient graph's
    assert H.generated.verified
    ref = np.asarray(jref.hessian(repeated_sets)(jnp.asarray(x + 0.1)))
    np.testing.assert_allclose(H(x + 0.1).toarray(), ref, rtol=1e-12, atol=1e-12)


class _NoJax:
    """A ``jax`` module that refuses every use: what reads it would bind or compile."""

    def __getattr__(self, name):
        raise AssertionError(f"jax.{name} used")


@pytest.mark.parametrize(
    "f, rows, distinct",
    [
        (fill, np.arange(11)[:, None], True),
        (rows_and_sum, np.arange(6)[:, None], True),
        (repeated_sets, (np.arange(12) // 2)[:, None], False),
    ],
)
def test_set_positions_are_found_by_numpy_without_compiling(monkeypatch, f, rows, distinct):
    """A ``.set`` loop's positions per step (the index read from its counter alone) are
    NumPy's evaluation of the equations the index is computed from: no JAX at all (main
    ran the whole body eagerly under ``jax.vmap``: a compile per equation), the same
    integers as the one compiled ``jax.vmap`` it falls back to (beyond
    ``STEPS_BY_NUMPY``)."""
    x = np.random.default_rng(1).normal(size=12)
    (e,) = [e for e in jax.make_jaxpr(f)(x).jaxpr.eqns if e.primitive.name == "scan"]
    plan = jaxpr_reductions.reduction(e)
    assert jaxpr_reductions._distinct_positions(_NoJax(), e, plan) is distinct
    closed = e.params["jaxpr"]
    nc, at = e.params["num_consts"], plan.writes[0][1]
    (k,) = [k for k, kind in enumerate(plan.kinds) if isinstance(kind, int)]
    starts = {nc + k: (e.invars[nc + k].val, plan.kinds[k])}
    wanted = [closed.jaxpr.eqns[at].invars[1]]
    length = int(e.params["length"])
    (found,) = jaxpr_reductions._set_positions(_NoJax(), closed, starts, wanted, length)
    assert found.dtype == wanted[0].aval.dtype
    np.testing.assert_array_equal(found, rows)
    if not distinct:  # one case compiled (a compile costs more than the three read)
        monkeypatch.setattr(jaxpr_reductions, "STEPS_BY_NUMPY", 0)
        (compiled,) = jaxpr_reductions._set_positions(jax, closed, starts, wanted, length)
        assert compiled.dtype == found.dtype
        np.testing.assert_array_equal(compiled, rows)


def test_a_fill_loop_of_a_thousand_steps_is_a_map():
    """Main refused it ("a loop of 999 steps that selects at its counter in what it
    carries …"); the Hessian is tridiagonal, 3n − 2 entries."""
    x = np.linspace(-0.8, 0.9, 1000)
    H = dgraph.hessian(fill, x, sparse=True, method=CHOSEN["fill"])
    assert H.generated.verified and H(x).nnz == 2998


def forces_in_time_steps(x):
    """A time loop (each step reads the last: a region) whose step sums forces over the
    particles in a ``fori_loop`` (a reduction: a map inside the region's body)."""
    n = x.shape[0]

    def step(c, t):
        force = lambda j, a: a + jnp.sin(x[j] * c[j]) * jnp.tanh(c - x[j])  # noqa: E731
        return c + 0.05 * lax.fori_loop(0, n, force, jnp.zeros(n)), jnp.sum(c**2)

    c, ys = lax.scan(step, x, jnp.arange(3))
    return jnp.sum(c**2) + jnp.sum(ys)


def two_levels_in_time_steps(x):
    """A region (time) in a region (substeps) with a sum loop inside: mapped at depth 2."""
    n = x.shape[0]

    def sub(c, _):
        force = lambda j, a: a + jnp.cos(x[j] - c) * c[j]  # noqa: E731
        return c + 0.1 * lax.fori_loop(0, n, force, jnp.zeros(n)), None

    step = lambda c, t: (lax.scan(sub, c * 0.9, jnp.arange(2))[0], None)  # noqa: E731
    return jnp.sum(jnp.exp(0.2 * lax.scan(step, x, jnp.arange(2))[0]))


def scans(closed) -> list[int]:
    """The number of ``scan`` equations at each depth of ``closed``'s nesting."""
    depth, level = [], [closed.jaxpr]
    while level:
        found = [e for j in level for e in j.eqns if e.primitive.name == "scan"]
        depth.append(len(found))
        level = [e.params["jaxpr"].jaxpr for e in found]
    return depth


@pytest.mark.parametrize(
    "f, before, after, hessian",
    [
        (forces_in_time_steps, [1, 1, 0], [1, 0], True),
        (two_levels_in_time_steps, [1, 1, 1, 0], [1, 1, 0], False),
    ],
)
def test_a_sum_loop_inside_a_region_is_mapped_in_its_body(f, before, after, hessian):
    """The time loop stays a loop (a region), the sum loop in its body is array
    operations (``reduction_loops`` of the body): values equal the loops' as written at
    two points, and the Hessian JAX's (the gradient graph checked against JAX's
    derivative of the loops as written by the build; at depth 2 the same build, its
    lines the depth-1 case's)."""
    x = jnp.linspace(0.2, 1.1, 5)
    assert scans(jax.make_jaxpr(f)(x)) == before
    mapped = jaxpr_reductions.reduction_loops(jax, f, [x])
    assert scans(jax.make_jaxpr(mapped)(x)) == after
    mapped_jit, f_jit = jax.jit(mapped), jax.jit(f)  # one compilation each, not one a call
    for point in (x, 1.3 - x[::-1] ** 2):
        np.testing.assert_allclose(mapped_jit(point), f_jit(point), rtol=1e-14)
    if hessian:
        assert _checked(f, np.asarray(x)) >= 1  # the time loop and its gradient's


def test_a_region_s_body_without_a_sum_loop_is_left_as_it_is():
    """``product``'s inner loop reads its carry: no map, the outer loop unchanged."""

    def f(x):
        step = lambda c, t: (c + product(x * c), None)  # noqa: E731
        return lax.scan(step, 0.5, jnp.arange(3))[0]

    assert jaxpr_reductions.reduction_loops(jax, f, [jnp.linspace(0.2, 1.1, 5)]) is None


def test_a_map_in_a_region_s_body_that_drops_a_step_is_refused(monkeypatch):
    monkeypatch.setattr(jaxpr_reductions, "as_map", _dropping(jaxpr_reductions.as_map))
    with pytest.raises(DGraphError, match="did not verify"):
        dgraph.hessian(forces_in_time_steps, np.linspace(0.2, 1.1, 5), sparse=True)
