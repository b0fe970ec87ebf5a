"""A loop's steps in the entries they write (issue 55): a scan that writes at its counter
evaluates its body a step at a time in those entries (``dgraph.core.step_values``), its
carried array written in place, the same numbers as the whole body's; and a loop's run
for its values keeps its steps' small values for the tangent sweep asked next at the
same operands (``region_sweep.forward_run``): one run of the steps, not two."""

from __future__ import annotations

import functools
from types import SimpleNamespace

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")

import dgraph  # noqa: E402
from dgraph.blocks import arrays  # noqa: E402
from dgraph.core import region_sweep, regions  # noqa: E402
from dgraph.core.regions import Region  # noqa: E402
from tests import jax_reference as jref  # noqa: E402

from .test_region_sparse_sweep import (  # noqa: E402
    CASES,
    _chain_product,
    _chained,
    _dense,
    _loops,
    _same,
)


def _reverse_loop(n: int, f=_chained) -> tuple[Region, list[np.ndarray]]:
    """The reverse loop of ``f``'s gradient (the chained Rosenbrock's writes at its
    counter: two of the n gradient entries a step) and its operands."""
    found = [(r, args) for r, args in _loops(f, np.linspace(-0.8, 0.9, n)) if r.step_tables]
    assert len(found) == 1
    return found[0]


