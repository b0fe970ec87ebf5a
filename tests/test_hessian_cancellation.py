"""Hessian entries that cancel (issue 55 item 4): a path joins them, yet the label algebra
proves them zero for every input (dgraph.core.cancellation); they leave the pattern of a
graph of scalars' sparse Hessian. Sound: the pattern is never smaller than the true
nonzeros at drawn points of drawn programs; exact on the cancellation cases."""

from __future__ import annotations

import numpy as np
import pytest
import sympy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import dgraph
from dgraph.core.cancellation import cancelled_entries, exact_pattern
from dgraph.core.hessian_graph import hessian_graph, hessian_pattern
from dgraph.core.paths import path_counts
from dgraph.frontends import from_trace

CASES = [
    # x·y − y·x through a sine: the adjoint v1_bar = w_bar − t1_bar is zero
    ("inputs: x, y\noutputs: f\nv1 = x*y\nv2 = y*x\nw = v1 - v2\nf = sin(w) + x*x", {(0, 0)}),
    # x·y − (x + c)·y + c·y: the second-order terms of two products cancel
    (
        "inputs: x, y, c\noutputs: f\nu = x*y\nv = x + c\nw = v*y\nf = u - w + c*y + x*x*x",
        {(0, 0)},
    ),
    # a·((b + c) − b): the adjoints of b through t and through s are opposite
    ("inputs: a, b, c\noutputs: f\nt = b + c\ns = t - b\nf = a*s", {(0, 2), (2, 0)}),
]


def _true_nonzeros(g, points, weights=None) -> set[tuple[int, int]]:
    """The nonzeros of sympy's Hessian of λᵀy at the points."""
    values = g.values()
    lam = weights or {y: 1 for y in g.outputs}
    symbols = [sympy.Symbol(v, real=True) for v in g.inputs]
    hessian = sympy.lambdify(
        symbols, sympy.hessian(sum(lam[y] * values[y] for y in g.outputs), symbols)
    )
    found = set()
    for p in points:
        h = np.array(hessian(*p), dtype=float)
        found |= {(int(i), int(j)) for i, j in np.argwhere(h != 0)}
    return found


def _indices(H, entries) -> set[tuple[int, int]]:
    return {(H.outputs.index(y), H.inputs.index(x)) for y, x in entries}


@pytest.mark.parametrize(("trace", "want"), CASES)
def test_the_cancellation_cases_drop_out_exactly(trace, want):
    g = from_trace(trace)
    H = hessian_graph(g)
    assert _indices(H, path_counts(H)) > want  # the paths say more
    assert _indices(H, exact_pattern(H)) == want == hessian_pattern(H)
    rng = np.random.default_rng(0)
    assert _true_nonzeros(g, rng.uniform(-2, 2, (3, len(g.inputs)))) == want
    # the sparse Hessian generated for the graph holds exactly those entries
    h = dgraph.make_function(g, "hessian", sparse=True)(rng.uniform(-1, 1, len(g.inputs)))
    assert set(zip(*h.nonzero(), strict=True)) <= want and h.nnz == len(want)
    vgh = dgraph.make_function(g, "value_gradient_hessian", sparse=True)
    assert vgh(rng.uniform(-1, 1, len(g.inputs)))[2].nnz == len(want)


def test_values_equal_only_by_an_identity_stay():
    """∂²/∂x∂y of x·y·(sin² z + cos² z) − x·y is sin² z + cos² z − 1: zero, but not as a
    polynomial in sin z and cos z, so kept; y·(sin² x + cos² x) is y, and its second
    derivatives cancel as polynomials (sin' = cos, cos' = −sin): dropped."""
    g = from_trace("inputs: x, y, z\noutputs: f\ns = sin(z)\nc = cos(z)\nf = x*y*(s*s + c*c) - x*y")
    H = hessian_graph(g)
    assert {(0, 1), (1, 0)} <= hessian_pattern(H)
    assert _true_nonzeros(g, [[0.3, 0.4, 0.5]]) < hessian_pattern(H)  # (0, 1) is rounding
    g = from_trace("inputs: x, y\noutputs: f\ns = sin(x)\nc = cos(x)\nf = y*(s*s + c*c)")
    assert hessian_pattern(hessian_graph(g)) == set()


