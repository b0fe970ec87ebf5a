"""What the seventeenth survey of real programs met (benchmarks/real_programs17.py: JAX
programs that differentiate inside themselves), each against ``jax.jacfwd`` /
``jax.hessian``: batch statistics by ``lax.pmean`` / ``lax.psum`` in a ``jax.vmap`` with an
``axis_name`` (its ``psum`` over the batched axis: refused), and
``jax.ad_checkpoint.checkpoint_name`` under a ``save_only_these_names`` policy (its ``name``
primitive: refused), and ``lax.custom_linear_solve`` / ``jax.scipy.sparse.linalg.cg`` of
a matrix-free matvec (refused: only a product with one matrix was read)."""

import numpy as np
import pytest

import dgraph
from tests.jax_reference import hessian, jacfwd

jax = pytest.importorskip("jax")
jnp = jax.numpy
lax = jax.lax
jax.config.update("jax_enable_x64", True)

X = np.array([0.3, -0.5, 0.8, 1.1, -0.2, 0.6])
W = np.array([[0.5, -0.3], [0.2, 0.7]])


def batch_norm(x):
    def per(a):
        h = jnp.tanh(W @ a)
        mu = lax.pmean(h, "batch")
        var = lax.pmean((h - mu) ** 2, "batch")
        s, t = lax.psum((a, a**2), "batch")  # two operands, two results
        return jnp.sum(jnp.sin((h - mu) / jnp.sqrt(var + 0.1)) * a) + s @ t

    return jax.vmap(per, axis_name="batch", in_axes=1)(x.reshape(2, 3))


def named_block(x):
    from jax.ad_checkpoint import checkpoint_name

    policy = jax.checkpoint_policies.save_only_these_names("pre")

    def block(v):
        return v + jnp.tanh(checkpoint_name(W @ v, "pre"))

    g = jax.checkpoint(block, policy=policy)
    v = g(g(x.reshape(3, 2)[0]))
    return jnp.sum(jnp.sin(v)) * x[2:] @ x[2:]


def test_named_complex_and_constant():
    """A tag on complex values (read as pairs) and on a constant (folded)."""
    from jax.ad_checkpoint import checkpoint_name

    def f(x):
        z = checkpoint_name(jnp.fft.fft(x[:4]) * (1 + 2j), "spectrum")
        k = checkpoint_name(jnp.cos(jnp.arange(4.0)) * 2.0, "constant")
        return jnp.sum(jnp.abs(z) ** 2 * k) * jnp.exp(x[4] * x[5])

    want = np.asarray(hessian(f)(X))
    found = dgraph.hessian(f, X)(X)
    np.testing.assert_allclose(found, want, rtol=1e-10, atol=1e-9)


def stencil_solve(x):
    a = 3.0 + x**2

    def mv(v):
        return a * v - 0.5 * jnp.roll(v, 1) - 0.3 * jnp.roll(v, -1)

    def jacobi(matvec, b):
        v = b / a
        for _ in range(24):  # (0.5 + 0.3) / 3 per sweep: 24 sweeps reach 1e-13
            v = v + (b - matvec(v)) / a
        return v

    return lax.custom_linear_solve(mv, jnp.cos(x), jacobi, jacobi) * x[0]


def cg_objective(x):
    def op(v):
        return (2.0 + x**2) * v + 0.3 * (x @ v) * x

    y, _ = jax.scipy.sparse.linalg.cg(op, jnp.sin(x) + 1.0, tol=1e-14, maxiter=100)
    return jnp.sum(y**2 * x)


def test_matrix_free_solve_of_a_matrix_refused():
    """Several right-hand sides of a matrix-free matvec: one clear line."""

    def f(x):
        B = jnp.stack([x, x**2], axis=1)
        return lax.custom_linear_solve(lambda v: 2.0 * v + jnp.roll(v, 1, axis=0) * x[0, None],
                                       B, lambda mv, b: b / 2.0)  # fmt: skip

    with pytest.raises(dgraph.DGraphError, match="more than one vector"):
        dgraph.make_function(f, "jacobian", point=[X])


