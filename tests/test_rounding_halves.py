"""``round`` at halves: ``jnp.round`` and ``numpy.round`` take a half to even,
``lax.round``'s default (``AWAY_FROM_ZERO``) away from zero. The element level read
every half up (``floor(x + 1/2)``: 2.5 → 3 for ``jnp.round``) and the array level read
``lax.round`` as NumPy's (2.5 → 2, −0.5 → 0); generated code gave those at run time,
points the value check at the user's point never saw."""

import warnings

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy
lax = jax.lax

import dgraph  # noqa: E402
from dgraph import from_jax  # noqa: E402

HALVES = np.array([2.5, -0.5, 1.5, -1.5, 0.49999999999999994, -2.5000000000000004, 3.5, -0.3])
POINT = np.array([0.3, 1.2, -2.7, 3.1, 0.2, -0.8, 2.2, 5.3])
EVEN = [2.0, -0.0, 2.0, -2.0, 0.0, -3.0, 4.0, -0.0]  # numpy.round(HALVES)
AWAY = [3.0, -1.0, 2.0, -2.0, 0.0, -3.0, 4.0, -0.0]  # lax.round(HALVES)


@pytest.fixture(autouse=True)
def _float64():
    with jax.enable_x64(True):
        yield


@pytest.mark.parametrize(
    "f, level, expected",
    [
        (lambda x: jnp.round(x) * x, "element", EVEN),
        (lambda x: jnp.round(x) * x, "array", EVEN),
        (lambda x: lax.round(x) * x, "element", AWAY),
        (lambda x: lax.round(x) * x, "array", AWAY),
        (lambda x: np.round(x) * x, "element", EVEN),
    ],
    ids=["jnp-element", "jnp-array", "lax-element", "lax-array", "numpy-element"],
)
def test_round_at_halves_is_the_function_s(f, level, expected) -> None:
    """∂(round(x)·x)/∂x = diag(round(x)) (round's derivative 0, as JAX's): the
    generated Jacobian at halves holds each rounding's own values."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        source = from_jax(f, POINT, level="array") if level == "array" else f
        made = dgraph.make_function(
            source, "jacobian", **({} if level == "array" else {"point": [POINT]})
        )
    assert made.generated.verified is True
    np.testing.assert_array_equal(np.diag(made(HALVES)), expected)
