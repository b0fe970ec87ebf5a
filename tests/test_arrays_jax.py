"""from_jax(..., level="array"): one tensor vertex per jaxpr equation. Each edge's block,
materialized, equals jax.jacfwd of its equation; whole functions evaluate to f's value
and their chain-rule Jacobian over the blocks equals jax.jacfwd(f); dgraph/1 JSON keeps
them."""

from __future__ import annotations

import json

import numpy as np
import pytest

from dgraph.blocks import arrays, to_matrix
from dgraph.errors import InputError
from dgraph.frontends.json_format import from_dict, from_json

jax = pytest.importorskip(
    "jax", reason="JAX is not installed (pip install 'jacobian-accumulation[jax]')"
)
jnp = pytest.importorskip("jax.numpy")
from dgraph.codegen.function import make_function  # noqa: E402
from dgraph.frontends.jaxpr import from_jax  # noqa: E402
from tests import jax_reference as jref  # noqa: E402

jax.config.update("jax_enable_x64", True)
RNG = np.random.default_rng(41)


def _point(*shapes):
    return [RNG.uniform(0.2, 0.9, size=s) for s in shapes]


def _evaluate(g, args) -> dict[str, np.ndarray]:
    """Every vertex's value, in insertion order."""
    values = dict(zip(g.inputs, args, strict=True))
    for v in g.nx:
        if g.op(v) is not None:
            values[v] = arrays.evaluate(g.op(v), values)
    return values


def _edge_matrix(g, u, v, values) -> np.ndarray:
    """∂v/∂u as a dense matrix: the operand positions ``u`` fills, summed."""
    op = g.op(v)
    shapes = [g._operand_shape(x) for x in op.operands]
    total = np.zeros((int(np.prod(g.shape(v))), int(np.prod(g.shape(u)))))
    for k in op.differentiable():
        if op.operands[k] == u:
            block = arrays.operand_block(op, k, shapes)
            total += to_matrix(block, arrays.block_value(op, k, values, block)).toarray()
    return total


def _jacobian(g, args, outputs) -> np.ndarray:
    """The outputs' Jacobian by the dense chain rule over the blocks, in topological order."""
    values = _evaluate(g, args)
    sizes = [a.size for a in args]
    starts = np.cumsum([0, *sizes])
    acc: dict[str, np.ndarray] = {}
    for k, x in enumerate(g.inputs):
        acc[x] = np.zeros((sizes[k], starts[-1]))
        acc[x][:, starts[k] : starts[k + 1]] = np.eye(sizes[k])
    for v in g.nx:
        if g.op(v) is None:
            continue
        acc[v] = np.zeros((int(np.prod(g.shape(v))), starts[-1]))
        for u in g.predecessors(v):
            acc[v] += _edge_matrix(g, u, v, values) @ acc[u]
    return np.vstack([acc[y] for y in outputs])


def _jax_value_and_jacobian(f, args) -> tuple[object, np.ndarray]:
    """f's value and jax.jacfwd of f, every input and output flattened and stacked (in
    one jitted program: one compilation, not one more per eager operation)."""
    value, jacs = jref.references(
        [jref.Reference("value_and_jacfwd", f, tuple(args), tuple(range(len(args))))]
    )[0]
    outs = jacs if isinstance(jacs, (list, tuple)) and isinstance(jacs[0], tuple) else [jacs]
    rows = []
    for out in outs:
        parts = [np.asarray(j) for j in out]
        n = parts[0].size // args[0].size
        rows.append(np.hstack([p.reshape(n, -1) for p in parts]))
    return value, np.vstack(rows)


def _check(f, args, vertices: int | None = None):
    g = from_jax(f, *args, level="array")
    assert g.is_tensor
    values = _evaluate(g, args)
    expected, jacobian = _jax_value_and_jacobian(f, args)
    outs = expected if isinstance(expected, tuple) else (expected,)
    base = "f" if "y" in g.inputs else "y"
    names = [base] if len(outs) == 1 else [f"{base}{k}" for k in range(len(outs))]
    assert sorted(g.outputs) == names  # in evaluation order; named in the order returned
    for y, want in zip(names, outs, strict=True):
        np.testing.assert_allclose(values[y], np.asarray(want), rtol=1e-12, atol=1e-12)
    found = _jacobian(g, args, names)
    np.testing.assert_allclose(found, jacobian, rtol=1e-9, atol=1e-12)
    if vertices is not None:
        assert len(g.intermediates) + len(g.outputs) == vertices, list(g.nx)
    return g


