"""J·v of an expression set applied matrix-free (block_values.jvp_of_expressions) equals
the blocks of jacobian_blocks times v, on the stencil, on every tensor graph of
test_arrays_jax (one equation each, whole functions with dot_general and softmax) and
on graphs of the NumPy tracer; verification forms no product or sum of blocks, unless
applying a set from the right meets its references once per path (PATHS_OVER)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from dgraph import blocks
from dgraph.blocks import dense, to_matrix
from dgraph.core import block_values
from dgraph.core.block_values import (
    apply_block,
    jacobian_blocks,
    jvp_of_expressions,
    vertex_values,
)
from dgraph.frontends import from_function
from dgraph.methods import accumulate

ROOT = Path(__file__).resolve().parents[1]
METHODS = ("forward", "reverse", "markowitz")


def _stencil_residual():
    spec = importlib.util.spec_from_file_location(
        "stencil", ROOT / "benchmarks" / "stencil_arrays.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.residual


def _agree(es, seed: int = 0) -> None:
    """Each entry applied matrix-free against its block materialized, on the set and on
    its as-computed form; every product block of jacobian_blocks applied alone too."""
    g = es.graph
    rng = np.random.default_rng(seed)
    inputs = {x: rng.uniform(0.5, 1.5, g.shape(x)) for x in g.inputs}
    values = vertex_values(g, inputs)
    tangents = {x: rng.standard_normal(g.shape(x)) for x in g.inputs}
    reference = jacobian_blocks(es, values)
    for form in (es, es.as_computed or es):
        got = jvp_of_expressions(form, values, tangents, by_entry=True)
        assert set(got) == set(reference)
        for (y, x), part in reference.items():
            v = tangents[x].ravel()
            expected = np.zeros(got[(y, x)].size) if part is None else to_matrix(*part) @ v
            np.testing.assert_allclose(got[(y, x)], expected, rtol=1e-12, atol=1e-12)
            if part is not None:
                np.testing.assert_allclose(
                    apply_block(part[0], part[1], v), expected, rtol=1e-12, atol=1e-12
                )
    summed = jvp_of_expressions(es, values, tangents)
    assert set(summed) == set(g.outputs)
    for y in g.outputs:
        expected = sum((got[(yy, x)] for yy, x in got if yy == y), np.zeros(summed[y].size))
        np.testing.assert_allclose(summed[y], expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("method", METHODS)
def test_the_stencil_at_6x6(method):
    g = from_function(_stencil_residual(), sizes=[(6, 6)], level="array")
    _agree(accumulate(g, method, verify=False))


def test_numpy_graphs_with_broadcasts_moves_and_products():
    def f(u, w):
        a = np.concatenate([u[:, :1] * 2.0, np.exp(u[:, 1:])], axis=1)
        s = np.sum(a, axis=0, keepdims=True) + u.T @ w
        return np.tanh(s * u[:1, :]).reshape(-1)[::-1]

    g = from_function(f, sizes=[(3, 4), (3, 4)], level="array")
    for method in METHODS:
        _agree(accumulate(g, method, verify=False), seed=3)


def _jax_cases():
    pytest.importorskip("jax")
    from tests.test_arrays_jax import ONE_EQUATION, WHOLE

    return {**{f"one {k}": v for k, v in ONE_EQUATION.items()}, **WHOLE}


@pytest.mark.parametrize("method", METHODS)
def test_every_jax_tensor_graph(method):
    """dot_general, softmax, reductions, selections, reshapes, explicit (sparse) moves."""
    from dgraph.frontends.jaxpr import from_jax

    for k, (f, shapes) in enumerate(_jax_cases().values()):
        args = [np.random.default_rng(k).uniform(0.2, 0.9, s) for s in shapes]
        g = from_jax(f, *args, level="array")
        _agree(accumulate(g, method, verify=False), seed=k)


def test_references_are_applied_once_per_vector(monkeypatch):
    """A reference met again with the same vector is read from what was remembered."""
    pytest.importorskip("jax")
    from dgraph.frontends.jaxpr import from_jax
    from tests.test_arrays_jax import WHOLE

    f, shapes = WHOLE["softmax"]
    args = [np.random.default_rng(1).uniform(0.2, 0.9, s) for s in shapes]
    es = accumulate(from_jax(f, *args, level="array"), "forward", verify=False)
    definitions = set(es.references.values())
    seen = {"references": 0, "definitions": 0}
    node, direct = block_values._Applier._node, block_values._Applier._direct

    def applying(self, e, token, vector):  # every definition is applied in a node
        seen["definitions"] += e in definitions
        return node(self, e, token, vector)

    def meeting(self, e, token, vector):  # a parent meets each reference here first
        seen["references"] += e in self.references
        return direct(self, e, token, vector)

    monkeypatch.setattr(block_values._Applier, "_node", applying)
    monkeypatch.setattr(block_values._Applier, "_direct", meeting)
    g = es.graph
    values = vertex_values(g, dict(zip(g.inputs, args, strict=True)))
    tangents = {x: np.ones(g.shape(x)) for x in g.inputs}
    jvp_of_expressions(es, values, tangents)
    assert seen["definitions"] < seen["references"]  # some met twice, applied once
    _agree(es)


def _labelled(out_shape, in_shape, out_axes, in_axes, sizes, value, kind=blocks.GENERAL):
    return blocks.Labelled(out_shape, in_shape, out_axes, in_axes, sizes, value, kind)


# labelled blocks the graphs above rarely give: reshaped axes (several labels, an offset),
# a label read twice on one side (a diagonal), a label on the output side only (broadcast)
UNUSUAL = {
    "diagonal": _labelled(
        (3, 4), (3, 4), (((0,), 0), ((1,), 0)), (((0,), 0), ((1,), 0)), (3, 4), (0, 1)
    ),
    "dense": _labelled(
        (2, 5), (3, 4), (((0,), 0), ((1,), 0)), (((2,), 0), ((3,), 0)), (2, 5, 3, 4), (0, 1, 2, 3)
    ),
    "scaled identity": blocks.identity((12,), blocks.CONSTANT),
    "reshape out": _labelled((6,), (2, 3), (((0, 1), 0),), (((0,), 0), ((1,), 0)), (2, 3), (0, 1)),
    "reshape in": _labelled((2, 3), (6,), (((0,), 0), ((1,), 0)), (((0, 1), 0),), (2, 3), (1,)),
    "reshape shifted": _labelled((3, 2), (8,), (((1,), 0), ((0,), 0)), (((0, 1), 1),), (2, 3), ()),
    "reshape into shifted": _labelled(
        (9,), (2, 3), (((0, 1), 2),), (((0,), 0), ((1,), 0)), (2, 3), (0,)
    ),
    "read twice": _labelled((3,), (3, 3), (((0,), 0),), (((0,), 0), ((0,), 0)), (3,), (0,)),
    "written twice": _labelled((4, 4), (3,), (((0,), 1), ((0,), 1)), (((0,), 0),), (3,), ()),
    "broadcast": _labelled(
        (2, 4, 3),
        (3, 2),
        (((0,), 0), ((1,), 0), ((2,), 0)),
        (((2,), 0), ((0,), 0)),
        (2, 4, 3),
        (2,),
    ),
    "reduction": _labelled(
        (2,), (2, 5), (((0,), 0),), (((0,), 0), ((1,), 0)), (2, 5), (), blocks.ONES
    ),
    "summed values": _labelled(
        (2,), (5, 3), (((0,), 0),), (((1,), 0), ((2,), 0)), (2, 5, 3), (0, 1, 2)
    ),
    "sparse": blocks.as_sparse(dense((5,), (12,))),
}


def random_values(block, rng) -> np.ndarray:
    """Random values for ``block``'s stored entries (a sparse block's, or a labelled
    block's value axes)."""
    if isinstance(block, blocks.Sparse):
        return rng.standard_normal(block.nnz)
    return rng.standard_normal(tuple(block.sizes[k] for k in block.value))


