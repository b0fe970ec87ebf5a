"""``np.linalg.solve``, ``inv``, ``slogdet``, ``det``, ``cholesky``, ``eigh``,
``eigvalsh``, ``svd`` and ``qr`` of a stack of matrices ``(..., m, n)`` in NumPy code (one
operation per matrix), refused before ("one square matrix is supported, not shape (2, 2,
2)", real_programs16): values and Hessians against ``jax.hessian`` of the same program
in ``jax.numpy``; NumPy 2's rule for the right-hand side (a vector if 1-d, else a stack
of matrices, the stacks' axes broadcast). JAX's own stacked ``eigh``, ``svd``, ``qr``,
``cholesky`` and ``triangular_solve`` (``jnp.linalg`` of a stack, ``vmap``), refused
before ("only one square matrix is supported"), read one matrix at a time as well
(:mod:`dgraph.frontends.jaxpr_stacks`), in the gradient program of a Hessian too. Since
session 53 a stack of small matrices is one operation whose block is block diagonal over
the batch axes (:func:`dgraph.blocks.linalg.batched`), NumPy's and JAX's alike."""

from __future__ import annotations

import numpy as np
import pytest

import dgraph
from dgraph.blocks import linalg
from dgraph.errors import DGraphError
from dgraph.frontends import array_tracer, from_python, jaxpr_stacks
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


def _decompositions_of_stacks(xp):
    """Eigenvalues and eigenvectors' squares (their signs are the library's choice), QR
    of a stack of 3 × 2 matrices, singular values: each of a stack of two."""

    def f(x):
        a = x[:8].reshape(2, 2, 2)
        w, v = xp.linalg.eigh(a + xp.swapaxes(a, -1, -2))
        q, r = xp.linalg.qr(x[:12].reshape(2, 3, 2))
        s = xp.linalg.svd(a, compute_uv=False)
        return xp.sum(w**3) + xp.sum(v**2 * a) + xp.sum(q**3) + xp.sum(r**3) + xp.sum(s**3)

    return f


def _stacks_of_three_and_four(xp):
    """A stack (2, 3, 3): eigenvalues, inverse, log-determinant, Cholesky factor; a stack
    (4, 2, 2): eigenvectors' squares, a column per matrix; one constant matrix against a
    stack of two columns (NumPy 2's broadcast)."""

    def f(x):
        a, b = x[:18].reshape(2, 3, 3), x[:16].reshape(4, 2, 2)
        s = a @ xp.swapaxes(a, -1, -2) + 3 * xp.eye(3)
        w, v = xp.linalg.eigh(b + xp.swapaxes(b, -1, -2))
        solved = xp.linalg.solve(b + 3 * xp.eye(2), x[2:10].reshape(4, 2, 1))
        three = xp.sum(xp.linalg.eigvalsh(a + xp.swapaxes(a, -1, -2)) ** 3)
        three += xp.sum(xp.linalg.inv(s) ** 2) + xp.sum(xp.linalg.slogdet(s)[1])
        three += xp.sum(xp.linalg.cholesky(s) ** 3)
        shared = xp.sum(xp.linalg.solve(2 * xp.eye(3) + 0.1, x[:6].reshape(2, 3, 1)) ** 2)
        return three + xp.sum(v**2 * b) + xp.sum(w**3) + xp.sum(solved**3) + shared

    return f


X = np.random.default_rng(0).normal(size=18) * 0.3


def _one_operation_a_stack(f, size: int) -> None:
    """Every linear algebra operation of ``f``'s graph reads a whole stack (batch axes),
    its matrices' block block diagonal (each matrix's own), not one operation per matrix."""
    g = from_python(f, sizes=[size], level="array")
    ops = {v: g.op(v) for v in g.vertices if g.op(v) is not None}
    ops = {v: op for v, op in ops.items() if op.primitive in linalg.LINALG}
    assert ops
    matrices = {v: op.operands[0] for v, op in ops.items() if isinstance(op.operands[0], str)}
    assert {g.block(a, v).type_name for v, a in matrices.items()} == {"block diagonal"}


