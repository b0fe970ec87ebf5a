"""A ``while`` whose condition is an array (``vmap`` of a ``while_loop``: entries stop
at different steps). The generated code looped on the array's truth ("ValueError: The
truth value of an array ... is ambiguous", JAX's ``exp1`` and ``expn`` among them, which
are now read as operations); it is read as XLA runs it: while any entry holds, each carry
kept where its own entry stopped."""

from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy
jsp = jax.scipy.special

import dgraph  # noqa: E402
from tests import jax_reference as jref  # noqa: E402

X = np.array([0.3, 0.7, 1.2, 0.5])


def _grows(a):
    """Steps of 0.3 until past ``a``: 1, 3, 4 and 2 steps for X's entries."""
    return jax.lax.while_loop(lambda c: c[1] < a, lambda c: (c[0] * 1.5 + a, c[1] + 0.3), (a, 0.0))[
        0
    ]


PROGRAMS = {
    "vmapped": lambda x: jax.vmap(_grows)(x),
    "vmapped_matrix": lambda x: jax.vmap(jax.vmap(_grows))(x.reshape(2, 2)).ravel(),
    "exp1": jsp.exp1,
    "expn": lambda x: jsp.expn(3, x),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_batched_condition_equals_jax(name: str) -> None:
    f = PROGRAMS[name]
    with jax.enable_x64(True):
        fn = dgraph.make_function(f, "value_and_jacobian", point=[X])
        value, J = fn(X)
        expected = np.asarray(jax.jit(f)(jnp.asarray(X)))
        reference = jref.jacfwd(f)(X)
    if name.startswith("vmapped"):  # 0.3 (and 1.2) reached exactly: the steps jump there
        assert fn.generated.check.status == "not verified", fn.generated.check.detail
        assert "its lt (the condition) of the while_loop" in fn.generated.check.detail
    else:
        assert fn.generated.verified
    np.testing.assert_allclose(np.asarray(value), expected, rtol=1e-13)
    np.testing.assert_allclose(np.asarray(J), reference, rtol=1e-12, atol=1e-14)
