"""The array level's generated functions take one point per call: a batch of points (an
extra leading axis) is refused in the element level's one line (a sparse result is one
matrix: "a sparse Jacobian is of one point"), and so is an argument of another shape,
before NumPy's reshape ValueError or JAX's TypeError (:mod:`dgraph.codegen.points`).
Each mode that takes ``sparse`` in NumPy, JAX and C, for a function read from JAX and
one traced from NumPy; and the sweeps (jvp, vjp, hvp), their tangents and cotangents
checked too."""

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
from tests import jax_reference as jref

from .dense import dense as _dense

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


def _want(reader: str, mode: str, x: np.ndarray) -> np.ndarray:
    """JAX's Jacobian (or Hessian) at ``x``."""
    if mode in HESSIAN_MODES:
        return np.asarray(jref.hessian(total_jax)(x))
    return np.asarray(jref.jacobian(shifted_jax)(x))


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


# -- the sweeps: one point and one tangent (cotangent) per call ---------------------------

SWEEP_CASES = [
    (reader, mode, lang)
    for reader in READERS
    for mode in ("jvp", "vjp", "hvp")
    for lang in LANGS
    if not (mode == "vjp" and lang == "c")  # C: a tensor graph's jvp, not its vjp
]
SWEEP_IDS = ["-".join(c) for c in SWEEP_CASES]
T = np.linspace(-0.7, 0.9, 5)  # a tangent (of x)
W = np.array([0.5, -1.5, 2.0, 0.25])  # a cotangent (of the vector output)


@functools.cache
def _sweep(reader: str, mode: str, lang: str) -> dgraph.GeneratedFunction:
    if mode == "hvp":
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return dgraph.make_function(READERS[reader][1], "hvp", lang, point=(X,))
    return _made(reader, mode, lang, False)


def _weighted(x):
    """The Lagrangian ``Wᵀ·f(x)`` of the vector function: its Hessian is H(x, W)."""
    return jnp.dot(W, shifted_jax(x))


SWEEPS = {  # JAX's J·t, wᵀ·J and H·t, jitted: one compile each, not one per eager primitive
    "jvp": jax.jit(lambda x: jax.jvp(shifted_jax, (x,), (T,))[1]),
    "vjp": jax.jit(lambda x: jax.vjp(shifted_jax, x)[1](W)[0]),
    "hvp": jax.jit(lambda x: jax.jvp(jax.grad(total_jax), (x,), (T,))[1]),
    "weighted hvp": jax.jit(lambda x: jax.jvp(jax.grad(_weighted), (x,), (T,))[1]),
}


def _sweep_want(mode: str, x: np.ndarray) -> np.ndarray:
    """JAX's J·t, wᵀ·J or H·t at ``x``."""
    return np.asarray(SWEEPS[mode](x))


@pytest.mark.parametrize(("reader", "mode", "lang"), SWEEP_CASES, ids=SWEEP_IDS)
def test_a_sweep_takes_one_point_and_one_tangent(reader, mode, lang):
    """jvp(x, t), vjp(x, w) and hvp(x, t) of the array level: JAX's numbers at one point;
    a batch of points is the one line naming the sweep (a reshape's ValueError in NumPy,
    a TypeError in JAX, a (1, 1, 5) point silently reshaped), and a tangent or cotangent
    of another shape names itself and both shapes (before: the same errors; C: "input
    v_x: 3 entries, not 5")."""
    f = _sweep(reader, mode, lang)
    seed, name, shape = (W, "cotangent w_y", 4) if mode == "vjp" else (T, "tangent [vt]_x", 5)
    if mode == "hvp":
        name = "tangent t_x"
    np.testing.assert_allclose(np.asarray(f(X, seed)), _sweep_want(mode, X), rtol=1e-12)
    article = "an" if mode == "hvp" else "a"
    one = rf"^{article} {mode} is of one point: call it per point$"
    with pytest.raises(InputError, match=one):
        f(np.stack([X, X + 0.1]), seed)
    with pytest.raises(InputError, match=one):
        f(X[None, None], seed)
    per_call = r" \(one point per call\)$"
    with pytest.raises(InputError, match=r"^input x\w*: shape \(4,\), not \(5,\)" + per_call):
        f(X[:4], seed)
    with pytest.raises(InputError, match=rf"^{name}: shape \(3,\), not \({shape},\)" + per_call):
        f(X, seed[:3])
    with pytest.raises(InputError, match=rf"^{name}: shape \(2, {shape}\), not \({shape},\)"):
        f(X, np.stack([seed, seed]))
    with pytest.raises(InputError, match=rf"^{name}: shape \(\), not \({shape},\)"):
        f(X, 1.0)
    with pytest.raises(InputError, match=rf"^{name}: not an array of numbers$"):
        f(X, [[1.0, 2.0], [3.0]])


def test_an_hvp_checks_its_tangent_after_its_weights():
    """hvp(x, v, t) of a vector function (the weights v per call, a parameter): the
    tangent is found after the weights, H·t is JAX's ∇²(vᵀf)·t; a short tangent names
    itself, a batch of points is the one line."""
    f = dgraph.make_function(shifted_jax, "hvp", "python", point=(X,), weights=np.ones(4))
    want = _sweep_want("weighted hvp", X)  # JAX's ∇²(Wᵀf)·t, jitted
    np.testing.assert_allclose(np.asarray(f(X, W, T)), np.asarray(want), rtol=1e-12)
    with pytest.raises(InputError, match=r"^tangent t_x: shape \(4,\), not \(5,\)"):
        f(X, W, T[:4])
    with pytest.raises(InputError, match=r"^an hvp is of one point: call it per point$"):
        f(np.stack([X, X]), W, T)
    with pytest.raises(InputError, match=r"^parameter v: shape \(3,\), not \(4,\)"):
        f(X, W[:3], T)


@pytest.mark.parametrize("lang", ["python", "c"])
def test_a_lagrangians_weights_are_checked_per_call(lang):
    """H(x, v) of a vector function: weights of another shape (a batch of them, or too
    few) are one line naming the parameter, not a reshape's ValueError from inside;
    right ones give JAX's ∇²(vᵀf)."""
    f = dgraph.make_function(shifted_jax, "hessian", lang, point=(X,), weights=np.ones(4))
    want = jref.hessian(_weighted)(X)  # jitted, kept: one compile for both languages
    np.testing.assert_allclose(np.asarray(f(X, W)), np.asarray(want), rtol=1e-12, atol=1e-14)
    for bad in (W[:3], np.stack([W, W])):
        shape = ", ".join(map(str, bad.shape)) + ("," if bad.ndim == 1 else "")
        with pytest.raises(InputError, match=rf"^parameter v: shape \({shape}\), not \(4,\)"):
            f(X, bad)


def test_the_element_level_sweeps_keep_their_batches():
    """A graph of scalars' jvp takes a batch of points and tangents (B, n) as before."""
    f = dgraph.make_function(shifted_jax, "jvp", point=(X,))
    got = f(np.stack([X, X + 0.1]), np.stack([T, T]))
    assert got.shape == (2, 4)
    np.testing.assert_allclose(got[1], _sweep_want("jvp", X + 0.1), rtol=1e-12)
