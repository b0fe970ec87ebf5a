"""The gather and scatter position maps NumPy computes (:mod:`dgraph.frontends.jaxpr_index_maps`)
equal the maps JAX's own gather and scatter give (:mod:`dgraph.frontends.jaxpr_scatter`'s
fallback), for the index forms ``jnp`` writes: points, rows, windows, several axes,
broadcast index arrays, 0-d operands; and NumPy declines where a window leaves the
operand (JAX clamps, fills or drops there)."""

from __future__ import annotations

import functools
import math

import numpy as np
import pytest

jax = pytest.importorskip("jax", reason="JAX is not installed")
jnp = jax.numpy

from dgraph.frontends import jaxpr_scatter as js  # noqa: E402
from dgraph.frontends import jaxpr_steps  # noqa: E402
from dgraph.frontends.jaxpr_index_maps import gather_sources, scatter_targets  # noqa: E402
from tests import jax_reference as jref  # noqa: E402


@pytest.fixture(autouse=True)
def _float64():
    with jax.enable_x64(True):
        yield


_I = np.array([2, 0, 3])
_J = np.array([[1, 0], [2, 2]])

GATHERS = {
    "point": ((5,), lambda x: x[_I]),
    "rows": ((4, 3), lambda x: x[_I]),
    "columns": ((4, 3), lambda x: x[:, _I[:2]]),
    "two axes": ((4, 3), lambda x: x[_I, np.array([0, 2, 1])]),
    "2-d indices": ((4, 3), lambda x: x[_J]),
    "broadcast": ((4, 3, 2), lambda x: x[_J[:, :1], :, _J[:1, :] % 2]),
    "mixed slice": ((4, 3, 2), lambda x: x[1:3, np.array([2, 0])]),
    "scalar index": ((4, 3), lambda x: x[2, np.array([1, 1, 0])]),
    "take": ((6,), lambda x: jnp.take(x, jnp.array([5, 0, 5]))),
    "windows": (
        (6, 4),
        lambda x: jax.lax.gather(
            x,
            np.array([[1, 0], [3, 2]]),
            jax.lax.GatherDimensionNumbers((1, 2), (), (0, 1)),
            (2, 2),
            mode="promise_in_bounds",
        ),
    ),
}

SCATTERS = {
    "set point": ((5,), (3,), lambda x, u: x.at[_I].set(u)),
    "set row": ((4, 3), (3,), lambda x, u: x.at[2].set(u)),
    "set rows": ((4, 3), (3, 3), lambda x, u: x.at[_I].set(u)),
    "set column": ((4, 3), (4,), lambda x, u: x.at[:, 1].set(u)),
    "set two axes": ((4, 3), (3,), lambda x, u: x.at[_I, np.array([0, 2, 1])].set(u)),
    "set slice": ((6, 4), (2, 4), lambda x, u: x.at[1:3].set(u)),
    "set last": ((4, 3), (3,), lambda x, u: x.at[-1, :].set(u)),
    "add repeated": ((4,), (5,), lambda x, u: x.at[np.array([0, 1, 1, 3, 0])].add(u)),
    "add 2-d": ((4, 3), (2, 2, 3), lambda x, u: x.at[_J].add(u)),
    "add broadcast": ((4, 3, 2), (2, 2, 3), lambda x, u: x.at[_J[:, :1], :, _J[:1] % 2].add(u)),
    "max window": ((6, 4), (3, 2), lambda x, u: x.at[2:5, 1:3].max(u)),
    "0-d": ((), (), lambda x, u: x.at[()].set(u)),
}


