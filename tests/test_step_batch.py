"""A scan's steps in Python only for what the steps compute one after another (issue 55):
the body's operations that read no changing carry run once for every step
(``dgraph.core.step_batch``), a carried array that only has picks added onto it takes
every step's at the end of the run (``StepValues.finish``), each the same numbers as
the whole body evaluated step by step; the Hessians of such loops are JAX's."""

from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax")

from dgraph.core import region_sweep, regions, step_values  # noqa: E402
from dgraph.core.regions import Region  # noqa: E402

from .test_region_sparse_sweep import _chained, _loops  # noqa: E402
from .test_step_values import _half, _hessian_is_jaxs  # noqa: E402


def _loop(n: int, masked: bool, f=_chained) -> tuple[Region, list[np.ndarray]]:
    """``f``'s gradient's forward loop (``masked`` False) or its reverse loop, which
    writes at its counter, and its operands at n unknowns."""
    found = [
        (r, args)
        for r, args in _loops(f, np.linspace(-0.8, 0.9, n))
        if bool(r.step_tables) == masked
    ]
    assert len(found) == 1
    return found[0]


def _whole(region: Region, args: list[np.ndarray]) -> list[np.ndarray]:
    """The loop's outputs, its whole body evaluated step by step (nothing batched)."""
    b = region.body
    carry, ys = None, [[] for _ in range(region.n_ys)]
    steps = region._steps([np.asarray(a) for a in args])
    try:
        while True:
            _, inputs = steps.send(carry)
            out = [np.asarray(o) for o in b.results(b.values(inputs))]
            carry = out[: region.n_carry]
            for j, y in enumerate(out[region.n_carry :]):
                ys[j].append(y)
    except StopIteration:
        pass
    return region.outputs_of(carry, ys)


def _same_bits(found: list[np.ndarray], want: list[np.ndarray]) -> None:
    for got, expected in zip(found, want, strict=True):
        got, expected = np.asarray(got), np.asarray(expected)
        assert got.shape == expected.shape
        assert got.astype(float).tobytes() == expected.astype(float).tobytes()


@pytest.mark.usefixtures("loops_as_regions")
def test_a_scan_evaluates_a_step_only_where_it_reads_a_changing_carry(monkeypatch):
    """The gradient's forward loop (a sum carried, a counter, the slices x[i], x[i+1]):
    of its 20 operations a step only the 3 that read the sum run step by step (main: all
    20), the rest once for every step; its outputs and each step's kept values are the
    whole body's bit for bit, and the Hessian at 5 unknowns JAX's (at 12 and 36, with
    this loop batched as here: tests/test_step_writes.py's NumPy case)."""
    calls = [0]
    evaluate = regions.evaluate

    def counted(*args, **kwargs):
        calls[0] += 1
        return evaluate(*args, **kwargs)

    monkeypatch.setattr(regions, "evaluate", counted)
    for n in (12, 40):
        r, args = _loop(n, masked=False)
        calls[0] = 0
        run = region_sweep.trajectory_run(r, args)
        assert run["trips"] == r.length == n - 1
        assert calls[0] <= 3 * r.length, calls[0]
        _same_bits(run["outputs"], _whole(r, args))
        b = r.body
        for t, values in enumerate(run["steps"][:3]):
            inputs = [np.asarray(a) for a in args]
            whole = b.values(list(_inputs_at(r, inputs, t)))
            for v in b.order:
                if b.graph.op(v) is not None and not _reads_carry(r, v):
                    assert np.asarray(values[v]).tobytes() == np.asarray(whole[v]).tobytes()
    _hessian_is_jaxs(_chained, 5)


def _inputs_at(r: Region, args: list[np.ndarray], t: int):
    """Step t's body inputs of the whole run (its carries from the steps before)."""
    steps = r._steps(args)
    carry = None
    for _ in range(t + 1):
        _, inputs = steps.send(carry)
        carry = [np.asarray(o) for o in r.body.results(r.body.values(inputs))][: r.n_carry]
    return inputs


def _reads_carry(r: Region, v: str) -> bool:
    """Whether vertex v of the forward loop's body reads its carried sum (c2)."""
    b = r.body
    reach, todo = set(), [v]
    while todo:
        u = todo.pop()
        if u in reach:
            continue
        reach.add(u)
        op = b.graph.op(u)
        if op is not None:
            todo.extend(x for x in op.vertices())
    return b.inputs[r.n_consts + 1] in reach


@pytest.mark.usefixtures("loops_as_regions")
def test_a_run_of_sums_adds_every_steps_picks_at_its_end(monkeypatch):
    """The reverse loop adds three picks a step onto the carried gradient and nothing
    else reads it: its entries are evaluated once for the run (main: once a step), the
    outputs the whole body's bit for bit; a carried -0.0 (``x + 0.0`` takes it to +0.0)
    is evaluated whole as before, the same bits. The Hessian of the gradient written in
    half its entries is JAX's (the chained Rosenbrock's: tests/test_step_writes.py's
    NumPy case, the same make at 12 and 36 unknowns)."""
    calls = [0]
    of = step_values._Entries.of

    def counted(self, wanted):
        calls[0] += 1
        return of(self, wanted)

    monkeypatch.setattr(step_values._Entries, "of", counted)
    for f, n, zero in ((_chained, 12, False), (_chained, 40, False), (_half, 12, True)):
        r, args = _loop(n, masked=True, f=f)
        if zero:
            args = [np.full_like(args[0], -0.0), *args[1:]]
        calls[0] = 0
        run = region_sweep.forward_run(r, args)
        assert run["trips"] == r.length
        assert calls[0] == (0 if zero else 1), calls[0]  # -0.0: the whole body
        _same_bits(run["outputs"], _whole(r, args))
    _hessian_is_jaxs(_half, 14)
