"""scipy.special's ``betaln`` in traced NumPy code (a beta-binomial's normaliser):
Hessians against JAX's (jax.scipy.special.betaln) at a 0-d, a 1-d and a 2-d input; a
mutated reading caught. Refused on main ("scipy.special.betaln on an array"). And
scipy.special through the package name (``import scipy.special``), which main read as
an unknown module ("converting an array … to a NumPy array")."""

from __future__ import annotations

import functools

import numpy as np
import pytest
import scipy.special
import scipy.special as ss

import dgraph
from tests import jax_reference as jref

jax = pytest.importorskip("jax")
jnp = jax.numpy
jss = jax.scipy.special

POINTS = [np.array(0.3), np.linspace(-0.8, 0.9, 5), np.linspace(-0.7, 0.6, 6).reshape(2, 3)]


def _f(x):
    return np.sum(ss.betaln(x**2 + 1.0, 2.0) * x + ss.betaln(np.exp(x), np.exp(-x)))


def _term(t):
    return jss.betaln(t**2 + 1.0, 2.0) * t + jss.betaln(jnp.exp(t), jnp.exp(-t))


def _g(x):
    return jnp.sum(_term(x))


@functools.cache
def _second_derivatives() -> tuple[np.ndarray, ...]:
    """JAX's Hessian of ``_g`` at each of :data:`POINTS`: ``_g`` is a sum of ``_term``
    over the entries, so its Hessian is ``diag(_term''(x))``; ``_term''`` at every point's
    entries in one jitted program (JAX's betaln is a long program: ``jax.hessian(_g)``
    compiled per shape cost ~3 CPU-s a point)."""
    flat = np.concatenate([np.ravel(p) for p in POINTS])
    with jax.enable_x64(True):
        every = np.asarray(jax.jit(jax.vmap(jax.grad(jax.grad(_term))))(jnp.asarray(flat)))
    ends = np.cumsum([p.size for p in POINTS])
    return tuple(np.diag(d) for d in np.split(every, ends[:-1]))


def _hessians(i):
    x = POINTS[i]
    made = dgraph.hessian(_f, x)
    return made, np.asarray(made(x)).reshape(x.size, x.size), _second_derivatives()[i]


def test_betaln_hessians_equal_jax_and_a_mutation_is_caught(monkeypatch) -> None:
    """Then betaln without its ``- gammaln(a + b)``: refused at the user's point."""
    from dgraph.errors import InputError
    from dgraph.frontends import scipy_special

    for i in range(len(POINTS)):
        made, got, want = _hessians(i)
        assert made.generated.verified
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
    monkeypatch.setitem(scipy_special.COMPOSITE_UFUNCS, "betaln",
                        lambda op, a, b: op("lgamma", a) + op("lgamma", b))  # fmt: skip
    with pytest.raises(InputError, match="read wrongly"):
        _hessians(1)


def test_through_the_package_name() -> None:
    """``import scipy.special`` then ``scipy.special.logsumexp(...)``: the name bound is
    ``scipy``."""

    def f(x):
        return scipy.special.logsumexp(x**2) + np.sum(scipy.special.gammaln(x + 2.0))

    def g(x):
        return jss.logsumexp(x**2) + jnp.sum(jss.gammaln(x + 2.0))

    x = np.linspace(-0.5, 0.5, 4)
    got = dgraph.hessian(f, x)(x)
    with jax.enable_x64(True):
        want = np.asarray(jref.hessian(g)(jnp.asarray(x)))
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
