"""sympy's Jacobian of whole expressions (the ``symbolic`` candidate of codegen's choice)
stays out where a Piecewise's condition reads another Piecewise: sympy folds every such
condition when it inlines them (``piecewise_fold``, ``simplify_logic``), 27 CPU-s for a
2 x 3 max pooling of 16 entries, against 3.5 without the candidate."""

from __future__ import annotations

import numpy as np
import pytest

from dgraph.codegen.selection import SYMBOLIC, select_jacobian

jax = pytest.importorskip("jax")
jnp, lax = jax.numpy, jax.lax

X = np.array([0.7, 0.2, 0.7, -0.3])


def _pooled(width: int):
    def f(x):
        pooled = lax.reduce_window(x, -jnp.inf, lax.max, (width,), (1,), "VALID")
        return jnp.sum(jnp.sin(pooled) * pooled)

    return f


def _candidates(width: int) -> set[str]:
    from dgraph.frontends import from_jax

    return {c.method for c in select_jacobian(from_jax(_pooled(width), X)).candidates}


def test_a_max_of_two_keeps_the_symbolic_candidate_and_a_max_of_maxima_does_not():
    assert SYMBOLIC in _candidates(2)  # one choice per window: no condition reads another
    assert SYMBOLIC not in _candidates(3)  # XLA's pairwise choices: the second reads the first


def test_the_jacobian_without_it_is_jax_s_at_ties():
    import dgraph

    f = _pooled(3)
    J = dgraph.make_function(f, "jacobian", point=[X])
    with jax.enable_x64(True):
        want = np.asarray(jax.grad(f)(X))
    np.testing.assert_allclose(np.ravel(J(X)), want, atol=1e-14)
    # the windows' maxima are tied at X: JAX's share, no derivative (session 65)
    assert J.generated.verified is False and "is at its break" in J.generated.check.detail
