"""Integer parameters that fix a program's structure (:mod:`dgraph.codegen.structural`):
a trip count ``range(n)`` in NumPy, a ``lax.fori_loop(0, n, ...)`` bound in JAX, given as
an integer in ``point`` and named in ``params``, closed over at that value. Each made
function against ``jax.jacfwd`` / ``jax.hessian`` of the loop at that count; a call with
another count is refused (tests/test_hostile.py has the refusals' lines)."""

from __future__ import annotations

import numpy as np
import pytest

import dgraph
from dgraph.errors import InputError
from tests import jax_reference as jref

jax = pytest.importorskip("jax")
jnp = jax.numpy
lax = jax.lax

Y = np.array([0.3, 0.7, 1.1])
T = np.array([0.2, -0.4, 0.9])


def _numpy_steps(y, n):
    for _ in range(n):
        y = y + 0.1 * np.sin(y) * y[::-1]
    return np.sum(y**2)


def _jax_steps(y, n):
    y = lax.fori_loop(0, n, lambda i, y: y + 0.1 * jnp.sin(y) * y[::-1], y)
    return jnp.sum(y**2)


def _reference(y, n):
    for _ in range(n):
        y = y + 0.1 * jnp.sin(y) * y[::-1]
    return jnp.sum(y**2)


def _references(n: int) -> tuple[np.ndarray, np.ndarray]:
    """JAX's gradient and Hessian of the loop of ``n`` steps at ``Y`` (one jitted
    program)."""
    both = jref.gradient_and_hessian_by_mode(lambda y: _reference(y, n), Y)
    return both["jacobian"], both["hessian"]


@pytest.mark.parametrize(
    ("f", "lang", "count", "first"),
    [(_numpy_steps, "python", 5, "jacobian"), (_jax_steps, "jax", np.array(4), "jvp")],
    ids=["numpy-range", "jax-fori_loop"],
)
def test_a_trip_count_argument_is_closed_over_at_the_point(f, lang, count, first):
    """Were refused: NumPy's tracer 'float() of a value that depends on the inputs', JAX
    'lower and upper arguments to fori_loop must have equal types, got int64 and
    float64' (the count read as a float64 parameter)."""
    n = int(count)
    g, H = _references(n)
    made = dgraph.make_function(f, first, lang, point=[Y, count], params=["n"])
    hessian = dgraph.make_function(f, "hessian", lang, point=[Y, count], params=["n"])
    assert made.generated.verified and hessian.generated.verified
    with jax.enable_x64(True):  # the JAX module's arrays in float64
        if first == "jvp":
            np.testing.assert_allclose(made(Y, T, count), g @ T, rtol=0, atol=1e-13)
            other = (Y, T, n + 1)
        else:
            np.testing.assert_allclose(made(Y, n), g, rtol=0, atol=1e-13)
            other = (Y, n + 1)
        np.testing.assert_allclose(hessian(Y, n), H, rtol=0, atol=1e-12)
    for function, call in ((made, other), (hessian, (Y, n - 1))):
        with pytest.raises(InputError, match="which fixes its structure"):
            function(*call)


def test_the_count_among_other_parameters_at_its_place():
    """The count between an input and a parameter read as a number (its value taken at
    each call): ``J(y, n, a)`` as the function's own call."""

    def f(y, n, a):
        for _ in range(n):
            y = y + a * np.sin(y) * y[::-1]
        return y

    def reference(y, a):
        for _ in range(3):
            y = y + a * jnp.sin(y) * y[::-1]
        return y

    J = dgraph.make_function(f, point=[Y, 3, 0.2], params=["n", "a"])
    for a in (0.2, 0.35):  # a is still read at each call
        with jax.enable_x64(True):
            expected = np.asarray(jax.jacfwd(reference)(jnp.asarray(Y), a))
        np.testing.assert_allclose(J(Y, 3, a), expected, rtol=0, atol=1e-13)
    with pytest.raises(InputError, match="it takes n"):
        J(Y, 0.2)


def test_a_count_read_as_a_number_stays_a_parameter():
    """``y ** n``: reading ``n`` as a number works, so the made function takes any value
    of it (nothing closed over)."""
    J = dgraph.make_function(lambda y, n: y**n, point=[Y, 3], params=["n"])
    assert J.structural is None
    np.testing.assert_allclose(np.diag(J(Y, 4)), 4 * Y**3, rtol=1e-14)
