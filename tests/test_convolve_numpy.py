"""np.convolve and np.correlate in traced NumPy code (dgraph.frontends.array_signal):
values equal NumPy's for every mode and either operand the longer, Hessians equal JAX's
(jnp.convolve, jnp.correlate) with a constant kernel and with both operands traced, the
deblurring elastic net of benchmarks/real_programs8.py sparse; a bad mode is one line.
Each was refused on main ("numpy.convolve on an array that depends on the inputs")."""

from __future__ import annotations

import numpy as np
import pytest

import dgraph
from dgraph.errors import InputError
from dgraph.frontends import from_function
from dgraph.methods import accumulate
from tests import jax_reference as jref

jax = pytest.importorskip("jax")
jnp = jax.numpy

KERNEL = np.array([0.25, 0.5, 0.0, -0.25])


def _hessian_vs_jax(f, g, x, sparse=False):
    """At the array level (main took these at the element level only, one vertex per
    entry), then the Hessian."""
    assert from_function(f, sizes=[x.shape], level="array").is_tensor
    made = dgraph.hessian(f, x, sparse=sparse)
    got = made(x)
    got = got.toarray() if hasattr(got, "toarray") else np.asarray(got)
    with jax.enable_x64(True):
        want = np.asarray(jref.hessian(g)(jnp.asarray(x)))
    assert made.generated.verified
    np.testing.assert_allclose(got, want, rtol=1e-11, atol=1e-12)


@pytest.mark.parametrize("mode", ["full", "same", "valid"])
def test_convolve_and_correlate_hessians_equal_jax(mode: str) -> None:
    """A constant kernel on either side, both operands traced (a 3-entry piece of x
    against all of x: the longer operand second too)."""

    def f(x):
        c = np.convolve(x, KERNEL, mode) ** 2 + np.convolve(KERNEL[:2], x**2, mode)[:1]
        d = np.correlate(x, x[1:4], mode) * np.correlate(x[:3] ** 2, x, mode).sum()
        return np.sum(c) + np.sum(d)

    def g(x):
        c = jnp.convolve(x, KERNEL, mode) ** 2 + jnp.convolve(KERNEL[:2], x**2, mode)[:1]
        d = jnp.correlate(x, x[1:4], mode) * jnp.correlate(x[:3] ** 2, x, mode).sum()
        return jnp.sum(c) + jnp.sum(d)

    _hessian_vs_jax(f, g, np.linspace(-0.9, 1.1, 7))


def test_values_equal_numpy_for_every_length_pair() -> None:
    r = np.random.default_rng(4)
    for n, m in [(5, 2), (2, 5), (4, 4), (1, 3), (6, 1)]:
        v = r.normal(size=m)
        for mode in ("full", "same", "valid"):
            for fn in (np.convolve, np.correlate):
                g = from_function(lambda a, fn=fn, mode=mode, v=v: fn(a, v, mode), sizes=[(n,)])
                a = r.normal(size=n)
                es = accumulate(g, "reverse")
                assert es.verified
                want = np.stack([fn(e, v, mode) for e in np.eye(n)], -1)
                np.testing.assert_allclose(es.evaluate(a), want, rtol=1e-13, atol=1e-14)


def test_elastic_net_deblurring_sparse() -> None:
    kernel, b = np.array([0.25, 0.5, 0.25]), np.linspace(-1.0, 1.0, 10)

    def f(x):
        res = np.convolve(x, kernel, "valid") - b
        return 0.5 * np.sum(res**2) + 0.1 * np.sum(np.sqrt(x**2 + 1e-6))

    def g(x):
        res = jnp.convolve(x, kernel, "valid") - b
        return 0.5 * jnp.sum(res**2) + 0.1 * jnp.sum(jnp.sqrt(x**2 + 1e-6))

    _hessian_vs_jax(f, g, np.sin(np.arange(12.0)), sparse=True)


@pytest.mark.parametrize(
    "f, needle",
    [
        (lambda x: np.convolve(x, [1.0, 2.0], "middle"), "mode must be"),
        (lambda x: np.convolve(np.reshape(x, (2, 2)), [1.0]), "1-D arrays"),
    ],
)
def test_bad_convolutions_are_one_line(f, needle: str) -> None:
    with pytest.raises(InputError, match=needle):
        from_function(f, sizes=[(4,)], level="array")
