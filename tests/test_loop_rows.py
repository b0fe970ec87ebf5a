"""A loop run at several points at once (the value check's central differences of a
program with a loop and no JAX ``jvp``: dgraph/core/region_sweep.py ``batched_run``,
dgraph/core/leading_axis.py): each point's values bit for bit those of its own run, a
``while_loop`` whose points stop at different trips run point by point, and a wrong
loop-body rule still caught by the differences."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.signal
import sympy

import dgraph
from dgraph.blocks import arrays
from dgraph.blocks.arrays import operand_values
from dgraph.core.block_values import values_at, vertex_values
from dgraph.core.region_sweep import batched_run
from dgraph.core.regions import regions_of
from dgraph.frontends.jaxpr import from_jax
from dgraph.methods.registry import accumulate

RNG = np.random.default_rng(64)
B, A = RNG.normal(size=3), np.array([1.0, -0.6, 0.25])


def _lfilter(b, a, x):
    return scipy.signal.lfilter(b, a, x, axis=1)


def _graph():
    return dgraph.from_function(_lfilter, point=[B, A, RNG.normal(size=(2, 9))], level="array")


def _forget(g) -> None:
    for _, region in regions_of(g):
        region._runs.clear()


def _sets(g, hs):
    point = {x: RNG.normal(size=g.shape(x)) for x in g.inputs}
    point["a"] = A + 0.01 * RNG.normal(size=3)  # a stable filter
    direction = {x: RNG.normal(size=g.shape(x)) for x in g.inputs}
    return [{x: point[x] + h * direction[x] for x in g.inputs} for h in hs]


def test_a_loop_at_several_points_at_once_gives_each_point_its_own_run_bit_for_bit():
    """lfilter's loop (slices, a concatenate, broadcasts, products in its body) at six
    shifted points: the values of every vertex at each point are those of the point
    alone (its own run, the loop's kept runs forgotten between), byte for byte, and the
    filter's output is scipy's."""
    g = _graph()
    ((loop, region),) = regions_of(g)
    sets = _sets(g, [1e-3, -1e-3, 5e-4, -5e-4, 2.5e-4, -2.5e-4])
    operands = [operand_values(g.op(loop), vertex_values(g, s)) for s in sets]
    assert region.rows_at_once()  # every body operation one NumPy call for all sets
    assert batched_run(region, operands) is not None
    _forget(g)
    together = values_at(g, sets)
    for inputs, found in zip(sets, together, strict=True):
        _forget(g)
        alone = vertex_values(g, inputs)
        assert found.keys() == alone.keys()
        for v, value in alone.items():
            assert found[v].dtype == value.dtype and found[v].shape == value.shape
            assert found[v].tobytes() == value.tobytes(), v
        expected = _lfilter(inputs["b"], inputs["a"], inputs["x"])
        (y,) = g.outputs
        np.testing.assert_allclose(found[y], expected, rtol=0, atol=1e-13)


def test_a_while_loop_whose_points_stop_apart_runs_each_point_alone():
    """Halving until below 1: points on either side of a trip count's change are not run
    at once (``batched_run`` gives None), and each gets its own trips and values; points
    that stop together are run at once, with the same values as alone."""
    jax = pytest.importorskip("jax")
    lax = jax.lax

    def f(c):
        return lax.while_loop(lambda c: c[0] > 1.0, lambda c: c * 0.5, c)

    g = from_jax(f, np.array([3.0, 1.0]), level="array")
    ((_, region),) = regions_of(g)
    assert not region.rows_at_once()  # the differences take a step's shifts at a time
    apart = [[np.array([3.9, 1.0])], [np.array([4.1, 1.0])]]  # 2 trips, 3 trips
    together = [[np.array([3.0, 1.0])], [np.array([3.5, 0.7])]]
    assert batched_run(region, apart) is None
    assert batched_run(region, together) is not None
    for sets, trips in ((apart, [2, 3]), (together, [2, 2])):
        region._runs.clear()
        found = region.forward_rows(sets)
        for args, outputs, n in zip(sets, found, trips, strict=True):
            region._runs.clear()
            assert region.trips(args) == n
            alone = region.forward(args)
            assert all(a.tobytes() == b.tobytes() for a, b in zip(outputs, alone, strict=True))
            np.testing.assert_array_equal(outputs[0], args[0] * 0.5**n)


@pytest.mark.parametrize(
    "name, wrong",
    [("sub", (sympy.Integer(1), sympy.Rational(-101, 100))), ("mul", (arrays.B * 1.01, arrays.A))],
)
def test_a_wrong_loop_body_rule_is_still_caught_by_the_differences(name, wrong):
    """lfilter has no JAX ``jvp``: its reference is central differences of the graph's
    own program, now run at all the shifts at once; a 1 % error in the body's ``sub`` or
    ``mul`` rule is reported wrong, as before (0.0058 and 0.0068 of |J|·|v|; the right
    rules verify: tests/test_scipy_iir.py)."""
    g = _graph()
    value = arrays.ELEMENTWISE[name][0]
    saved = arrays.ELEMENTWISE[name]
    arrays.ELEMENTWISE[name] = (value, wrong)
    arrays._derivative_function.cache_clear()
    try:
        es = accumulate(g, "forward")
    finally:
        arrays.ELEMENTWISE[name] = saved
        arrays._derivative_function.cache_clear()
        _forget(g)
    assert not es.verified and es.verification.status == "wrong"
    assert "differs from central differences" in es.verification.detail