# one equation each: the graph's only vertex is the output, so its Jacobian is the block
# of each edge
ONE_EQUATION = {
    "add": (lambda x, y: x + y, [(3, 2), (3, 2)]),
    "sub": (lambda x, y: x - y, [(3, 2), (3, 2)]),
    "mul": (lambda x, y: x * y, [(3, 2), (3, 2)]),
    "mul-same": (lambda x: x * x, [(4,)]),
    "div": (lambda x, y: x / y, [(3, 2), (3, 2)]),
    "div-scalar": (lambda x: x / 4.0, [(3,)]),
    "neg": (lambda x: -x, [(3,)]),
    "exp": (jnp.exp, [(2, 3)]),
    "log": (jnp.log, [(2, 3)]),
    "log1p": (jnp.log1p, [(3,)]),
    "expm1": (jnp.expm1, [(3,)]),
    "sin": (jnp.sin, [(3,)]),
    "cos": (jnp.cos, [(3,)]),
    "tanh": (jnp.tanh, [(2, 3)]),
    "logistic": (jax.nn.sigmoid, [(2, 3)]),
    "sqrt": (jnp.sqrt, [(3,)]),
    "rsqrt": (jax.lax.rsqrt, [(3,)]),
    "square": (jnp.square, [(3,)]),
    "abs": (jnp.abs, [(3,)]),
    "erf": (jax.lax.erf, [(3,)]),
    "erfc": (jax.lax.erfc, [(3,)]),
    "erf_inv": (jax.lax.erf_inv, [(3,)]),
    "integer_pow": (lambda x: x**3, [(3,)]),
    "pow": (lambda x, y: x**y, [(3,), (3,)]),
    "atan2": (jnp.arctan2, [(3,), (3,)]),
    "relu-max": (lambda x: jnp.maximum(x, 0.0), [(2, 3)]),
    "max": (jnp.maximum, [(4,), (4,)]),
    "min": (jnp.minimum, [(4,), (4,)]),
    "select_n": (lambda x: jnp.where(x > 0.5, x, 3.0), [(2, 3)]),
    "select_n-two": (lambda x, y: jnp.where(x > y, x, y), [(5,), (5,)]),
    "dot_general": (lambda x, w: x @ w, [(3, 4), (4, 2)]),
    "dot_general-batch": (lambda a, b: jnp.einsum("bij,bjk->bik", a, b), [(2, 3, 4), (2, 4, 2)]),
    "dot_general-vector": (jnp.dot, [(4,), (4,)]),
    "reduce_sum": (lambda x: jnp.sum(x, axis=1), [(3, 4)]),
    "reduce_sum-all": (jnp.sum, [(3, 4)]),
    "reduce_max": (lambda x: jnp.max(x, axis=0), [(3, 4)]),
    "reduce_min": (jnp.min, [(3, 4)]),
    "cumsum": (lambda x: jnp.cumsum(x, axis=1), [(2, 4)]),
    "broadcast_in_dim": (lambda x: jnp.broadcast_to(x, (3, 4)), [(4,)]),
    "reshape": (lambda x: x.reshape(2, 6), [(3, 4)]),
    "reshape-explicit": (lambda x: x.reshape(3, 2), [(2, 3)]),
    "transpose": (lambda x: x.T, [(3, 4)]),
    "slice": (lambda x: x[1:3, ::2], [(4, 5)]),
    "pad": (lambda x: jnp.pad(x, ((1, 2), (0, 1))), [(3, 2)]),
    "concatenate": (lambda x, y: jnp.concatenate([x, y, x], axis=1), [(2, 3), (2, 1)]),
    "stack": (lambda x, y: jnp.stack([x, y], axis=1), [(2, 3), (2, 3)]),
    "rev": (lambda x: x[::-1], [(4,)]),
}


@pytest.mark.parametrize("name", list(ONE_EQUATION))
def test_each_primitive_s_blocks_equal_jacfwd(name):
    f, shapes = ONE_EQUATION[name]
    _check(f, _point(*shapes), vertices=1)


def _layer_norm(x):
    m = jnp.mean(x, axis=-1, keepdims=True)
    v = jnp.var(x, axis=-1, keepdims=True)
    return (x - m) / jnp.sqrt(v + 1e-5)


def _stencil(u):
    """A 2-D 5-point residual (zero boundary) with a reaction term."""
    p = jnp.pad(u, 1)
    lap = p[:-2, 1:-1] + p[2:, 1:-1] + p[1:-1, :-2] + p[1:-1, 2:] - 4.0 * u
    return lap - u**2 + 1.0


