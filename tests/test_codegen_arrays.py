"""Code on whole arrays for tensor graphs: the generated NumPy and JAX Jacobians (dense and
sparse) equal jax.jacfwd of the same function written in jax.numpy; the text has one
statement per array or block operation (its length does not grow with the grid)."""

from __future__ import annotations

import numpy as np
import pytest

from dgraph.blocks.arrays import ArrayOp
from dgraph.codegen.function import make_function
from dgraph.codegen.tensor import tensor_module
from dgraph.codegen.tensor.check import dense_result
from dgraph.core.graph import DGraph
from dgraph.errors import DGraphError
from dgraph.methods import accumulate
from tests import jax_reference as jref

try:  # the graphs below build without JAX (tests/test_codegen_c_values.py uses them)
    import jax
    import jax.numpy as jnp
except ImportError:
    jax = jnp = None
pytestmark = pytest.mark.skipif(jax is None, reason="JAX is not installed")


def _op(name, operands, shape, **params):
    return ArrayOp(name, tuple(operands), tuple(params.items()), tuple(shape))


def _slice(u, start, limit):
    shape = tuple(e - s for s, e in zip(start, limit, strict=True))
    return _op("slice", [u], shape, start_indices=start, limit_indices=limit, strides=None)


# -- the graphs, each with the same function in jax.numpy ----------------------------------


def mlp():
    numbers = (((1,), (0,)), ((), ()))
    g = DGraph("mlp layer")
    g.add_array_vertex("x", "input", (5, 3))
    g.add_array_vertex("W", "input", (3, 4))
    dot = _op("dot_general", ["x", "W"], (5, 4), dimension_numbers=numbers)
    g.add_array_vertex("h", "intermediate", (5, 4), dot)
    g.add_array_vertex("t", "intermediate", (5, 4), _op("tanh", ["h"], (5, 4)))
    g.add_array_vertex("y", "output", (5,), _op("reduce_sum", ["t"], (5,), axes=(1,)))
    return g.validate(), lambda x, W: jnp.sum(jnp.tanh(x @ W), axis=1)


def chain():
    g = DGraph("elementwise chain")
    g.add_array_vertex("x", "input", (6,))
    g.add_array_vertex("z", "input", (6,))
    steps = [("sin", ["x"]), ("exp", ["v0"]), ("mul", ["v1", "z"]), ("tanh", ["v2"])]
    steps += [("div", ["v3", "z"]), ("max", ["v4", "v0"]), ("cos", ["v5"])]
    for k, (name, operands) in enumerate(steps):
        v, role = (f"v{k}", "intermediate") if k < len(steps) - 1 else ("y", "output")
        g.add_array_vertex(v, role, (6,), _op(name, operands, (6,)))

    def f(x, z):
        v0 = jnp.sin(x)
        return jnp.cos(jnp.maximum(jnp.tanh(jnp.exp(v0) * z) / z, v0))

    return g.validate(), f


def stencil_1d(n=12):
    """r = u[2:] - 2 u[1:-1] + u[:-2] + u[1:-1]**3: a sparse (tridiagonal) block."""
    m = n - 2
    g = DGraph("stencil 1-D")
    g.add_array_vertex("u", "input", (n,))
    g.add_array_vertex("a", "intermediate", (m,), _slice("u", (2,), (n,)))
    g.add_array_vertex("b", "intermediate", (m,), _slice("u", (1,), (n - 1,)))
    g.add_array_vertex("c", "intermediate", (m,), _slice("u", (0,), (n - 2,)))
    g.add_array_vertex("b2", "intermediate", (m,), _op("mul", ["b", 2.0], (m,)))
    g.add_array_vertex("d", "intermediate", (m,), _op("sub", ["a", "b2"], (m,)))
    g.add_array_vertex("e", "intermediate", (m,), _op("add", ["d", "c"], (m,)))
    g.add_array_vertex("cube", "intermediate", (m,), _op("integer_pow", ["b"], (m,), y=3))
    g.add_array_vertex("r", "output", (m,), _op("add", ["e", "cube"], (m,)))
    return g.validate(), lambda u: u[2:] - 2 * u[1:-1] + u[:-2] + u[1:-1] ** 3


