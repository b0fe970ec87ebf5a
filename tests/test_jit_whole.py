"""Dense JAX modules jitted whole (``dgraph.codegen.tensor.jit_arguments.jitted_whole``):
a dense ``jacobian``, ``value_and_jacobian``, ``jvp`` or ``vjp`` of at most ``JIT_MOST``
lines is one jitted program, which the value check runs and the caller gets. Counted,
never timed: the build of a dense Jacobian lowers one program (eagerly, one per
operation and shape: 49 here), the caller's first call in the check's precision none;
the values equal ``jax.jacfwd``'s; a longer body stays eager (the same lines); the
check still refuses a jitted module whose formula is wrong."""

from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy

import dgraph  # noqa: E402
from dgraph.codegen.python import load_python  # noqa: E402
from dgraph.codegen.tensor import jit_arguments  # noqa: E402
from dgraph.codegen.tensor.check import check_tensor  # noqa: E402
from dgraph.codegen.tensor.module import tensor_module  # noqa: E402
from dgraph.methods import accumulate  # noqa: E402
from tests import jax_reference as jref  # noqa: E402
from tests.jax_events import counted  # noqa: E402


def _lowered(call) -> tuple[int, object]:
    """The programs ``call()`` lowers (before XLA's compile cache is asked: counted
    whether or not another process compiled them), and its value."""
    return counted(call)


def f(x):
    y = jnp.sin(x) * jnp.cos(x[::-1]) + x**3 / (1.0 + x**2)
    return jnp.tanh(y) * jnp.sum(y)


N = 11  # a size few other tests use: eager kernels of this shape are not already lowered
X = np.linspace(0.1, 0.9, N)
V = np.linspace(1.0, -0.5, N)


@pytest.fixture(scope="module")
def graph():
    return dgraph.from_jax(f, X, level="array")


@pytest.fixture(scope="module")
def jacobian():
    with jax.enable_x64(True):
        return np.asarray(jref.jacfwd(f)(jnp.asarray(X)))


@pytest.mark.parametrize("mode", ["jacobian", "jvp"])
def test_a_dense_jax_build_lowers_its_module_once(graph, jacobian, mode):
    with jax.enable_x64(True):
        count, F = _lowered(lambda: dgraph.make_function(graph, mode, "jax"))
        assert F.generated.verified
        assert count <= 2  # the module once (eagerly: 49 for the Jacobian)
        assert f"{mode} = _bound({mode})" in F.generated.text
        args = (X,) if mode == "jacobian" else (X, V)
        again, got = _lowered(lambda: F(*args))
    assert again == 0  # the check's program, in the check's precision
    want = jacobian if mode == "jacobian" else jacobian @ V
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-12, atol=1e-14)


def test_a_body_longer_than_jit_most_is_in_pieces_or_stays_eager(monkeypatch):
    """A longer straight-line body: runs of at most ``PIECE`` lines, each jitted
    (``_quick``), called in turn with the names they read and give (from its statements,
    not its text); without statements, or with a store (or a loop): the same lines, not
    jitted, as the eager module printed them."""
    from dgraph.codegen.tensor.constants import Constants

    doc, body, returned = '    """J."""', ["    a = jnp.sin(x)", "    b = a * x"], "    return b"
    whole = jit_arguments.jitted_whole("jacobian", "x", doc, body, returned, Constants())
    assert whole[0] == jit_arguments.BOUND and whole[-1] == "jacobian = _bound(jacobian)"
    assert whole[whole.index("def jacobian(x):") :][:5] == [
        "def jacobian(x):",
        doc,
        *body,
        returned,
    ]
    from dgraph.codegen import ir

    x = ir.Name("x")
    program = [
        ir.ArrayStatement("a", ir.Call("sin", (x,))),
        ir.ArrayStatement("b", ir.BinOp("*", ir.Name("a"), x)),
    ]
    monkeypatch.setattr(jit_arguments, "JIT_MOST", 1)
    monkeypatch.setattr(jit_arguments, "PIECE", 1)
    pieces = jit_arguments.jitted_whole(
        "jacobian", "x", doc, body, returned, Constants(), program, ["b"]
    )
    assert pieces[-4:] == [
        "def jacobian(x):",
        doc,
        "    a, = _jacobian_piece0(x)",
        "    return _jacobian_piece1(a, x)",
    ]
    assert "_jacobian_piece1 = _quick(_jacobian_piece1)" in pieces
    eager = jit_arguments.jitted_whole("jacobian", "x", doc, body, returned, Constants())
    assert eager == ["def jacobian(x):", doc, *body, returned]  # no program: as printed
    stored = [program[0], ir.ArrayStatement("a", ir.Const(1.0), (ir.Const(0),))]
    looped = jit_arguments.jitted_whole(  # a store into an array: not straight-line
        "jacobian", "x", doc, body, returned, Constants(), stored, ["a"]
    )
    assert looped == ["def jacobian(x):", doc, *body, returned]
    header = ["import numpy", "import jax", "import jax.numpy as jnp"]
    module = load_python("\n".join([*header, *pieces]))
    with jax.enable_x64(True):
        np.testing.assert_allclose(module.jacobian(X), np.sin(X) * X, rtol=1e-15)


