"""Constant index arrays as affine grids (dgraph.codegen.tensor.grid_index) and the
printers that write gathers and scatters at them as strided views: the detector round-
trips random boxes and refuses what is no grid; stencil Hessians on 2-D and 3-D grids
keep jax.hessian's values with their grid gathers and scatters printed as views."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dgraph.codegen.tensor.grid_index as gi
from dgraph.codegen.tensor.grid_index import Grid, _next_change, fit, grid, pieces

from .dense import dense as as_dense

_SETTINGS = settings(max_examples=60, deadline=None)


@st.composite
def boxes(draw, strides=None):
    strides = st.integers(-4, 40) if strides is None else strides
    dims = draw(st.integers(1, 3))
    shape = tuple(draw(st.lists(st.integers(1, 6), min_size=dims, max_size=dims)))
    steps = tuple(draw(st.lists(strides, min_size=dims, max_size=dims)))
    return Grid(draw(st.integers(0, 50)), shape, steps)


@_SETTINGS
@given(boxes())
def test_a_box_is_found_again(g: Grid) -> None:
    a = g.indices()
    assert a.size == g.size
    found = grid(a)
    assert found is not None and np.array_equal(found.indices(), a)
    assert len(found.shape) <= len(g.shape)  # adjacent axes that step as one merged
    again = fit(a.reshape(g.shape))
    assert again is not None and np.array_equal(again.indices(), a)
    whole = pieces(a, limit=1)
    assert whole is not None and len(whole) == 1


@_SETTINGS
@given(boxes())
def test_distinct_is_a_proof(g: Grid) -> None:
    if g.distinct():
        assert np.unique(g.indices()).size == g.size


@_SETTINGS
@given(boxes(strides=st.integers(1, 40)), st.data())
def test_a_changed_entry_is_no_grid(g: Grid, data) -> None:
    a = g.indices()
    if a.size < 3:
        return
    k = data.draw(st.integers(0, a.size - 1))
    b = a.copy()
    b[k] += data.draw(st.integers(1, 5))
    found = grid(b)
    assert found is None or np.array_equal(found.indices(), b)  # never a wrong grid
    if len(g.shape) == 1 and 0 < k < a.size - 1:
        assert found is None  # an inner entry off its progression


@_SETTINGS
@given(st.lists(st.integers(0, 30), min_size=1, max_size=40))
def test_pieces_rebuild_any_array(values: list[int]) -> None:
    a = np.array(values)
    found = pieces(a, limit=40)
    assert found is not None  # single entries at worst
    rebuilt = np.full(a.size, -1)
    for p in found:
        assert p.own.shape == p.at.shape
        places = p.own.indices()
        assert np.all(rebuilt[places] == -1)  # each place once
        rebuilt[places] = p.at.indices()
    assert np.array_equal(rebuilt, a)


def _every_change(a: np.ndarray, p: int) -> int | None:
    """The first change of step after ``p`` from the differences of the whole array."""
    step = np.diff(a)
    changes = np.flatnonzero(step[1:] != step[:-1]) + 1
    k = int(np.searchsorted(changes, p, side="right"))
    return int(changes[k]) if k < changes.size else None


def _found(a: np.ndarray) -> tuple:
    return tuple(pieces(a, limit=k) for k in (1, 8, 32)), grid(a)


def test_runs_found_from_the_next_change_alone_are_those_of_the_whole(monkeypatch) -> None:
    """The next change of step looked for in growing chunks from a run's start gives the
    pieces and grids the differences of the whole array give: runs of grids (a chunk's
    end inside a run, a run to the array's end), interleaved ones (the residues tried),
    grids with one entry moved, and random values."""
    rng = np.random.default_rng(3)
    arrays = []
    for i in range(150):
        if i % 3 == 0:
            # random values change step at almost every entry: past a few limits of
            # pieces their length is not the point
            arrays.append(rng.integers(0, 40, int(rng.integers(1, 80))))
        elif i % 3 == 1:
            parts = []
            for _ in range(int(rng.integers(1, 5))):
                shape = tuple(int(x) for x in rng.integers(1, 40, 2))
                strides = tuple(int(x) for x in rng.integers(1, 50, 2))
                parts.append(Grid(int(rng.integers(0, 900)), shape, strides).indices().ravel())
            arrays.append(np.concatenate(parts))
            if rng.random() < 0.4:
                arrays[-1][int(rng.integers(0, arrays[-1].size))] += 1
        else:  # two diagonals interleaved, a row skipped now and then
            rows = int(rng.integers(1, 700))
            arrays.append(np.ravel([[3 * j + 2, 3 * j + 3 + (j % 9 == 0)] for j in range(rows)]))
    found = {}
    for chunk in (2, 256):
        monkeypatch.setattr(gi, "_next_change", lambda a, p, c=chunk: _next_change(a, p, c))
        found[chunk] = [_found(a) for a in arrays]
    monkeypatch.setattr(gi, "_next_change", _every_change)
    assert found[2] == found[256] == [_found(a) for a in arrays]
    assert sum(len(f[0][2] or ()) > 1 for f in found[2]) > 50  # many in several pieces


def test_rows_of_a_stencil_are_few_pieces() -> None:
    """The entries of a 2-D stencil's block with two per interior row and one at the
    edge rows: an edge run, the interior rows (stride 0: each value twice), an edge run."""
    m = 50
    a = np.concatenate(
        [np.arange(m), np.repeat(np.arange(m, m * m - m), 2), np.arange(m * m - m, m * m)]
    )
    found = pieces(a, limit=4)
    assert found is not None and len(found) == 3
    assert grid(np.array([0, 1, 1, 0])) is None
    assert grid(np.random.default_rng(0).permutation(20)) is None


def _objectives(side: int = 8):
    jnp = pytest.importorskip("jax.numpy")

    def surface(m):  # the 2-D minimal surface's forward differences (5-point pattern)
        def f(u):
            p = jnp.pad(jnp.reshape(u, (m, m)), 1)
            dx, dy = p[1:, :-1] - p[:-1, :-1], p[:-1, 1:] - p[:-1, :-1]
            return jnp.sum(jnp.sqrt(1.0 + dx**2 + dy**2))

        return f, m * m

    def laplacian3(m):  # a 3-D 7-point Laplacian's energy, weighted
        def f(u):
            v = jnp.pad(jnp.reshape(u, (m, m, m)), 1)
            c = v[1:-1, 1:-1, 1:-1]
            lap = 6 * c - v[2:, 1:-1, 1:-1] - v[:-2, 1:-1, 1:-1] - v[1:-1, 2:, 1:-1]
            lap = lap - v[1:-1, :-2, 1:-1] - v[1:-1, 1:-1, 2:] - v[1:-1, 1:-1, :-2]
            return jnp.sum(lap**2 * jnp.cos(c))

        return f, m**3

    def nine(m):  # a 2-D 9-point stencil
        def f(u):
            v = jnp.pad(jnp.reshape(u, (m, m)), 1)
            s = sum(v[1 + a : m + 1 + a, 1 + b : m + 1 + b] for a in (-1, 0, 1) for b in (-1, 0, 1))
            return jnp.sum(jnp.exp(0.1 * s) * v[1:-1, 1:-1] ** 2)

        return f, m * m

    return {"surface": surface(side), "laplacian3": laplacian3(4), "nine": nine(8)}


def _index_constants(module, text: str, pattern: str) -> list[np.ndarray]:
    return [np.asarray(getattr(module, k)) for k in re.findall(pattern, text)]


@pytest.mark.parametrize("name", ["nine", "laplacian3"])
def test_numpy_stencil_hessian_through_views(name, monkeypatch) -> None:
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    import dgraph
    from dgraph.codegen.python import load_python
    from dgraph.codegen.tensor import grid_numpy
    from tests import jax_reference as jref

    monkeypatch.setattr(grid_numpy, "LEAST", 1)  # small pieces printed too (a size rule)
    f, n = _objectives()[name]
    x = np.random.default_rng(3).uniform(0.0, 0.5, n)
    H = dgraph.make_function(f, "hessian", "python", point=[x], sparse=True)
    got = H(x).toarray()
    np.testing.assert_allclose(got, np.asarray(jref.hessian(f)(x)), rtol=1e-12, atol=1e-12)
    text = H.gradient.generated.text
    body = text[text.index("def _jacobian_lower") :]
    assert "numpy.multiply(" in body and re.search(r"\[\d+:\d+:\d+\]", body)  # views
    module = load_python(text)
    left = _index_constants(module, body, r"numpy\.take\([^,]+, (_K\d+)")
    left += _index_constants(module, body, r"_scatter\w*\([^)]*?(_K\d+)")
    assert all(grid(a) is None for a in left)  # no gather or scatter left at one grid


def test_numpy_stencil_arithmetic_on_gathered_copies_is_done_in_them(monkeypatch) -> None:
    """A product of an n-D grid gather copied into a vector is written into that copy
    (``out=_gathered0``): no new vector, the values jax.hessian's."""
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    import dgraph
    from dgraph.codegen.tensor import grid_numpy
    from tests import jax_reference as jref

    monkeypatch.setattr(grid_numpy, "LEAST", 1)
    f, n = _objectives(16)["surface"]  # n-D grids (8 x 8 gathers them as 1-D strided pieces)
    x = np.random.default_rng(3).uniform(0.0, 0.5, n)
    H = dgraph.make_function(f, "hessian", "python", point=[x], sparse=True)
    x2 = np.random.default_rng(4).uniform(0.0, 0.5, n)
    ref = np.asarray(jref.hessian(f)(x2))
    np.testing.assert_allclose(H(x2).toarray(), ref, rtol=1e-12, atol=1e-12)
    text = H.gradient.generated.text
    assert re.search(r"\n    \w+ = numpy\.\w+\([^\n]*out=_gathered0\)\n", text)
    assert "_grid(" in text and "_grid(numpy.ravel(" not in text  # an n-D array viewed itself


def test_jax_stencil_hessian_gathers_as_slices() -> None:
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    import dgraph
    from dgraph.codegen.ir import Name
    from dgraph.codegen.python import load_python
    from dgraph.codegen.tensor.grid_jax import grid_view
    from tests import jax_reference as jref

    f, n = _objectives()["surface"]
    x = np.random.default_rng(4).uniform(0.0, 0.5, n)
    H = dgraph.make_function(f, "hessian", "jax", point=[x], sparse=True)
    got = as_dense(H(jax.numpy.asarray(x)))
    np.testing.assert_allclose(got, np.asarray(jref.hessian(f)(x)), rtol=1e-12, atol=1e-12)
    text = H.gradient.generated.text
    body = text[text.index("def _jacobian_arrays") :]
    assert "[:, 0:8]" in body  # a grid gather: a slice of the reshaped vector
    module = load_python(text)
    for k in re.findall(r"(?<![\w.)])[a-z]\w*\[(_K\d+)\]", body):  # a vector's gathers left
        one = pieces(np.asarray(getattr(module, k)), limit=1, period=1)
        assert one is None or grid_view(Name("v"), 10**9, one[0].at) is None


@pytest.mark.parametrize("layout", ["vector", "strided vector", "matrix", "transposed"])
def test_grid_helper_reads_an_array_as_its_ravel(layout) -> None:
    """The module helper ``_grid`` views any array's entries in C order (the printed
    views pass a statement's n-D array itself, not its ``numpy.ravel``): contiguous
    arrays of any rank without a copy, a strided vector through its stride, other
    arrays through their ravel; the entries equal ``ravel(x)[offset + Σ strides·i]``."""
    from dgraph.codegen.tensor.grid_numpy import GRID_HELPER

    space: dict = {"numpy": np}
    exec("\n".join(GRID_HELPER), space)
    base = np.arange(240.0).reshape(12, 20)
    x = {
        "vector": base.ravel(),
        "strided vector": base.ravel()[::2],
        "matrix": base,
        "transposed": base.T,
    }[layout]
    offset, shape, strides = 3, (4, 5), (11, 2)
    got = space["_grid"](x, offset, shape, strides)
    at = offset + strides[0] * np.arange(4)[:, None] + strides[1] * np.arange(5)[None, :]
    np.testing.assert_array_equal(got, np.ravel(x)[at])
    if layout != "transposed":
        assert np.shares_memory(got, x)  # a view, no copy