@pytest.mark.parametrize("name", list(UNUSUAL))
def test_blocks_times_vectors(name):
    block = UNUSUAL[name]
    rng = np.random.default_rng(len(name))
    value = random_values(block, rng)
    v = rng.standard_normal(int(np.prod(block.in_shape)))
    expected = to_matrix(block, value) @ v
    np.testing.assert_allclose(apply_block(block, value, v), expected, rtol=1e-13, atol=1e-14)


@pytest.mark.parametrize("name", list(UNUSUAL))
@pytest.mark.parametrize("valued", [True, False])
def test_lanes_applied_as_each_lane_alone(name, valued):
    """An edge's blocks applied to a value lane and a magnitude lane at once (the check's
    J·v and |J|·|v|: each product written into its lane's row, a move without values
    passing the rows through) give each lane's products with the values or their
    magnitudes, summed over the parts, from the right and from the left; the rows given
    are never written into."""
    block = UNUSUAL[name]
    rng = np.random.default_rng(len(name))
    value = random_values(block, rng) if valued else None
    transposed = to_matrix(block, value).T
    m, n = transposed.shape[1], transposed.shape[0]
    for left, size in ((False, n), (True, m)):
        rows = rng.standard_normal((2, size))
        rows[1] = np.abs(rows[1])
        kept = rows.copy()
        for parts in ([(block, value)], [(block, value), (block, value)]):
            got = block_values._lanes_applied(parts, (False, True), rows, left)
            for k, absolute in enumerate((False, True)):
                lane = value if value is None or not absolute else np.abs(value)
                matrix = to_matrix(block, lane)
                one = (matrix.T if left else matrix) @ rows[k]
                np.testing.assert_allclose(got[k], len(parts) * one, rtol=1e-13, atol=1e-13)
            np.testing.assert_array_equal(rows, kept)


