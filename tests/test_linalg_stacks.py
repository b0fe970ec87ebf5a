"""``np.linalg.solve``, ``inv``, ``slogdet``, ``det`` and ``cholesky`` of a stack of
matrices ``(..., n, n)`` in NumPy code (one operation per matrix, as JAX's reader reads a
``vmap``'d solve), refused before ("one square matrix is supported, not shape (2, 2,
2)", real_programs16): values and Hessians against ``jax.hessian`` of the same program
in ``jax.numpy``; NumPy 2's rule for the right-hand side (a vector if 1-d, else a stack
of matrices, the stacks' axes broadcast)."""

from __future__ import annotations

import numpy as np
import pytest

import dgraph
from dgraph.errors import DGraphError
from dgraph.frontends import array_tracer
from tests import jax_reference as jref

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
jax.config.update("jax_enable_x64", True)


def _programs(xp):
    def columns(x):  # b[..., None]: one column per matrix
        A = x[:8].reshape(2, 2, 2) + 3 * xp.eye(2)
        return xp.sum(xp.linalg.solve(A, x[8:12].reshape(2, 2)[..., None])[..., 0] ** 2)

    def inverse_logdet(x):
        A = x[:8].reshape(2, 2, 2) + 3 * xp.eye(2)
        return xp.sum(xp.linalg.inv(A) ** 2) + xp.sum(xp.linalg.slogdet(A)[1])

    def one_matrix_rhs(x):  # b (2, 2): the same matrix of columns for each (NumPy 2)
        A = x[:8].reshape(2, 2, 2) + 3 * xp.eye(2)
        return xp.sum(xp.linalg.solve(A, x[8:12].reshape(2, 2)) ** 2)

    def broadcast(x):  # a stack of one against b's stack of three
        A = x[:4].reshape(1, 2, 2) + 3 * xp.eye(2)
        return xp.sum(xp.linalg.solve(A, x[4:10].reshape(3, 2, 1)) ** 3)

    def spd_stack(x):  # det of a 4 × 4 (no cofactor form), cholesky, a vector rhs
        M = x[:16].reshape(1, 4, 4)
        S = M @ xp.swapaxes(M, 1, 2) + 4 * xp.eye(4)
        L = xp.linalg.cholesky(S)
        return (
            xp.sum(xp.linalg.det(S) ** 0.5) + xp.sum(L**2) + xp.sum(xp.linalg.solve(S, x[:4]) ** 2)
        )

    return [columns, inverse_logdet, one_matrix_rhs, broadcast, spd_stack]


X = np.random.default_rng(0).normal(size=32) * 0.3
NAMES = [f.__name__ for f in _programs(np)]


@pytest.mark.parametrize("k", range(len(NAMES)), ids=NAMES)
def test_stacks_against_jax(k):
    jref.assert_hessian(_programs(np)[k], _programs(jnp)[k], X)


def test_a_stack_too_large_and_a_wrong_rhs_are_one_line(monkeypatch):
    monkeypatch.setattr(array_tracer, "STACK_MOST", 2)
    for f, words in [
        (lambda x: np.linalg.inv(x[:12].reshape(3, 2, 2)), "a stack of 3 matrices (at most 2"),
        (
            lambda x: np.linalg.solve(x[:8].reshape(2, 2, 2), x[:3]),
            "a right-hand side of shape (3,) for (2, 2, 2)",
        ),
    ]:
        with pytest.raises(DGraphError) as e:
            dgraph.make_function(f, "jacobian", point=[X])
        assert words in str(e.value) and "\n" not in str(e.value)
