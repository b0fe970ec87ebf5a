"""The stored JAX references (tests/jax_reference_store.py) are JAX's: a stored entry equals
JAX's value computed live, and a changed constant, point, body, transform or option is
another key, whose reference is computed live (JAX's value of the changed function)."""

from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
from tests import jax_reference as jref  # noqa: E402
from tests import jax_reference_store as store  # noqa: E402
from tests import test_numpy_fft  # noqa: E402

STALE = "a stored reference is missing: rerun its module with DGRAPH_WRITE_JAX_REFERENCES=1"
C = np.array([0.5, -1.25, 2.0, 3.0])
X = np.linspace(0.2, 0.9, 4)


def _cubes(x):
    return jnp.sum(C * jnp.sin(x) ** 3)


def _pair(x, y):
    return jnp.sum(jnp.exp(x) * y**2)


def test_stored_entries_are_jax_s_values():
    """Served from the store (unless it is being written), and equal to JAX's transforms
    compiled now, to rounding; so are two of another module's (tests/test_numpy_fft.py)."""
    with jax.enable_x64(True):
        wanted = [
            jref.Reference("hessian", _cubes, (X,)),
            jref.Reference("jacrev", _pair, (X, X[::-1]), (0, 1)),
        ]
        for transform, g, args, argnums in wanted:
            key = store.key_of(transform, g, args, argnums)
            assert store.WRITING or store.lookup("test_jax_reference_store", key) is not None, STALE
        hessian, (dx, dy) = jref.references(wanted)
        live = jax.jit(jax.hessian(_cubes))(X)
        live_dx, live_dy = jax.jit(jax.jacrev(_pair, (0, 1)))(X, X[::-1])
    assert not hessian.flags.writeable
    for got, want in [(hessian, live), (dx, live_dx), (dy, live_dy)]:
        assert got.dtype == want.dtype == np.float64
        np.testing.assert_allclose(got, want, rtol=1e-15, atol=1e-15 * np.abs(want).max())
    compared = 0
    for name, n in [("power_spectrum", 8), ("round_trip", 9)]:
        with jax.enable_x64(True):
            f, x = test_numpy_fft._case(name)(jnp), jnp.asarray(test_numpy_fft._point(n))
            key = store.key_of("jacfwd", f, (x,), 0)
            stored = store.lookup("test_numpy_fft", key) if key else None
            if stored is not None:
                compared += 1
                want = np.asarray(jax.jit(jax.jacfwd(f))(x))
                np.testing.assert_allclose(stored, want, rtol=1e-14, atol=1e-15)
    assert store.WRITING or compared == 2, STALE


def test_a_changed_const_point_body_or_option_is_another_key_computed_live():
    """The key sees the closed-over array's bytes (the jaxpr's text names it only), the
    point's bytes, the program, the transform and its options, and x64; the changed
    function's reference is its own Hessian, ``diag(6 c x)`` of ``Σ c x³``."""
    c = np.array([1.0, 2.0, 3.0])
    x = np.array([0.5, 0.25, 2.0])
    with jax.enable_x64(True):
        cubes = lambda x: jnp.sum(c * x**3)  # noqa: E731
        key = store.key_of("hessian", cubes, (x,), 0)
        c2 = c.copy()
        c2[1] = 2.5
        changed = lambda x: jnp.sum(c2 * x**3)  # noqa: E731
        body = lambda x: jnp.sum(c * x**4)  # noqa: E731
        others = [
            store.key_of("hessian", changed, (x,), 0),
            store.key_of("hessian", cubes, (np.nextafter(x, 3.0),), 0),
            store.key_of("hessian", body, (x,), 0),
            store.key_of("jacfwd", cubes, (x,), 0),
            store.key_of("hessian", cubes, (x,), (0,)),
        ]
        assert str(jax.make_jaxpr(changed)(x)) == str(jax.make_jaxpr(cubes)(x))
        got = jref.hessian(changed)(x)
    with jax.enable_x64(False):
        others.append(store.key_of("hessian", cubes, (x,), 0))
    assert len({key, *others}) == 7
    np.testing.assert_allclose(got, np.diag(6.0 * c2 * x), rtol=1e-15)


def test_rules_and_callbacks_of_the_tests_have_no_key():
    """A ``custom_jvp`` rule written outside JAX or a ``pure_callback`` decides values the
    primal's text does not show: no key (always live); JAX's own rules are its version's."""

    @jax.custom_jvp
    def twice(x):
        return 2.0 * x

    twice.defjvp(lambda p, t: (twice(p[0]), 3.0 * t[0]))

    def called(x):
        shape = jax.ShapeDtypeStruct(x.shape, x.dtype)
        return jax.pure_callback(lambda a: np.asarray(a) * 2.0, shape, x)

    with jax.enable_x64(True):
        assert store.key_of("jacfwd", twice, (X,), 0) is None
        assert store.key_of("jacfwd", called, (X,), 0) is None
        assert store.key_of("jacfwd", jax.nn.softplus, (X,), 0) is not None
        assert store.key_of("jacfwd", lambda x: x if x[0] > 0 else -x, (X,), 0) is None
