"""Session 46, args46: a made function of a Python callable takes the callable's own
arguments at the element level as at the array level, and boolean arrays are masks
(not differentiated, read at each call)."""

from __future__ import annotations

import numpy as np
import pytest

import dgraph
from dgraph.codegen.tensor.function import TensorGenerated
from dgraph.errors import InputError

jnp = pytest.importorskip("jax.numpy")


def test_the_element_level_takes_the_callables_own_arguments() -> None:
    """``G(A, b)`` of ``def g(A, b)`` read at the element level raised "jacobian() takes 1
    positional argument but 2 were given" (it took one concatenated vector), where the
    array level takes ``G(A, b)``: now both do, with ``jax.jacobian(g, argnums=(0, 1))``'s
    blocks, and ``vjp(A, b, w)`` gives ``(w̄_A, w̄_b)``; the flat call still works."""
    rng = np.random.default_rng(0)
    A, b, w = rng.normal(size=(3, 2)), rng.normal(size=2), rng.normal(size=3)

    def g(A, b):
        return np.tanh(A @ b)

    s = 1 - np.tanh(A @ b) ** 2  # closed forms: dy_i/dA_jk = s_i δ_ij b_k, dy/db = s A
    dA = np.einsum("i,ij,k->ijk", s, np.eye(3), b)
    db = s[:, None] * A
    J = dgraph.make_function(g, point=[A, b])
    assert not isinstance(J.generated, TensorGenerated)  # the element level
    found_A, found_b = J(A, b)
    np.testing.assert_allclose(found_A, dA, atol=1e-14)
    np.testing.assert_allclose(found_b, db, atol=1e-14)
    np.testing.assert_allclose(J(np.r_[A.ravel(), b]), np.c_[dA.reshape(3, 6), db], atol=1e-14)
    vjp = dgraph.make_function(g, "vjp", point=[A, b])
    bar_A, bar_b = vjp(A, b, w)
    np.testing.assert_allclose(bar_A, np.einsum("i,ijk->jk", w, dA), atol=1e-14)
    np.testing.assert_allclose(bar_b, w @ db, atol=1e-14)
    with pytest.raises(InputError, match=r"takes the function's own arguments \(A, b, w\)"):
        vjp(A, b)
    with pytest.raises(InputError, match=r"argument A has shape \(2, 3\), not \(3, 2\)"):
        vjp(A.T, b, w)


def test_a_boolean_array_is_a_mask_read_at_each_call() -> None:
    """``sum(where(m, x², sin x))`` with ``m`` a boolean array: NumPy's was refused by the
    check (``m`` differentiated as floats: "disagrees with central differences ... error
    4.2e-01"), JAX's took one vector of x and m. Now ``m`` is a parameter read at each
    call (``~m`` gives the other branch's derivative) and a float there is refused."""
    x = np.linspace(0.1, 1.2, 6)
    m = np.arange(6) % 3 == 0

    def gradient(mask):
        return np.where(mask, 2 * x, np.cos(x))  # jax.grad(h)(x, mask)

    for where, sum_, sin in ((np.where, np.sum, np.sin), (jnp.where, jnp.sum, jnp.sin)):

        def h(x, m, where=where, sum_=sum_, sin=sin):
            return sum_(where(m, x**2, sin(x)))

        J = dgraph.make_function(h, point=[x, m])
        for mask in (m, ~m):
            np.testing.assert_allclose(np.ravel(J(x, mask)), gradient(mask), atol=1e-14)
    sparse = dgraph.make_function(h, point=[x, m], sparse=True)
    np.testing.assert_allclose(sparse(x, ~m).toarray().ravel(), gradient(~m), atol=1e-14)
    with pytest.raises(InputError, match="traced as a boolean array"):
        J(x, m.astype(float))
