"""The partials of a Max or Min of n > 2 arguments over its own value m (session 67): JAX's
rule ``[x_i == m] / k``, k the count of entries equal to m, written ``Piecewise((1/k,
x_i == m), (0, x_i < m), (nan, True))`` (the mirror image for a Min). The generated
Jacobian computes m and 1/k once: its price is linear in n, where each partial holding
the maximum of the n - 1 others cost n (n² in all). Values against JAX's gradient at
k = 1, 2, 3 ties, at infinities and at NaN: every share NaN, as JAX's 0/0 in its forward
mode and eagerly (jitted, its reverse mode gives 0 there: XLA folds the product by the
zero indicators)."""

from __future__ import annotations

import numpy as np
import pytest
import sympy

import dgraph
from dgraph.codegen.counting import Ops
from dgraph.codegen.function import make_function
from dgraph.core.graph import local_derivative, vertex_symbol

jax = pytest.importorskip("jax", reason="JAX is not installed")
jnp = pytest.importorskip("jax.numpy")

from tests import jax_reference as jref  # noqa: E402

N = 5
POINTS = {  # the point (the Max's; a Min's is its negative) and JAX's gradient there
    "k=1": [0.5, 2.0, -1.0, 1.5, 0.25],
    "k=2": [2.0, 2.0, -1.0, 1.5, 0.25],
    "k=3": [2.0, -1.0, 2.0, 0.5, 2.0],
    "inf": [np.inf, 2.0, np.inf, 1.5, 0.25],
    "all -inf": [-np.inf] * N,
    "nan": [0.5, np.nan, -1.0, 1.5, 0.25],
}


@pytest.fixture(autouse=True)
def _float64():
    with jax.enable_x64(True):
        yield


@pytest.fixture(scope="module")
def made():
    """The generated Python Jacobian of Max and of Min over N inputs."""
    xs = [vertex_symbol(f"x{i}") for i in range(N)]
    return {
        kind: make_function(dgraph.from_sympy([kind(*xs)], xs), lang="python")
        for kind in (sympy.Max, sympy.Min)
    }


@pytest.mark.parametrize("kind", [sympy.Max, sympy.Min])
def test_a_maximum_jacobian_is_priced_linear_in_its_arguments(made, kind):
    """m: N - 1 comparisons; the N indicators of k: N, summed by N - 1 additions and
    inverted once; each partial two comparisons (== m, < m) choosing 1/k, 0 or NaN. The
    partial holding the maximum of the others (before): 22 additions, 4 divisions and
    24 comparisons at N = 4, quadratic in N."""
    generated = made[kind].generated
    assert generated.programs["jacobian"].name == "jacobian"
    assert generated.selection.candidates[0].ops == Ops(
        mults=0, adds=N - 1, divs=1, calls=0, compares=4 * N - 1
    )


@pytest.mark.parametrize("kind", [sympy.Max, sympy.Min])
@pytest.mark.parametrize("where", sorted(POINTS))
def test_the_generated_jacobian_shares_ties_as_jax(made, kind, where):
    sign = 1.0 if kind is sympy.Max else -1.0
    x = sign * np.array(POINTS[where])
    want = jref.jacfwd(jnp.max if kind is sympy.Max else jnp.min)(x)
    with np.errstate(all="ignore"):  # 1/0 where NaN leaves no entry equal to m
        got = np.ravel(made[kind](x))
    np.testing.assert_array_equal(got, want)


def test_a_partial_of_a_maximum_has_second_derivatives_zero():
    """Its pieces are constants between ties (the Hessian path's local derivatives of a
    partial), and the break at a tie is the vertex's own (its expression is the Max)."""
    xs = [vertex_symbol(f"x{i}") for i in range(N)]
    graph = dgraph.from_sympy([sympy.Max(*xs)], xs)
    (y,) = graph.outputs
    partial = graph.partial("x0", y)
    assert isinstance(partial, sympy.Piecewise) and len(partial.args) == 3
    assert all(local_derivative(partial, f"x{i}") == 0 for i in range(N))