# the Hessians' methods: make_function's choice for each (the same generated text), named
# so that no test builds and costs every candidate's program (0.4-0.6 CPU-s each): the
# choice is codegen's (tests/test_codegen_choice.py)
CHOSEN = {"_stacks_of_two": "markowitz", "_spd_stack": "forward"}


@pytest.mark.parametrize(
    "program", [_stacks_of_two, _spd_stack, _decompositions_of_stacks], ids=lambda p: p.__name__
)
def test_stacks_against_jax(program):
    x = X[:16] if program is _spd_stack else X[:12]
    _one_operation_a_stack(program(np), x.size)
    method = CHOSEN.get(program.__name__, "markowitz")
    jref.assert_hessian(program(np), program(jnp), x, method=method)


def test_stacks_of_three_and_four_against_jax():
    """Each stacked operation one (a block-diagonal block); the gradient equals JAX's
    (the Hessians: the tests above; this program's JAX Hessian alone compiles 3.5 s)."""
    f, f_jax = _stacks_of_three_and_four(np), _stacks_of_three_and_four(jnp)
    _one_operation_a_stack(f, X.size)
    made = dgraph.make_function(f, "jacobian", point=[X])
    want = np.asarray(jref.grad(f_jax)(jnp.asarray(X)))
    assert made.generated.verified
    np.testing.assert_allclose(made(X), want, rtol=1e-12, atol=1e-12 * np.abs(want).max())


def test_jax_stacks_are_one_operation_each():
    """JAX's stacked cholesky, triangular_solve, eigh, qr and svd (``vmap``'d): one
    operation each over the stack; the Hessian, read from JAX's gradient program (where
    qr's rule solves a stacked triangular system), times a direction equals JAX's
    forward-over-reverse product."""
    x, v = X[:12], np.linspace(-1.0, 1.0, 12)

    def f(x):
        a = x[:8].reshape(2, 2, 2)
        L = jnp.linalg.cholesky(a @ jnp.swapaxes(a, -1, -2) + 3 * jnp.eye(2))
        solved = jax.scipy.linalg.solve_triangular(L, x[8:12].reshape(2, 2, 1), lower=True)
        r = jnp.linalg.qr(x.reshape(2, 3, 2))[1]
        u = jax.vmap(lambda m: jnp.linalg.svd(m, full_matrices=False)[0])(a)
        w = jnp.linalg.eigvalsh(a + jnp.swapaxes(a, -1, -2))
        return jnp.sum(w**3) + jnp.sum(solved**3) + jnp.sum(u**2 * a) + jnp.sum(r**3)

    _one_operation_a_stack(f, 12)
    hvp = jax.jit(lambda x, v: jax.jvp(jax.grad(f), (x,), (v,))[1])
    want = np.asarray(hvp(jnp.asarray(x), jnp.asarray(v)))
    made = dgraph.hessian(f, x, method="markowitz")  # the choice's (CHOSEN)
    assert made.generated.verified
    np.testing.assert_allclose(made(x) @ v, want, rtol=1e-10, atol=1e-10 * np.abs(want).max())


def test_a_stack_too_large_and_a_wrong_rhs_are_one_line(monkeypatch):
    monkeypatch.setattr(linalg, "BATCHED_ENTRIES", 0)  # matrices read one operation each
    monkeypatch.setattr(array_tracer, "STACK_MOST", 2)
    monkeypatch.setattr(jaxpr_stacks, "STACK_MOST", 2)
    for f, words in [
        (lambda x: np.linalg.inv(x[:12].reshape(3, 2, 2)), "a stack of 3 matrices (at most 2"),
        (
            lambda x: np.linalg.solve(x[:8].reshape(2, 2, 2), x[:3]),
            "a right-hand side of shape (3,) for (2, 2, 2)",
        ),
        (lambda x: np.linalg.eigvalsh(x[:12].reshape(3, 2, 2)), "a stack of 3 matrices (at most"),
        (lambda x: jnp.linalg.eigvalsh(x[:12].reshape(3, 2, 2)), "eigh of a stack of 3 matrices"),
    ]:
        with pytest.raises(DGraphError) as e:
            dgraph.make_function(f, "jacobian", point=[X])
        assert words in str(e.value) and "\n" not in str(e.value)