def test_a_reshape_passes_the_rows_through():
    """A move without values reading and writing every place in order is applied as the
    rows themselves (no copy); one with values, or a part more, is not."""
    block = UNUSUAL["reshape out"]
    move = blocks.Labelled(block.out_shape, block.in_shape, block.out_axes, block.in_axes,
                           block.sizes, ())  # fmt: skip
    rows = np.arange(12.0).reshape(2, 6)
    assert block_values._lanes_applied([(move, None)], (False, True), rows, False) is rows
    assert block_values._lanes_applied([(move, None)], (False, True), rows, True) is rows
    twice = block_values._lanes_applied([(move, None)] * 2, (False, True), rows, False)
    assert twice is not rows
    np.testing.assert_array_equal(twice, 2 * rows)
    valued = block_values._lanes_applied([(move, np.full((), 2.0))], (False, True), rows, False)
    np.testing.assert_array_equal(valued, 2 * rows)


def test_verification_forms_no_product_or_sum_of_blocks(monkeypatch):
    """The J·v check applies the expression set to a vector: at 1000 x 1000 the blocks'
    products cost seconds, their application milliseconds."""
    g = from_function(_stencil_residual(), sizes=[(7, 7)], level="array")
    es = accumulate(g, "forward", verify=False)

    def refuse(*args, **kwargs):
        raise AssertionError("a product or sum of blocks was formed")

    for module, name in (
        (blocks, "multiply_values"),
        (blocks, "add_values"),
        (blocks, "_sparse_product"),
        (blocks, "_add"),
        (blocks, "_plan"),
        (block_values, "multiply_values"),
        (block_values, "add_values"),
    ):
        monkeypatch.setattr(module, name, refuse)
    check = es.verify()
    assert check.ok and "J·v agrees with central differences" in check.detail


