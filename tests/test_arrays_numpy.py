"""NumPy-style functions traced at the array level (issue 41, item 2): one tensor vertex
per operation, whose forward values equal the function's and whose Jacobian blocks,
chained densely, equal jax.jacfwd (or central differences)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from numpy import empty

from dgraph import blocks, from_function
from dgraph.blocks import arrays
from dgraph.cli import main
from dgraph.errors import InputError
from dgraph.methods import accumulate
from tests import jax_reference as jref

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
jax.config.update("jax_enable_x64", True)


def forward(graph, inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Every vertex's value, in insertion order."""
    values = {k: np.asarray(v, dtype=float) for k, v in inputs.items()}
    for v in sorted(graph.vertices, key=lambda v: graph._g.nodes[v]["index"]):
        if graph.op(v) is not None:
            values[v] = arrays.evaluate(graph.op(v), values)
    return values


def jacobian(graph, inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Each output's Jacobian with respect to all inputs (flattened, inputs side by side):
    the blocks' values chained densely in topological order, summed over the operand
    positions of each predecessor."""
    values = forward(graph, inputs)
    sizes = [math.prod(graph.shape(x)) for x in graph.inputs]
    total = sum(sizes)
    jac: dict[str, np.ndarray] = {}
    offset = 0
    for x, n in zip(graph.inputs, sizes, strict=True):
        jac[x] = np.zeros((n, total))
        jac[x][:, offset : offset + n] = np.eye(n)
        offset += n
    for v in graph.order():
        op = graph.op(v)
        if op is None:
            continue
        acc = np.zeros((math.prod(graph.shape(v)), total))
        shapes = [graph.shape(x) if isinstance(x, str) else tuple(x.shape) for x in op.operands]
        for k in op.differentiable():
            block = arrays.operand_block(op, k, shapes)
            matrix = blocks.to_matrix(block, arrays.block_value(op, k, values, block))
            acc += matrix @ jac[op.operands[k]]
        # the edge's block is the sum over the operand positions: same pattern
        for u in graph.predecessors(v):
            assert graph.block(u, v) is not None
        jac[v] = acc
    return {y: jac[y] for y in graph.outputs}


def jax_jacobian(fj, args: list[np.ndarray]) -> np.ndarray:
    """``jax.jacfwd`` of ``fj`` in every argument, one jitted program (its shape traced),
    stored (tests/jax_reference.py)."""
    flat = jref.jacfwd(fj, argnums=tuple(range(len(args))))(*args)
    rows = math.prod(flat[0].shape[: flat[0].ndim - np.ndim(args[0])])  # the output's size
    return np.hstack([j.reshape(rows, -1) for j in flat])


def check(f, fj, args: list[np.ndarray], **kwargs):
    """The graph of ``f`` at the array level: forward value and Jacobian against ``f``
    itself and jax.jacfwd of ``fj`` (the same function in jax.numpy)."""
    graph = from_function(f, sizes=[a.shape for a in args], level="array", **kwargs)
    assert graph.is_tensor and graph.traced_with == "numpy"
    inputs = dict(zip(graph.inputs, args, strict=True))
    (y,) = graph.outputs
    values = forward(graph, inputs)
    np.testing.assert_allclose(values[y], f(*args), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(
        jacobian(graph, inputs)[y], jax_jacobian(fj, args), rtol=1e-9, atol=1e-11
    )
    return graph


RNG = np.random.default_rng(41)


def bratu(u, xp=np):
    """The 2-D five-point finite-difference residual of Bratu's problem (zero boundary)."""
    n = u.shape[0]
    h2 = 1.0 / (n + 1) ** 2
    p = xp.pad(u, 1)
    lap = p[:-2, 1:-1] + p[2:, 1:-1] + p[1:-1, :-2] + p[1:-1, 2:] - 4 * u
    return lap / h2 + 6.0 * xp.exp(u)


def test_stencil_residual():
    u = RNG.normal(size=(6, 6)) * 0.3
    graph = check(bratu, lambda u: bratu(u, jnp), [u])
    prims = [graph.op(v).primitive for v in graph.order() if graph.op(v)]
    assert prims.count("slice") == 4 and "pad" in prims and "exp" in prims


def test_the_stencil_graph_does_not_grow_with_the_grid():
    counts = set()
    for n in (14, 300):
        graph = from_function(bratu, sizes=[(n, n)], level="array")
        counts.add((len(graph.vertices), graph.n_edges))
    assert len(counts) == 1
    ((vertices, _),) = counts
    assert vertices < 20  # 196 unknowns: 2,296 edges at the element level


def test_mlp_layer():
    W = RNG.normal(size=(4, 3))
    b = RNG.normal(size=(3,))

    def layer(x, W):
        return np.tanh(x @ W + b)

    def layer_j(x, W):
        return jnp.tanh(x @ W + b)

    x = RNG.normal(size=(5, 4))
    graph = check(layer, layer_j, [x, W])
    assert graph.op("t1").primitive == "dot_general"
    # the constant bias is broadcast to the product's shape: a constant operand
    ops = {graph.op(v).primitive for v in graph.order() if graph.op(v)}
    assert ops == {"dot_general", "add", "tanh"}


def test_softmax():
    def softmax(z, xp=np):
        e = xp.exp(z - xp.max(z, axis=1, keepdims=True))
        return e / xp.sum(e, axis=1, keepdims=True)

    graph = check(softmax, lambda z: softmax(z, jnp), [RNG.normal(size=(3, 5))])
    prims = {graph.op(v).primitive for v in graph.order() if graph.op(v)}
    assert {"reduce_max", "reduce_sum", "broadcast_in_dim", "exp", "div"} <= prims


def test_mean_and_sum_methods():
    def f(u, xp=np):
        return (u**2).mean(axis=0) + u.sum() * 0.5 + xp.mean(u, axis=1).T[0]

    check(f, lambda u: f(u, jnp), [RNG.normal(size=(4, 3))])


def test_sum_where_a_constant_mask():
    """``np.sum(..., where=mask)`` (real_programs16's interp_edges_gradient): was refused
    with NumPy's "truth value of an array is ambiguous" (the mask compared by ``in``)."""
    mask = np.array([[True, False, True], [False, True, True]])

    def f(u):
        return np.sum(np.exp(u) * u[0, 0], axis=1, where=mask)

    def fj(u):
        return jnp.sum(jnp.where(mask, jnp.exp(u) * u[0, 0], 0.0), axis=1)

    graph = check(f, fj, [RNG.normal(size=(2, 3))])
    assert "select_n" in {graph.op(v).primitive for v in graph.order() if graph.op(v)}


def test_mean_where_a_constant_mask():
    """``np.mean(..., where=mask)`` (survey ml59: a masked mean of a likelihood's terms):
    was refused ("numpy.mean(where=/initial=...) ... not supported"); each output entry
    is divided by its own count of kept entries, as NumPy's."""
    mask = np.array(
        [[True, False, True, True], [True, True, False, False], [True, False, False, True]]
    )

    def f(u, xp=np):
        rows = xp.mean(xp.exp(u) * u, axis=1, where=mask)
        return rows**2 + xp.mean(u**3, where=mask) + xp.mean(xp.sin(u), axis=0, where=mask)[:3]

    check(f, lambda u: f(u, jnp), [RNG.normal(size=(3, 4))])
    with pytest.raises(InputError, match="where= keeps no entry of a mean"):  # NumPy's nan
        empty_row = mask & (np.arange(3)[:, None] > 0)
        from_function(lambda u: np.mean(u, axis=1, where=empty_row), sizes=[(3, 4)], level="array")


def test_clip_bounds_by_keyword():
    """``u.clip(min=0.1)`` and ``np.clip(u, max=0.5)`` (NumPy 2.1's keywords; survey ml59):
    ``ndarray.clip`` was refused ("unexpected keyword argument 'min'")."""

    def f(u, xp=np):
        return u.clip(min=0.1) ** 3 + xp.clip(u, max=0.5) ** 2 + u.clip(-0.2, 0.3) * u

    check(f, lambda u: f(u, jnp), [np.array([[-1.0, 0.0, 0.2], [0.4, 0.7, 2.0]])])


@pytest.mark.parametrize("order", [2, -2, "nuc"])
def test_matrix_norms_by_singular_values(order):
    """``np.linalg.norm(M, 2 | -2 | "nuc")`` (real_programs16's norm_matrix_ords): were
    refused; the largest, smallest and summed singular values, ``keepdims`` kept."""

    def f(u, xp=np):
        return xp.linalg.norm(u, order) * xp.linalg.norm(u.T, order, keepdims=True)

    check(f, lambda u: f(u, jnp), [RNG.normal(size=(3, 4))])


def test_pad_with_a_value_and_widths_per_axis():
    def f(u, xp=np):
        return xp.sin(xp.pad(u, ((1, 2), (0, 3)), constant_values=2.5))

    check(f, lambda u: f(u, jnp), [RNG.normal(size=(3, 2))])


def test_diff_with_prepend_and_append():
    """``np.diff(x, prepend=, append=)``, ends traced or constant, a number broadcast to a
    slice (survey57j's envelope detector, ``np.diff(x, prepend=x[0])``: was refused at the
    array level whatever the ends)."""

    def f(u, xp=np):
        a = xp.diff(u, prepend=u[0, 1])  # a traced number, along the last axis
        b = xp.diff(u, n=2, axis=0, prepend=0.5, append=u[:1] * 2)  # a constant, a row
        c = xp.diff(u, n=0, prepend=1.0)  # order 0: u itself, no ends joined
        return xp.concatenate([a.ravel(), b.ravel(), c.ravel()])

    check(f, lambda u: f(u, jnp), [RNG.normal(size=(3, 4))])


def test_where_with_a_comparison():
    def f(u, xp=np):
        s = xp.sin(u)
        return xp.where(s > 0.1, u * u, -u) + xp.where(u < 0, 1.0, u)

    u = RNG.normal(size=(7,))
    graph = check(f, lambda u: f(u, jnp), [u])
    selects = [
        graph.op(v) for v in graph.order() if graph.op(v) and graph.op(v).primitive == "select_n"
    ]
    assert len(selects) == 2
    # the comparison is a nested operation, never a vertex; sin(u), used only there, is
    # folded into it
    assert isinstance(selects[0].operands[0], arrays.ArrayOp)
    assert not any(graph.op(v) and graph.op(v).primitive == "sin" for v in graph.order())


def test_concatenate_and_stack():
    def f(u, v, xp=np):
        a = xp.concatenate([u, xp.ones(2), v * 2.0])
        b = xp.stack([u, xp.cos(u)], axis=1)
        return a[1:4] * xp.sum(b) + xp.stack([v, v]).sum(axis=0)[0]

    check(f, lambda u, v: f(u, v, jnp), [RNG.normal(size=(3,)), RNG.normal(size=(3,))])


def test_broadcasting():
    def f(a, b, xp=np):
        return a * b + b - 1.0 / (2.0 + a**2)

    graph = check(f, lambda a, b: f(a, b, jnp), [RNG.normal(size=(3,)), RNG.normal(size=(2, 3))])
    bcast = [
        graph.op(v)
        for v in graph.order()
        if graph.op(v) and graph.op(v).primitive == "broadcast_in_dim"
    ]
    assert [op.param["broadcast_dimensions"] for op in bcast] == [(1,), (1,)]  # a*b, then -


def test_indexing_moves():
    def f(u, xp=np):
        return xp.exp(u[::-2, 1]) + u[1:, None, -1].reshape(-1)[:2].sum() + u.T[0, ::2]

    check(f, lambda u: f(u, jnp), [RNG.normal(size=(4, 3))])


def test_matmul_shapes():
    A = RNG.normal(size=(3, 4))

    def f(x, y):
        return np.tanh((x @ y) @ A + np.dot(y[:, 0], x.T @ x).sum())

    def fj(x, y):
        return jnp.tanh((x @ y) @ A + jnp.dot(y[:, 0], x.T @ x).sum())

    check(f, fj, [RNG.normal(size=(2, 5)), RNG.normal(size=(5, 3))])


def test_maximum_minimum_sqrt_and_powers():
    def f(u, v, xp=np):
        return xp.maximum(u, v) * xp.sqrt(xp.minimum(u, 3.0) ** 2 + 1.0) + 2.0**u + v**3

    u, v = RNG.normal(size=(4,)), RNG.normal(size=(4,))
    check(f, lambda u, v: f(u, v, jnp), [u, v])


def test_operations_on_constants_are_folded():
    C = np.arange(6.0).reshape(2, 3)

    def f(u):
        k = np.exp(C) * 2.0 + np.sum(C)  # constants only: NumPy computes it
        return u * k

    graph = from_function(f, sizes=[(2, 3)], level="array")
    assert [graph.op(v).primitive for v in graph.order() if graph.op(v)] == ["mul"]
    check(f, lambda u: u * (jnp.exp(C) * 2.0 + jnp.sum(C)), [RNG.normal(size=(2, 3))])


def test_names_outputs_and_copies():
    def f(u):
        h = np.sin(u)
        return {"h": h, "g": h * 2.0, "u": u}

    graph = from_function(f, sizes=[(3,)], level="array")
    assert graph.inputs == ["u"]
    assert set(graph.outputs) == {"h", "g", "u_out"}
    values = forward(graph, {"u": np.arange(3.0)})
    np.testing.assert_allclose(values["g"], 2 * np.sin(np.arange(3.0)))
    assert graph.validate() is graph


def test_the_element_level_stays_the_default():
    graph = from_function(lambda u: np.sin(u), sizes=[3])
    assert not graph.is_tensor and graph.inputs == ["u0", "u1", "u2"]
    array = from_function(lambda u: np.sin(u), sizes=[3], level="array")
    assert array.is_tensor and array.inputs == ["u"] and array.shape("u") == (3,)


@pytest.mark.parametrize(
    ("f", "needle"),
    [
        (lambda u: np.linalg.lstsq(u, np.ones(3))[1], "numpy.linalg.lstsq"),
        (lambda u: np.linalg.eigvals(u[:, :2]), "numpy.linalg.eigvals: one square matrix"),
        (lambda u: np.linalg.norm(u, ord=3), "numpy.linalg.norm(ord=3) of a matrix"),
        (lambda u: np.linalg.solve(u, np.ones(4)), "right-hand side of shape (4,)"),
        (lambda u: u[np.array([0, 5]), np.array([1, 2])], "indexing: index 5 is out of bounds"),
        (lambda u: u[u > 0], "data-dependent index"),
        (lambda u: u[np.array([True, False]), 0], "indexing: boolean index did not match"),
        (lambda u: u[0.5, np.array([0])], "indexing: only integers"),
        (lambda u: u[u[0, 0]], "data-dependent index"),
        (lambda u: np.sort(u, order="x"), "numpy.sort(order=...)"),
        (lambda u: np.spacing(u) + u, "numpy.spacing"),
        (lambda u: np.pad(u, 1, mode="linear_ramp"), "numpy.pad(mode='linear_ramp')"),
        (lambda u: u if u.sum() > 0 else -u, "numpy.where"),
        (lambda u: float(u[0]), "float() of an array of shape (3,)"),
        (lambda u: np.asarray(u, dtype=int) * 2, "numpy.asarray(dtype=int64)"),
        (lambda u: np.add(u, 1.0, out=np.zeros((3, 3))), "out="),
        (lambda u: np.ones(3) @ u @ np.ones(4), "do not match"),
        (lambda u: u[5], "out of bounds"),
        (lambda u: u[2:1], "is empty"),
    ],
)
def test_unsupported_is_one_line(f, needle):
    with pytest.raises(InputError) as info:
        from_function(f, name="f", sizes=[(3, 3)], level="array")
    text = str(info.value)
    assert needle in text and "\n" not in text and text.startswith("f: ")


def test_a_numpy_function_without_a_reading_computes_on_constants():
    """A NumPy function the tracer has no reading of, called on fresh arrays that hold
    constants (``np.array`` of numbers under the tracer), is NumPy's to compute; its
    floating result is fresh again (written into below). It was refused as 'on an array
    that depends on the inputs'; on a traced array it still is."""

    def f(u):
        h = np.histogram_bin_edges(np.array([0.0, 1.0]), bins=4)
        counts, _ = np.histogram(np.array([0.1, 0.6, 0.7]), bins=2, range=(0.0, 1.0))
        h[0] = u[0] ** 2
        return u * h[1:] + h[0] * counts.sum()

    def fj(u):
        h = jnp.linspace(0.0, 1.0, 5).at[0].set(u[0] ** 2)
        return u * h[1:] + h[0] * 3.0

    check(f, fj, [np.array([0.3, -0.2, 0.9, 0.4])])
    with pytest.raises(InputError, match=r"numpy\.histogram2d on an array that depends"):
        from_function(lambda u: np.histogram2d(u, u, bins=4)[0], sizes=[(4,)], level="array")


def test_assignment_into_a_fresh_array():
    """``r = np.zeros_like(u); r[1:-1] = ...`` and ``np.add.at``: a ``scatter`` (and
    ``scatter_add``) into the fresh array, its values and Jacobian those of NumPy and of
    the same program with ``.at[]`` in JAX (it was refused: 'converting an array')."""
    idx = np.array([0, 2, 2, 4])

    def f(u):
        r = np.zeros_like(u)
        r[1:-1] = u[:-2] - 2 * u[1:-1] + u[2:] + 0.1 * np.exp(u[1:-1])
        r[0], r[-1] = u[0], 1.5
        r[1:3] += u[3:] ** 2  # a view read and written back
        np.add.at(r, idx, np.sin(u[:4]))
        return r

    def fj(u):
        r = jnp.zeros_like(u).at[1:-1].set(u[:-2] - 2 * u[1:-1] + u[2:] + 0.1 * jnp.exp(u[1:-1]))
        r = r.at[0].set(u[0]).at[-1].set(1.5)
        r = r.at[1:3].add(u[3:] ** 2)
        return r.at[idx].add(jnp.sin(u[:4]))

    check(f, fj, [np.array([0.3, -0.2, 0.9, 0.4, 1.1])])

    def copies(u):
        r = u * 2.0
        s = r + 0  # a copy in NumPy: the write below leaves it
        r[0] = 5.0
        c = u.copy()
        c[1] = u[0] ** 2
        return s * r + c

    def copies_j(u):
        u = jnp.asarray(u)
        r = u * 2.0
        return r * r.at[0].set(5.0) + u.at[1].set(u[0] ** 2)

    check(copies, copies_j, [np.array([0.3, -0.2, 0.9])])


def test_assignment_into_arrays_numpy_makes():
    """``np.zeros(shape)``, ``np.ones``, ``np.empty`` and ``np.full`` made inside the
    function are fresh arrays too: a finite-element assembly (``np.add.at`` into
    ``np.zeros((n, n))``), an accumulator (``acc += ...``), a name imported from NumPy;
    values and Jacobian those of NumPy and of JAX (they were refused: 'into a NumPy
    array')."""
    n = 5

    def assembly(u):
        K = np.zeros((n, n))
        for e in range(n - 1):
            idx = np.array([e, e + 1])
            a = 1 + ((u[e] + u[e + 1]) / 2) ** 2
            np.add.at(K, (idx[:, None], idx[None, :]), a * np.array([[1.0, -1.0], [-1.0, 1.0]]))
        acc = np.ones(n)
        for k in range(n):
            acc += u[k] * np.arange(n)
        out = empty(n)
        out[0], out[1:] = u[0] ** 2, np.sin(u[1:])
        full = np.full((n,), 2.0)
        full[2] = u[3]
        return K @ u + acc * out + full + np.full(n, u[1]) + np.zeros(n, dtype=int)

    def assembly_j(u):
        u = jnp.asarray(u)
        a = 1 + ((u[:-1] + u[1:]) / 2) ** 2
        du = u[1:] - u[:-1]
        Ku = jnp.zeros(n).at[:-1].add(-a * du).at[1:].add(a * du)
        acc = 1.0 + jnp.sum(u) * jnp.arange(n)
        out = jnp.concatenate([u[:1] ** 2, jnp.sin(u[1:])])
        return Ku + acc * out + jnp.full(n, 2.0).at[2].set(u[3]) + u[1]

    check(assembly, assembly_j, [np.array([0.3, -0.2, 0.9, 0.4, 1.1])])


def test_var_std_and_array_methods():
    """``np.var``/``np.std`` (``ddof``, ``keepdims``) and the array methods ``var``,
    ``std``, ``swapaxes``, ``argmax``, ``argsort``, ``take``, ``diagonal``, ``trace``
    (they were refused: "'TracedArray' object has no attribute 'var'")."""

    def f(x, xp=np):
        X = x.reshape(4, 3)
        a = X.var(axis=0) + xp.std(X, axis=1, ddof=1).sum() + X.std()
        a = a + xp.var(X, keepdims=True).sum()
        b = X.swapaxes(0, 1)[0] * xp.swapaxes(X, 0, 1)[1]
        i = X[:, 0].argmax()
        c = X[:, 1].take(xp.array([2, 0])) + X[:3, :3].diagonal()[:2] + X[:3].trace()
        o = X[:, 2].argsort()
        return xp.concatenate([a, b[:3] * X[i, :], c, X[:, 2][o]])

    check(f, lambda x: f(x, jnp), [RNG.normal(size=12)])


@pytest.mark.parametrize("f", [lambda x: np.std(x, ddof=5), lambda x: x.var(ddof=6)])
def test_a_var_without_degrees_of_freedom_is_one_line(f):
    """``ddof`` at least the entries (NumPy: nan or inf and a warning) is refused in one
    line naming it, not a ZeroDivisionError's "float division by zero"."""
    with pytest.raises(InputError, match="leaves no degrees of freedom over 5 entries") as info:
        from_function(f, sizes=[(5,)], level="array")
    assert "\n" not in str(info.value)


def _into_argument(u):
    u[0] = 1.0
    return u


def _after_view(u):
    r = np.zeros_like(u)
    v = r[1:]
    r[0] = u[0]
    return v


def _after_diagonal(u):
    r = np.zeros_like(np.outer(u, u))
    r[0, 1] = u[0]
    d = np.diag(r)  # a view in NumPy: it would see the next write
    r[0, 0] = u[1]
    return d * u


def _after_broadcast(u):
    r = np.zeros_like(u)
    r[0] = u[0]
    b = np.broadcast_to(r, (2, 5))  # a view in NumPy
    r[1] = u[1]
    return b.ravel()


def _into_numpy_view(u):
    r = np.zeros_like(u)
    r[1:][0] = u[0]  # r holds numbers: r[1:] is a NumPy view
    return r


_MODULE_ARRAY = np.zeros(5)  # made outside the function: NumPy's own array


def _into_numpy(u):
    r = _MODULE_ARRAY
    r[0] = u[0]
    return r


def _into_traced_view(u):
    r = np.zeros_like(u)
    r[0] = u[0]
    r.reshape(5)[1] = u[1]
    return r


def _at_traced_positions(u):  # NumPy needs as many values as the mask selects
    r = np.zeros_like(u)
    r[u > 0] = u
    return r


def _wrong_shape(u):
    r = np.zeros_like(u)
    r[1:3] = u
    return r


def _out_of_bounds(u):
    r = np.zeros_like(u)
    r[7] = u[0]
    return r


def _comparison(u):
    r = np.zeros_like(u)
    r[0] = u[0] > 0
    return r


def _add_at_comparison(u):
    r = np.zeros_like(u)
    np.add.at(r, np.array([0]), u[:1] > 0)
    return r


@pytest.mark.parametrize(
    ("f", "needle"),
    [
        (_into_argument, "into an argument"),
        (_after_view, "after a view of it"),
        (_after_diagonal, "after a view of it"),
        (_after_broadcast, "after a view of it"),
        (_into_numpy_view, "or a view of one"),
        (_into_numpy, "np.zeros_like"),
        (_into_traced_view, "into a view"),
        (_at_traced_positions, "not an array whose length must match the mask's count"),
        (_wrong_shape, "do not broadcast"),
        (_out_of_bounds, "out of bounds"),
        (_comparison, "of a comparison"),
        (_add_at_comparison, "comparison"),
    ],
)
def test_assignment_numpy_would_share_is_refused(f, needle):
    with pytest.raises(InputError, match=needle) as info:
        from_function(f, sizes=[(5,)], level="array")
    assert "\n" not in str(info.value)


@pytest.mark.parametrize(
    ("sizes", "needle"),
    [
        ([(0, 3)], "positive integers"),
        ([(-2,)], "positive integers"),
        ([(2.5,)], "positive integers"),
        ([(1,) * 9], "more than 8"),
        ([(10**5, 10**4)], "more than 100,000,000"),
    ],
)
def test_bad_shapes(sizes, needle):
    with pytest.raises(InputError, match=needle):
        from_function(lambda u: u * 2.0, sizes=sizes, level="array")


def test_a_bad_level():
    with pytest.raises(InputError, match="'element' or 'array'"):
        from_function(lambda u: u, level="tensor")


# -- the command line ----------------------------------------------------------------------

MODULE = """
import numpy as np


def residual(u):
    p = np.pad(u, 1)
    return p[:-2, 1:-1] + p[2:, 1:-1] + p[1:-1, :-2] + p[1:-1, 2:] - 4 * u + np.exp(u)


def layer(x, w):
    return np.tanh(x @ w)


def scalar(a, b):
    return np.sin(a) * b


def running(u):
    return np.cumprod(u, axis=0) + np.exp(u)


def causal_softmax(s):
    masked = np.where(np.tril(np.ones((3, 3))) > 0, s, -np.inf)
    e = np.exp(masked - np.max(masked, axis=-1, keepdims=True))
    return e / np.sum(e, axis=-1, keepdims=True)


def kalman_gain(x, P):
    H, R = np.array([[1.0, 0.0]]), np.array([[0.1]])
    K = P @ H.T @ np.linalg.inv(H @ P @ H.T + R)
    return x + K @ (np.array([0.7]) - H @ x)
"""


@pytest.fixture
def module(tmp_path):
    path = tmp_path / "model.py"
    path.write_text(MODULE)
    return str(path)


def test_cli_inputs_with_a_shape_build_the_array_level(module, capsys):
    for n in (14, 100):
        assert main(["structure", f"{module}:residual", "--inputs", f"u:{n}x{n}", "--json"]) == 0
        data = json.loads(capsys.readouterr().out)
        assert data["inputs"] == ["u"] and data["outputs"] == ["y"]
        assert len(data["intermediates"]) == 11  # pad, 4 slices, 3 adds, mul, sub, exp


def test_a_one_by_one_constant_is_described_as_its_number(module, capsys):
    """A Kalman update's 1×1 noise matrix R: structure, accumulate and render printed the
    blocks' legend with float() of the (1, 1) array, an internal error ("only
    0-dimensional arrays can be converted to Python scalars", exit 1)."""
    argv = [f"{module}:kalman_gain", "--inputs", "x:2,P:2x2"]
    for command in ("structure", "accumulate"):
        assert main([command, *argv]) == 0
        assert "verified" in capsys.readouterr().out or command == "structure"


def test_a_causal_mask_s_infinities_leave_the_check_its_differences(module, capsys):
    """Attention's causal mask, ``np.where(mask, s, -np.inf)`` before the softmax:
    ``accumulate`` said "NOT verified: ... the program is not finite beside the point"
    and exited 1, central differences refusing any point whose intermediates are not all
    finite. The outputs are finite there, and their differences are the reference."""
    assert main(["accumulate", f"{module}:causal_softmax", "--inputs", "s:3x3"]) == 0
    assert "verified (exact" in capsys.readouterr().out


def test_cli_several_inputs_and_level(module, capsys):
    argv = ["structure", f"{module}:layer", "--inputs", "x:5x4", "--inputs", "w:4x3", "--json"]
    assert main(argv) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["inputs"] == ["x", "w"] and data["intermediates"] == ["t1"]
    argv = ["structure", f"{module}:layer", "--inputs", "x:4,w:4", "--level", "array", "--json"]
    assert main(argv) == 0
    assert json.loads(capsys.readouterr().out)["inputs"] == ["x", "w"]


def test_cli_keeps_the_element_level(module, capsys):
    assert main(["structure", f"{module}:layer", "--inputs", "x:2,w:2", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["inputs"] == ["x0", "x1", "w0", "w1"]
    assert main(["structure", f"{module}:scalar", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["inputs"] == ["a", "b"]


@pytest.mark.parametrize(
    ("spec", "needle"),
    [
        ("u:0x3", "positive integers"),
        ("u:-3x3", "positive integers"),
        ("u:2.5x3", "positive integers"),
        ("u:3x", "positive integers"),
        ("u:" + "x".join(["2"] * 9), "more than 8"),
        ("u:100000x10000", "more than 100,000,000"),
        ("v:3x3", "no parameter 'v'"),
        ("u:3x3,u:3x3", "given twice"),
    ],
)
def test_cli_bad_shapes_exit_2(module, capsys, spec, needle):
    assert main(["structure", f"{module}:residual", "--inputs", spec]) == 2
    err = capsys.readouterr().err.strip()
    assert needle in err and len(err.splitlines()) == 1, err


def test_cli_element_level_expands_several_axes(module, capsys):
    """--level element on a 3 x 3 input: the array graph expanded (it used to be refused,
    naming --level array); its inputs are the 9 entries."""
    argv = ["structure", f"{module}:residual", "--inputs", "u:3x3", "--level", "element"]
    assert main([*argv, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["inputs"] == [
        f"u_{i}_{j}" for i in range(3) for j in range(3)
    ]


def test_constant_integer_and_boolean_indices_are_a_take():
    """u[[2, 0, 0, 3]], np.take and a constant boolean mask: one `take` each, whose block
    is a selection pattern; the Jacobian equals JAX's and survives a dgraph/1 round trip."""
    import jax.numpy as jnp

    from dgraph import accumulate, make_function
    from dgraph.frontends import from_json

    def f(u):
        mask = np.array([True, False, True, True, False, True])
        return np.sin(u[[2, 0, 0, 3]]) * np.take(u, [1, 1, 2, 3], axis=0) + u[mask][:4]

    def expected(u):
        picks = (jnp.array([2, 0, 0, 3]), jnp.array([1, 1, 2, 3]), jnp.array([0, 2, 3, 5]))
        return jnp.sin(u[picks[0]]) * u[picks[1]] + u[picks[2]]

    g = from_function(f, sizes=[(6,)], level="array")
    assert sum(g.op(v).primitive == "take" for v in g.intermediates) == 3
    assert accumulate(g, "reverse").verified
    u = np.linspace(0.5, 1.5, 6)
    J = make_function(g, "jacobian")(u)
    assert np.allclose(J, jref.jacfwd(expected)(u))
    assert from_json(g.to_json()) == g


def test_an_ellipsis_beside_an_integer():
    """``P[..., 0]`` (a coordinate of every point), ``T[0, ..., 1:]``, ``M[..., None, 1]``
    at the array level; Hessians equal JAX's. On main the ellipsis's slices were padded a
    second time ("calling it with traced arrays failed: IndexError: tuple index out of
    range"): only the element level (one vertex per entry) took it."""
    import jax
    import jax.numpy as jnp

    from dgraph import hessian

    def body(m, x):
        P, T = m.reshape(x, (2, 3)), m.reshape(x, (1, 2, 3))
        return m.sum(P[..., 0] ** 3) + m.sum(T[0, ..., 1:] ** 3 * P[..., None, 1])

    g = from_function(lambda x: body(np, x), sizes=[(6,)], level="array")
    assert g.is_tensor and len(g.intermediates) < 20
    x = np.linspace(-1.0, 1.0, 6)
    with jax.enable_x64(True):
        want = np.asarray(jref.hessian(lambda x: body(jnp, x))(jnp.asarray(x)))
    np.testing.assert_allclose(hessian(lambda x: body(np, x), x)(x), want, rtol=1e-12, atol=1e-12)


def test_index_arrays_of_several_axes_are_a_take():
    """``w[idx]`` with a 2-D constant index (hashed features: 3 per sample), along an axis
    of a matrix and by ``np.take``, negative entries too: NumPy's result shapes, Hessians
    equal to JAX's. Refused on main ("a non-empty 1-D array of integers")."""
    import jax
    import jax.numpy as jnp

    from dgraph import hessian

    idx = np.array([[0, 4, 2], [5, -1, 1], [3, 3, 0], [2, 1, 4]])
    vals = np.linspace(-1.0, 1.0, 12).reshape(4, 3)

    def f(w):
        z = np.sum(w[idx] * vals, axis=1)
        M = np.reshape(w, (2, 3))
        return np.sum(np.logaddexp(0.0, -z)) + np.sum(M[:, idx[:2, :2] % 3] ** 3) \
            + np.sum(np.take(M, idx[1:3] % 2, axis=0) ** 2 * w[0])  # fmt: skip

    def g(w):
        z = jnp.sum(w[idx] * vals, axis=1)
        M = jnp.reshape(w, (2, 3))
        return jnp.sum(jnp.logaddexp(0.0, -z)) + jnp.sum(M[:, idx[:2, :2] % 3] ** 3) \
            + jnp.sum(jnp.take(M, idx[1:3] % 2, axis=0) ** 2 * w[0])  # fmt: skip

    w = np.linspace(-0.6, 0.9, 6)
    made = hessian(f, w, sparse=True)
    with jax.enable_x64(True):
        want = np.asarray(jref.hessian(g)(jnp.asarray(w)))
    assert made.generated.verified
    np.testing.assert_allclose(made(w).toarray(), want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize(
    "index, message",
    [
        (lambda u: u[np.array([0.0, 1.0])], "array of integers"),
        (lambda u: u[np.array([7])], "out of bounds"),
        (lambda u: u[np.array([True, False])], "boolean index of shape"),
    ],
)
def test_bad_constant_indices_are_one_line(index, message):
    with pytest.raises(InputError, match=message):
        from_function(index, sizes=[(6,)], level="array")


def test_cli_reads_cumprod_at_both_levels(module, capsys):
    """np.cumprod is one ``cumprod`` operation at the array level (as jnp.cumprod), so the
    graph is read with a shape and no --level (the array level) and with --level element
    (it expanded), with the function's Jacobian; an operation neither level has
    (np.spacing) is one line at both."""
    assert main(["structure", f"{module}:running", "--inputs", "u:3x3", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["inputs"] == ["u"]
    argv = ["structure", f"{module}:running", "--inputs", "u:3x3", "--level", "element"]
    assert main([*argv, "--json"]) == 0
    names = [f"u_{i}_{j}" for i in range(3) for j in range(3)]
    assert json.loads(capsys.readouterr().out)["inputs"] == names

    def f(z):
        u = np.reshape(z, (3, 3))
        return np.ravel(np.cumprod(u, axis=0) + np.exp(u))

    g = from_function(lambda u: np.cumprod(u, axis=0) + np.exp(u), sizes=[(3, 3)])
    es = accumulate(g, "reverse")
    assert es.verified
    point, h = np.linspace(0.2, 1.0, 9), 1e-6
    columns = [(f(point + h * e) - f(point - h * e)) / (2 * h) for e in np.eye(9)]
    np.testing.assert_allclose(es.evaluate(point), np.stack(columns, -1), rtol=1e-6, atol=1e-8)
    for level in ("array", "element"):
        with pytest.raises(InputError, match=r"numpy\.spacing"):
            from_function(lambda u: np.spacing(u) + u, name="f", sizes=[(3, 3)], level=level)


@pytest.mark.parametrize(
    ("shape", "spacing", "axis"),
    [((7,), (), None), ((5, 6), (0.5,), None), ((5, 6), (0.5, 2.0), None), ((4, 5, 3), (), 1)],
)
def test_gradient_is_central_inside_and_one_sided_at_the_ends(shape, spacing, axis):
    """``np.gradient`` of a field (one axis, each axis, one spacing or one an axis): the
    values of NumPy and the Jacobian of ``jnp.gradient`` (it was refused: 'numpy.gradient on
    an array that depends on the inputs is not supported')."""

    def field(xp):
        def f(u):
            g = xp.gradient(u**2, *spacing, axis=axis)
            g = g if isinstance(g, list | tuple) else [g]
            return xp.concatenate([xp.ravel(a) for a in g]) + xp.sin(u).sum()

        return f

    check(field(np), field(jnp), [RNG.normal(size=shape)])


def test_gradient_of_second_order_at_the_ends():
    """``edge_order=2`` (which ``jnp.gradient`` refuses): linear, so its Jacobian times
    ``v`` is NumPy's gradient of ``v``; too short an axis and coordinates refused in one line."""
    u = RNG.normal(size=(4, 5))
    graph = from_function(lambda u: np.gradient(u, 0.3, 2.0, edge_order=2), sizes=[u.shape],
                          level="array")  # fmt: skip
    inputs = dict(zip(graph.inputs, [u], strict=True))
    for y, want in zip(graph.outputs, np.gradient(u, 0.3, 2.0, edge_order=2), strict=True):
        np.testing.assert_allclose(forward(graph, inputs)[y], want, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(jacobian(graph, inputs)[y] @ u.ravel(), want.ravel(),
                                   rtol=1e-12, atol=1e-12)  # fmt: skip
    short = (lambda u: np.gradient(u[:2], edge_order=2), "too short")
    coordinates = (lambda u: np.gradient(u, np.arange(4.0), 1.0), "coordinates of shape")
    traced = (lambda u: np.gradient(u, u[0], 1.0), "traced spacings")
    for bad, needle in [short, coordinates, traced]:
        with pytest.raises(InputError, match=needle):
            from_function(bad, name="f", sizes=[(3, 3)], level="array")


@pytest.mark.parametrize("edge_order", [1, 2])
def test_gradient_on_coordinates_is_numpys(edge_order):
    """``np.gradient`` on coordinate arrays (uneven along both axes, five and three points:
    was refused: 'numpy.gradient with coordinate arrays'): linear, so NumPy's values and
    its Jacobian times ``v`` NumPy's gradient of ``v``."""
    u = RNG.normal(size=(5, 3))
    t, s = np.array([0.0, 0.3, 0.5, 1.1, 1.6]), np.array([0.2, 0.9, 1.0])
    graph = from_function(lambda u: np.gradient(u, t, s, edge_order=edge_order), sizes=[u.shape],
                          level="array")  # fmt: skip
    inputs = dict(zip(graph.inputs, [u], strict=True))
    for y, want in zip(graph.outputs, np.gradient(u, t, s, edge_order=edge_order), strict=True):
        np.testing.assert_allclose(forward(graph, inputs)[y], want, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(jacobian(graph, inputs)[y] @ u.ravel(), want.ravel(),
                                   rtol=1e-12, atol=1e-12)  # fmt: skip


@pytest.mark.parametrize(
    ("shape", "indices", "axis"),
    [((8,), [0, 3, 3, 1, 6], 0), ((8,), [2, 5], 0), ((3, 7), [0, 2, 3], 1), ((5, 2, 3), [4, 0], 0)],
)
def test_add_reduceat_sums_segments_as_numpy(shape, indices, axis):
    """``np.add.reduceat`` (segments in order, an empty one, a decreasing pair, along any
    axis): NumPy's values, and the Jacobian of the same sums by a 0/1 matrix in JAX (it was
    refused: 'numpy.add.reduceat on an array that depends on the inputs is not supported')."""
    n = shape[axis]
    S = np.add.reduceat(np.eye(n), indices, axis=0)  # row i: the entries segment i sums

    def f(u):
        return np.add.reduceat(np.sin(u) * u, indices, axis=axis)

    def fj(u):
        moved = jnp.tensordot(S, jnp.moveaxis(jnp.sin(u) * u, axis, 0), axes=1)
        return jnp.moveaxis(moved, 0, axis)

    check(f, fj, [RNG.normal(size=shape)])


def test_bincount_with_traced_weights_is_a_segment_sum():
    """``np.bincount(labels, weights=w, minlength)`` with constant labels: NumPy's values
    and ``jnp.bincount``'s Jacobian (refused before: 'numpy.bincount on an array that
    depends on the inputs is not supported'); traced labels, negative labels, other
    ufuncs' ``reduceat`` refused in one line."""
    labels = np.array([0, 3, 1, 0, 3, 3, 1])
    check(lambda w: np.bincount(labels, weights=np.tanh(w), minlength=6),
          lambda w: jnp.bincount(labels, weights=jnp.tanh(w), length=6),
          [RNG.normal(size=7)])  # fmt: skip
    bad = [
        (lambda w: np.bincount(np.array([0, -1, 2]), weights=w), "non-negative"),
        (lambda w: np.bincount(w, weights=w), "depend on the inputs"),
        (lambda w: np.add.reduceat(w, [0, 3, 1.5]), "integers"),
        (lambda w: np.add.reduceat(w, [0, 5]), "out of bounds"),
        (lambda w: np.multiply.reduceat(w, [0, 2]), "multiply.reduceat"),
    ]
    for f, needle in bad:
        with pytest.raises(InputError, match=needle):
            from_function(f, name="f", sizes=[(3,)], level="array")


def test_a_local_named_as_a_constant_is_renamed_not_refused():
    """A local ``E`` (an energy) or ``pi`` names its vertex after sympy's constants: the
    graph refused it ("vertex 'E': the name is reserved", benchmarks/real_programs6.py's
    numpy_tv_pad_reflect); such a local's vertex takes a made-up name."""

    def f(x, xp=np):
        E = x * 2
        pi = xp.sin(E)
        return xp.sum(E**2 * pi)

    graph = check(f, lambda x: f(x, jnp), [RNG.normal(size=5)])
    assert not {"E", "pi"} & set(graph.vertices)


def test_an_argument_named_as_a_constant_is_renamed_not_refused():
    """An argument ``E`` (an embedding table, an energy, Young's modulus) or ``pi``, as an
    input or in params= (NumPy; JAX without), Jacobian and Hessian: the graph refused it
    ("vertex 'E': the name is reserved"); its vertex is ``E_`` now (``E__`` where the
    function has an ``E_`` too), and the values are JAX's."""
    import dgraph

    def f(E, w, pi, E_):
        return np.sum(np.tanh(E @ w) ** 2) * pi + np.sum(E * E_**2)

    def fj(E, w, pi, E_):
        return jnp.sum(jnp.tanh(E @ w) ** 2) * pi + jnp.sum(E * E_**2)

    args = [RNG.normal(size=(3, 2)), RNG.normal(size=2), 1.5, RNG.normal(size=(3, 2))]
    graph = from_function(f, sizes=[np.shape(a) for a in args], level="array")
    assert graph.inputs == ["E__", "w", "pi_", "E_"]
    for source, params in ((f, ["E", "pi"]), (fj, [])):
        free = [k for k, name in enumerate(["E", "w", "pi", "E_"]) if name not in params]
        flat = np.concatenate([np.ravel(args[k]) for k in free])
        rest = [np.ravel(args[k]) for k in range(4) if k not in free]

        def g(x, free=free):
            full, at = list(args), 0
            for k in free:
                size = np.size(args[k])
                full[k] = x[at : at + size].reshape(np.shape(args[k]))
                at += size
            return fj(*full)

        method = "symbolic" if params else "reverse"  # the choice's: the same code
        J = dgraph.make_function(source, params=params, point=args, method=method)
        got = J(flat, np.concatenate(rest)) if rest else J(flat)
        want = jref.jacobian(g)(jnp.asarray(flat))
        np.testing.assert_allclose(np.ravel(got), want, rtol=1e-10, atol=1e-12)
        H = dgraph.hessian(source, *args, params=params)
        want = jref.hessian(g)(jnp.asarray(flat))
        blocks = H(*[args[k] for k in free], *[args[k] for k in range(4) if k not in free])
        if isinstance(blocks, tuple):
            sizes = [np.size(args[k]) for k in free]
            blocks = np.block(
                [[np.reshape(b, (m, n)) for n, b in zip(sizes, row, strict=True)]
                 for m, row in zip(sizes, blocks, strict=True)]
            )  # fmt: skip
        np.testing.assert_allclose(blocks, want, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize(
    ("source", "destination"), [(0, -1), ([0, 1], [1, 0]), ([0, 2], [2, 0]), ((2, 0), (0, 1))]
)
def test_moveaxis_is_a_transpose(source, destination):
    """``np.moveaxis`` with one axis or several, in any order (was refused: 'numpy.moveaxis
    on an array that depends on the inputs is not supported'); repeated axes one line."""

    def moved(xp):
        return lambda u: (
            xp.sin(xp.moveaxis(u, source, destination))
            * xp.arange(24.0).reshape(np.moveaxis(np.zeros((2, 3, 4)), source, destination).shape)
        )

    check(moved(np), moved(jnp), [RNG.normal(size=(2, 3, 4))])
    with pytest.raises(InputError, match="distinct axes"):
        from_function(lambda u: np.moveaxis(u, [0, 0], [1, 2]), sizes=[(2, 3, 4)], level="array")


_PASSIVE_MOVES = {  # a value with no derivative (sign, floor, round), moved
    "concatenate": lambda xp: lambda u: xp.concatenate([xp.sign(u), u**2]) * xp.arange(12.0),
    "stack": lambda xp: lambda u: xp.stack([xp.floor(2 * u), u]).ravel() * xp.arange(12.0),
    "reshape": lambda xp: lambda u: (xp.sign(u).reshape(2, 3) * u.reshape(2, 3) ** 2).ravel(),
    "roll": lambda xp: lambda u: xp.roll(xp.round(u), 1) * u,
    "slice": lambda xp: lambda u: xp.sign(u)[::-1] * u + xp.sign(u)[None, 2:4].T.ravel()[0] * u,
    "flip": lambda xp: lambda u: xp.flip(xp.floor(u.reshape(2, 3)), axis=1).ravel() * u**2,
    "matmul": lambda xp: (
        lambda u: xp.concatenate(
            [
                (xp.sign(u.reshape(2, 3)).T @ u.reshape(2, 3)).ravel(),
                u.reshape(2, 3) @ xp.sign(u[3:]),
            ]
        )
    ),
}


@pytest.mark.parametrize("name", sorted(_PASSIVE_MOVES))
def test_moves_of_values_without_derivative(name):
    """``np.sign(x).reshape(2, 3)``, ``np.concatenate([np.sign(x), x**2])``, ``np.roll`` of
    ``np.round(x)``, slices of ``np.sign(x)``, ``np.sign(X).T @ X`` (were refused: 'numpy.
    concatenate of a comparison', "'Passive' object has no attribute 'reshape'", 'a product
    (@) with a comparison'): the move (the product's operand) nested in the value,
    which carries no derivative; a comparison itself is still refused in one line."""
    make = _PASSIVE_MOVES[name]
    check(make(np), make(jnp), [RNG.normal(size=6)])


def test_a_moved_comparison_is_one_line():
    with pytest.raises(InputError, match=r"numpy\.concatenate of a comparison"):
        from_function(lambda u: np.concatenate([u > 0, u]), sizes=[(6,)], level="array")
    with pytest.raises(InputError, match=r"a product \(@\) with a comparison"):
        from_function(lambda u: (u > 0) @ u, sizes=[(6,)], level="array")
