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


def _stacks_of_two(xp):
    """A stack of 2 × 2 matrices: a column per matrix (``b[..., None]``), the inverse and
    log-determinant, one matrix of columns for every matrix (NumPy 2's rule), a stack of
    one against ``b``'s stack of three (broadcast)."""

    def f(x):
        A = x[:8].reshape(2, 2, 2) + 3 * xp.eye(2)
        columns = xp.sum(xp.linalg.solve(A, x[8:12].reshape(2, 2)[..., None])[..., 0] ** 2)
        inverse = xp.sum(xp.linalg.inv(A) ** 2) + xp.sum(xp.linalg.slogdet(A)[1])
        shared = xp.sum(xp.linalg.solve(A, x[8:12].reshape(2, 2)) ** 2)
        one = x[:4].reshape(1, 2, 2) + 3 * xp.eye(2)
        broadcast = xp.sum(xp.linalg.solve(one, x[4:10].reshape(3, 2, 1)) ** 3)
        return columns + inverse + shared + broadcast

    return f


def _spd_stack(xp):
    """The determinant of a 4 × 4 stack (no cofactor form), its Cholesky factor, a vector
    right-hand side."""

    def f(x):
        M = x[:16].reshape(1, 4, 4)
        S = M @ xp.swapaxes(M, 1, 2) + 4 * xp.eye(4)
        L = xp.linalg.cholesky(S)
        return (
            xp.sum(xp.linalg.det(S) ** 0.5) + xp.sum(L**2) + xp.sum(xp.linalg.solve(S, x[:4]) ** 2)
        )

    return f


X = np.random.default_rng(0).normal(size=16) * 0.3


@pytest.mark.parametrize("program", [_stacks_of_two, _spd_stack], ids=lambda p: p.__name__)
def test_stacks_against_jax(program):
    x = X[:12] if program is _stacks_of_two else X
    jref.assert_hessian(program(np), program(jnp), x)


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
