"""sparsejac's tests (github mfschubert/sparsejac: tests/test_sparsejac.py, JacrevTest and
JacfwdTest), re-stated: each test's function at its size (``_SIZE = 50``, the 20×20
image); the points are uniform draws as there, here from NumPy with a fixed seed.
sparsejac compares its ``jacrev``/``jacfwd`` with JAX's; here dgraph's Jacobian is."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import jax.scipy.signal
import numpy as np

from .harness import Case

TESTS = "mfschubert/sparsejac tests/test_sparsejac.py"
SIZE = 50
STENCIL = np.array([1.0, -2.0, 1.0])


def _uniform(seed: int, shape) -> np.ndarray:
    return np.random.default_rng(seed).uniform(size=shape)


def diagonal(x):  # test_diagonal, test_diagonal_jit
    return x**2


def diagonal_shuffled(x):  # test_diagonal_shuffled: a fixed permutation of x**2
    return jax.random.permutation(jax.random.PRNGKey(0), x**2)


def dense(x):  # test_dense: the sum, its square and its cube
    total = jnp.sum(x)
    return jnp.stack((total, total**2, total**3))


def convolution_1d(x):  # test_convolutional_1d: a second difference, "valid"
    return jnp.convolve(x, STENCIL, mode="valid")


def convolution_1d_squared(x):  # test_convolutional_1d_nonlinear
    return jnp.convolve(x, STENCIL, mode="valid") ** 2


def convolution_2d(x):  # test_convolutional_2d: a 3×3 box filter on a 20×20 image
    return jax.scipy.signal.convolve2d(x.reshape(20, 20), jnp.ones((3, 3)), mode="valid").ravel()


def convolution_2d_squared(x):  # test_convolutional_2d_nonlinear
    return convolution_2d(x) ** 2


def three_arguments(x, y, z):  # test_argnums: y * conv(x)**2 + z ("same")
    return y * jnp.convolve(x, STENCIL, mode="same") ** 2 + z


def with_aux(x):  # test_has_aux: the Jacobian of both outputs
    return jnp.convolve(x, STENCIL, mode="same") ** 2, x + 1


def keyword(x):  # test_kwargs: y = 1 given by keyword
    y = 1
    return y * jnp.convolve(x, STENCIL, mode="same") ** 2


ALL = (("python", False), ("python", True), ("jax", False), ("jax", True))
SPARSE = (("python", True),)
CASES = [
    Case(f"sparsejac/{name}{suffix}", f"{TESTS}::{cls}.{test}", fn, args, ref, combos)
    for cls, ref, suffix in (("JacrevTest", "jacrev", ""), ("JacfwdTest", "jacfwd", "_fwd"))
    for name, test, fn, args, combos in (
        ("diagonal", "test_diagonal", diagonal, lambda: (_uniform(0, SIZE),), ALL),
        ("diagonal_shuffled", "test_diagonal_shuffled", diagonal_shuffled,
         lambda: (_uniform(0, SIZE),), (("python", False),)),
        ("dense", "test_dense", dense, lambda: (_uniform(0, SIZE),), (("python", False),)),
        ("convolutional_1d", "test_convolutional_1d", convolution_1d,
         lambda: (_uniform(0, SIZE),), SPARSE),
        ("convolutional_1d_nonlinear", "test_convolutional_1d_nonlinear",
         convolution_1d_squared, lambda: (_uniform(0, SIZE),), SPARSE),
        ("convolutional_2d", "test_convolutional_2d", convolution_2d,
         lambda: (_uniform(0, 400),), SPARSE),
        ("convolutional_2d_nonlinear", "test_convolutional_2d_nonlinear",
         convolution_2d_squared, lambda: (_uniform(0, 400),), SPARSE),
        ("argnums", "test_argnums", three_arguments,
         lambda: (_uniform(0, SIZE), _uniform(1, SIZE), _uniform(2, SIZE)), SPARSE),
        ("has_aux", "test_has_aux", with_aux, lambda: (_uniform(0, SIZE),), SPARSE),
        ("kwargs", "test_kwargs", keyword, lambda: (_uniform(0, SIZE),), SPARSE),
    )
]  # fmt: skip
