"""JAX MD's pair energies, restated: their forces and Hessians against JAX.

JAX MD (github.com/jax-md/jax-md) is not installed here; each function below restates
the mathematics of the one its docstring names, written as JAX MD writes it: a distance
behind a "double where" (``util.safe_mask``, whose fill 0 is where ``sqrt``'s partial is
infinite), the pair sum of ``smap.pair`` with its diagonal masked after ``nan_to_num``,
energies ``E(R, **kwargs)`` and forces ``F(R, *args, **kwargs)``.
"""

from __future__ import annotations

import numpy as np
import pytest

import dgraph
from tests import jax_reference as jref

jax = pytest.importorskip("jax")
jnp = jax.numpy


def _distance(dR):
    """``jax_md.space.distance``: ``safe_mask(dr2 > 0, sqrt, dr2)`` of the squared
    distance (``jax_md.util.safe_mask``: ``where(m, fn(where(m, x, 0)), 0)``)."""
    dr2 = jnp.sum(dR**2, axis=-1)
    return jnp.where(dr2 > 0, jnp.sqrt(jnp.where(dr2 > 0, dr2, 0.0)), 0.0)


def _free(Ra, Rb):
    """``jax_md.space.free``'s displacement, over all pairs (``space.map_product``)."""
    return Ra[:, None, :] - Rb[None, :, :]


def _periodic(side):
    """``jax_md.space.periodic(side)``'s displacement: ``periodic_displacement``,
    ``(dR + side/2) mod side - side/2``, over all pairs."""
    return lambda Ra, Rb: jnp.mod(_free(Ra, Rb) + side * 0.5, side) - 0.5 * side


def _pair_sum(U):
    """``jax_md.smap.pair``'s total: half the sum of ``_diagonal_mask(U)``,
    ``nan_to_num(U) * (1 - eye(N))``."""
    return 0.5 * jnp.sum(jnp.nan_to_num(U) * (1.0 - jnp.eye(U.shape[0])))


def soft_sphere_pair(displacement, sigma=1.0, epsilon=1.0, alpha=2.0):
    """``jax_md.energy.soft_sphere_pair``: ``eps/alpha (1 - r/sigma)^alpha`` for
    ``r < sigma`` (``energy.soft_sphere``, a float ``alpha`` behind ``safe_mask``)."""

    def energy(R, **unused_kwargs):
        dr = _distance(displacement(R, R)) / sigma
        m = dr < 1.0
        U = jnp.where(m, epsilon / alpha * (1.0 - jnp.where(m, dr, 0.0)) ** alpha, 0.0)
        return _pair_sum(U)

    return energy


def lennard_jones_pair(displacement, sigma=1.0, epsilon=1.0, r_onset=2.0, r_cutoff=2.5):
    """``jax_md.energy.lennard_jones_pair``: ``energy.lennard_jones``
    (``nan_to_num(4 eps ((sigma/r)^12 - (sigma/r)^6))``, the powers as products) times
    ``energy.multiplicative_isotropic_cutoff``'s switch, 1 below ``r_onset``, 0 from
    ``r_cutoff``, ``(rc² - r²)² (rc² + 2r² - 3ro²) / (rc² - ro²)³`` between."""
    rc, ro = r_cutoff**2, r_onset**2

    def energy(R, **unused_kwargs):
        dr = _distance(displacement(R, R))
        idr = sigma / dr  # infinite on the diagonal, read by the gradient's products
        idr = idr * idr
        idr6 = idr * idr * idr
        lj = jnp.nan_to_num(4.0 * epsilon * (idr6 * idr6 - idr6))
        r = dr**2
        inner = jnp.where(dr < r_cutoff, (rc - r) ** 2 * (rc + 2 * r - 3 * ro) / (rc - ro) ** 3, 0)
        return _pair_sum(jnp.where(dr < r_onset, 1.0, inner) * lj)

    return energy


def force(energy):
    """``jax_md.quantity.force``: ``grad(lambda R, *args, **kwargs: -energy(R, ...))``."""
    return jax.grad(lambda R, *args, **kwargs: -energy(R, *args, **kwargs))


def _points(n, d, spacing, seed=0):
    """A jittered square lattice of ``n`` points (no two closer than 0.8 spacings)."""
    k = int(np.ceil(n ** (1 / d)))
    grid = np.stack(np.meshgrid(*[np.arange(k)] * d, indexing="ij"), -1).reshape(-1, d)[:n]
    rng = np.random.default_rng(seed)
    return (grid + 0.5 + rng.uniform(-0.1, 0.1, (n, d))) * spacing


def test_lennard_jones_periodic_with_a_pair_at_the_cutoff():
    """A pair at ``r_cutoff`` (the switch's second derivative jumps there): the sparse
    Hessian is JAX's one-sided value (``dr < r_cutoff`` false), and not verified, for no
    Hessian exists there (the comparison within rounding of its tie, its one-sided
    differences apart); its pattern, exact for every ``R``, holds every pair."""
    side = 6.0
    E = lennard_jones_pair(_periodic(side))
    R = _points(3, 2, 1.1)
    R[1] = R[0] + np.array([2.5, 0.0])
    hess = dgraph.make_function(E, "hessian", point=[R], sparse=True)
    with jax.enable_x64(True):
        H = np.asarray(jref.forward_hessian(E)(R)).reshape(6, 6)
    got = hess(R)
    np.testing.assert_allclose(got.toarray(), H, rtol=1e-10, atol=1e-12)
    assert got.nnz == 36 and hess.generated.verified is False
    assert "tie" in hess.generated.check.detail, hess.generated.check.detail


def test_soft_sphere_force_jacobian_is_minus_the_hessian():
    """``F(R, *args, **kwargs)``, JAX's own gradient, is read with ``R`` alone (``*args``
    given nothing, ``**kwargs`` no argument: it was "1 shapes for 3 arguments"), and its
    Jacobian is ``-H``: the gradient divides by ``sqrt`` of the safe mask's 0 on the
    diagonal (``0.5 / sqrt(0)``), read only where the mask holds, so it is guarded and
    the elimination meets no ``0 · inf`` (the check failed on it)."""
    E = soft_sphere_pair(_periodic(2.0), alpha=2.5)
    F = force(E)
    R = _points(4, 2, 0.85, seed=1)
    jac = dgraph.make_function(F, "jacobian", point=[R])
    with jax.enable_x64(True):
        H = np.asarray(jref.forward_hessian(E)(R))
    assert np.count_nonzero(H) > 16  # pairs within the cutoff
    np.testing.assert_allclose(jac(R), -H, rtol=1e-12, atol=1e-14)
    assert jac.generated.verified is True
