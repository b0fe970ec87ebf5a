"""Constant statements folded by NumPy only where XLA computes the same bits
(dgraph.codegen.tensor.exact_fold): XLA's CPU backend fuses a product into a following
sum (one rounding), so such a batch is left to XLA. (The suite runs XLA at optimization
level 0, tests/conftest.py, which fuses nothing: the bits are compared where NumPy is
trusted, and the batches it is not trusted with are named.)"""

import numpy as np
import pytest
import sympy

from dgraph.codegen import ir
from dgraph.codegen.evaluate import ArrayEvaluator
from dgraph.codegen.ir import ArrayStatement, BinOp, Formula
from dgraph.codegen.tensor.exact_fold import numpy_exact

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")

a, b, c = ir.Name("a"), ir.Name("b"), ir.Name("c")
x, y, z = sympy.symbols("x y z")
FORMULA = ((x, a), (y, b), (z, c))

T = ir.Name("t")
BATCHES = {
    "product": ([ArrayStatement("t", BinOp("*", a, b))], True),
    "sum": ([ArrayStatement("t", BinOp("+", a, b)), ArrayStatement("u", BinOp("-", T, c))], True),
    "quotient+sum": (
        [ArrayStatement("t", BinOp("/", a, b)), ArrayStatement("u", BinOp("+", T, c))],
        True,
    ),
    "negated formula": ([ArrayStatement("t", Formula(x - y + z, FORMULA))], True),
    "product then sum": (
        [ArrayStatement("t", BinOp("*", a, b)), ArrayStatement("u", BinOp("+", T, c))],
        False,
    ),
    "formula a*b + c": ([ArrayStatement("t", Formula(x * y + z, FORMULA))], False),
    "formula 2a - c": ([ArrayStatement("t", Formula(2 * x - z, FORMULA))], False),
    "formula a**2 + c": ([ArrayStatement("t", Formula(x**2 + z, FORMULA))], False),
}


@pytest.mark.parametrize("name", BATCHES)
def test_numpy_folds_only_what_xla_computes_bit_for_bit(name):
    statements, exact = BATCHES[name]
    assert numpy_exact(statements) is exact
    if not exact:
        return
    rng = np.random.default_rng(0)
    env = {n: rng.normal(size=4096) for n in "abc"}
    target = statements[-1].target
    numpy_value = ArrayEvaluator().run(statements, dict(env))[target]
    evaluator = ArrayEvaluator(jnp, jax.scipy.special)
    with jax.enable_x64(True):
        xla = jax.jit(lambda e: evaluator.run(statements, dict(e))[target])(env)
    assert np.array_equal(np.asarray(xla), numpy_value)