@functools.cache
def _equations(f, *shapes, name):
    """The ``name`` equations ``f`` runs, each with its operands' values (calls inlined);
    once per case for the file's tests (each run binds every equation eagerly)."""
    closed = jax.make_jaxpr(f)(*(np.ones(s) for s in shapes))
    found = []

    def run(jaxpr, consts, args):
        env = dict(zip(jaxpr.constvars, consts, strict=True))
        env.update(zip(jaxpr.invars, args, strict=True))

        def read(v):
            return v.val if hasattr(v, "val") else env[v]

        for e in jaxpr.eqns:
            ins = [read(v) for v in e.invars]
            if e.primitive.name.startswith(name):
                found.append((e, [np.asarray(x) for x in ins]))
            if e.primitive.name in ("pjit", "jit"):
                inner = e.params["jaxpr"]
                outs = run(inner.jaxpr, inner.consts, ins)
            else:
                outs = e.primitive.bind(*ins, **e.params)
                outs = outs if e.primitive.multiple_results else [outs]
            env.update(zip(e.outvars, outs, strict=True))
        return [read(v) for v in jaxpr.outvars]

    run(closed.jaxpr, closed.consts, [np.ones(s) for s in shapes])
    return found


@pytest.mark.parametrize("case", GATHERS)
def test_gather_positions_by_numpy_are_jax_s(case):
    shape, f = GATHERS[case]
    eqns = _equations(f, shape, name="gather")
    assert eqns, case
    for e, ins in eqns:
        idx, whole = ins[1], tuple(e.invars[0].aval.shape)
        p = e.params
        mine = gather_sources(
            whole,
            tuple(e.outvars[0].aval.shape),
            idx,
            p["dimension_numbers"],
            tuple(p["slice_sizes"]),
            p["mode"],
        )
        assert mine is not None
        assert np.array_equal(mine, js._gathered(p, idx, whole))


@pytest.mark.parametrize("case", SCATTERS)
def test_scatter_positions_by_numpy_are_jax_s(case):
    shape, part, f = SCATTERS[case]
    eqns = _equations(f, shape, part, name="scatter")
    assert eqns, case
    for e, ins in eqns:
        idx = ins[1]
        whole, upd = tuple(e.invars[0].aval.shape), tuple(e.invars[2].aval.shape)
        p = e.params
        options = {k: p[k] for k in ("dimension_numbers", "indices_are_sorted", "unique_indices")}
        options["mode"] = p["mode"]
        mine = scatter_targets(whole, upd, idx, p["dimension_numbers"], p["mode"])
        assert mine is not None
        n = math.prod(whole)
        assert np.array_equal(mine, js._landed(jax, idx, whole, upd, n, options, "f", "scatter"))
        if np.bincount(mine, minlength=1).max() <= 1:  # no ties: the entries written
            won = np.full(n, -1)
            won[mine] = np.arange(mine.size)
            assert np.array_equal(won, js._won(jax, idx, whole, upd, options))


def test_numpy_declines_a_window_out_of_bounds():
    """x.at[[1, 9]].add(u) drops the update at 9 and x[[1, 9]] clamps (or fills): JAX says."""
    dropped = _equations(lambda x, u: x.at[np.array([1, 9])].add(u), (4,), (2,), name="scatter")
    ((e, ins),) = dropped
    p, idx = e.params, ins[1]
    assert scatter_targets((4,), (2,), idx, p["dimension_numbers"], p["mode"]) is None
    numbers = jax.lax.GatherDimensionNumbers((), (0,), (0,))
    mode = jax.lax.GatherScatterMode.CLIP
    assert gather_sources((4,), (2,), np.array([[1], [9]]), numbers, (1,), mode) is None
    assert gather_sources((4,), (2,), np.array([[1], [-1]]), numbers, (1,), mode) is None
    assert list(gather_sources((4,), (2,), np.array([[1], [3]]), numbers, (1,), mode)) == [1, 3]


def _taken(u):
    """A stencil whose neighbours leave the array: ``jnp.take`` clamped at both ends,
    rows of a matrix clamped, and one wrapped around."""
    i = jnp.arange(u.shape[0])
    clipped = jnp.take(u, i - 2, mode="clip") + 2.0 * jnp.take(u, i + 3, mode="clip")
    filled = jnp.take(jnp.outer(u, u[:2]), i + 4, axis=0, mode="clip")[:, 1]
    wrapped = jnp.take(u, i + 1, mode="wrap")
    return jnp.concatenate([clipped * u**2, filled * wrapped, jnp.sin(clipped)])