def _half(x):
    """The chained Rosenbrock over the first half of ``x``: its gradient's reverse loop
    writes none of the other half."""
    body = lambda i, a: a + 100.0 * (x[i + 1] - x[i] ** 2) ** 2 + (1.0 - x[i]) ** 2  # noqa: E731
    return jax.lax.fori_loop(0, x.shape[0] // 2, body, 0.0)


def _hessian_is_jaxs(f, n: int = 40) -> None:
    """The sparse Hessian of ``f`` at n unknowns is JAX's."""
    jax.config.update("jax_enable_x64", True)
    x = np.linspace(-0.8, 0.9, n)
    h = dgraph.hessian(f, x, sparse=True)
    at = x + 0.01
    want = np.asarray(jref.hessian(f)(at))
    np.testing.assert_allclose(h(at).toarray(), want, rtol=0, atol=1e-13 * np.abs(want).max())


def _evaluated(monkeypatch, run, *args) -> tuple[dict, list[int]]:
    """``run(*args)`` and the entries of each operation it evaluated (``arrays._forward``)."""
    sizes: list[int] = []
    forward = arrays._forward

    def counted(op, operands):
        found = forward(op, operands)
        sizes.append(int(np.size(found)))
        return found

    monkeypatch.setattr(arrays, "_forward", counted)
    try:
        found = run(*args)
    finally:
        monkeypatch.setattr(arrays, "_forward", forward)
    return found, sizes


@pytest.mark.usefixtures("loops_as_regions")
def test_a_step_evaluates_the_entries_it_writes(monkeypatch):
    """The reverse loop's run evaluates, a step, its scalars whole (those that read no
    changing carry for every step at once) and its carried gradient's operations at the
    entries the step writes alone: at most 3 entries an operation and the same count a
    step whatever n (the whole body: n a step). Its
    outputs are the whole body's bit for bit, a carried ``-0.0`` too (``x + 0.0`` is
    ``+0.0`` there: the entries no step writes come out ``+0.0``)."""
    per_step = []
    for f, n, zero in ((_chained, 12, False), (_chained, 40, False), (_half, 12, True)):
        r, args = _reverse_loop(n, f)
        if zero:
            args = [np.full_like(args[0], -0.0), *args[1:]]
        whole = region_sweep.trajectory_run(r, args)  # every step's values: the whole body
        found, sizes = _evaluated(monkeypatch, region_sweep.forward_run, r, args)
        assert found["trips"] == whole["trips"] == r.length
        for got, want in zip(found["outputs"], whole["outputs"], strict=True):
            assert got.dtype == want.dtype and got.tobytes() == want.tobytes()
        out = found["outputs"][0]
        if zero:
            assert np.count_nonzero(out == 0.0) >= 5 and not np.signbit(out[out == 0.0]).any()
            continue
        # a step's operations at most 3 entries; the scalars that read no changing
        # carry once for every step (dgraph.core.step_batch): one entry a step
        # and those that read none once: a·T + b entries in all, a and b whatever n
        assert all(size <= 3 or size == r.length for size in sizes)
        per_step.append((r.length, sum(sizes)))
    (t1, s1), (t2, s2) = per_step
    assert (s2 - s1) % (t2 - t1) == 0
    once = s1 - (s2 - s1) // (t2 - t1) * t1
    assert 0 <= once <= len(r.body.graph)


def _steps_counted(monkeypatch) -> list[int]:
    """The steps :meth:`Region._steps` hands out from now on, counted."""
    taken = [0]
    steps = Region._steps

    def counted(self, args):
        gen = steps(self, args)
        carry = None
        while True:
            try:
                found = gen.send(carry)
            except StopIteration:
                return
            taken[0] += 1
            carry = yield found

    monkeypatch.setattr(Region, "_steps", counted)
    return taken


def _sparse(monkeypatch) -> None:
    """Every loop's tangents on sparse storage (as at large n)."""
    monkeypatch.setattr(region_sweep, "DENSE_ENTRIES", 0)
    monkeypatch.setattr(region_sweep, "DENSE_STEP", 0)


@pytest.mark.usefixtures("loops_as_regions")
def test_the_values_and_then_the_tangents_run_the_steps_once(monkeypatch):
    """The value check asks a loop for its outputs, then for its blocks at the same
    operands: the chained Rosenbrock's loops run their steps once (the scan of a sum
    whole, the reverse loop in its written entries), the sweep reading the small values
    the first run kept; the blocks are the chain product's, the Hessian JAX's."""
    _sparse(monkeypatch)
    loops = _loops(_chained, np.linspace(-0.8, 0.9, 12))
    assert len(loops) == 2
    for r, args in loops:
        r._runs.clear()
        with monkeypatch.context() as m:
            taken = _steps_counted(m)
            r._run(args)
            run = r._run(args, tangents=True, absolute=True)
        assert taken[0] == r.length == 11
        _same(run, _chain_product(r, args), region_sweep.forward_run(r, args))
    _hessian_is_jaxs(_chained, 12)  # the loops' size: the same code as at 40


def _lifted(x):
    """A loop writing at its counter that adds 0.5 to its whole carried array each step
    (no entry passed as it is), and its gradient's reverse loop."""
    body = lambda i, a: a.at[i].set(jnp.sin(x[i]) * 2.0) + 0.5  # noqa: E731
    return jnp.sum(jax.lax.fori_loop(0, x.shape[0], body, x) ** 2)


@pytest.mark.usefixtures("loops_as_regions")
def test_every_loop_runs_as_the_whole_body_and_once_where_it_can(monkeypatch):
    """Loops of the loop tests (and one adding to its whole carried array):
    its run for values gives the whole body's outputs bit for bit; the sweep after it
    (reading its kept steps where it reads only them) the chain product's blocks and
    rounding scales, on sparse storage; some run their steps once for both, not twice.
    The Hessians are JAX's."""
    _sparse(monkeypatch)
    names = [
        "the chained Rosenbrock",
        "a written vector moved by a carried scalar",
        "a reverse scan with ys",
        "an iterated while_loop",
    ]
    programs = {**{k: CASES[k] for k in names}, "lifted": (_lifted, np.linspace(-0.8, 0.9, 12))}
    steps = taken_total = 0
    for name in sorted(programs):
        for r, args in _loops(*programs[name]):
            whole = region_sweep.trajectory_run(r, args)
            with monkeypatch.context() as m:
                taken = _steps_counted(m)
                forward = region_sweep.forward_run(r, args)
                run = region_sweep.tangent_sweep(r, args, forward, True)
            steps += 2 * forward["trips"]
            taken_total += taken[0]
            assert forward["trips"] == whole["trips"]
            for got, want in zip(forward["outputs"], whole["outputs"], strict=True):
                assert got.dtype == want.dtype and got.tobytes() == want.tobytes()
            _same(run, _chain_product(r, args), forward)
    assert taken_total < steps
    _hessian_is_jaxs(_lifted, 20)


@functools.cache
def _chained_loop() -> tuple[Region, list[np.ndarray]]:
    """The chained Rosenbrock's first loop and its operands (built once for both cases)."""
    return _loops(_chained, np.linspace(-0.8, 0.9, 6))[0]


@pytest.mark.usefixtures("loops_as_regions")
@pytest.mark.parametrize("most", [regions.HANDED_MOST, 0])
def test_a_point_s_blocks_asked_again_are_swept_once(monkeypatch, most):
    """A value check asks a loop's blocks at a point once per group of outputs (and the
    code's ``wᵀ·J`` again), a loop used at two points in turn: each block's magnitudes
    and values, asked at A, B, A, B, come from one sweep a point (counted, never timed),
    the chain product's; with no room to keep them
    (:data:`~dgraph.core.regions.HANDED_MOST` 0) each point is swept each time, as
    before (its tangents let go when the other's are swept)."""
    monkeypatch.setattr(regions, "HANDED_MOST", most)
    r, a = _chained_loop()
    b = [x + 0.01 if np.issubdtype(np.asarray(x).dtype, np.floating) else x for x in a]
    r._runs.clear()
    swept = []
    sweep = regions.tangent_sweep
    monkeypatch.setattr(regions, "tangent_sweep", lambda *s: swept.append(1) or sweep(*s))
    whole = SimpleNamespace(value=None)  # a dense block: the whole (output, operand) matrix
    pairs = [(j, k) for j in range(len(r.out_shapes)) for k in range(len(r.operand_shapes))]
    asked = [
        (
            args,
            {
                p: (r.block_magnitude(*p, args, whole), r.block_value(*p, args, whole))
                for p in pairs
            },
        )
        for args in (a, b, a, b)
    ]
    assert len(swept) == (2 if most else 4)
    for args, got in asked:
        want = _chain_product(r, args)
        for p in pairs:
            for found, field in zip(got[p], ("magnitudes", "jacobian"), strict=True):
                expected = _dense(want[field][p]) if p in want[field] else 0.0 * found
                np.testing.assert_allclose(found.reshape(expected.shape), expected, atol=1e-13)