OPERATIONS = ("{a}*{b}", "{a} + {b}", "{a} - {b}", "sin({a})", "{a} - {b}", "{a} + {b}")


@st.composite
def traces(draw):
    """Straight-line programs over few values, sums and differences of recent ones
    mostly, so that one value reaches another by paths whose terms are opposite."""
    names = ["x", "y"]
    lines = []
    for k in range(draw(st.integers(2, 7))):
        op = draw(st.sampled_from(OPERATIONS))
        a, b = (draw(st.sampled_from(names[-3:] + names[:2])) for _ in "ab")
        lines.append(f"v{k} = {op.format(a=a, b=b)}")
        names.append(f"v{k}")
    other = draw(st.sampled_from(names))
    lines.append(f"f = {names[-1]}*{other}")
    return "inputs: x, y\noutputs: f\n" + "\n".join(lines)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(traces())
def test_the_pattern_is_never_smaller_than_the_nonzeros(trace):
    g = from_trace(trace)
    if not g.outputs or not any(path_counts(g)):
        return
    H = hessian_graph(g)
    points = np.random.default_rng(1).uniform(-2, 2, (3, 2))
    assert _true_nonzeros(g, points) <= _indices(H, exact_pattern(H))
    # each entry claimed zero is zero as a function: sympy agrees symbolically
    values = g.values()
    symbols = {v: sympy.Symbol(v, real=True) for v in g.inputs}
    for y, x in cancelled_entries(H):
        x_of_row = H.inputs[H.outputs.index(y)]
        entry = sympy.diff(values["f"], symbols[x_of_row], symbols[x])
        assert sympy.simplify(entry) == 0


def test_constant_summands_drop_on_their_exact_sum_only():
    """1e20 + 1 − 1e20 rounds to 0 in that order, but is 1: kept; 0.1 − 0.1 is 0: dropped."""
    from dgraph.codegen.tensor.cancel import _exactly_zero

    place = np.arange(3)
    placed = [
        (place, np.array([1e20, 0.1, 2.0])),
        (place, np.array([1.0, -0.1, -2.0])),
        (place, np.array([-1e20, 0.0, 0.0])),
    ]
    reached = np.array([False, False, True])  # a summand that varies reaches the last
    assert _exactly_zero(3, placed, reached).tolist() == [False, True, False]


def test_robot_arm_s_t6_row_drops_out():
    """AlphaGrad's RobotArm_6DOF: only roll = atan2(oz, −nz) reads t6, and (oz, −nz) is a
    vector rotated by t6, so ∂roll/∂t6 is 1 and the t6 row and column of the Hessian are
    zero (rounding only in its values, as in jax.hessian's); the paths say 11 entries."""
    pytest.importorskip("jax")
    from .test_hessian_graph import _alphagrad

    f, args = _alphagrad().FUNCTIONS["RobotArm_6DOF"]
    H = hessian_graph(dgraph.from_jax(f, *args))
    t6 = {(i, 5) for i in range(6)} | {(5, i) for i in range(6)}
    assert t6 - _indices(H, path_counts(H)) == {(0, 5), (5, 0)}
    assert hessian_pattern(H) == _indices(H, path_counts(H)) - t6
    es = dgraph.accumulate(H, "reverse")
    for scale in (1.0, 1.1):
        h = es.evaluate(np.array(args, dtype=float) * scale, np.linspace(0.5, 1.5, 6))
        assert np.abs(h[:, 5]).max() < 1e-14 * np.abs(h).max()
        assert {(int(i), int(j)) for i, j in np.argwhere(np.abs(h) > 1e-12)} == hessian_pattern(H)