def _mlp(x, w1, b1, w2):
    h = jnp.tanh(x @ w1 + b1)
    return jax.nn.sigmoid(h @ w2)


WHOLE = {
    "mlp": (_mlp, [(5, 4), (4, 3), (3,), (3, 2)]),
    "softmax": (jax.nn.softmax, [(3, 4)]),
    "log_softmax": (lambda x: jax.nn.log_softmax(x, axis=0), [(3, 4)]),
    "layer_norm": (_layer_norm, [(3, 4)]),
    "stencil": (_stencil, [(5, 5)]),
    "concatenate": (lambda x, y: jnp.concatenate([jnp.exp(x), x * y]), [(3,), (3,)]),
    "max": (lambda x: jnp.max(x, axis=1) * jnp.sum(x), [(3, 4)]),
    "relu": (jax.nn.relu, [(2, 3)]),  # custom_jvp: the rule's select_n, then the sum
    "where-relu": (lambda x: jnp.where(x > 0.5, jax.nn.relu(x - 0.6), x**2), [(6,)]),
    "two-outputs": (lambda x: (jnp.exp(x), jnp.sum(x) * x), [(3,)]),
    "output-is-input": (lambda x: (x, x * 2.0), [(3,)]),
    "stop_gradient": (lambda x: x * jax.lax.stop_gradient(jnp.sum(x)), [(3,)]),
    "jit-call": (lambda x: jax.jit(lambda a: jnp.sin(a) @ a)(x), [(3,)]),
    "constants": (lambda x: x @ (jnp.arange(6.0).reshape(3, 2) + 1.0), [(2, 3)]),
    "stack": (lambda x: jnp.stack([x, x**2]).sum(axis=0), [(2, 3)]),
}


@pytest.mark.parametrize("name", list(WHOLE))
def test_whole_functions_value_and_jacobian(name):
    f, shapes = WHOLE[name]
    _check(f, _point(*shapes))


def test_softmax_reads_the_max_as_a_nested_constant_free_operand():
    g = from_jax(jax.nn.softmax, np.ones((3, 4)), level="array")
    # the max shift is under stop_gradient: no vertex of its own, no edge
    assert not any(g.op(v).primitive == "reduce_max" for v in g.intermediates)
    assert g.inputs == ["x"] and g.outputs == ["y"]
    assert all(g.role(v) == "intermediate" for v in g.intermediates)


def test_stencil_vertices_do_not_grow_with_the_grid():
    small = from_jax(_stencil, np.ones((5, 5)), level="array")
    large = from_jax(_stencil, np.ones((40, 40)), level="array")
    assert len(small.nx) == len(large.nx) < 20
    _check(_stencil, _point((9, 9)))


def test_the_scalar_level_stays_the_default():
    g = from_jax(lambda x: jnp.sin(x) * 2.0, np.ones(3))
    assert not g.is_tensor and g.inputs == ["x0", "x1", "x2"]
    data = g.to_dict()
    assert all("shape" not in v and "op" not in v for v in data["vertices"])
    with pytest.raises(InputError, match="level"):
        from_jax(jnp.sin, 1.0, level="tensor")


def test_names_are_readable():
    g = from_jax(_mlp, *_point((5, 4), (4, 3), (3,), (3, 2)), level="array")
    assert g.inputs == ["x", "w1", "b1", "w2"]
    assert g.outputs == ["y"]
    assert g.intermediates[0] == "dot1"
    short = {"dot_general": "dot", "broadcast_in_dim": "broadcast", "reduce_sum": "sum"}
    assert all(
        v.startswith(short.get(g.op(v).primitive, g.op(v).primitive)) for v in g.intermediates
    )


@pytest.mark.parametrize("name", ["mlp", "softmax", "layer_norm", "stencil", "where-relu"])
def test_json_round_trip(name):
    f, shapes = WHOLE[name]
    g = from_jax(f, *_point(*shapes), level="array")
    text = g.to_json()
    h = from_json(text)
    assert h == g and h.is_tensor
    assert from_dict(json.loads(text)).to_dict() == g.to_dict()


def test_json_keeps_infinite_constants():
    g = from_jax(lambda x: jnp.maximum(x, -jnp.inf) * 2.0, np.ones(2), level="array")
    h = from_json(g.to_json())
    assert h == g


