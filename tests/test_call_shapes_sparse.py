"""The array level's generated functions take one point per call: a batch of points (an
extra leading axis) is refused in the element level's one line (a sparse result is one
matrix: "a sparse Jacobian is of one point"), and so is an argument of another shape,
before NumPy's reshape ValueError or JAX's TypeError (:mod:`dgraph.codegen.points`).
Each mode that takes ``sparse`` in NumPy, JAX and C, for a function read from JAX and
one traced from NumPy."""

from __future__ import annotations

import functools
import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import dgraph
from dgraph.errors import InputError
from dgraph.frontends import from_function, from_python

jax.config.update("jax_enable_x64", True)

X = np.linspace(0.3, 1.2, 5)
LANGS = ["python", "jax", "c"]
JACOBIAN_MODES = ["jacobian", "value_and_jacobian"]
HESSIAN_MODES = ["hessian", "value_gradient_hessian"]


def shifted_jax(x):
    return jnp.sin(x[1:]) * x[:-1]


def shifted_numpy(x):
    return np.sin(x[1:]) * x[:-1]


def total_jax(x):
    return jnp.sum(jnp.sin(x) * x[::-1])


def total_numpy(x):
    return np.sum(np.sin(x) * x[::-1])


READERS = {"jax": (shifted_jax, total_jax), "numpy": (shifted_numpy, total_numpy)}


@functools.cache
def _made(reader: str, mode: str, lang: str, sparse: bool) -> dgraph.GeneratedFunction:
    vector, scalar = READERS[reader]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a NOT verified warning is not what is asked here
        if mode in HESSIAN_MODES:
            return dgraph.make_function(scalar, mode, lang, point=(X,), sparse=sparse)
        if reader == "jax":
            graph = from_python(vector, point=(X,), level="array")
        else:
            graph = from_function(vector, sizes=[X.shape], level="array")
        assert graph.is_tensor
        return dgraph.make_function(graph, mode, lang, sparse=sparse)


def _dense(result) -> np.ndarray:
    if hasattr(result, "toarray"):
        return result.toarray()
    if hasattr(result, "todense"):
        return np.asarray(result.todense())
    return np.asarray(result)


def _want(reader: str, mode: str, x: np.ndarray) -> np.ndarray:
    """JAX's Jacobian (or Hessian) at ``x``."""
    if mode in HESSIAN_MODES:
        return np.asarray(jax.hessian(total_jax)(x))
    return np.asarray(jax.jacobian(shifted_jax)(x))


CASES = [
    (reader, mode, lang)
    for reader in READERS
    for mode in (*JACOBIAN_MODES, *HESSIAN_MODES)
    for lang in LANGS
]
IDS = ["-".join(c) for c in CASES]


@pytest.mark.parametrize(("reader", "mode", "lang"), CASES, ids=IDS)
def test_a_sparse_batch_is_refused_in_the_element_levels_line(reader, mode, lang):
    f = _made(reader, mode, lang, True)
    one = f(X)  # one point: JAX's numbers
    got = one[-1] if isinstance(one, tuple) else one
    assert not isinstance(got, np.ndarray)  # CSR or BCOO
    np.testing.assert_allclose(_dense(got), _want(reader, mode, X), rtol=1e-12, atol=1e-14)
    what = "Hessian" if mode in HESSIAN_MODES else "Jacobian"
    with pytest.raises(InputError, match=rf"^a sparse {what} is of one point: call it per point$"):
        f(np.stack([X, X + 0.1]))


@pytest.mark.parametrize(("reader", "mode", "lang"), CASES, ids=IDS)
def test_a_dense_batch_and_wrong_shapes_are_one_line(reader, mode, lang):
    """The array level computes one point per call, dense too (a batch was a reshape's
    ValueError in NumPy, a TypeError in JAX); a short vector, a scalar and an extra axis
    of one are refused, naming the input (a (1, 1, 5) array was silently reshaped)."""
    f = _made(reader, mode, lang, False)
    one = f(X + 0.2)
    got = one[-1] if isinstance(one, tuple) else one
    np.testing.assert_allclose(np.asarray(got), _want(reader, mode, X + 0.2), rtol=1e-12)
    what = "Hessian" if mode in HESSIAN_MODES else "Jacobian"
    with pytest.raises(InputError, match=rf"^a {what} is of one point: call it per point$"):
        f(np.stack([X, X + 0.1]))
    with pytest.raises(InputError, match=rf"^a {what} is of one point"):
        f(X[None, None])
    with pytest.raises(InputError, match=r"^input x\w*: shape \(4,\), not \(5,\)"):
        f(X[:4])
    with pytest.raises(InputError, match=r"^input x\w*: shape \(\), not \(5,\)"):
        f(1.0)
    with pytest.raises(InputError, match=r"^input x\w*: shape \(5, 2\), not \(5,\)"):
        f(np.stack([X, X], axis=1))
    with pytest.raises(InputError, match=r"^input x\w*: not an array of numbers$"):
        f([[1.0, 2.0], [3.0]])


def test_the_element_level_keeps_its_batches():
    """The element level's dense function takes a batch (B, n); its sparse one refuses it
    with the same line, plus where batches go."""
    dense = dgraph.make_function(shifted_jax, "jacobian", point=(X,))
    got = dense(np.stack([X, X + 0.1]))
    assert got.shape == (2, 4, 5)
    np.testing.assert_allclose(got[1], _want("jax", "jacobian", X + 0.1), rtol=1e-12)
    sparse = dgraph.make_function(shifted_jax, "jacobian", point=(X,), sparse=True)
    with pytest.raises(InputError, match=r"^a sparse Jacobian is of one point: call it per point"):
        sparse(np.stack([X, X]))


def test_the_check_reads_a_tracers_shape():
    """Under ``jax.jit`` (the argument a tracer) the check passes and the value is JAX's."""
    f = _made("jax", "jacobian", "jax", False)
    np.testing.assert_allclose(np.asarray(jax.jit(f)(X)), _want("jax", "jacobian", X), rtol=1e-12)
