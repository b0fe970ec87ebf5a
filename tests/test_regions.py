"""Loops as regions (issue 54, item 1): ``lax.scan``, ``lax.fori_loop`` and
``lax.while_loop`` read by ``from_jax(..., level="array")`` as one region whose body is a
graph of its own, never unrolled. The graph's size does not depend on the trip count; the
region's blocks have the pattern of the chain product of the body Jacobians and its
values, so the Jacobian equals ``jax.jacfwd`` and verification passes; a wrong body rule
is caught; code generation refuses a loop in one line."""

from __future__ import annotations

import numpy as np
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from dgraph.blocks import arrays, to_matrix
from dgraph.codegen.c import compiler
from dgraph.core.block_values import dense_jacobian
from dgraph.errors import DGraphError

jax = pytest.importorskip(
    "jax", reason="JAX is not installed (pip install 'jacobian-accumulation[jax]')"
)
jnp = pytest.importorskip("jax.numpy")
lax = jax.lax
from dgraph.core.regions import regions_of  # noqa: E402
from dgraph.frontends.jaxpr import from_jax  # noqa: E402
from dgraph.methods import accumulate  # noqa: E402

jax.config.update("jax_enable_x64", True)
RNG = np.random.default_rng(54)


def reaction_diffusion(steps: int, dt: float = 0.1):
    """``steps`` explicit steps of u' = D·Δu + a·u - b·u³ on a ring of cells."""

    def f(u, d, a, b):
        def step(u, _):
            lap = jnp.roll(u, 1) + jnp.roll(u, -1) - 2.0 * u
            return u + dt * (d * lap + a * u - b * u**3), None

        return lax.scan(step, u, None, length=steps)[0]

    return f


def _jax_jacobian(f, args) -> np.ndarray:
    """jax.jacfwd of every output w.r.t. every argument, flat, outputs by rows."""
    jac = jax.jit(jax.jacfwd(f, argnums=tuple(range(len(args)))))(*args)
    outs = jax.tree_util.tree_leaves(jax.eval_shape(f, *args))
    by_output = jac if len(outs) > 1 else (jac,)
    rows = []
    for out, per_arg in zip(outs, by_output, strict=True):
        size = int(np.prod(out.shape))
        rows.append(np.hstack([np.asarray(j).reshape(size, -1) for j in per_arg]))
    return np.vstack(rows)


def _checked(f, *args, verify: bool = False):
    """The graph, its forward expression set (with ``verify``, verified against JAX's
    jvp) and the dense Jacobian over its blocks, next to jax.jacfwd's."""
    g = from_jax(f, *args, level="array")
    es = accumulate(g, "forward", verify=verify)
    assert es.verified or not verify
    flat = np.concatenate([np.ravel(a) for a in args])
    return g, es, dense_jacobian(es, flat), _jax_jacobian(f, args)


def test_reaction_diffusion_scan_is_one_region_whatever_the_steps():
    u = RNG.uniform(0.2, 0.9, 20)
    params = (np.array(0.3), np.array(0.5), np.array(0.8))
    short = from_jax(reaction_diffusion(3), u, *params, level="array")
    g, _, J, ref = _checked(reaction_diffusion(50), u, *params, verify=True)
    assert (len(short), short.n_edges) == (len(g), g.n_edges) == (5, 4)  # u, d, a, b -> y
    assert np.abs(J - ref).max() <= 1e-10 * max(1.0, np.abs(ref).max())
    for graph, steps in ((short, 3), (g, 50)):
        ((v, region),) = regions_of(graph)
        assert region.length == steps and len(region.body.graph) < 30
        assert arrays.describe(graph.op(v), 0) == f"chain of {steps} steps"


