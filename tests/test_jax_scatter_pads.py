"""JAX tensor code writes a scatter-add at a run of consecutive positions as a pad added
to its base (dgraph/codegen/tensor/gathers.py, ``scatters_as_pads``): XLA fuses a pad
and compiles each scatter as a loop of its own. An unrolled biquad's forward Jacobian
(the survey's biquad, one section) held them as ``.at[K].add``; its J by the signal is
the impulse response (Toeplitz, ``scipy.signal.lfilter``), by the coefficients the
complex step of the same loop in NumPy."""

from __future__ import annotations

import ast
import re

import jax
import numpy as np
from scipy.signal import lfilter

from dgraph.codegen import ir
from dgraph.codegen.evaluate import ArrayEvaluator
from dgraph.codegen.function import make_function
from dgraph.codegen.ir import (
    ArrayProgram,
    ArrayStatement,
    BinOp,
    Call,
    Const,
    Index,
    Name,
    Scatter,
    ScatterAdd,
    Slice,
)
from dgraph.codegen.tensor.constants import Constants
from dgraph.codegen.tensor.gathers import scatters_as_pads
from dgraph.frontends import from_function
from tests import jax_reference as jref

N = 8


def _biquad(x, sos):
    """A direct-form-II-transposed biquad, one sample at a time."""
    b0, b1, b2, a0, a1, a2 = sos[0], sos[1], sos[2], sos[3], sos[4], sos[5]
    z1 = z2 = 0.0
    out = []
    for n in range(N):
        v = (b0 * x[n] + z1) / a0
        z1 = b1 * x[n] - a1 * v + z2
        z2 = b2 * x[n] - a2 * v
        out.append(v)
    return np.stack(out)


def test_an_unrolled_biquad_s_jax_jacobian_adds_at_runs_by_pads():
    rng = np.random.default_rng(3)
    x, sos = (
        rng.normal(size=N),
        np.array([0.3, 0.6, 0.3, 1.0, -0.2, 0.1]) + 0.01 * rng.normal(size=6),
    )
    graph = from_function(_biquad, sizes=[(N,), (6,)], level="array")
    f = make_function(graph, "jacobian", "jax")
    with jax.enable_x64(True):
        jx, js = (np.asarray(j) for j in f(x, sos))
    impulse = lfilter(sos[:3], sos[3:], np.eye(N)[0])
    toeplitz = np.array([[impulse[i - j] if i >= j else 0.0 for j in range(N)] for i in range(N)])
    np.testing.assert_allclose(jx, toeplitz, rtol=1e-12, atol=1e-14)
    step = np.array([_biquad(x, sos + 1e-30j * np.eye(6)[k]).imag / 1e-30 for k in range(6)])
    np.testing.assert_allclose(js, step.T, rtol=1e-12, atol=1e-14)
    text = f.generated.text
    literal = {
        k: ast.literal_eval(v)
        for k, v in re.findall(r"^(_K\d+) = numpy\.array\((\[.*?\]),", text, re.M)
    }
    added = [literal[k] for k in re.findall(r"\.at\[(_K\d+)\]\.add", text) if k in literal]
    runs = [k for k in added if k == list(range(k[0], k[0] + len(k)))]
    assert added and not runs and "jnp.pad(" in text  # scatter-adds left: positions not a run
    assert f.generated.verified


def _lorenz_midpoint(y, p, xp=np):
    """A midpoint step of the Lorenz system, its right-hand side stacked from scalars."""

    def rhs(y):
        x, v, z = y
        return xp.array([p[0] * (v - x), x * (p[1] - z) - v, x * v - p[2] * z])

    return y + 0.01 * rhs(y + 0.005 * rhs(y))


def test_scatters_at_evenly_stepped_positions_are_spread_by_pads():
    """The reverse sweep of a right-hand side stacked from scalars adds each scalar's
    adjoint row at every third place of a 3×3 block (``[0, 3, 6]``, ``[1, 4, 7]``, ...):
    printed as the row spread by a pad (``gathers.spread``), not as ``.at[K].add``, which
    XLA compiles as a loop of its own (20 unrolled Lorenz RK4 steps: the generated
    module's first call 5.3 → 2.8 CPU-s). J as ``jax.jacfwd``'s."""
    y, p = np.array([1.0, 1.0, 1.0]), np.array([10.0, 28.0, 8 / 3])
    graph = from_function(_lorenz_midpoint, sizes=[(3,), (3,)], level="array")
    f = make_function(graph, "jacobian", "jax")
    with jax.enable_x64(True):
        got = [np.asarray(j) for j in f(y, p)]
        ref = jref.jacfwd(lambda y, p: _lorenz_midpoint(y, p, jax.numpy), (0, 1))(y, p)
    for a, b in zip(got, ref, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-13, atol=1e-15)
    text = f.generated.text
    literal = {
        k: ast.literal_eval(v)
        for k, v in re.findall(r"^(_K\d+) = numpy\.array\((\[.*?\]),", text, re.M)
    }
    scattered = [literal[k] for k in re.findall(r"\.at\[(_K\d+)\]", text) if k in literal]
    stepped = [k for k in scattered if len(k) > 1 and len(set(np.diff(k))) == 1 and k[1] > k[0]]
    assert not stepped and "jnp.ravel(jnp.pad(jnp.reshape(" in text
    assert f.generated.verified