def test_loose_iterative_solver_is_not_a_wrong_number():
    """A ``cg`` stopped far from the solution (3 steps, tolerance 1e-2): the exact solve
    the reader puts in its place differs from the program's value, so the result does not
    verify: refused, never JAX's different numbers returned as its derivative."""

    def f(x):
        def op(v):
            return (2.0 + x**2) * v + 0.9 * jnp.roll(v, 1) + 0.9 * jnp.roll(v, -1)

        y, _ = jax.scipy.sparse.linalg.cg(op, jnp.sin(x) + 1.0, tol=1e-2, maxiter=3)
        return y * x[0]

    x = np.linspace(-1.0, 1.0, 8)
    with pytest.raises(dgraph.DGraphError, match="did not verify"):
        dgraph.make_function(f, "jacobian", point=[x])


def psum_sum(x):
    return jnp.sum(batch_norm(x))


# make_function's choice for each function's Hessian (the same generated text), named so
# that no case builds and compares every candidate's program: the choice is codegen's
# (tests/test_codegen_choice.py)
CHOSEN = {"named_block": "reverse", "psum_sum": "markowitz", "cg_objective": "forward"}


@pytest.mark.parametrize("f", [batch_norm, named_block, stencil_solve])
def test_jacobian(f):
    """Read at the array level, the reader's own operations (the element level, the
    default for six inputs, is that graph expanded: batch_norm's 1.2 CPU-s, not 0.05)."""
    want = np.atleast_2d(np.asarray(jacfwd(f)(X)))
    assert np.abs(want).max() > 0.1
    found = dgraph.make_function(dgraph.from_jax(f, X, level="array"), "jacobian")(X)
    np.testing.assert_allclose(np.reshape(found, want.shape), want, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("f", [named_block, psum_sum, cg_objective])
def test_hessian(f):
    want = np.asarray(hessian(f)(X))
    assert np.abs(want).max() > 0.1
    found = dgraph.hessian(f, X, method=CHOSEN[f.__name__])(X)
    np.testing.assert_allclose(found, want, rtol=1e-9, atol=1e-10)


@jax.custom_jvp
def _cubic_root(theta):
    """The real root of ``y³ + y = θ`` by Newton's method in a ``while_loop``; its tangent
    by the implicit function theorem (benchmarks/real_programs17.py's implicit layer)."""

    def body(c):
        y, k = c
        return y - (y**3 + y - theta) / (3 * y**2 + 1), k + 1

    def cond(c):
        return (jnp.max(jnp.abs(c[0] ** 3 + c[0] - theta)) > 1e-13) & (c[1] < 50)

    return jax.lax.while_loop(cond, body, (theta / 2, 0))[0]


@_cubic_root.defjvp
def _cubic_root_jvp(primals, tangents):
    (theta,), (dtheta,) = primals, tangents
    y = _cubic_root(theta)
    return y, dtheta / (3 * y**2 + 1)


def test_a_loop_under_a_custom_rule_in_c():
    """The primal while_loop under the custom rule's stop_gradient differentiates no
    operand: its tangent sweep is zero columns wide, whose products C's shape inference
    refused ("einsum('ab,bw->aw', …) (its shape (5, 1) is not matmul's)"); now it has no
    product. C's Jacobian equals JAX's."""

    def f(x):
        y = _cubic_root(jnp.tanh(x) + 0.3)
        return jnp.sum(y**2 * x) + jnp.sum(y) ** 2

    J = dgraph.make_function(f, "jacobian", "c", point=[X])(X)
    want = jax.jit(jax.grad(f))(X)  # one program (eagerly: one per primitive, loop's too)
    np.testing.assert_allclose(np.ravel(J), np.asarray(want), rtol=1e-10)