def test_the_region_block_has_the_pattern_of_the_chain_product():
    """Three steps of a 3-point stencil: a 7-banded (cyclic) block, exactly jacfwd's
    nonzeros; a ring shift's powers cycle (period 20) and the pattern follows them."""
    u = RNG.uniform(0.2, 0.9, 20)
    params = (np.array(0.3), np.array(0.5), np.array(0.8))
    g = from_jax(reaction_diffusion(3), u, *params, level="array")
    block = g.block("u", g.outputs[0])
    ref = _jax_jacobian(reaction_diffusion(3), (u, *params))[:, :20]
    assert block.nnz == np.count_nonzero(ref) == 20 * 7

    def shift(c, w):
        return lax.scan(lambda c, _: (jnp.roll(c, 1) * w, None), c, None, length=47)[0]

    g = from_jax(shift, u, np.array(1.5), level="array")
    m = to_matrix(g.block("c", g.outputs[0])).toarray()
    assert (m == np.roll(np.eye(20), 47, axis=0)).all()


def test_scan_with_xs_ys_and_consts_forward_and_reverse():
    def f(c, xs, w):
        def body(c, x):
            c2 = jnp.tanh(c * w + x[:3]) + x[3] * c[0]
            return c2, jnp.sum(c2 * x[:3])

        final, ys = lax.scan(body, c, xs)
        back, ys2 = lax.scan(body, c, xs, reverse=True)
        return final, ys, back, ys2

    args = (RNG.uniform(0.2, 0.9, 3), RNG.uniform(-0.5, 0.5, (6, 4)), RNG.uniform(0.5, 1.2, 3))
    g, _, J, ref = _checked(f, *args)
    assert np.abs(J - ref).max() <= 1e-10
    ys_block = g.block("xs", g.outputs[1])  # y_t reads x_s for s <= t only
    assert ys_block.nnz == np.count_nonzero(ref[3:9, 3:27])


def test_fori_loop_with_static_bounds_and_its_integer_counter():
    def f(c):
        return lax.fori_loop(0, 7, lambda i, c: c * 0.5 + jnp.sin(c) * i, c)

    g, _, J, ref = _checked(f, RNG.uniform(0.2, 0.9, 4))
    assert np.abs(J - ref).max() <= 1e-12
    (_, region), *_ = regions_of(g)
    assert region.kind == "scan" and region.length == 7


def test_while_loop_newton_square_root_at_the_point_s_trip_count():
    def newton(a):
        def cond(s):
            return jnp.abs(s[0] * s[0] - a) > 1e-12

        def body(s):
            return 0.5 * (s[0] + a / s[0]), s[1] + 1

        return lax.while_loop(cond, body, (a, 0))[0]

    a = np.array(2.0)
    g, es, J, ref = _checked(newton, a, verify=True)
    assert np.abs(J - ref).max() <= 1e-12
    assert J[0, 0] == pytest.approx(0.5 / np.sqrt(2.0), rel=1e-9)
    (note,) = [n for n in g.notes if "while_loop" in n]
    assert "ran 5 trips" in note and "trip count at the point" in note
    assert es.evaluate(np.array([2.0]))[0, 0] == pytest.approx(J[0, 0])


def test_a_while_loop_that_runs_no_trip_at_the_point_is_the_identity():
    def f(c, n):
        return lax.while_loop(lambda s: s[1] < 0, lambda s: (s[0] * 2.0, s[1] + 1), (c * n, 0))[0]

    g, _, J, ref = _checked(f, np.array([0.3, 0.6]), np.array(1.5))
    assert np.abs(J - ref).max() == 0 and J[:, :2].tolist() == [[1.5, 0], [0, 1.5]]
    assert any("ran 0 trips" in n for n in g.notes)


def test_a_loop_inside_a_loop_is_a_region_in_the_body():
    def f(c):
        def outer(c, _):
            c = lax.fori_loop(0, 3, lambda i, d: d * jnp.cos(d), c)
            return c + 0.1, None

        return lax.scan(outer, c, None, length=4)[0]

    g, _, J, ref = _checked(f, RNG.uniform(0.2, 0.9, 2))
    assert np.abs(J - ref).max() <= 1e-12
    ((_, region),) = regions_of(g)
    assert regions_of(region.body.graph)