def test_constant_indices_out_of_bounds_follow_the_mode():
    """Constant gather indices out of bounds (``mode="clip"``) are read as JAX clamps
    them: the Jacobian equals ``jax.jacfwd``'s, the Hessian of a sum
    ``jax.hessian``'s (main refused: "gather: an index is out of bounds")."""
    from dgraph import from_jax, hessian, make_function

    u = np.random.default_rng(5).normal(size=6)
    want = np.asarray(jref.jacfwd(_taken)(u))
    # the array level: the reading of the gather (the element level, make_function's
    # default here, is its expansion at 10 times the CPU)
    got = np.asarray(make_function(from_jax(_taken, u, level="array"), "jacobian", "python")(u))
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12 * np.abs(want).max())
    assert np.count_nonzero(want[:6, 0]) >= 3  # entry 0 is read by the clamped neighbours

    def g(u):
        return jnp.sum(_taken(u) ** 2)

    H = hessian(g, u, method="forward")(u)  # the choice's (the same text; not every candidate)
    H = np.asarray(H.toarray() if hasattr(H, "toarray") else H)
    want_h = np.asarray(jref.hessian(g)(u))
    np.testing.assert_allclose(H, want_h, rtol=0, atol=1e-12 * np.abs(want_h).max())


def _rows(idx: np.ndarray) -> np.ndarray:
    """Three steps' index values of the shape of ``idx``, each in bounds: ``idx``, its
    first axis reversed, zeros."""
    flipped = np.flip(idx, axis=0) if idx.ndim else idx
    return np.stack([idx, flipped, np.zeros_like(idx)])


@pytest.mark.parametrize("case", GATHERS)
def test_a_gather_at_every_step_is_each_step_s_map(case):
    """The positions a gather at a loop counter reads at every step at once (the steps a
    batch axis in front: :func:`jaxpr_steps._stacked_sources`, what ``jax.vmap`` of the
    gather gave before) are each step's own map, row by row."""
    shape, f = GATHERS[case]
    for e, ins in _equations(f, shape, name="gather"):
        whole, out, p = tuple(e.invars[0].aval.shape), tuple(e.outvars[0].aval.shape), e.params
        rows = _rows(ins[1])
        found = jaxpr_steps._stacked_sources(e, whole, [rows])
        assert found is not None and found.shape == (3, *out)
        for t in range(3):
            one = gather_sources(
                whole, out, rows[t], p["dimension_numbers"], tuple(p["slice_sizes"]), p["mode"]
            )
            np.testing.assert_array_equal(found[t].reshape(-1), one)


@pytest.mark.parametrize("case", SCATTERS)
def test_a_scatter_at_every_step_is_each_step_s_map(case):
    """As the gathers: a write's targets at every step at once
    (:func:`jaxpr_steps._stacked_targets`) are each step's own, row by row; a step that
    writes a position twice is found (``_repeats``: a set there is JAX's to order)."""
    shape, part, f = SCATTERS[case]
    for e, ins in _equations(f, shape, part, name="scatter"):
        whole, upd, p = tuple(e.invars[0].aval.shape), tuple(e.invars[2].aval.shape), e.params
        rows = _rows(ins[1])
        found = jaxpr_steps._stacked_targets(e, whole, upd, [rows])
        assert found is not None and found.shape == (3, *upd)
        flat = found.reshape(3, -1)
        for t in range(3):
            one = scatter_targets(whole, upd, rows[t], p["dimension_numbers"], p["mode"])
            np.testing.assert_array_equal(flat[t], one)
        twice = [len(np.unique(r)) < r.size for r in flat]
        assert jaxpr_steps._repeats(flat) is any(twice)
        assert jaxpr_steps._repeats(flat[:1]) is twice[0]


