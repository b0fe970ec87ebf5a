"""Generated JAX loops compile once: a loop's body and step are nested functions of the
generated function, new objects at each call, and ``lax.scan`` / ``while_loop`` /
``switch`` called eagerly traced and compiled them again at every call (forces' Hessian:
2 XLA compiles and ~2 CPU-s per call after the first). The module runs each loop through
a jitted runner made once (dgraph/codegen/jaxcode.py's ``LOOP_HELPERS``): the second eager
call compiles nothing, and the values stay JAX's own."""

from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")

import dgraph  # noqa: E402
from dgraph.codegen.evaluate import ArrayEvaluator  # noqa: E402
from dgraph.codegen.ir import (  # noqa: E402
    ArrayProgram,
    ArrayStatement,
    BinOp,
    Call,
    Cond,
    Const,
    Item,
    LoopBody,
    Name,
    While,
)
from dgraph.codegen.jaxcode import LOOP_HELPERS, JaxArrayPrinter  # noqa: E402
from tests import jax_reference as jref  # noqa: E402
from tests.jax_events import COMPILED, counted  # noqa: E402


def _compiles(call) -> tuple[int, object]:
    """The XLA compiles ``call()`` makes, and its value."""
    return counted(call, COMPILED)


def series(x):
    def body(c, xi):
        c = jnp.sin(c) * xi + c
        return c, c

    return jax.lax.scan(body, 0.5, x)[1]


def test_a_scans_second_eager_call_compiles_nothing():
    x = np.linspace(0.2, 0.9, 4)
    with jax.enable_x64(True):
        F = dgraph.make_function(series, "jacobian", "jax", point=(x,))
        assert " = _jit_scan(" in F.generated.text
        _, J1 = _compiles(lambda: F(x))  # (make_function's check called it already)
        second, J2 = _compiles(lambda: F(x + 0.1))
        assert second == 0
        np.testing.assert_allclose(J1, jref.jacfwd(series)(x), rtol=1e-13, atol=1e-14)
        np.testing.assert_allclose(J2, jref.jacfwd(series)(x + 0.1), rtol=1e-13, atol=1e-14)
        # under jax.jit and jax.vmap the same runner is traced with the outer function
        np.testing.assert_allclose(jax.jit(F)(x), J1, rtol=1e-14, atol=1e-15)
        batch = np.stack([x, x + 0.1])
        _compiles(lambda: jax.vmap(F)(batch))
        count, JB = _compiles(lambda: jax.vmap(F)(batch + 0.0))
        assert count == 0
        np.testing.assert_allclose(JB, np.stack([J1, J2]), rtol=1e-14, atol=1e-15)


def _module(program: ArrayProgram) -> dict:
    lines = [f"def f({', '.join(program.arguments)}):"]
    lines += [JaxArrayPrinter().statement(s) for s in program.statements]
    lines.append(f"    return {program.results[0]}")
    space = {"jax": jax, "jnp": jnp}
    exec(LOOP_HELPERS, space)
    exec("\n".join(lines), space)
    return space


def test_a_while_loop_and_a_switch_compile_once():
    """x <- x / 2 while sum(x) > s, then sin(x) or log(x) by i: eager calls after the first
    compile nothing, the values the evaluator's."""
    half = BinOp("*", Name("x"), Const(0.5))
    body = LoopBody(("x", "s"), (ArrayStatement("n", half),), ("n",))
    test = BinOp(">", Call("sum", (Name("x"),)), Name("s"))
    cond = LoopBody(("x", "s"), (ArrayStatement("ok", test),), ("ok",))
    b0 = LoopBody(("a",), (ArrayStatement("r", Call("sin", (Name("a"),))),), ("r",))
    b1 = LoopBody(("a",), (ArrayStatement("r", Call("log", (Name("a"),))),), ("r",))
    statements = [
        ArrayStatement("W", While((Name("x0"),), (Name("s"),), cond, body)),
        ArrayStatement("w", Item(Name("W"), 0)),
        ArrayStatement("C", Cond(Name("i"), (Name("w"),), (b0, b1))),
        ArrayStatement("out", Item(Name("C"), 0)),
    ]
    program = ArrayProgram("f", ("x0", "s", "i"), ((2,), (), ()), ("x0",), statements, ["out"])
    space = _module(program)
    with jax.enable_x64(True):
        for k, i in enumerate((0, 1, 0, 1)):
            x0 = np.array([3.0, 2.0]) * (1 + k)
            args = (x0, np.float64(1.0), np.int32(i))
            count, got = _compiles(lambda args=args: space["f"](*args))
            assert count == 0 or k == 0, (k, count)
            env = dict(zip(program.arguments, args, strict=True))
            want = ArrayEvaluator().run(program.statements, env)["out"]
            np.testing.assert_allclose(np.asarray(got), want, rtol=1e-15)
    assert len(space["_LOOP_RUNS"]) == 2  # one runner for the while loop, one for the switch