def test_a_reverse_set_whose_paths_blow_up_is_applied_from_its_blocks(monkeypatch):
    """A bundle adjustment's Lagrangian Hessian (reverse mode over its gradient graph: a
    reference per vertex, each applied once per path to it from the right) applied
    83,583 edges per J·v at 60 cameras, 1.7 CPU-s, its blocks formed in 0.13: past
    PATHS_OVER applications per edge and reference its entries' blocks are formed once
    (values and magnitudes) and applied; no edge is applied, and H·v is JAX's."""
    jax = pytest.importorskip("jax")
    jnp = pytest.importorskip("jax.numpy")
    jax.config.update("jax_enable_x64", True)
    from dgraph.codegen.hessian import hessian_source
    from dgraph.codegen.tensor.function import _cheapest

    n, m = 10, 100  # 370 unknowns: fewer, and the left (a row per entry) is cheaper
    cam = np.concatenate([np.arange(m) % n, (np.arange(m) + 1) % n])
    pt = np.concatenate([np.arange(m), np.arange(m)])

    def residual(xp):
        def f(x):
            C, X = x[: 7 * n].reshape(n, 7), x[7 * n :].reshape(m, 3)
            c, P = C[cam], X[pt]
            theta = xp.sqrt(xp.sum(c[:, :3] ** 2, axis=1, keepdims=True))
            k = c[:, :3] / theta
            kxp = xp.stack([k[:, 1] * P[:, 2] - k[:, 2] * P[:, 1],
                            k[:, 2] * P[:, 0] - k[:, 0] * P[:, 2],
                            k[:, 0] * P[:, 1] - k[:, 1] * P[:, 0]], axis=1)  # fmt: skip
            kdp = xp.sum(k * P, axis=1, keepdims=True)
            Q = P * xp.cos(theta) + kxp * xp.sin(theta) + k * kdp * (1 - xp.cos(theta))
            Q = Q + c[:, 3:6]
            return (c[:, 6:7] * Q[:, :2] / Q[:, 2:3]).ravel()

        return f

    r = np.random.default_rng(3)
    cams = np.concatenate([0.1 * r.normal(size=(n, 3)), 0.1 * r.normal(size=(n, 2)),
                           np.full((n, 1), 5.0), np.ones((n, 1))], axis=1)  # fmt: skip
    x = np.concatenate([cams.ravel(), (r.normal(size=(m, 3)) * [1.0, 1.0, 0.3]).ravel()])
    w = r.normal(size=4 * m)
    G = hessian_source(residual(np), point=[x], weights=w).graph
    es = _cheapest(G)
    values = vertex_values(G, {**G.parameter_point, **(G.point or {}), G.inputs[0]: x})
    applied = []
    real = block_values._lanes_applied
    monkeypatch.setattr(
        block_values, "_lanes_applied", lambda *a, **k: applied.append(1) or real(*a, **k)
    )
    monkeypatch.setattr(block_values._Entries, "apply", lambda *a, **k: applied.append(1))
    t = r.normal(size=x.shape)
    jv, size = block_values.jvp_and_scale(es, values, {G.inputs[0]: t})
    assert applied == []  # every product and sum formed once, as blocks
    lagrangian = lambda z: jnp.dot(jnp.asarray(w), residual(jnp)(z))  # noqa: E731
    hvp = jax.jit(lambda a, b: jax.jvp(jax.grad(lagrangian), (a,), (b,))[1])  # one compile
    want = np.asarray(hvp(jnp.asarray(x), jnp.asarray(t)))  # (eager: 2.3 times the CPU)
    (y,) = G.outputs
    np.testing.assert_allclose(jv[y], want, rtol=1e-10, atol=1e-12 * np.abs(want).max())
    assert np.all(size[y] >= np.abs(jv[y]) * (1 - 1e-12))