def test_reading_writes_and_reads_at_the_counter_compiles_nothing(monkeypatch):
    """A loop that reads rows of its carry at the counter (a gather) and adds and sets
    rows there (scatter-add, scatter): their positions at every step are NumPy's
    (``jax.vmap`` of each, one XLA compile apiece before, refused here), the Jacobian
    JAX's."""
    import dgraph
    from dgraph.frontends import jaxpr_steps as steps

    def refused(*args):
        raise AssertionError("positions by jax.vmap")

    monkeypatch.setattr(steps, "_vmapped", refused)
    met = []
    for name in ("_stacked_sources", "_stacked_targets"):
        found = getattr(steps, name)
        monkeypatch.setattr(
            steps, name, lambda *a, f=found: met.append(a[0].primitive.name) or f(*a)
        )

    def counter_rw(x):
        m = x.reshape(-1, 2)

        def body(i, o):
            o = o.at[i + 1].add(jnp.sin(o[i + jnp.arange(2)]).sum(0) * m[i])
            return o.at[i].set(o[i] ** 2 * m[i, ::-1])

        return jax.lax.fori_loop(0, m.shape[0] - 1, body, m).reshape(-1)

    x = np.linspace(0.2, 1.3, 10)
    g = dgraph.from_jax(counter_rw, x, level="array")
    J = dgraph.accumulate(g, "forward").evaluate([x])[0]
    assert sorted(met) == ["gather", "scatter", "scatter-add"]
    np.testing.assert_allclose(J, jref.jacfwd(counter_rw)(x), rtol=1e-13, atol=1e-13)


def test_clamped_filled_and_dropped_windows_at_the_counter_compile_nothing(monkeypatch):
    """Reads past the carry's end clamped (``clip``) and writes past it clamped or dropped:
    their positions at every step are NumPy's, windows clamped or dropped as XLA does
    (``jax.vmap`` of each before, one XLA compile apiece, refused here), the Jacobian
    JAX's."""
    import dgraph
    from dgraph.frontends import jaxpr_steps as steps

    def refused(*args):
        raise AssertionError("positions by jax.vmap")

    monkeypatch.setattr(steps, "_vmapped", refused)

    def past_the_end(x):
        m = x.reshape(-1, 2)

        def body(i, o):
            rows = o.at[i + 1 + jnp.arange(2)].get(mode="clip")  # the last steps clamped
            o = o.at[i + 2].add(jnp.sin(rows).sum(0) * m[i], mode="drop")
            return o.at[i + 3].set(o[i] ** 2, mode="clip")

        return jax.lax.fori_loop(0, m.shape[0], body, m).reshape(-1)

    x = np.linspace(0.2, 1.3, 10)
    g = dgraph.from_jax(past_the_end, x, level="array")
    J = dgraph.accumulate(g, "forward").evaluate([x])[0]
    np.testing.assert_allclose(J, jref.jacfwd(past_the_end)(x), rtol=1e-13, atol=1e-13)


def test_a_clamped_gather_is_read_by_numpy(monkeypatch):
    """A gather at constant indices past the operand's end, clamped (``clip``): its
    positions are NumPy's (JAX's gather of the positions before, one compile; refused
    here), the Jacobian JAX's."""
    import dgraph
    from dgraph.frontends import jaxpr_scatter

    def refused(*args):
        raise AssertionError("positions by JAX's gather")

    monkeypatch.setattr(jaxpr_scatter, "_gathered", refused)

    def past_the_end(x):
        at = jnp.array([0, 7, 2])
        return x.at[at].get(mode="clip") * jnp.sin(x[:3])

    x = np.linspace(0.2, 1.3, 5)
    g = dgraph.from_jax(past_the_end, x, level="array")
    J = dgraph.accumulate(g, "forward").evaluate([x])[0]
    np.testing.assert_allclose(J, jref.jacfwd(past_the_end)(x), rtol=1e-13, atol=1e-13)