def test_a_wrong_body_rule_is_caught_by_verification(monkeypatch):
    """sin's derivative corrupted: only the body uses sin, and the check fails."""
    g = from_jax(
        lambda c: lax.scan(lambda c, _: (jnp.sin(c) * 1.1, None), c, None, length=5)[0],
        RNG.uniform(0.2, 0.9, 3),
        level="array",
    )
    a = sympy.Symbol("a", real=True)
    _caught_with(monkeypatch, g, "sin", np.sin, sympy.cos(a) * 1.01)


def test_code_generation_of_a_scan_and_a_while_loop():
    """A scan's and a while_loop's code is a loop (tests/test_codegen_loops.py), in C too
    (where a compiler is)."""
    from dgraph.codegen.function import make_function

    g = from_jax(
        lambda c: lax.scan(lambda c, _: (c * 0.9, None), c, None, length=3)[0],
        np.ones(2),
        level="array",
    )
    np.testing.assert_allclose(make_function(g, method="forward")(np.ones(2)), 0.729 * np.eye(2))
    with pytest.raises(DGraphError, match="cannot be written as dgraph/1"):
        g.to_json()
    w = from_jax(
        lambda c: lax.while_loop(lambda c: jnp.sum(c) > 1.0, lambda c: c * 0.5, c),
        np.ones(2),
        level="array",
    )
    np.testing.assert_allclose(make_function(w, method="forward")(np.ones(2)), 0.5 * np.eye(2))
    if compiler() is not None:
        C = make_function(w, lang="c", sparse=True, method="forward")
        np.testing.assert_allclose(C.stacked(np.ones(2)).toarray(), 0.5 * np.eye(2))
        np.testing.assert_allclose(C.stacked(np.full(2, 3.0)).toarray(), 0.125 * np.eye(2))


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 6), st.integers(1, 3), st.integers(1, 3), st.integers(0, 2**31 - 1))
def test_the_ys_over_xs_pattern_is_the_block_matrix_it_stands_for(steps, ny, nx, seed):
    """A scan's ys over its xs: block (t, s) is z[t-1-s] below the diagonal, the body's own
    block on it, nothing above; made from shifted coordinates, it is the pattern of the
    block matrix built block by block (as it once was, steps² sparse blocks)."""
    import scipy.sparse as sp

    from dgraph.core.regions import _lower_block_toeplitz

    rng = np.random.default_rng(seed)

    def drawn():
        return sp.csr_array((rng.random((ny, nx)) < 0.4).astype(float))

    z, diagonal = [drawn() for _ in range(max(steps - 1, 0))], drawn()
    grid = [
        [
            z[t - 1 - s] if s < t else diagonal if s == t else sp.csr_array((ny, nx))
            for s in range(steps)
        ]
        for t in range(steps)
    ]
    want = sp.block_array(grid, format="csr").toarray() != 0
    got = _lower_block_toeplitz(z, diagonal, steps)
    assert got.shape == want.shape and np.array_equal(got.toarray() != 0, want)


def _scan_with_ys(c, xs):
    def step(c, x):
        return 0.9 * c + jnp.sin(x) * c * 0.01 + x**2, c * jnp.cos(x)

    c, ys = lax.scan(step, c, xs)
    return c + jnp.sum(ys) * 1e-3