def test_rows_from_the_left_go_in_chunks(monkeypatch):
    """A dense Hessian's J·v check (a stick-breaking likelihood: a cumprod's gradient,
    whose paths blow up from the right) applies rows from the left; they go in chunks of
    ROWS_ENTRIES entries of the widest vertex (n = 1,000: 2.83 → 0.90 GB peak), and the
    entries are those of one chunk (to rounding: a dense block's rows multiply as one
    matrix)."""
    pytest.importorskip("jax")
    from dgraph.codegen.hessian import hessian_source
    from dgraph.codegen.tensor.function import _cheapest

    n = 24
    counts = np.arange(n) % 5 + 1.0

    def f(x):
        v = 1.0 / (1.0 + np.exp(-x))
        weights = v * np.concatenate([[1.0], np.cumprod(1.0 - v)[:-1]])
        return -np.sum(counts * np.log(weights)) + 0.5 * np.sum(x**2)

    x = 0.3 * np.random.default_rng(0).normal(size=n)
    G = hessian_source(f, point=[x]).graph
    es = _cheapest(G)
    values = vertex_values(G, {**G.parameter_point, **(G.point or {}), G.inputs[0]: x})
    tangents = {G.inputs[0]: np.random.default_rng(1).normal(size=n)}
    parts, _ = block_values._parts_and_sizes(G, values)
    assert block_values.applied_side(es, parts) == "left"
    whole = block_values.jvp_and_scale(es, values, tangents)
    widest = max(int(np.prod(G.shape(v))) for v in G.nx)
    rows = []

    class Counted(block_values._Applier):
        def __init__(self, es, parts, lanes, *args, **kwargs):
            rows.append(len(lanes))
            super().__init__(es, parts, lanes, *args, **kwargs)

    monkeypatch.setattr(block_values, "_Applier", Counted)
    monkeypatch.setattr(block_values, "ROWS_ENTRIES", 5 * widest)
    chunked = block_values.jvp_and_scale(es, values, tangents)
    assert [r for r in rows if r] == [5] * 9 + [3]  # 2n rows (dry runs: none)
    for a, b in zip(whole, chunked, strict=True):
        for y in a:
            np.testing.assert_allclose(a[y], b[y], rtol=1e-14)


def _cse_program(n: int):
    """Straight-line scalar code as sympy's cse emits it: each temporary reads two of the
    last twelve, an output every 25 (scalars, read at the array level for its length)."""
    rng = np.random.default_rng(0)
    picks = [rng.choice(12, 2, replace=False) for _ in range(n)]

    def f(a, b, c, d, e, g):
        names, outputs = [a, b, c, d, e, g], []
        for k in range(n):
            i, j = (names[-1 - int(t)] if t < len(names) else names[0] for t in picks[k])
            op = k % 4
            if op == 0:
                v = i * j
            elif op == 1:
                v = i + 0.7 * j
            else:
                v = np.sin(i) if op == 2 else i / (1 + j * j)
            names.append(v)
            if k % 25 == 24:
                outputs.append(v)
        return tuple(outputs)

    return f


def test_a_long_scalar_program_forms_each_reference_once(monkeypatch):
    """A scalar program of 300 statements and 12 outputs at the array level: its entries
    are formed from their blocks, each reference and entry once (block_values.NARROW),
    not applied to each input's tangent through the references it reaches (829,516
    edge applications, dry runs included, against 854 references and entries)."""
    g = from_function(_cse_program(300), sizes=[()] * 6, level="array")
    assert len(g.edge_symbols) > block_values.NARROW_EDGES
    es = accumulate(g, "markowitz", verify=False)
    seen = {"applied": 0, "formed": 0, "checks": 0}
    direct, evaluate = block_values._Applier._direct, block_values._evaluate
    entries = block_values._entries

    def checking(*args):
        seen["checks"] += 1
        return entries(*args)

    def applying(self, e, token, vector):
        seen["applied"] += 1
        return direct(self, e, token, vector)

    def forming(expr, atom, absolute=False):
        seen["formed"] += 1
        return evaluate(expr, atom, absolute)

    monkeypatch.setattr(block_values._Applier, "_direct", applying)
    monkeypatch.setattr(block_values, "_evaluate", forming)
    monkeypatch.setattr(block_values, "_entries", checking)
    assert es.verify()
    computed = es.as_computed or es  # the form whose blocks are formed
    once = len(computed.references) + len(computed.jacobian)
    assert 1 <= seen["checks"] <= 2
    # each reference and entry once per lane (values, magnitudes) and check
    assert seen["applied"] + seen["formed"] <= 2 * once * seen["checks"]
    rng = np.random.default_rng(1)
    values = vertex_values(g, {x: rng.uniform(0.5, 1.5, ()) for x in g.inputs})
    tangents = {x: rng.standard_normal(()) for x in g.inputs}
    got = jvp_of_expressions(es, values, tangents, by_entry=True)
    for (y, x), part in jacobian_blocks(es, values).items():
        expected = np.zeros(1) if part is None else to_matrix(*part) @ tangents[x].ravel()
        np.testing.assert_allclose(got[(y, x)], expected, rtol=1e-12, atol=1e-12)
