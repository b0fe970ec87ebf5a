"""A loop's tangent sweep (issue 55): one recurrence (``dgraph.core.tangent_recurrence``)
on dense arrays or sparse matrices, its body Jacobians taken a chunk of steps at once
(``region_sweep.tangent_sweep``), or step by step for a body too large to plan. Each
storage, chunk size and path must give the blocks and rounding scales of the chain
product written out here step by step (:func:`_chain_product`), on every loop of the
loop tests and the while loops of the while tests; the storage follows the size
threshold (``region_sweep.fits``)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
lax = jax.lax

import dgraph  # noqa: E402
from dgraph.blocks.arrays import operand_value  # noqa: E402
from dgraph.core import region_sweep  # noqa: E402
from dgraph.core.block_values import vertex_values  # noqa: E402
from dgraph.core.regions import Region, regions_of  # noqa: E402
from dgraph.core.step_entries import StepEntries  # noqa: E402
from dgraph.core.tangent_recurrence import DENSE, ROWS, SPARSE, StepLayout  # noqa: E402
from dgraph.frontends.jax_hessian import gradient_graph  # noqa: E402
from tests import jax_reference as jref  # noqa: E402

from .test_loop_hessians import FUNCTIONS  # noqa: E402
from .test_while_hessians import (  # noqa: E402
    _coupled,
    _forward_over_forward,
    _iterated,
    _newton_sqrt,
    _triangle,
)

A = np.array([[0.5, 0.1, 0.0], [0.2, 0.3, 0.1], [0.0, 0.4, 0.2]])


def _scan(reverse: bool):
    def f(x):
        def step(c, xt):
            return jnp.tanh(A @ c) * x[:3] + xt, jnp.sin(c) * xt[0]

        c, ys = lax.scan(step, x[:3], x[3:].reshape(-1, 3), reverse=reverse)
        return jnp.sum(c**2) + jnp.sum(ys**3)

    return f


def _nested(x, steps: int = 4):
    def outer(c, _):
        inner = lax.scan(lambda d, __: (jnp.sin(d) * x + 0.3 * d, None), c, None, length=3)
        return inner[0] * 0.5 + c, jnp.cos(c)

    c, ys = lax.scan(outer, x, None, length=steps)
    return jnp.sum(c**2) + jnp.sum(ys)


def _chained(x):
    body = lambda i, a: a + 100.0 * (x[i + 1] - x[i] ** 2) ** 2 + (1.0 - x[i]) ** 2  # noqa: E731
    return lax.fori_loop(0, x.shape[0] - 1, body, 0.0)


def _shifted(x):
    """A carried vector written at the counter and moved by a carried scalar: each of
    its rows its own entry 1 and the scalar's, at run time (not passed through); tanh's
    rule a sum whose terms cancel (a rounding scale above its value)."""

    def body(i, c):
        v, s = c
        v = v.at[i].set(jnp.tanh(2.0 * v[i] - 1.0)) + 0.1 * s * x
        return v, s + v[i]

    v, s = lax.fori_loop(0, x.shape[0], body, (x, 0.5))
    return jnp.sum(v**2) + s


def _rk4_program():
    """The RK4 loop of a Duffing oscillator of benchmarks/hessian_loops.py (a body reading
    part of a vector's entries), 3 steps, with its point."""
    path = Path(__file__).resolve().parents[1] / "benchmarks" / "hessian_loops.py"
    spec = importlib.util.spec_from_file_location("hessian_loops", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.programs(rk4_steps=3)["RK4 of a Duffing oscillator, fori_loop"]


_rk4, _RK4_POINT = _rk4_program()


CASES = {
    **FUNCTIONS,
    "a scan with ys": (_scan(False), np.linspace(-0.5, 0.7, 12)),
    "a reverse scan with ys": (_scan(True), np.linspace(-0.5, 0.7, 12)),
    "a scan in a scan": (_nested, np.array([0.3, -0.2, 0.5])),
    "the chained Rosenbrock": (_chained, np.linspace(-0.8, 0.9, 7)),
    "a written vector moved by a carried scalar": (_shifted, np.array([0.3, -0.5, 0.8, 0.1])),
    "RK4 of a Duffing oscillator": (_rk4, _RK4_POINT),
    "a Newton while_loop": (_newton_sqrt, np.array([0.7, 1.3, 2.1])),
    "an iterated while_loop": (lambda x: jnp.sum(_iterated(x) ** 2), np.array([0.3, -0.5, 0.8])),
    "a while_loop with dense tangents": (
        lambda x: jnp.sum(_coupled(x) ** 2),
        np.array([0.3, -0.5, 0.8]),
    ),
    "while_loops in a fori_loop": (_triangle, np.array([0.3, -0.5, 0.8, 0.1])),
}


def _loops(f, x) -> list[tuple[Region, list[np.ndarray]]]:
    """Every loop of the gradient's graph (a scan of some steps, a while loop) with its
    operands at another point: once for all the vertices of its outputs (one sweep gives
    every output's blocks)."""
    jax.config.update("jax_enable_x64", True)
    g = gradient_graph(f, x)
    values = vertex_values(g, {g.inputs[0]: 0.8 * np.asarray(x) + 0.1}, {})
    found, seen = [], set()
    for v, r in regions_of(g):
        key = (id(r), tuple(g.op(v).operands))
        if (r.kind == "while" or r.length) and key not in seen:
            seen.add(key)
            found.append((r, [np.asarray(operand_value(u, values)) for u in g.op(v).operands]))
    return found


def _chain_product(r: Region, args: list[np.ndarray]) -> dict:
    """The loop's run written out, dense, step by step: each step's body Jacobian
    (``Body.jacobian``) times the tangents of all its float inputs stacked (a carry's
    from the step before, a constant's or this step's slice's their seed columns):
    ``D``, and ``F ← J·F + E·|D|`` with ``E`` the Jacobian's magnitudes less its
    absolute values; the blocks ``D``, the rounding scales ``|D| + |F|``."""
    b = r.body
    columns = r._columns(args)
    width = columns[-1]
    d = [m.toarray() for m in r._seed_carries(columns, width)]
    f = [np.zeros_like(m) for m in d]
    dys, fys = [], []
    steps = r._steps(args)
    try:
        t, inputs = next(steps)
        while True:
            values = b.values(inputs)
            sized = b.jacobian(values, absolute=True).toarray()
            jac = b.jacobian(values).toarray()
            d_in, f_in = np.zeros((b.n_in, width)), np.zeros((b.n_in, width))
            for i in range(len(b.inputs)):
                if not b.floats[i]:
                    continue
                size, at = int(np.prod(b.shapes[i])), b.in_offsets[i]
                if r.n_consts <= i < r.n_consts + r.n_carry:
                    d_in[at : at + size], f_in[at : at + size] = (
                        d[i - r.n_consts],
                        f[i - r.n_consts],
                    )
                    continue
                lo, hi = columns[r.n_cond_consts + i], columns[r.n_cond_consts + i + 1]
                if hi > lo:
                    s = r.length - 1 - t if r.reverse else t
                    lo += s * size if i >= r.n_consts + r.n_carry else 0
                    d_in[at : at + size, lo : lo + size] = np.eye(size)
            d_out = jac @ d_in
            f_out = jac @ f_in + np.maximum(sized - np.abs(jac), 0.0) @ np.abs(d_in)
            rows = []
            for o, shape in enumerate(b.out_shapes):
                size, at = int(np.prod(shape)), b.out_offsets[o]
                found = [np.zeros((size, width))] * 2 if at is None else None
                rows.append(found or [d_out[at : at + size], f_out[at : at + size]])
            d, f = [x[0] for x in rows[: r.n_carry]], [x[1] for x in rows[: r.n_carry]]
            dys.append([x[0] for x in rows[r.n_carry :]])
            fys.append([x[1] for x in rows[r.n_carry :]])
            carry = [np.asarray(o) for o in b.results(values)[: r.n_carry]]
            t, inputs = steps.send(carry)
    except StopIteration:
        pass
    out: dict = {"jacobian": {}, "magnitudes": {}}
    for j in range(len(r.out_shapes)):
        if j < r.n_carry:
            dj, fj = d[j], f[j]
        else:
            order = slice(None, None, -1 if r.reverse else 1)
            dj = np.vstack([y[j - r.n_carry] for y in dys][order] or [np.zeros((0, width))])
            fj = np.vstack([y[j - r.n_carry] for y in fys][order] or [np.zeros((0, width))])
        for k in range(len(r.operand_shapes)):
            lo, hi = columns[k], columns[k + 1]
            if hi > lo:
                out["jacobian"][(j, k)] = dj[:, lo:hi]
                out["magnitudes"][(j, k)] = np.abs(dj[:, lo:hi]) + np.abs(fj[:, lo:hi])
    return out


def _dense(m) -> np.ndarray:
    return m.toarray() if hasattr(m, "toarray") else np.asarray(m)


def _same(got: dict, want: dict, forward: dict) -> None:
    """``got`` (a run) gives ``want``'s blocks and rounding scales to 1e-13 of each
    block's largest entry, and ``forward``'s outputs and trips."""
    assert got["trips"] == forward["trips"]
    for a, b in zip(got["outputs"], forward["outputs"], strict=True):
        _close(a, b, rtol=1e-13, atol=0)
    for field in ("jacobian", "magnitudes"):
        assert set(got[field]) == set(want[field])
        for key, m in want[field].items():
            expected, found = _dense(m), _dense(got[field][key])
            assert found.shape == expected.shape
            scale = np.abs(expected).max(initial=0.0) or 1.0
            _close(found, expected, rtol=0, atol=1e-13 * scale)


def _close(found, expected, rtol: float, atol: float) -> None:
    """``assert_allclose``, its report made only where the plain comparison fails (it
    took a tenth of the test's CPU over some thousand small blocks)."""
    found, expected = np.asarray(found), np.asarray(expected)
    plain = found.dtype.kind in "fc" and expected.dtype.kind in "fc"  # else: as before
    if (
        not plain
        or found.shape != expected.shape
        or not np.all(np.abs(found - expected) <= atol + rtol * np.abs(expected))
    ):
        np.testing.assert_allclose(found, expected, rtol=rtol, atol=atol)


# The sparse storage's two choices, in the rows a step writes or whole and a step a
# chunk or all at once: each loop meets both values of each, alternate loops the other
# two pairs (every pair of the two met, not every loop with every pair)
SPARSE_RUNS = (((True, 1), (False, 10**7)), ((True, 10**7), (False, 1)))


@pytest.mark.usefixtures("loops_as_regions")
@pytest.mark.parametrize("name", sorted(CASES))
def test_each_storage_and_path_gives_the_chain_product(name, monkeypatch):
    loops = _loops(*CASES[name])
    assert loops
    for r, args in loops:
        want = _chain_product(r, args)
        forward = region_sweep.forward_run(r, args)
        if region_sweep.fits(r, args):  # a scan small enough: dense, every step at once
            _same(region_sweep.tangent_sweep(r, args, None, True), want, forward)
            with monkeypatch.context() as m:  # each row a product, none written in place
                m.setattr(StepLayout, "_own_rows", lambda self: False)
                m.setattr(r, "_sweep_parts", None)  # its layout made again, so patched
                _same(region_sweep.tangent_sweep(r, args, None, True), want, forward)
        with monkeypatch.context() as m:
            m.setattr(region_sweep, "DENSE_ENTRIES", 0)  # dense tangents, sparse ys
            _same(region_sweep.tangent_sweep(r, args, None, True), want, forward)
            m.setattr(region_sweep, "DENSE_STEP", 0)  # sparse: a step a chunk, or all
            for by_rows, chunk in SPARSE_RUNS[sorted(CASES).index(name) % 2]:
                if not by_rows:  # in the rows a step writes where few; or whole
                    m.setattr(StepEntries, "of", classmethod(lambda cls, *a: None))
                m.setattr(region_sweep, "CHUNK_ENTRIES", chunk)
                _same(region_sweep.tangent_sweep(r, args, None, True), want, forward)
            m.setattr(r.body, "_plan", False)  # a body too large to plan: step by step
            _same(region_sweep.tangent_sweep(r, args, None, True), want, forward)


def _storages(monkeypatch) -> list[tuple[str, str]]:
    """The storages (of the carried tangents, of the ys) of every tangent sweep from now
    on, in order."""
    found = []
    plain = region_sweep.TangentRecurrence

    def counted(layout, storage, *args, ys_storage=None, **kwargs):
        found.append((storage, ys_storage or storage))
        return plain(layout, storage, *args, ys_storage=ys_storage, **kwargs)

    monkeypatch.setattr(region_sweep, "TangentRecurrence", counted)
    return found


@pytest.mark.usefixtures("loops_as_regions")
def test_the_storage_follows_the_size_thresholds(monkeypatch):
    """The chained Rosenbrock's loops (scans in the gradient) take dense tangents where
    they fit; where they do not (as at n = 3,000), dense carried tangents and sparse ys
    where a step's rows are few (as for its scans carrying the sum), else sparse ones;
    a small while loop dense carried tangents. The Hessians equal JAX's."""
    jax.config.update("jax_enable_x64", True)
    x = np.linspace(-0.8, 0.9, 9)
    want = np.asarray(jref.hessian(_chained)(x + 0.01))
    both = region_sweep.DENSE_ENTRIES, region_sweep.DENSE_STEP
    for limits, storages in (
        (both, {(DENSE, DENSE)}),
        ((0, both[1]), {(DENSE, SPARSE)}),
        ((0, 0), {(SPARSE, SPARSE), (ROWS, SPARSE)}),  # the reverse loop: its rows
    ):
        with monkeypatch.context() as m:
            m.setattr(region_sweep, "DENSE_ENTRIES", limits[0])
            m.setattr(region_sweep, "DENSE_STEP", limits[1])
            found = _storages(m)
            h = dgraph.hessian(_chained, x, sparse=True)
            np.testing.assert_allclose(h(x + 0.01).toarray(), want, rtol=1e-12, atol=1e-12)
        assert found and set(found) == storages
    found = _storages(monkeypatch)
    x = np.array([0.7, 1.3, 2.1])
    h = dgraph.hessian(_newton_sqrt, x, sparse=True)
    want = _forward_over_forward(_newton_sqrt, x + 0.01)  # no reverse mode through it
    np.testing.assert_allclose(h(x + 0.01).toarray(), want, rtol=1e-10, atol=1e-10)
    assert found and set(found) == {(DENSE, SPARSE)}


@pytest.mark.usefixtures("loops_as_regions")
def test_a_carried_sum_s_row_is_written_in_place(monkeypatch):
    """The chained Rosenbrock's scan carries a sum (∂a'/∂a = 1): with dense tangents each
    step keeps its row but for the step's placed entries (no product), and the blocks
    are the chain product's; a scan whose carry is scaled (a + sin(x[i])·a) keeps none."""
    from dgraph.core.tangent_recurrence import Split

    kept = []
    plain = Split.kept

    def counted(self, jac, excess):
        kept.append(plain(self, jac, excess))
        return kept[-1]

    monkeypatch.setattr(Split, "kept", counted)
    for f, x, every in (
        (_chained, np.linspace(-0.8, 0.9, 7), True),
        (*FUNCTIONS["fori_loop of x[i]"], False),
    ):
        found = []
        for r, args in _loops(f, x):
            if region_sweep.fits(r, args) and StepLayout(r, r._columns(args)).carry_total == 1:
                kept.clear()
                run = region_sweep.tangent_sweep(r, args, None, True)
                _same(run, _chain_product(r, args), region_sweep.forward_run(r, args))
                found.append(bool(kept) and all(k.all() for k in kept))
        assert found and set(found) == {every}


@pytest.mark.usefixtures("loops_as_regions")
def test_a_nested_loop_s_sweep_setup_is_made_once(monkeypatch):
    """A scan in a scan's body is swept at every outer step (6 steps, its 3 each): its
    tangents' layout and its body Jacobian's split pattern are made at its first sweep
    and kept by the loop (``SweepParts``), one of each per loop, not one per sweep; its
    trajectory at each outer step, run while the outer trajectory is taken, is kept
    (``KeptRuns``) and swept without stepping again: one run of its steps per outer
    step, not two. The blocks are the chain product's."""
    made: dict[tuple[str, int], int] = {}
    layout, split = StepLayout.__init__, StepLayout.split
    steps = region_sweep._Steps

    class Counted(steps):
        def __init__(self, region, *args, **kwargs):
            made[("steps", id(region))] = made.get(("steps", id(region)), 0) + 1
            super().__init__(region, *args, **kwargs)

    def counted_layout(self, region, columns):
        made[("layout", id(region))] = made.get(("layout", id(region)), 0) + 1
        layout(self, region, columns)

    def counted_split(self, indptr, cols):
        made[("split", id(self.region))] = made.get(("split", id(self.region)), 0) + 1
        return split(self, indptr, cols)

    monkeypatch.setattr(StepLayout, "__init__", counted_layout)
    monkeypatch.setattr(StepLayout, "split", counted_split)
    monkeypatch.setattr(region_sweep, "_Steps", Counted)
    sweeps = _storages(monkeypatch)
    checked = 0
    six = lambda x: _nested(x, 6)  # noqa: E731  (more runs than the 5 a loop once kept)
    for r, args in _loops(six, np.array([0.3, -0.2, 0.5])):
        inner = list({id(loop): loop for _, loop in regions_of(r.body.graph)}.values())
        if not inner:
            continue
        for loop in (r, *inner):  # as a fresh value check finds them
            loop._runs.clear()
            loop._sweep_parts = None
        made.clear()
        sweeps.clear()
        run = region_sweep.tangent_sweep(r, args, None, True)
        assert len(sweeps) == 1 + 6 * len(inner)  # the inner loops at each outer step
        assert all(loop.body.plan() for loop in (r, *inner))  # one split pattern each
        loops = {("layout", id(loop)) for loop in (r, *inner)}
        assert {k for k in made if k[0] != "steps"} == loops | {
            ("split", id(loop)) for loop in (r, *inner)
        }
        assert {made.pop(k) for k in made.copy() if k[0] != "steps"} == {1}
        assert made.pop(("steps", id(r))) == 1
        assert {made.pop(("steps", id(loop))) for loop in inner} == {6}  # one a step
        _same(run, _chain_product(r, args), region_sweep.forward_run(r, args))
        checked += 1
    assert checked


def _sparse_runs(f, x, monkeypatch) -> list[tuple[Region, list, dict]]:
    """Every loop of ``f``'s gradient swept on sparse storage (the rows a step writes
    where few): (the loop, its operands, the run), each run checked against the chain
    product."""
    monkeypatch.setattr(region_sweep, "DENSE_ENTRIES", 0)
    monkeypatch.setattr(region_sweep, "DENSE_STEP", 0)
    found = []
    for r, args in _loops(f, x):
        run = region_sweep.tangent_sweep(r, args, None, True)
        _same(run, _chain_product(r, args), region_sweep.forward_run(r, args))
        found.append((r, args, run))
    return found


@pytest.mark.usefixtures("loops_as_regions")
def test_a_step_evaluates_its_body_jacobian_in_the_rows_it_writes(monkeypatch):
    """The chained Rosenbrock's reverse loop carries n gradient entries and writes two
    of them a step (x[i] and x[i + 1]): the body Jacobian's entries evaluated are those
    two rows' (5 each: the entry itself, the carried adjoint, three slices), 10 a step
    whatever n, not its pattern's 5n + 1; its scans carrying a sum evaluate their whole
    (small) pattern. The blocks are the chain product's."""
    for n in (12, 40):
        runs = _sparse_runs(_chained, np.linspace(-0.8, 0.9, n), monkeypatch)
        reverse = [(r, run) for r, _, run in runs if r.step_tables]
        assert len(reverse) == 1
        r, run = reverse[0]
        plan = r.body.plan()
        whole = sum(plan.patterns[o][1].size for o in plan.outputs if o is not None)
        assert whole == 5 * n + 1
        assert run["entries"] == 10 * r.length
        for r, _, run in runs:
            if not r.step_tables:
                pattern = sum(r.body.plan().patterns[o][1].size for o in r.body.plan().outputs if o)
                assert run["entries"] == pattern * r.length
