"""A while loop's vjp under ``tape=K`` (issue 54): the trip count known only when the
loop runs, binomial checkpointing computed by the reverse sweep as it runs
(:func:`~dgraph.codegen.tensor.revolve.run_time_schedule`): at most K stored states, the
fewest advances for K states once n is known. The schedule against the dynamic program;
the generated NumPy and JAX vjp against jax.vjp of the same loop with its trip count
fixed (JAX does not reverse a while_loop), the body steps counted in NumPy."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dgraph.codegen.tensor.revolve import (
    optimal_cost,
    revolve_cost,
    run_time_schedule,
    split_at,
)
from dgraph.errors import DGraphError

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")

import dgraph  # noqa: E402
from dgraph.codegen.python import load_python  # noqa: E402
from dgraph.codegen.tensor.sweeps import sweep_module  # noqa: E402

from .revolve_replay import CountingNumpy, replay  # noqa: E402


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 60), st.integers(1, 7))
def test_the_run_time_schedule_is_binomial(steps, slots):
    """Every step turned once, last first, at its own state; at most K stored; the
    fewest advances (the dynamic program and Griewank's closed form)."""
    s = run_time_schedule(steps, slots)
    assert replay(s) == list(range(steps - 1, -1, -1))
    assert s.max_stored() <= slots
    assert s.advances == optimal_cost(steps, slots) == revolve_cost(steps, slots)


@settings(max_examples=200, deadline=None)
@given(st.integers(2, 10**6), st.integers(1, 200))
def test_the_split_is_optimal(steps, slots):
    """split_at's arithmetic gives a first advance on an optimal split."""
    m = split_at(steps, slots)
    assert 1 <= m < steps
    if slots > 1:
        rest = revolve_cost(steps - m, slots - 1) + revolve_cost(m, slots)
        assert m + rest == revolve_cost(steps, slots)


def test_ten_thousand_trips_under_one_hundred_states():
    s = run_time_schedule(10_000, 100)
    assert s.max_stored() == 100 and s.advances == 24_747  # test_revolve's offline figure


CELLS = 5


def _decay(threshold: float):
    """Diffusion and decay until the state is small: the trip count depends on u0, d."""

    def f(u, d):
        def step(u):
            lap = jnp.roll(u, 1) + jnp.roll(u, -1) - 2.0 * u
            return u + 0.2 * (d * lap - 0.3 * jnp.sin(u))

        return jax.lax.while_loop(lambda u: jnp.sum(u * u) > threshold, step, u)

    return f


def _fixed(trips: int):
    """The same loop with its trip count fixed: what jax.vjp reverses."""

    def f(u, d):
        def step(_, u):
            lap = jnp.roll(u, 1) + jnp.roll(u, -1) - 2.0 * u
            return u + 0.2 * (d * lap - 0.3 * jnp.sin(u))

        return jax.lax.fori_loop(0, trips, step, u)

    return f


def _trips(u, d, threshold: float) -> int:
    n = 0
    u = np.array(u, dtype=float)
    while np.sum(u * u) > threshold:
        u = u + 0.2 * (d * (np.roll(u, 1) + np.roll(u, -1) - 2 * u) - 0.3 * np.sin(u))
        n += 1
    return n


U0, D0, W = np.linspace(0.9, 0.3, CELLS), np.array(0.4), np.cos(np.arange(CELLS))


def test_a_value_dependent_trip_count_numpy_counted():
    """NumPy under K = 1, 2, 3, 5: equal to jax.vjp of the loop with its n fixed; the
    body steps run: the counting sweep's n plus exactly the schedule's advances (the
    fewest for K states), n vjps; the store one (K·cells,) array."""
    f = _decay(0.05)
    n = _trips(U0, D0, 0.05)
    assert n > 20
    with jax.enable_x64(True):
        g = dgraph.from_jax(f, U0, D0, level="array", name="decay")
        want = jax.vjp(_fixed(n), U0, D0)[1](W)
    for k in (1, 2, 3, 5):
        text = sweep_module(g, "vjp", "python", k).text
        assert f"at most {k} stored state" in text
        assert f"numpy.zeros(({(k - 1) * CELLS},))" in text  # the store: K slots
        module = load_python(text)
        counting = CountingNumpy()
        module.numpy = counting
        got = module.vjp(U0, D0, W)
        for a, b in zip(got, want, strict=True):
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-13)
        assert counting.calls == {"sin": n + revolve_cost(n, k), "cos": n}


def test_the_jax_vjp_is_jitted_and_takes_the_trip_count_at_run_time():
    """One jitted JAX vjp under K = 3 at two points with different trip counts, each
    equal to jax.vjp of the loop with that point's n fixed; the Newton solve too."""
    f = _decay(0.05)
    with jax.enable_x64(True):
        g = dgraph.from_jax(f, U0, D0, level="array", name="decay")
        text = sweep_module(g, "vjp", "jax", 3).text
        assert "jax.lax.dynamic_update_slice(" in text
        vjp = jax.jit(load_python(text).vjp)
        for u0 in (U0, 1.3 * U0):
            n = _trips(u0, D0, 0.05)
            want = jax.vjp(_fixed(n), u0, D0)[1](W)
            for x, y in zip(vjp(u0, D0, W), want, strict=True):
                np.testing.assert_allclose(np.asarray(x), y, rtol=1e-12, atol=1e-13)
        assert _trips(U0, D0, 0.05) != _trips(1.3 * U0, D0, 0.05)


def test_a_newton_solve_under_a_tape_bound():
    """The while_loop Newton solve of tests/test_loop_sweeps.py, K = 1 and 2 (NumPy;
    JAX: the test above), against jax.vjp of the solve with its trip count fixed."""
    a, b = np.array([2.0, 3.0]), np.array([1.0, 0.5])

    def newton(a, b):
        def step(x):
            return x - (x**3 + b * x - a) / (3 * x**2 + b)

        return jax.lax.while_loop(lambda x: jnp.max(jnp.abs(x**3 + b * x - a)) > 1e-12, step, a)

    x, n = a.copy(), 0
    while np.max(np.abs(x**3 + b * x - a)) > 1e-12:
        x, n = x - (x**3 + b * x - a) / (3 * x**2 + b), n + 1

    def fixed(a, b):
        def one(_, x):
            return x - (x**3 + b * x - a) / (3 * x**2 + b)

        return jax.lax.fori_loop(0, n, one, a)

    w = np.array([0.3, -0.7])
    with jax.enable_x64(True):
        g = dgraph.from_jax(newton, a, b, level="array")
        want = jax.vjp(fixed, a, b)[1](w)
        for k in (1, 2):
            got = load_python(sweep_module(g, "vjp", "python", k).text).vjp(a, b, w)
            for x, y in zip(got, want, strict=True):
                np.testing.assert_allclose(np.asarray(x), y, rtol=1e-12, atol=1e-13)
        with pytest.raises(DGraphError, match=r"C values: cannot translate .*floor_divide"):
            dgraph.make_function(g, "vjp", lang="c", tape=2)  # a while loop's tape: not in C