def test_the_dense_sweep_gives_the_sparse_sweep_s_values(monkeypatch):
    """A scan's tangent sweep on dense arrays (body Jacobians for all steps at once,
    dgraph.core.region_sweep) against the same recurrence on sparse matrices, block by
    block, for a scan with xs and ys read forward and in reverse (the gradient's loops)."""
    import scipy.sparse

    from dgraph.blocks.arrays import operand_value
    from dgraph.core import region_sweep
    from dgraph.core.block_values import vertex_values

    x = RNG.uniform(-0.8, 0.8, 40)
    g = from_jax(jax.grad(lambda x: _scan_with_ys(1.0, x)), x, level="array")
    values = vertex_values(g, {g.inputs[0]: x})
    found = regions_of(g)
    assert {r.reverse for _, r in found} == {False, True}
    for v, region in found:
        args = [np.asarray(operand_value(a, values)) for a in g.op(v).operands]
        assert region_sweep.fits(region, args)
        dense = region_sweep.tangent_sweep(region, args)
        with monkeypatch.context() as m:
            m.setattr(region_sweep, "DENSE_ENTRIES", 0)  # the sparse storage
            m.setattr(region_sweep, "DENSE_STEP", 0)
            sparse = region_sweep.tangent_sweep(region, args)
        assert dense["jacobian"].keys() == sparse["jacobian"].keys()
        for key, m in sparse["jacobian"].items():
            assert scipy.sparse.issparse(m) and not scipy.sparse.issparse(dense["jacobian"][key])
            m = m.toarray()
            assert np.abs(dense["jacobian"][key] - m).max() <= 1e-13 * np.abs(m).max()
        for a, b in zip(dense["outputs"], sparse["outputs"], strict=True):
            assert np.array_equal(a, b)


def test_a_wrong_rule_in_a_long_scan_s_body_is_caught_by_the_hessian_check(monkeypatch):
    """cos's derivative corrupted by 1e-3 in a 300-step scan with xs and ys: the
    Hessian's gradient graph holds the scan and its reverse, whose blocks the dense
    sweep computes; the check fails, and passes with the rule restored."""
    from dgraph.frontends.jax_hessian import gradient_graph

    x = RNG.uniform(-0.8, 0.8, 300)
    g = gradient_graph(lambda x: _scan_with_ys(1.0, x), x)
    a = sympy.Symbol("a", real=True)
    _caught_with(monkeypatch, g, "cos", np.cos, -sympy.sin(a) * 1.001)
    assert accumulate(g, "forward").verified


def test_the_lower_block_toeplitz_pattern_is_its_blocks_placed():
    """ys over xs of a scan: block (t, s) is z[t-1-s] below the diagonal, the diagonal
    block on it, nothing above (written as CSR directly: each row's entries in order)."""
    import scipy.sparse

    from dgraph.core.regions import _lower_block_toeplitz

    rng = np.random.default_rng(11)
    for _ in range(20):
        ny, nx = (int(v) for v in rng.integers(1, 5, 2))
        steps = int(rng.integers(1, 9))
        blocks = [rng.random((ny, nx)) < rng.uniform(0, 1) for _ in range(steps)]
        found = _lower_block_toeplitz(
            [scipy.sparse.csr_array(b.astype(float)) for b in blocks[1:]],
            scipy.sparse.csr_array(blocks[0].astype(float)),
            steps,
        )
        expected = np.zeros((steps * ny, steps * nx), bool)
        for t in range(steps):
            for s in range(t + 1):
                expected[t * ny : (t + 1) * ny, s * nx : (s + 1) * nx] = blocks[t - s]
        assert found.has_canonical_format and (found.toarray() != 0).tolist() == expected.tolist()
        assert (found.data == 1).all()


def _caught_with(monkeypatch, g, name: str, value, derivative) -> None:
    """Accumulating ``g`` with ``name``'s derivative rule made wrong is caught by the
    value check (the rule restored after)."""
    monkeypatch.setitem(arrays.ELEMENTWISE, name, (value, (derivative,)))
    arrays._derivative_function.cache_clear()
    try:
        es = accumulate(g, "forward")
        assert not es.verified and es.verification.status == "wrong"
        assert "differs from JAX's jvp" in es.verification.detail
    finally:
        monkeypatch.undo()
        arrays._derivative_function.cache_clear()
        _forget_runs(g)  # what the loops kept was made with the wrong rule


def _forget_runs(g) -> None:
    """The runs every region of ``g`` keeps (nested ones too) let go."""
    for _, r in regions_of(g):
        r._runs.clear()
        for body in getattr(r, "branches", None) or [r.body]:
            _forget_runs(body.graph)