def test_a_loop_body_s_blocks_keep_their_stepped_scatters():
    """``scatters_as_pads`` spreads a part at evenly stepped positions (a 4×4 block's
    diagonal, ``[0, 5, 10, 15]``; every third place from 1) except in the statements named
    as a loop body's blocks, whose scatter into zeros the loop's sweep reads as the
    block's entries (a diagonal body block multiplied by them, not by a dense product:
    test_while_hessians). The values the same bit for bit either way."""
    constants = Constants()
    diagonal, third = constants.index(5 * np.arange(4)), constants.index(1 + 3 * np.arange(4))
    statements = [
        ArrayStatement("u_", Call("reshape", (Call("asarray", (Name("u"),)), Const((4,))))),
        ArrayStatement("J", Call("reshape", (Scatter(16, diagonal, Name("u_")), Const((4, 4))))),
        ArrayStatement("v", BinOp("*", Name("u_"), Const(2.0))),
        ArrayStatement(
            "t",
            ScatterAdd(Call("zeros", (Const(16),)), ((third, Index(Name("v"), (Slice(0, 4),))),)),
        ),
    ]
    program = ArrayProgram("f", ("u",), ((4,),), ("u",), statements, ["J", "t"])
    u = np.array([1.5, -0.0, 2.0, -3.25])
    want = ArrayEvaluator().run(statements, {**constants.arrays, "u": u})
    for blocks in (frozenset(), frozenset({"J"})):
        out = scatters_as_pads(program, constants, blocks)
        got = ArrayEvaluator().run(out, {**constants.arrays, "u": u})
        for name in ("J", "t"):
            assert np.array_equal(got[name].view(np.int64), want[name].view(np.int64))
        kinds = {s.target: {type(n) for n in ir.walk(s.value)} for s in out}
        assert (Scatter in kinds["J"]) == ("J" in blocks)
        assert not kinds["t"] & {Scatter, ScatterAdd}  # spread: every third place from 1


def test_scatter_adds_at_a_few_runs_are_pads_of_slices_bit_for_bit():
    """A scatter-add's part at a few runs of positions (``[0, 1, 3]``: an RK4 step's
    reverse sweep adds a 3-vector's adjoint so, hundreds of times in 30 unrolled steps)
    is one pad of a slice per run (``gathers._runs``), added in the order of the
    positions: the same sums bit for bit, a base's ``-0.0`` aside; more than
    ``RUNS_MOST`` runs, or a scatter into zeros, stay scatters."""
    constants = Constants()
    runs, many = constants.index(np.array([0, 1, 3])), constants.index(np.array([0, 2, 4, 7, 9]))
    d = Index(Name("u_"), (Slice(0, 3),))
    statements = [
        ArrayStatement("u_", Call("reshape", (Call("asarray", (Name("u"),)), Const((5,))))),
        ArrayStatement("d", BinOp("*", d, Const(3.0))),
        ArrayStatement("a", ScatterAdd(Call("sin", (Name("u_"),)), ((runs, Name("d")),))),
        ArrayStatement("b", ScatterAdd(Call("zeros", (Const(10),)), ((many, Name("u_")),))),
        ArrayStatement("c", Scatter(5, runs, Name("d"))),
    ]
    program = ArrayProgram("f", ("u",), ((5,),), ("u",), statements, ["a", "b", "c"])
    u = np.array([1.5, -0.25, 2.0, -3.25, 0.7])
    want = ArrayEvaluator().run(statements, {**constants.arrays, "u": u})
    out = scatters_as_pads(program, constants)
    got = ArrayEvaluator().run(out, {**constants.arrays, "u": u})
    for name in ("a", "b", "c"):
        assert np.array_equal(got[name].view(np.int64), want[name].view(np.int64))
    kinds = {s.target: {type(n) for n in ir.walk(s.value)} for s in out}
    assert not kinds["a"] & {Scatter, ScatterAdd}
    total = out[2].value  # (sin(u_) + pad(d[0:2], (0, 3))) + pad(d[2:3], (3, 1))
    assert isinstance(total, BinOp) and isinstance(total.left, BinOp)
    assert total.left.left == Call("sin", (Name("u_"),))
    pads = [total.left.right, total.right]
    assert [(p.args[0].items[0], p.args[1].value) for p in pads] == [
        (Slice(0, 2), ((0, 3),)),
        (Slice(2, 3), ((3, 1),)),
    ]
    assert ScatterAdd in kinds["b"] and Scatter in kinds["c"]
