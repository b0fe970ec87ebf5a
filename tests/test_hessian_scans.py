"""Hessians of scans (``jnp.cumprod``, ``jax.lax.associative_scan``: log n levels of
strided slices, pads and sums): a product of a sum's parts is distributed over them
(``BlockOps._distributed``) only while they are few (``DISTRIBUTE_PARTS``), so the parts
do not multiply with each level (the paths enumerated: 770 parts of one entry each at 24
unknowns, a program of 10,027 lines) and the program's statements stay bounded as the
size grows. Values equal ``jax.hessian``'s, patterns its nonzeros; the counts are of the
generated program, not of time."""

from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy
jax.config.update("jax_enable_x64", True)  # the references in doubles

import dgraph  # noqa: E402
from tests import jax_reference as jref  # noqa: E402
from tests.test_hessian_elements import _statements  # noqa: E402

BOUND = 600  # statements of _jacobian_lower: 332 at 16 unknowns, 385 at 32, 474 at 64 (main before:
# 1,177 lines at 8, 10,027 at 24 — parts of one entry each, one statement a part a product)


def _cumprod(x):
    return jnp.sum(jnp.cumprod(1.0 + 0.1 * x))


def _scan_multiply(x):
    return jnp.sum(jnp.sin(jax.lax.associative_scan(jnp.multiply, 1.0 + 0.1 * x)))


def _scan_add(x):
    return jnp.sum(jnp.sin(jax.lax.associative_scan(jnp.add, x)))


def _checked(f, n):
    """The sparse Hessian built at one point and compared at another with
    ``jax.hessian``'s (values and nonzeros); the statements of its ``_jacobian_lower``."""
    rng = np.random.default_rng(n)
    x, x2 = rng.uniform(0.5, 1.5, n), rng.uniform(0.5, 1.5, n)
    H = dgraph.hessian(f, x, sparse=True)
    with jax.enable_x64(True):
        ref = jref.hessian(f)(jnp.asarray(x2))  # stored (tests/jax_reference.py)
    h = H(x2)
    assert H.generated.verified
    assert h.nnz == np.count_nonzero(ref)
    np.testing.assert_allclose(h.toarray(), ref, rtol=1e-12, atol=1e-12 * abs(ref).max())
    return _statements(H.gradient.generated.text, "_jacobian_lower")


def test_a_cumprod_hessian_program_does_not_grow_with_the_size():
    """16 and 32 unknowns: one more level of the scan, not twice the statements (main
    before: 1,177 lines at 8 unknowns, 10,027 at 24, erratic in between)."""
    small, large = _checked(_cumprod, 16), _checked(_cumprod, 32)
    assert small <= BOUND and large <= BOUND


@pytest.mark.parametrize("f, n", [(_scan_multiply, 16), (_scan_add, 8)])  # growth: cumprod's
def test_associative_scans_keep_jax_values(f, n):
    """``associative_scan(jnp.add)``'s gradient splits off a part with no entries at 8
    unknowns (``split``): a constant, no vertex (main before: a GraphError)."""
    assert _checked(f, n) <= BOUND