BAD_FILES = {
    "unknown primitive": ({"primitive": "fft", "operands": ["x"]}, [3], "unknown array primitive"),
    "bad shape": ({"primitive": "exp", "operands": ["x"]}, [0], "positive integers"),
    "operand count": ({"primitive": "exp", "operands": ["x", "x"]}, [3], "takes 1 operands"),
    "wrong shape": ({"primitive": "exp", "operands": ["x"]}, [4], "does not fit"),
    "missing param": ({"primitive": "reduce_sum", "operands": ["x"]}, [], "does not fit"),
    "bad param": (
        {"primitive": "reduce_sum", "operands": ["x"], "params": {"axes": "0"}},
        [],
        "params hold",
    ),
    "gather out of range": (
        {"primitive": "gather_flat", "operands": ["x"], "params": {"sources": [0, 3]}},
        [2],
        "sources must be 2 positions in [0, 3)",
    ),
    "scatter positions": (
        {"primitive": "scatter_add", "operands": ["x", "x"], "params": {"targets": [0, 1]}},
        [3],
        "targets must be 3 positions in [-1, 3)",
    ),
    "bad const": (
        {"primitive": "add", "operands": ["x", {"const": [1, "a", 2], "shape": [3]}]},
        [3],
        "not a number",
    ),
}


@pytest.mark.parametrize("case", list(BAD_FILES))
def test_bad_tensor_files_are_one_line(case):
    op, shape, needle = BAD_FILES[case]
    data = {
        "format": "dgraph/1",
        "inputs": ["x"],
        "outputs": ["y"],
        "vertices": [{"id": "x", "shape": [3]}, {"id": "y", "shape": shape, "op": op}],
        "edges": [{"source": "x", "target": "y"}],
    }
    with pytest.raises(InputError) as info:
        from_dict(data)
    assert needle in str(info.value) and "\n" not in str(info.value)


def test_unsupported_and_data_dependent_are_one_line():
    cases = [
        (lambda x: jnp.linalg.qr(x.reshape(1, 4))[1], "qr"),  # a wide one: square is read
        (lambda x: x.at[jnp.argmax(x)].apply(jnp.sin), "scatter"),  # JAX: no derivative
        # single entries at index pairs are one flat take (test_rules_vs_jax); windows
        # of a trailing axis at them are not read
        (lambda x: x.reshape(2, 2, 1)[jnp.argsort(x[:2]), jnp.array([1, 0])], "gather"),
    ]
    for f, needle in cases:
        with pytest.raises(InputError) as info:
            from_jax(f, np.ones(4), level="array")
        assert needle in str(info.value) and "\n" not in str(info.value), str(info.value)
    g = from_jax(lambda x: jnp.ones(3), np.ones(3), level="array")  # JAX's Jacobian: zero
    assert any("does not depend on the inputs" in n for n in g.notes)
    assert make_function(g, "jacobian", "python")(np.ones(3)).tolist() == [[0.0] * 3] * 3


def test_gathers_of_constant_indices_along_one_axis_are_takes():
    import dgraph
    from dgraph import accumulate, from_jax

    def f(u):
        rows = u[jnp.array([2, 0, 3])]
        cols = u[:, jnp.array([1, 1, 0, 3])][:3]
        return jnp.sin(rows) * cols + jnp.take(u, jnp.array([4, 0, 1]), axis=0)

    u = np.random.default_rng(0).uniform(0.5, 1.5, (5, 4))
    g = from_jax(f, u, level="array")
    assert [g.op(v).primitive for v in g.intermediates].count("take") == 3
    assert accumulate(g, "reverse").verified
    jacobian = dgraph.make_function(g, "jacobian", lang="jax")
    J, want = jax.jit(lambda u: (jacobian(u), jax.jacfwd(f)(u)))(u)  # one compilation
    assert np.allclose(J, want)


def test_a_gather_of_two_axes_at_once_is_a_selection():
    """Once refused in one line; now a gather of flat positions, its block the selection
    of the entries read, equal to JAX's Jacobian."""
    from dgraph import from_jax
    from dgraph.blocks import Sparse

    def f(u):
        return u[jnp.array([0, 1]), jnp.array([1, 2])]

    u = np.arange(1.0, 10.0).reshape(3, 3)
    g = from_jax(f, u, level="array")
    (y,) = g.outputs
    assert g.op(y).primitive == "gather_flat"
    block = g.block("u", y)
    assert isinstance(block, Sparse) and block.cols.tolist() == [1, 5]
    J = dgraph_jacobian(g, u)
    np.testing.assert_array_equal(J, np.reshape(jref.jacfwd(f)(u), (2, 9)))


def dgraph_jacobian(g, *args):
    import dgraph

    return np.asarray(dgraph.make_function(g, "jacobian", lang="python")(*args)).reshape(
        -1, sum(np.size(a) for a in args)
    )
