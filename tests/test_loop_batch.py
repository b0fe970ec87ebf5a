"""The cancellation pass's drawn point evaluates a loop's statements that read no
changing carry once for every step (``dgraph.codegen.loop_batch``, issue 55): the same
values as the steps one by one, the Python work a step only what reads the carries."""

from __future__ import annotations

import numpy as np
import pytest

from dgraph.codegen import evaluate, ir

B, N, C = ir.BinOp, ir.Name, ir.Const


def _loop(reverse: bool) -> ir.Loop:
    """``s ← s + sin(x_t)·k + i`` over 7 steps with a counter i (an integer carry) and
    a carried scale passed on unchanged; ys: ``x_t·k`` and ``i`` per step."""
    statements = (
        ir.ArrayStatement("i1", B("+", N("i"), C(1))),
        ir.ArrayStatement("a", B("*", ir.Call("sin", (N("x"),)), N("k"))),
        ir.ArrayStatement("b", B("*", N("a"), N("scale"))),
        ir.ArrayStatement("y", B("*", N("x"), N("k"))),
        ir.ArrayStatement("s1", B("+", B("+", N("s"), N("b")), N("i"))),
        ir.ArrayStatement("iy", ir.Call("where", (B("<", N("i"), C(3)), N("i"), C(-1)))),
    )
    body = ir.LoopBody(("s", "i", "scale", "x", "k"), statements, ("s1", "i1", "scale", "y", "iy"))
    init = (C(np.array(0.5)), C(np.array(0, dtype=np.int64)), C(np.array(2.0)))
    xs = (C(np.linspace(-1.0, 1.0, 7)),)
    return ir.Loop(init, xs, (C(np.array(0.3)),), body, 7, reverse)


@pytest.mark.parametrize("reverse", [False, True])
def test_a_screened_loop_runs_only_what_reads_a_changing_carry_a_step(monkeypatch, reverse):
    """Batched (``batch_loops``), the loop's value is the steps' bit for bit and a step
    evaluates only the sum's two additions (main: every node of every statement)."""
    loop = _loop(reverse)
    want = evaluate.ArrayEvaluator().value(loop, {})
    calls = [0]
    binop = evaluate.ArrayEvaluator._eval_BinOp

    def counted(self, node, values):
        calls[0] += 1
        return binop(self, node, values)

    monkeypatch.setattr(evaluate.ArrayEvaluator, "_eval_BinOp", counted)
    found = evaluate.ArrayEvaluator(batch_loops=True).value(loop, {})
    assert len(found) == len(want) == 5
    for got, expected in zip(found, want, strict=True):
        got, expected = np.asarray(got), np.asarray(expected)
        assert got.shape == expected.shape and got.dtype == expected.dtype
        assert got.tobytes() == expected.tobytes()
    assert calls[0] <= 5 + 2 * 7  # each batched node once, the sum's two adds a step


def test_the_cancellation_pass_batches_the_gradients_loop(monkeypatch):
    """At 12 and 36 unknowns, the Hessian build of the chained Rosenbrock evaluates some
    15 IR nodes more per unknown (main: 105), its Hessian JAX's."""
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    import dgraph
    from tests import jax_reference as jref

    from .test_region_sparse_sweep import _chained

    calls = [0]
    for name in ("_eval_BinOp", "_eval_Call", "_eval_UnaryOp", "_eval_AsType", "_eval_Index"):
        method = getattr(evaluate.ArrayEvaluator, name)

        def counted(self, node, values, method=method):
            calls[0] += 1
            return method(self, node, values)

        monkeypatch.setattr(evaluate.ArrayEvaluator, name, counted)
    found = []
    for n in (12, 36):
        calls[0] = 0
        x = np.linspace(-0.8, 0.9, n)
        h = dgraph.hessian(_chained, x, sparse=True)
        found.append(calls[0])
    want = np.asarray(jref.hessian(_chained)(x + 0.01))
    got = h(x + 0.01).toarray()
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-13 * np.abs(want).max())
    assert found[1] - found[0] <= 25 * 24, found
