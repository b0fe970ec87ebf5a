"""What the fourteenth survey of real programs met (benchmarks/real_programs13.py), each at
the array level against ``jax.jacfwd``: a gather at points computed along two axes
(``jax.scipy.ndimage.map_coordinates``'s corners), NaN entries of a constant (missing
data under ``jnp.nanmean``) that carry no derivative, and a ``vmap``'d solve (one solve per
matrix)."""

import numpy as np
import pytest

import dgraph
from tests.jax_reference import jacfwd

jax = pytest.importorskip("jax")
jnp = jax.numpy
jax.config.update("jax_enable_x64", True)

RNG = np.random.default_rng(33)
IMAGE = RNG.normal(size=(4, 5))
X = np.array([0.3, 1.1, 2.4, 0.7, 1.9, 5.3])  # the last column index 15: clamped to 4


def _array_jacobian(f, x):
    g = dgraph.from_jax(f, x, level="array")
    assert g.is_tensor
    made = dgraph.make_function(g, "jacobian")
    return np.asarray(made(x)).reshape(np.shape(jacfwd(f)(x)))


def corners_of_constant_image(x):
    i = jnp.floor(x[:3] * 2).astype(int)
    j = jnp.floor(x[3:] * 3).astype(int)
    return jnp.asarray(IMAGE)[i, j] * x[:3] + x[3:] ** 2


def corners_of_traced_data(x):
    M = x.reshape(2, 3)
    i = jnp.array([1, 0, 1])
    j = jnp.floor(jnp.abs(x[:3]) * 2).astype(int)
    return M[i, j] * x[3:]


@pytest.mark.parametrize("f", [corners_of_constant_image, corners_of_traced_data])
def test_gather_at_points_computed_along_two_axes(f):
    want = np.asarray(jacfwd(f)(X))
    assert np.abs(want).max() > 0.5
    assert np.allclose(_array_jacobian(f, X), want, rtol=1e-12, atol=1e-12)


def test_map_coordinates_registration_gradient():
    moving = jnp.asarray(RNG.normal(size=(4, 4)))
    grid = jnp.asarray(np.stack(np.meshgrid(np.arange(4.0), np.arange(4.0), indexing="ij")))

    def ssd(d):
        coords = grid + d.reshape(2, 4, 4)
        warped = jax.scipy.ndimage.map_coordinates(moving, list(coords), order=1)
        return jnp.sum(warped**2)

    d = 0.2 + 0.1 * RNG.uniform(size=32)
    assert np.allclose(_array_jacobian(ssd, d), np.asarray(jacfwd(ssd)(d)), rtol=1e-10)


A = RNG.normal(size=(24, 20))
Y = RNG.normal(size=24)
Y[::3] = np.nan  # missing readings


def nanmean_fit(x):
    res = jnp.asarray(A) @ x - jnp.asarray(Y)
    return jnp.nanmean(res**2) + 0.1 * jnp.nansum(jnp.log(res**2 + 1.0))


def test_nan_entries_of_a_constant_carry_no_derivative():
    x = RNG.normal(size=20)
    want = np.asarray(jacfwd(nanmean_fit)(x))
    assert np.isfinite(want).all()
    found = _array_jacobian(nanmean_fit, x)
    assert np.isfinite(found).all()
    assert np.allclose(found, want, rtol=1e-12, atol=1e-12)


def stacked_inverses_and_solves(x):  # Neo-Hookean's F⁻ᵀ under vmap: a batched solve
    H = x.reshape(2, 2, 2)
    F = jnp.eye(2) + H
    inv = jax.vmap(jnp.linalg.inv)(F)
    sol = jax.vmap(jnp.linalg.solve)(F, H[:, :, 0])
    return jnp.concatenate([inv.ravel(), sol.ravel(), jax.vmap(jnp.linalg.det)(F)])


def test_a_vmapped_solve_is_one_solve_per_matrix():
    x = 0.2 * RNG.normal(size=8)
    want = np.asarray(jacfwd(stacked_inverses_and_solves)(x))
    found = _array_jacobian(stacked_inverses_and_solves, x)
    assert np.allclose(found, want, rtol=1e-12, atol=1e-12)
