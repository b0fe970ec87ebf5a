"""Chains of gathered scalings folded before the gather (codegen/tensor/gather_scale.py),
formulas reading computed square roots (formula_reuse.py), constant pads and masks as
writes (numpy_pad.py): the values stay those of the plain statements."""

import numpy as np
import pytest

from dgraph.codegen.ir import ArrayStatement as S
from dgraph.codegen.ir import BinOp, Call, Const, Index, Name
from dgraph.codegen.tensor.gather_scale import folded_scalings


def _run(statements, env):
    """The statements evaluated with NumPy (the node kinds the pass reads and writes)."""
    env = dict(env)

    def ev(n):
        if isinstance(n, Name):
            return env[n.id]
        if isinstance(n, Const):
            return n.value
        if isinstance(n, Index):
            return ev(n.value)[ev(n.items[0])]
        if isinstance(n, Call) and n.func == "ravel":
            return np.ravel(ev(n.args[0]))
        assert isinstance(n, BinOp) and n.op == "*"
        return ev(n.left) * ev(n.right)

    for s in statements:
        env[s.target] = ev(s.value)
    return env


def _chain():
    K, L = Name("K"), Name("L")
    rav = lambda x: Call("ravel", (Name(x),))  # noqa: E731
    return [
        S("r1", BinOp("*", Index(Name("p"), (K,)), rav("x"))),
        S("r2", BinOp("*", Index(Name("q"), (K,)), rav("r1"))),
        S("r3", BinOp("*", Name("c"), rav("r2"))),  # c: a vector of one value
        S("t1", BinOp("*", Index(Name("a"), (K,)), rav("r3"))),
        S("t2", BinOp("*", Index(Name("b"), (K,)), rav("r3"))),
        S("u", BinOp("*", Index(Name("a"), (L,)), rav("t2"))),  # another index: kept
    ]


def test_a_chain_of_scalings_gathers_once_per_reader_with_the_same_values():
    rng = np.random.default_rng(3)
    K = np.array([0, 1, 1, 2, 2, 2, 3])
    L = np.array([3, 2, 1, 0, 0, 1, 2])
    env = {k: rng.uniform(0.5, 2.0, 4) for k in "pqab"}
    env |= {"K": K, "L": L, "x": rng.uniform(-1, 1, 7), "c": np.full(7, 0.25)}
    shapes = {k: np.shape(v) for k, v in env.items()}
    statements = _chain()
    shapes |= {s.target: (7,) for s in statements}
    out = folded_scalings(statements, ["t1", "u"], shapes, {"c": env["c"]})
    gathers = [
        s.target for s in out if isinstance(s.value, BinOp) and isinstance(s.value.left, Index)
    ]
    assert gathers == ["t1", "t2", "u"]  # r1, r2, r3 no longer computed over the nonzeros
    assert {"r1", "r2", "r3"}.isdisjoint(s.target for s in out)
    before, after = _run(statements, env), _run(out, env)
    for name in ("t1", "u"):
        np.testing.assert_allclose(after[name], before[name], rtol=1e-15)


def test_a_scaling_read_elsewhere_is_left_as_it_is():
    statements = [*_chain()[:2], S("y", BinOp("*", Name("r1"), Name("r2")))]
    shapes = {"K": (7,), "p": (4,), "q": (4,), "x": (7,), "r1": (7,), "r2": (7,), "y": (7,)}
    assert folded_scalings(statements, ["y"], shapes) == statements  # r1 read as a factor


def test_the_minimal_surface_hessian_gathers_less_writes_in_place_and_matches_jax(monkeypatch):
    """With every statement not wholly demanded narrowed (``WHOLE_ABOVE`` 1; by default
    the padded grid, nearly all of it read, is computed whole and nothing is gathered
    from it to scale)."""
    jax = pytest.importorskip("jax")
    from dgraph.codegen.tensor import triangle

    monkeypatch.setattr(triangle, "WHOLE_ABOVE", 1.0)
    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp

    import dgraph

    m = 20  # the rows a scaling gathers from (the padded grid's) at most an eighth more

    def f(u):  # benchmarks/hessian_functions.py's minsurf on an m x m grid
        h = 1.0 / (m + 1)
        edge = 1.0 - (2.0 * jnp.linspace(0.0, 1.0, m + 2) - 1.0) ** 2
        p = jnp.pad(jnp.reshape(u, (m, m)), 1).at[0, :].set(edge).at[-1, :].set(edge)
        dx_low, dy_low = (p[1:, :-1] - p[:-1, :-1]) / h, (p[:-1, 1:] - p[:-1, :-1]) / h
        dx_up, dy_up = (p[1:, 1:] - p[:-1, 1:]) / h, (p[1:, 1:] - p[1:, :-1]) / h
        area = jnp.sqrt(1.0 + dx_low**2 + dy_low**2) + jnp.sqrt(1.0 + dx_up**2 + dy_up**2)
        return 0.5 * h * h * jnp.sum(area)

    x = np.random.default_rng(1).uniform(0.0, 0.5, m * m)
    H = dgraph.make_function(f, "hessian", "python", point=[x], sparse=True)
    text = H.gradient.generated.text
    assert "_k = " in text  # a product over the rows, gathered once
    assert "numpy.pad(" not in text and "numpy.where(" not in text  # numpy_pad.py's lines
    assert "broadcast_to(" not in text  # scatter-adds into their new base vectors
    assert "= (0.5)/v_sqrt" in text  # the forward sweep's square roots read again
    want = jax.jit(jax.hessian(f))(jnp.asarray(x))
    np.testing.assert_allclose(H(x).toarray(), want, rtol=1e-12, atol=1e-12)


def test_a_formula_reads_a_square_root_computed_before():
    import sympy

    from dgraph.codegen.ir import Formula
    from dgraph.codegen.tensor.formula_reuse import reused_calls

    a = sympy.Symbol("_a0", real=True)
    root = S("v", Call("sqrt", (Name("x"),)))
    d = S("d", Formula(1 / (2 * sympy.sqrt(a)) + a, ((a, Name("x")),)))
    new = reused_calls([root, d])[1].value
    assert {n.id for _, n in new.operands} == {"x", "v"}
    x = np.array([0.25, 4.0])
    env = {str(s): {"x": x, "v": np.sqrt(x)}[n.id] for s, n in new.operands}
    value = sympy.lambdify(list(env), new.expr)(*env.values())
    np.testing.assert_array_equal(value, 1 / (2 * np.sqrt(x)) + x)
    assert reused_calls([d, root]) == [d, root]  # the root after the formula: not read