def stencil_2d(n=6):
    """The 5-point Laplacian on the interior plus u³, padded to the grid, plus u."""
    m = n - 2
    g = DGraph("stencil 2-D")
    g.add_array_vertex("u", "input", (n, n))
    parts = {
        "up": ((0, 1), (m, n - 1)),
        "down": ((2, 1), (n, n - 1)),
        "left": ((1, 0), (n - 1, m)),
        "right": ((1, 2), (n - 1, n)),
        "mid": ((1, 1), (n - 1, n - 1)),
    }
    for name, (start, limit) in parts.items():
        g.add_array_vertex(name, "intermediate", (m, m), _slice("u", start, limit))
    s = (m, m)
    g.add_array_vertex("s1", "intermediate", s, _op("add", ["up", "down"], s))
    g.add_array_vertex("s2", "intermediate", s, _op("add", ["s1", "left"], s))
    g.add_array_vertex("s3", "intermediate", s, _op("add", ["s2", "right"], s))
    g.add_array_vertex("m4", "intermediate", s, _op("mul", ["mid", -4.0], s))
    g.add_array_vertex("lap", "intermediate", s, _op("add", ["s3", "m4"], s))
    g.add_array_vertex("cube", "intermediate", s, _op("integer_pow", ["mid"], s, y=3))
    g.add_array_vertex("res", "intermediate", s, _op("add", ["lap", "cube"], s))
    pad = _op("pad", ["res", 0.0], (n, n), padding_config=((1, 1, 0), (1, 1, 0)))
    g.add_array_vertex("full", "intermediate", (n, n), pad)
    g.add_array_vertex("r", "output", (n, n), _op("add", ["full", "u"], (n, n)))

    def f(u):
        mid = u[1:-1, 1:-1]
        lap = u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4 * mid
        return jnp.pad(lap + mid**3, 1) + u

    return g.validate(), f


def moves():
    """transpose, reshape, broadcast_in_dim (both ways), a product and a sum."""
    g = DGraph("moves")
    g.add_array_vertex("x", "input", (2, 3))
    g.add_array_vertex("z", "input", (4,))
    g.add_array_vertex(
        "t", "intermediate", (3, 2), _op("transpose", ["x"], (3, 2), permutation=(1, 0))
    )
    g.add_array_vertex(
        "r", "intermediate", (6,), _op("reshape", ["t"], (6,), new_sizes=(6,), dimensions=None)
    )
    bx = _op("broadcast_in_dim", ["r"], (4, 6), broadcast_dimensions=(1,))
    g.add_array_vertex("b", "intermediate", (4, 6), bx)
    g.add_array_vertex("e", "intermediate", (4, 6), _op("exp", ["b"], (4, 6)))
    bz = _op("broadcast_in_dim", ["z"], (4, 6), broadcast_dimensions=(0,))
    g.add_array_vertex("bz", "intermediate", (4, 6), bz)
    g.add_array_vertex("m", "intermediate", (4, 6), _op("mul", ["e", "bz"], (4, 6)))
    g.add_array_vertex("y", "output", (6,), _op("reduce_sum", ["m"], (6,), axes=(0,)))

    def f(x, z):
        b = jnp.broadcast_to(x.T.reshape(6), (4, 6))
        return jnp.sum(jnp.exp(b) * z[:, None], axis=0)

    return g.validate(), f


def extremes():
    g = DGraph("reduce_max")
    g.add_array_vertex("x", "input", (3, 4))
    g.add_array_vertex("s", "intermediate", (3, 4), _op("sin", ["x"], (3, 4)))
    g.add_array_vertex("m", "intermediate", (3,), _op("reduce_max", ["s"], (3,), axes=(1,)))
    g.add_array_vertex("y", "output", (3,), _op("exp", ["m"], (3,)))
    return g.validate(), lambda x: jnp.exp(jnp.max(jnp.sin(x), axis=1))


GRAPHS = [mlp, chain, stencil_1d, stencil_2d, moves, extremes]


