"""The residuals of benchmarks/sparse.py (benchmarks/sparse_functions.py) at tiny grids:
from_jax(..., level="array") reads them, and dgraph's sparse Jacobian has jax.jacfwd's
pattern and values (and agrees with central differences); the NumPy twins compute the
same residual; the benchmark's adapter takes a one-entry dict, a BCOO or a matrix."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

jax = pytest.importorskip(
    "jax", reason="JAX is not installed (pip install 'jacobian-accumulation[jax]')"
)
jnp = pytest.importorskip("jax.numpy")

import dgraph  # noqa: E402
from dgraph.frontends import from_jax  # noqa: E402

jax.config.update("jax_enable_x64", True)
BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


def _module(name: str, as_name: str = ""):
    spec = importlib.util.spec_from_file_location(as_name or name, BENCHMARKS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(as_name or name, module)
    spec.loader.exec_module(module)
    return sys.modules[as_name or name]


FUNCS = _module("sparse_functions")
BENCH = _module("sparse", "sparse_bench")
CASES = [("brusselator", 4, 6), ("laplace3d", 4, 7)]  # name, grid side, nonzeros per full row


def _dgraph_jacobian(name: str, side: int):
    f = FUNCS.FUNCTIONS[name][0]
    x = FUNCS.point(name, side)
    g = from_jax(f, x, level="array")
    J = dgraph.make_function(g, "jacobian", lang="python", sparse=True)
    return f, x, BENCH.one_matrix(J(x))


@pytest.mark.parametrize(("name", "side", "per_row"), CASES)
def test_dgraph_sparse_jacobian_equals_jacfwd(name, side, per_row):
    f, x, J = _dgraph_jacobian(name, side)
    n = FUNCS.unknowns(name, side)
    ref = np.asarray(jax.jit(jax.jacfwd(f))(jnp.asarray(x)))
    assert J.shape == ref.shape == (n, n)
    mine = {(int(i), int(j)) for i, j in zip(*J.nonzero(), strict=True)}
    assert mine == {(int(i), int(j)) for i, j in zip(*np.nonzero(ref), strict=True)}
    assert J.nnz == len(mine)  # no stored zeros
    assert max(np.diff(J.indptr)) == per_row
    assert np.abs(J.toarray() - ref).max() <= 1e-12 * np.abs(ref).max()


@pytest.mark.parametrize(("name", "side", "per_row"), CASES)
def test_dgraph_sparse_jacobian_against_central_differences(name, side, per_row):
    f, x, J = _dgraph_jacobian(name, side)
    v = np.random.default_rng(42).standard_normal(x.size)
    h = 1e-6
    diff = (np.asarray(f(jnp.asarray(x + h * v))) - np.asarray(f(jnp.asarray(x - h * v)))) / (2 * h)
    assert np.allclose(J @ v, diff, rtol=1e-6, atol=1e-6 * np.abs(diff).max())


@pytest.mark.parametrize(("name", "side"), [("brusselator", 5), ("laplace3d", 3)])
def test_numpy_twin_computes_the_same_residual(name, side):
    f, f_numpy, _ = FUNCS.FUNCTIONS[name]
    x = FUNCS.point(name, side)
    assert np.allclose(np.asarray(f(jnp.asarray(x))), f_numpy(x), rtol=1e-13, atol=1e-10)


def test_brusselator_is_periodic():
    # the field u at grid point (0, 0) feeds the residual at (side-1, 0) through the wrap
    side = 4
    ref = np.asarray(
        jax.jit(jax.jacfwd(FUNCS.brusselator))(jnp.asarray(FUNCS.point("brusselator", side)))
    )
    assert ref[(side - 1) * side, 0] == pytest.approx(FUNCS.ALPHA * side * side)


def test_grid_nearest_to_target():
    assert FUNCS.unknowns("brusselator", FUNCS.grid("brusselator", 10**6)) == 2 * 707**2
    assert FUNCS.unknowns("laplace3d", FUNCS.grid("laplace3d", 10**6)) == 10**6
    assert FUNCS.grid("laplace3d", 1) == 3


def test_one_matrix_adapter():
    from jax.experimental import sparse as jsparse

    dense = np.array([[1.0, 0.0], [2.0, 3.0]])
    for form in (
        {("y", "x"): sp.csr_array(dense)},
        sp.csr_array(dense),
        dense,
        jsparse.BCOO.fromdense(jnp.asarray(dense)),
        {("y", "x"): jsparse.BCOO.fromdense(jnp.asarray(dense))},
    ):
        got = BENCH.one_matrix(form)
        assert isinstance(got, sp.csr_array)
        assert np.array_equal(got.toarray(), dense)
    with pytest.raises(ValueError, match="one Jacobian block"):
        BENCH.one_matrix({1: dense, 2: dense})
