"""Binomial checkpointing (revolve) of a scan's vjp under ``tape=K`` (issue 54): the
schedule against the dynamic program and Griewank's closed form, the generated NumPy
and JAX vjp against jax.vjp, and the steps it runs and the states it stores counted in
an instrumented run of the generated NumPy code."""

from __future__ import annotations

import functools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dgraph.codegen.tensor.loop_sweeps import segments
from dgraph.codegen.tensor.revolve import (
    binomial_schedule,
    optimal_cost,
    revolve_cost,
)
from dgraph.errors import DGraphError

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")

import dgraph  # noqa: E402
from dgraph.codegen.python import load_python  # noqa: E402
from dgraph.codegen.tensor.sweeps import sweep_module  # noqa: E402

from .revolve_replay import CountingNumpy, replay  # noqa: E402
from .test_loop_sweeps import CASES, _close, _graph, _rng_like  # noqa: E402


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 60), st.integers(1, 7))
def test_the_schedule_reverses_every_step_with_the_fewest_advances(steps, slots):
    """Every step turned once, last first, each at its own state; never more than K
    states stored; the forward steps the fewest possible (the dynamic program over the
    first split) and Griewank's closed form t·l − C(s+t, s+1)."""
    s = binomial_schedule(steps, slots)
    assert replay(s) == list(range(steps - 1, -1, -1))
    assert s.max_stored() <= slots
    assert s.advances == optimal_cost(steps, slots) == revolve_cost(steps, slots)


def test_one_slot_recomputes_from_the_start_and_enough_slots_store_every_state():
    assert binomial_schedule(6, 1).advances == 15  # 5 + 4 + 3 + 2 + 1
    assert binomial_schedule(6, 6).advances == 5 == binomial_schedule(6, 6).steps - 1
    assert binomial_schedule(6, 6).recomputed == 0
    with pytest.raises(DGraphError, match="revolve"):
        binomial_schedule(5, 0)


def test_ten_thousand_steps_under_one_hundred_states():
    """T = 10,000, K = 100: t = 3 repetitions (C(102, 2) = 5,151 < T ≤ C(103, 3)),
    24,747 forward steps (the closed form 3·10⁴ − C(103, 101)), 14,748 of them
    recomputed after the first sweep's 9,999; equidistant checkpointing cannot keep
    100 states at all (q + s ≥ 2√T = 200) and with its 200 recomputes T = 10,000 steps;
    binomial under 200 states recomputes fewer."""
    s = binomial_schedule(10_000, 100)
    assert s.max_stored() == 100
    assert s.advances == 3 * 10_000 - math.comb(103, 101) == 24_747
    assert s.recomputed == 14_748
    step, q, rem = segments(10_000, 100)
    assert q + step == 200 and q * step + rem == 10_000  # its extra forward sweep: T steps
    assert binomial_schedule(10_000, 200).recomputed == revolve_cost(10_000, 200) - 9_999
    assert revolve_cost(10_000, 200) - 9_999 < 10_000


def _scan(steps: int):
    def f(u, d):
        def step(u, _):
            lap = jnp.roll(u, 1) + jnp.roll(u, -1) - 2.0 * u
            return u + 0.1 * (d * lap + jnp.sin(u)), None

        return jax.lax.scan(step, u, None, length=steps)[0]

    return f


CELLS = 4
U0, D0, W = np.linspace(0.2, 0.8, CELLS), np.array(0.3), np.cos(np.arange(CELLS))


@functools.cache
def _case(steps: int):
    f = _scan(steps)
    with jax.enable_x64(True):
        g = dgraph.from_jax(f, U0, D0, level="array", name="rd")
        want = jax.vjp(f, U0, D0)[1](W)
    return g, want


@pytest.mark.parametrize("steps", [1, 2, 5, 23, 24])
def test_the_numpy_vjp_equals_jax_and_runs_the_binomial_schedule(steps):
    """For K in {1, 2, 3, 5}: equal to jax.vjp to 1e-12; the body steps the generated
    code runs, counted: T turns and exactly the schedule's advances (the fewest for K
    stored states); the checkpoints one (K·cells,) array, never more than K states in
    it."""
    g, want = _case(steps)
    for k in (1, 2, 3, 5):
        module = load_python(sweep_module(g, "vjp", "python", k).text)
        counting = CountingNumpy()
        module.numpy = counting
        stacks = []
        scatter_add = module._scatter_add

        def watched(base, *parts, _add=scatter_add, k=k, stacks=stacks):
            out = _add(base, *parts)
            if np.size(base) == k * CELLS:
                rows = np.reshape(out, (k, CELLS))
                stacks.append(int(np.count_nonzero(np.any(rows != 0, axis=1))))
            return out

        module._scatter_add = watched
        got = module.vjp(U0, D0, W)
        for a, b in zip(got, want, strict=True):
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-13)
        if k >= steps:  # every state on the tape
            assert counting.calls == {"sin": steps, "cos": steps}
            continue
        s = binomial_schedule(steps, k)
        assert counting.calls["cos"] == steps
        assert counting.calls["sin"] == s.advances == optimal_cost(steps, k)
        assert stacks and max(stacks) <= k


def test_the_jax_vjp_is_jitted_and_equals_jax():
    g, want = _case(23)
    with jax.enable_x64(True):
        for k in (1, 3):
            text = sweep_module(g, "vjp", "jax", k).text
            # the reverse a scan over the turns, each with a while loop over its advances
            assert " = _jit_switch(" not in text and text.count(" = _jit_while(") == 1
            got = jax.jit(load_python(text).vjp)(U0, D0, W)
            for a, b in zip(got, want, strict=True):
                np.testing.assert_allclose(np.asarray(a), b, rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("case", ["scan", "scan reverse", "fori_loop", "scan in scan"])
def test_the_jax_vjp_with_xs_ys_counters_and_inner_loops(case):
    """Under tape=2 (T = 5, 7 and 4): xs and ys (forward and reverse), an integer counter
    carried, a scan inside the scan; jitted, equal to jax.vjp."""
    f, args = CASES[case]
    with jax.enable_x64(True):
        w = _rng_like(np.random.default_rng(0), f(*args))
        text = sweep_module(_graph(case), "vjp", "jax", 2).text
        assert "binomial checkpointing" in text
        w_list = list(w) if isinstance(w, tuple) else [w]
        vjp = load_python(text).vjp
        # the generated vjp and jax.vjp in one jitted program (one compilation)
        got, want = jax.jit(lambda: (vjp(*args, *w_list), jax.vjp(f, *args)[1](w)))()
        _close(got, want)


def test_the_jax_vjp_reads_constant_xs_at_a_traced_step():
    """xs a module constant (not an input), read by the advance rows at a traced step:
    jitted under K = 2, equal to jax.vjp."""
    xs = np.linspace(0.1, 0.9, 14).reshape(7, 2)

    def f(x, p):
        return jax.lax.scan(lambda c, xt: (jnp.tanh(c * p) + xt, jnp.sin(c) * xt[0]), x, xs)

    args = (np.array([0.3, -0.2]), np.array([1.1, 0.7]))
    w = (np.array([0.5, -1.0]), np.cos(np.arange(14.0)).reshape(7, 2))
    with jax.enable_x64(True):
        g = dgraph.from_jax(f, *args, level="array")
        vjp = load_python(sweep_module(g, "vjp", "jax", 2).text).vjp
        got, want = jax.jit(lambda: (vjp(*args, *w), jax.vjp(f, *args)[1](w)))()
        _close(got, want)