def _expected(g, f, inputs):
    """jax.jacfwd over every input: one output's blocks, a tuple over the inputs. Kept per
    function (its code; not for a closure or defaults) and point: the parametrizations of one graph
    (python/jax, dense/sparse, jitted or not, the methods) compare with one compiled
    reference instead of compiling the same program again for each (a jit of a new
    ``jacfwd`` closure is a new function to JAX)."""
    arrays = [np.asarray(inputs[x], dtype=np.float64) for x in g.inputs]
    key = (f.__code__, tuple(g.inputs), tuple((a.shape, a.tobytes()) for a in arrays))
    if f.__closure__ or f.__defaults__ or key not in _EXPECTED:  # values not in the key
        with jax.enable_x64(True):
            args = [jnp.asarray(a) for a in arrays]
            jac = jax.jit(jax.jacfwd(f, argnums=tuple(range(len(args)))))(*args)
            blocks = [np.array(block) for block in jac]
        for block in blocks:
            block.setflags(write=False)
        _EXPECTED[key] = blocks
    return list(_EXPECTED[key])


_EXPECTED: dict[tuple, list[np.ndarray]] = {}


def _agrees(g, J, got_fn, inputs):
    """The generated Jacobian is jax.jacfwd's pytree: the array for one input, else a tuple
    over the inputs; a dense block of shape y.shape + x.shape, a sparse one (y.size, x.size)."""
    expected = _expected(g, J, inputs)
    got = got_fn(*(inputs[x] for x in g.inputs))
    blocks = got if len(g.inputs) > 1 else (got,)
    assert isinstance(blocks, tuple) and len(blocks) == len(expected)
    (y,) = g.outputs
    rows = int(np.prod(g.shape(y)))
    for x, block, value in zip(g.inputs, blocks, expected, strict=True):
        sparse = hasattr(block, "toarray") or hasattr(block, "todense")
        assert block.shape == ((rows, value.size // rows) if sparse else value.shape), x
        part = dense_result(block, value.shape)
        assert np.allclose(part, value, rtol=1e-10, atol=1e-12), x


# Every graph dense and sparse in NumPy; in JAX (each case an eager check and a jit, the
# file's largest cost) every graph once, dense and sparse in turn: the JAX printer's paths
# are the NumPy printer's (coverage the same), and each layout is met on three graphs
JACFWD_CASES = [
    *((build, "python", sparse) for build in GRAPHS for sparse in (False, True)),
    *((build, "jax", k % 2 == 1) for k, build in enumerate(GRAPHS)),
]


@pytest.mark.parametrize(
    ("build", "lang", "sparse"),
    JACFWD_CASES,
    ids=[f"{'sparse' if s else 'dense'}-{lang}-{b.__name__}" for b, lang, s in JACFWD_CASES],
)
def test_generated_jacobian_equals_jacfwd(build, lang, sparse):
    g, f = build()
    rng = np.random.default_rng(7)
    inputs = {x: rng.uniform(0.5, 1.5, g.shape(x)) for x in g.inputs}
    J = make_function(g, "jacobian", lang, sparse=sparse)
    assert J.generated.verified and "central differences" in J.generated.check.detail
    if lang == "python":
        _agrees(g, f, J, inputs)
        if sparse:
            import scipy.sparse

            got = J(*inputs.values())
            assert all(map(scipy.sparse.issparse, got if isinstance(got, tuple) else [got]))
            whole = J.stacked(*inputs.values())  # one matrix: outputs by inputs
            parts = got if isinstance(got, tuple) else (got,)
            assert scipy.sparse.issparse(whole) and (whole != scipy.sparse.hstack(parts)).nnz == 0
        return
    with jax.enable_x64(True):
        _agrees(g, f, J, inputs)
        _agrees(g, f, jax.jit(J), inputs)  # jit-compatible


@pytest.mark.parametrize("method", ["forward", "reverse", "markowitz"])
def test_every_method_gives_the_same_jacobian(method):
    for build in (mlp, stencil_2d, moves):
        g, f = build()
        inputs = {x: np.random.default_rng(1).uniform(0.5, 1.5, g.shape(x)) for x in g.inputs}
        _agrees(g, f, make_function(g, method=method), inputs)


@pytest.mark.parametrize("build", [stencil_1d, stencil_2d], ids=["1-D", "2-D"])
@pytest.mark.parametrize("lang", ["python", "jax"])
def test_text_does_not_grow_with_the_grid(build, lang):
    """One statement per operation: the same number of lines at two grid sizes, and the
    stencil's block handled as a sparse pattern (sums scattered through index arrays,
    the constant ones computed once, outside the function)."""
    small, large = build(6)[0], build(14)[0]
    texts = [tensor_module(accumulate(g, "reverse"), lang, sparse=True) for g in (small, large)]
    bodies = [t[t.index("def jacobian") :] for t in texts]
    assert len(bodies[0].splitlines()) == len(bodies[1].splitlines())
    if lang == "python":
        assert "_scatter_add(" in texts[1]
    else:  # scattered, or spread where the positions step evenly (gathers.spread)
        assert ".at[" in texts[1] or "jnp.ravel(jnp.pad(jnp.reshape(" in texts[1]
    dense = [tensor_module(accumulate(g, "forward"), lang) for g in (small, large)]
    bodies = [t[t.index("def jacobian") :] for t in dense]
    assert len(bodies[0].splitlines()) == len(bodies[1].splitlines())


def test_sparse_output_keeps_the_pattern_only():
    g, _ = stencil_1d(40)
    J = make_function(g, "jacobian", sparse=True)
    block = J(np.linspace(0.5, 1.5, 40))
    assert block.shape == (38, 40) and block.nnz == 3 * 38  # tridiagonal, no dense n×n


def test_other_languages_are_refused_on_tensor_graphs():
    g, _ = mlp()
    with pytest.raises(DGraphError, match="python, jax or c"):
        make_function(g, "jacobian", "cuda")
    # C: the sparse jacobian's values, dense blocks too (test_codegen_c_values)
    assert make_function(g, "jacobian", "c").generated.verified


def test_a_constant_array_operand_scales_entrywise():
    """mul by a constant array: its block is diag(c), not c[0]·I (arrays.py's kind)."""
    g = DGraph("scaled")
    g.add_array_vertex("u", "input", (3,))
    c = np.array([1.0, 2.0, 3.0])
    g.add_array_vertex("y", "output", (3,), _op("mul", ["u", c], (3,)))
    J = make_function(g.validate())
    assert np.allclose(J(np.ones(3)), np.diag(c))


def test_a_sum_with_a_dense_block_stays_dense():
    """exp(u) + W u: a diagonal plus a full block is a dense block (never a pattern of
    every entry), its values scattered once; the code agrees with jax.jacfwd."""
    import jax
    import jax.numpy as jnp

    from dgraph import accumulate, from_jax, make_function
    from dgraph.core.block_costs import expression_blocks

    w = np.linspace(-1.0, 1.0, 36).reshape(6, 6)

    def f(u):
        return jnp.exp(u) + w @ u

    u = np.linspace(0.2, 1.2, 6)
    g = from_jax(f, u, level="array")
    es = accumulate(g, "forward")
    assert es.verified
    ((_, _, block),) = [p for key, p in expression_blocks(es)[0].items() if key == ("y", "u")]
    assert block.type_name == "dense" and block.stored == 36
    with jax.enable_x64(True):
        expected = np.asarray(jref.jacfwd(f)(jnp.asarray(u)))
        for lang in ("python", "jax"):
            J = make_function(es, "jacobian", lang=lang)(u)
            assert np.allclose(np.asarray(J), expected)


# All pairs of graph × language, graph × layout and language × layout (6 of the 12
# cases: the layout is the result's assembly, the same for every graph)
BOTH_CASES = [
    (mlp, "python", False),
    (mlp, "jax", True),
    (stencil_2d, "python", True),
    (stencil_2d, "jax", False),
    (moves, "python", False),
    (moves, "jax", True),
]


@pytest.mark.parametrize(
    ("build", "lang", "sparse"),
    BOTH_CASES,
    ids=[f"{'sparse' if s else 'dense'}-{lang}-{b.__name__}" for b, lang, s in BOTH_CASES],
)
def test_value_and_jacobian_returns_the_outputs_and_the_jacobian(build, lang, sparse):
    """(F, J): F the program's output (an array of its shape, dense or sparse alike), J as
    ``jacobian`` gives it; both equal JAX's."""
    g, f = build()
    rng = np.random.default_rng(11)
    inputs = {x: rng.uniform(0.5, 1.5, g.shape(x)) for x in g.inputs}
    both = make_function(g, "value_and_jacobian", lang, sparse=sparse)
    assert both.generated.verified and "its F(x) against the array program" in (
        both.generated.check.detail
    )
    with jax.enable_x64(True):
        F, J = both(*inputs.values())
        (y,) = g.outputs
        expected = np.asarray(f(*(jnp.asarray(inputs[x]) for x in g.inputs)))
        got = np.asarray(F)
        assert got.shape == expected.shape and g.shape(y) == expected.shape
        assert np.allclose(got, expected, rtol=1e-12, atol=1e-12)
        _agrees(g, f, lambda *a: J, inputs)


def test_a_constant_jacobian_is_a_fresh_copy_per_call():
    """uᵀ + 2·u[::-1]: every block a constant, so the Jacobian is computed once, at
    generation; a caller who changes the returned matrix does not change the next call's."""
    from dgraph.frontends import from_function

    g = from_function(lambda u: u.T + 2 * u[::-1], sizes=[(3, 3)], level="array")
    point = np.ones((3, 3))
    for sparse in (True, False):
        J = make_function(g, "jacobian", sparse=sparse)
        assert "def jacobian" in J.generated.text
        first = J(point)
        kept = np.asarray(first.toarray() if sparse else first).copy()
        (first.data if sparse else first)[...] = 7.0
        again = J(point)
        assert np.array_equal(np.asarray(again.toarray() if sparse else again), kept)
        expected = np.zeros((3, 3, 3, 3))
        for i in range(3):
            for j in range(3):
                expected[i, j, j, i] += 1.0
                expected[i, j, 2 - i, j] += 2.0
        assert np.array_equal(kept.reshape(3, 3, 3, 3), expected)  # 17 nonzeros, one 3


@pytest.mark.parametrize("method", ["forward", "reverse", "markowitz"])
def test_the_steps_price_is_what_the_built_set_counts(method):
    """make_function picks the cheapest method by its steps' block multiplications: the
    same number the built expression set counts again (``es.mults``)."""
    for build in GRAPHS:
        es = accumulate(build()[0], method, verify=False)
        assert sum(step.mults for step in es.steps) == es.mults, build.__name__


def test_a_transposed_outer_product_is_built_in_the_order_read():
    """d y / d W through W.T (AlphaGrad's MLP layer): the batch of outer products is one
    einsum in the output's order, not an einsum then a permutation (XLA copies it), and
    the JAX code agrees with jax.jacrev."""
    from dgraph import from_jax

    def f(x, w):
        return jnp.sum(jnp.tanh(x @ w.T), axis=1)

    x = np.linspace(0.1, 1.0, 15).reshape(5, 3)
    w = np.linspace(-1.0, 1.0, 12).reshape(4, 3)
    g = from_jax(f, x, w, level="array")
    text = tensor_module(accumulate(g, "reverse"), "jax")
    assert "'abc->acb'" not in text and "jnp.einsum('ab,ca->abc'" in text
    assert "'abc->acb'" in tensor_module(accumulate(g, "reverse"), "python")  # JAX only
    J = make_function(g, "jacobian", "jax", method="reverse")
    with jax.enable_x64(True):
        expected = jref.jacrev(f, argnums=(0, 1))(x, w)
        got = jax.jit(J)(x, w)  # one output, two inputs: a tuple over the inputs
        assert len(got) == len(expected) == 2
        for k in range(2):
            assert np.allclose(got[k], expected[k], rtol=1e-12)


def test_only_single_use_products_without_contraction_are_folded():
    from dgraph.codegen.ir import ArrayStatement, BinOp, Call, Const, Name
    from dgraph.codegen.tensor.fuse import fold_permutations

    def einsum(spec, *names):
        return Call("einsum", (Const(spec), *(Name(n) for n in names)))

    def lines(statements):  # as the JAX module prints them
        printer = JaxArrayPrinter()
        return [printer.statement(s) for s in statements]

    from dgraph.codegen.jaxcode import JaxArrayPrinter

    returned = ["t2", "t4"]
    r1 = ArrayStatement("r1", einsum("ab,ca->acb", "u", "v"))
    outer = [r1, ArrayStatement("t2", BinOp("+", einsum("abc->acb", "r1"), Const(1)))]
    assert lines(fold_permutations(outer, returned)) == [
        "    r1 = jnp.einsum('ab,ca->abc', u, v)",
        "    t2 = r1 + 1",
    ]
    summed = [r1, ArrayStatement("t2", einsum("abc->b", "r1"))]
    assert lines(fold_permutations(summed, returned)) == ["    t2 = jnp.einsum('ab,ca->c', u, v)"]
    permuted = ArrayStatement("t2", einsum("abc->acb", "r1"))
    dot = [ArrayStatement("r1", einsum("abc,dc->abd", "u", "v")), permuted]
    twice = [r1, permuted, ArrayStatement("t4", BinOp("*", Name("r1"), Const(2)))]
    scaled = [ArrayStatement("r1", BinOp("*", einsum("ab,ca->acb", "u", "v"), Const(2))), permuted]
    for statements in (dot, twice, scaled):
        assert fold_permutations(statements, returned) == statements


def test_the_check_finds_one_wrong_entry_where_j_v_cancels():
    """Each entry of J·v is measured against |J|·|v| (the terms it sums), not against J·v:
    the stencil's J·v cancels, and one Jacobian entry changed by 10⁻³ of its size still
    fails the check; the code as generated passes."""
    from dgraph.codegen.tensor.check import check_tensor

    g, _ = stencil_2d()
    es = accumulate(g, "forward")
    J = make_function(es, "jacobian", sparse=True)
    assert check_tensor(J._function, es, "python").ok

    def changed(*arrays):
        got = J._function(*arrays)  # the module's own function, as check_tensor reads it
        got.data[3] *= 1 + 1e-3
        return got

    check = check_tensor(changed, es, "python")
    assert check.ran and not check.ok and check.status == "wrong"
    assert 1e-4 < check.errors["jacobian"] < 1e-2


@pytest.mark.parametrize("lang", ["python", "jax"])
def test_varying_parts_are_added_to_one_copy(lang):
    """The Brusselator's four varying diagonals (∂u'/∂u, ∂u'/∂v, ∂v'/∂u, ∂v'/∂v) are added
    to one copy of the constant values in one statement: at 10⁶ unknowns each copy is
    48 MB (benchmarks/RESULTS.md, "Per call at 10⁶")."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
    from sparse_functions import FUNCTIONS, grid, point

    from dgraph.frontends import from_jax

    x = np.asarray(point("brusselator", grid("brusselator", 200)))
    g = from_jax(FUNCTIONS["brusselator"][0], x, level="array")
    text = tensor_module(accumulate(g, "forward"), lang, sparse=True)
    body = text[text.index("def ") :]
    if lang == "python":
        (call,) = [
            line for line in body.splitlines() if "_scatter_add(" in line and "def " not in line
        ]
        assert call.count(", _K") == 4  # the base, then four (positions, values) parts
    else:
        (call,) = [line for line in body.splitlines() if ".at[" in line]
        spread = "jnp.ravel(jnp.pad(jnp.reshape("  # evenly stepped: gathers.spread
        assert call.count(".at[") + call.count(spread) == 4


@pytest.fixture
def built_methods(monkeypatch) -> list[str]:
    """The methods tensor codegen accumulates, in order, while the test runs."""
    from dgraph.codegen.tensor import function

    methods: list[str] = []
    real = function.accumulate

    def counted(source, method, **options):
        methods.append(method)
        return real(source, method, **options)

    monkeypatch.setattr(function, "accumulate", counted)
    return methods


@pytest.mark.parametrize(
    ("build", "chosen", "built"),
    [(stencil_1d, "forward", ["forward"]), (chain, "reverse", ["reverse", "forward", "markowitz"])],
)  # prices 0, 0, 0 and 66, 54, 60
def test_pricing_keeps_the_cheapest_and_stops_at_zero(built_methods, build, chosen, built):
    """Without a method, make_function prices forward, reverse and markowitz in turn
    (reverse first where the outputs have at most half the inputs' entries: the chain's
    6 of 12) and keeps the cheapest (the first among equals); once one costs no block
    multiplication none can be cheaper, and the rest are not built (a stencil's
    Laplacian: 0.8 s at 10⁶); a later one stops once it costs more than the cheapest."""
    methods = built_methods
    J = make_function(build()[0], "jacobian", sparse=True)
    assert J.generated.expression_set.method == chosen
    assert methods == built


def test_the_choice_is_made_once_per_graph(built_methods):
    """Without a method, a graph's second function (another language, mode, or dense
    where the first was sparse) reuses the verified choice: priced, accumulated and
    verified once, each function's code still checked on its own; a sweep's reference
    set likewise. A pickled graph carries no choice; a changed one chooses again."""
    import pickle

    from dgraph.codegen.tensor import function

    methods = built_methods
    g, f = chain()
    made = [
        make_function(g, mode, sparse=sparse)
        for mode, sparse in [("jacobian", True), ("jacobian", False), ("value_and_jacobian", False)]
    ]
    assert methods == ["reverse", "forward", "markowitz"]  # priced once
    assert all(J.generated.expression_set is made[0].generated.expression_set for J in made)
    assert all(J.generated.verified and J.generated.check.ran for J in made)
    first = make_function(g, "jvp").generated
    assert make_function(g, "jvp").generated.expression_set is first.expression_set
    assert methods == ["reverse", "forward", "markowitz", "forward"]
    assert function.CHOICE not in pickle.loads(pickle.dumps(g)).derived
    g.set_jvp_reference(_jax_jvp(f))  # the same graph checked against JAX: chosen again
    again = make_function(g, "jacobian", sparse=True).generated
    assert methods[4:] == ["reverse", "forward", "markowitz"] and again.verified
    assert again.expression_set is not made[0].generated.expression_set


def _jax_jvp(f):
    """``f``'s J·v by JAX, as a graph's ``jvp_reference`` takes it (by name)."""

    def jvp(inputs, tangents):
        with jax.enable_x64(True):  # in doubles, as the check compares
            _, out = jax.jvp(f, (inputs["x"], inputs["z"]), (tangents["x"], tangents["z"]))
            return {"y": np.asarray(out)}

    return jvp


@pytest.mark.parametrize("lang", ["python", "jax"])
def test_a_scalar_program_prints_as_array_statements_of_shape_0(lang):
    """One IR for both levels: the scalar Jacobian program as array statements of shape ()
    (what its builder made: ``Program.arrays``; the results as one array,
    :func:`dgraph.codegen.lowering.result_entries`), printed by the tensor path's NumPy and
    JAX printers, gives the scalar module's Jacobian."""
    from dgraph.codegen.ir import ArrayStatement
    from dgraph.codegen.jaxcode import JaxArrayPrinter
    from dgraph.codegen.lowering import body_and_stores, result_entries
    from dgraph.codegen.program import jacobian_program
    from dgraph.codegen.python import NumPyArrayPrinter
    from dgraph.frontends import bundled

    g = bundled("naumann_sin.trace")
    es = accumulate(g, "reverse")
    scalar = jacobian_program(es)
    body, _ = body_and_stores(scalar.arrays)
    result = ArrayStatement("jacobian", result_entries(scalar.arrays, scalar.shape))
    printer = NumPyArrayPrinter() if lang == "python" else JaxArrayPrinter()
    x = np.array([0.7, 1.3])
    space = {"numpy": np, "x": x}
    if lang == "jax":
        import jax.numpy as jnp

        space["jnp"] = jnp
    for statement in [*body, result]:
        exec(printer.statement(statement).strip(), space)
    expected = make_function(es, "jacobian")(x)
    expected = expected if isinstance(expected, np.ndarray) else np.asarray(expected)
    tolerance = 1e-13 if lang == "python" else 1e-6  # JAX: single precision by default
    got = np.asarray(space["jacobian"])
    np.testing.assert_allclose(got, expected.reshape(got.shape), rtol=tolerance)


def test_the_scalar_modules_print_through_the_array_printers():
    """One printer per target: the lines of the scalar NumPy kernel and of the C function
    are the array printers' lines for the program's statements of shape () (batch reads
    ``x[..., k]`` and stores ``out[..., i, j]`` in NumPy, ``const double`` in C)."""
    from dgraph.codegen.c import CElementPrinter, c_source
    from dgraph.codegen.lowering import batched, body_and_stores
    from dgraph.codegen.program import jacobian_program
    from dgraph.codegen.python import NumPyArrayPrinter, python_module
    from dgraph.frontends import bundled

    g = bundled("naumann_sin.trace")
    program = jacobian_program(accumulate(g, "reverse"))
    names = {"title": "t", "inputs": g.inputs, "outputs": g.outputs}
    numpy_lines = python_module({"jacobian": program}, **names).splitlines()
    printer = NumPyArrayPrinter("jacobian", module=True)
    statements = batched(program.arrays, "out")
    printed = [printer.statement(s) for s in statements]
    assert "    out[..., 0, 1] = " in "\n".join(printed)
    assert all(line in numpy_lines for line in printed)
    c_lines = c_source({"jacobian": program}, **names).splitlines()
    reads, _ = body_and_stores(program.arrays)
    printed = [CElementPrinter("jacobian").statement(s) for s in reads]
    assert printed and all(line in c_lines for line in printed)
