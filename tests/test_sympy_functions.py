"""sympy functions in graphs of scalars whose derivatives sympy does not finish
(:func:`dgraph.core.graph.local_derivative`, :mod:`dgraph.core.numeric`): ``Mod`` (as
``a − b·floor(a/b)``: its derivatives 1 and ``−floor(a/b)``; sympy left
``Subs(Derivative(Mod(...)))``, printed as a ValueError out of the value check), a
function it cannot differentiate (``zeta`` in its first argument: one line), one whose
derivative has no NumPy counterpart (``uppergamma``'s ``meijerg``: one line, not a
NameError), and the Hessian of a step (``Heaviside(x)·y²``: the adjoint no output reads
left out; a KeyError out of ``make_function(g, "hessian")`` before)."""

from __future__ import annotations

import numpy as np
import pytest
import sympy

import dgraph
from dgraph.errors import DGraphError

a, b = sympy.symbols("a b", real=True)


def test_mod_s_derivatives():
    es = dgraph.accumulate(
        dgraph.from_sympy([sympy.Mod(a * b, 0.9) + sympy.Mod(a, b) * a], [a, b]), "forward"
    )
    assert es.verified
    at = (0.7, 1.3)  # a·b = 0.91: Mod(a·b, 0.9) = a·b − 0.9; a/b < 1: Mod(a, b) = a
    np.testing.assert_allclose(np.asarray(es.evaluate(at), dtype=float), [[1.3 + 2 * 0.7, 0.7]])


@pytest.mark.parametrize(
    ("expr", "words"),
    [
        (sympy.zeta(a + 2, b), "no derivative of zeta("),
        (sympy.uppergamma(a, b), "cannot evaluate meijerg(...) numerically"),
    ],
)
def test_what_sympy_cannot_differentiate_or_numpy_evaluate_is_one_line(expr, words):
    with pytest.raises(DGraphError) as e:
        g = dgraph.from_sympy([expr], [a, b])
        dgraph.accumulate(g, "forward").evaluate([1.7, 1.3])
    assert words in str(e.value) and "\n" not in str(e.value)


def test_the_hessian_of_a_step():
    g = dgraph.from_sympy([sympy.Heaviside(a) * b**2 + sympy.Abs(a - b) * b], [a, b])
    H = dgraph.make_function(g, "hessian")
    at = np.array([0.7, 1.3])  # |a − b|·b = (b − a)·b here
    np.testing.assert_allclose(np.asarray(H(at)).reshape(2, 2), [[0.0, -1.0], [-1.0, 2.0 + 2.0]])