def test_the_check_refuses_a_wrong_jitted_module(graph):
    es = accumulate(graph, "forward", verify=False)
    text = tensor_module(es, "jax", False)
    assert "jacobian = _bound(jacobian)" in text and text.count("jnp.cos(") >= 1
    good = load_python(text).jacobian
    wrong = load_python(text.replace("jnp.cos(", "jnp.sin(")).jacobian
    assert check_tensor(good, es, "jax").ok
    assert not check_tensor(wrong, es, "jax").ok


def test_a_piece_with_a_long_gather_chain_keeps_xlas_own_emitters(monkeypatch):
    """XLA's older CPU emitters (``_QUICK``'s) compile a fused chain of gathers in time
    growing with the places it reads a value at (ebm's 20-step Jacobian: three pieces of
    5⁶ places, 6-11 CPU-s each; 0.6 with XLA's emitters): ``ir.gather_paths`` counts
    them (the product along a chain of how many gathers read each link), and a piece
    over ``GATHER_PATHS_MOST`` is bound with ``_QUICK_GATHERS`` (the same options less
    that one), one within it keeps ``_QUICK``; the values are the same."""
    from dgraph.codegen import ir
    from dgraph.codegen.tensor.constants import Constants

    x, k, j = ir.Name("x"), ir.Name("k"), ir.Name("j")
    a, b = ir.Name("a"), ir.Name("b")

    def two_gathers(v):  # v[k] * x + v[j] * x: v read at two index arrays
        return ir.BinOp(
            "+", ir.BinOp("*", ir.Index(v, (k,)), x), ir.BinOp("*", ir.Call("take", (v, j)), x)
        )

    program = [
        ir.ArrayStatement("a", ir.Call("sin", (x,))),
        ir.ArrayStatement("b", two_gathers(a)),
        ir.ArrayStatement("c", two_gathers(b)),
    ]
    assert [ir.gather_paths(program[:n]) for n in (1, 2, 3)] == [1, 2, 4]
    assert ir.gather_paths(program[1:]) == 2  # a read from before: not a link
    assert ir.gathered(ir.Index(x, (ir.Slice(0, 2), ir.Const(0)))) == []  # a view
    doc = '    """J."""'
    body = ["    a = jnp.sin(x)", "    b = a[k] * x + jnp.take(a, j) * x"]
    monkeypatch.setattr(jit_arguments, "JIT_MOST", 1)
    monkeypatch.setattr(jit_arguments, "PIECE", 1)
    monkeypatch.setattr(jit_arguments, "GATHER_PATHS_MOST", 1)
    pieces = jit_arguments.jitted_whole(
        "jacobian", "x, k, j", doc, body, "    return b", Constants(), program[:2], ["b"]
    )
    assert "_jacobian_piece0 = _quick(_jacobian_piece0)" in pieces  # sin: no gather
    assert "_jacobian_piece1 = _quick(_jacobian_piece1)" in pieces  # a read from before
    monkeypatch.setattr(jit_arguments, "PIECE", 2)
    whole = jit_arguments.jitted_whole(
        "jacobian", "x, k, j", doc, body, "    return b", Constants(), program[:2], ["b"]
    )
    assert "_jacobian_piece0 = _quick(_jacobian_piece0, _QUICK_GATHERS)" in whole
    header = ["import numpy", "import jax", "import jax.numpy as jnp"]
    for text in (pieces, whole):
        module = load_python("\n".join([*header, *text]))
        assert "xla_cpu_use_fusion_emitters" not in module._QUICK_GATHERS
        assert module._QUICK_GATHERS.items() < module._QUICK.items()
        order, other = np.arange(N)[::-1].copy(), np.roll(np.arange(N), 3)
        with jax.enable_x64(True):
            got = module.jacobian(X, order, other)
        want = np.sin(X)[order] * X + np.sin(X)[other] * X
        np.testing.assert_allclose(got, want, rtol=1e-15)
