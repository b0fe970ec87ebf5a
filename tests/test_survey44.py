"""Defects found by survey44 (held-out-style programs through every command and API,
``benchmarks/programs_survey``), one small test each."""

import numpy as np
import pytest

import dgraph
from dgraph.codegen.c import compiler


@pytest.mark.skipif(compiler() is None, reason="no C compiler")
def test_c_sweep_results_are_not_read_through_a_freed_node():
    """The C ``vjp`` of a transformer block returned wrong-sized adjoints ("cannot reshape
    array of size 30 into shape (8,6)"): its views were kept under ``id(node)``, and the
    ``Name`` made to look up each result, freed at once, passed its id to the next one,
    which then read the first result's view. Nodes now stay alive with their views."""
    from dgraph.codegen import ir
    from dgraph.codegen.tensor.c_values import _Translator
    from dgraph.codegen.tensor.sweeps import jvp_program, jvp_sweep
    from dgraph.frontends import from_python

    def f(x, W, V):
        return np.tanh(x @ W) * (x @ V)

    rng = np.random.default_rng(0)
    x, W, V = rng.normal(size=(3, 4)), rng.normal(size=(4, 4)), rng.normal(size=(4, 4))
    graph = from_python(f, point=[x, W, V], level="array")
    program, _ = jvp_program(graph, jvp_sweep(graph, "vjp", None), "vjp")
    translator = _Translator(program)
    for statement in program.statements:
        translator._statement(statement.target, statement.value)
    views = [translator._operand(ir.Name(name)) for name in program.results]
    assert len({(v.base, v.offset) for v in views}) == len(program.results) == 3

    G = dgraph.make_function(graph, "vjp", "c")  # the values, against closed forms
    w = rng.normal(size=(3, 4))
    a, b = np.tanh(x @ W), x @ V
    d = w * b * (1 - a**2)
    want = (d @ W.T + (w * a) @ V.T, x.T @ d, x.T @ (w * a))
    for got, expected in zip(G(x, W, V, w), want, strict=True):
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)


def test_rows_picked_at_argmax_positions():
    """A mixture of experts' top-1 gate ``p[np.arange(n), k]`` with ``k = np.argmax``:
    "a constant of type slice (object) is not a number" (the tracer compared the traced
    ``k`` with ``slice(None)``), then a refusal of two index arrays. One entry a row at
    argmax's positions is now read as a take at ``i·m + k``; a tied row picks the first."""

    def f(x, W):
        s = x @ W
        p = np.exp(s) / np.sum(np.exp(s), axis=1, keepdims=True)
        return p[np.arange(x.shape[0]), np.argmax(s, axis=1)]

    rng = np.random.default_rng(1)
    x, W = rng.normal(size=(5, 3)), rng.normal(size=(3, 4))
    x[2] = 0.0  # every logit 0: the first expert
    J = dgraph.make_function(f, "jacobian", point=[x, W])(x, W)
    s = x @ W
    p = np.exp(s) / np.exp(s).sum(axis=1, keepdims=True)
    k = np.argmax(s, axis=1)
    Jx = np.zeros((5, 5, 3))
    for n in range(5):  # d p_k / d x_n = p_k (W[:, k] - W @ p)
        Jx[n, n] = p[n, k[n]] * (W[:, k[n]] - W @ p[n])
    np.testing.assert_allclose(J[0], Jx, rtol=1e-12, atol=1e-14)


def test_jax_solve_over_two_batch_axes():
    """``jnp.linalg.solve`` of matrices stacked over two batch axes (``(2, 3, n, n)``):
    "custom_linear_solve with a matvec other than a product with one matrix, on more than
    one vector" (one batch axis was read). The batch axes are now made one and solved as
    one batch axis is."""
    jnp = pytest.importorskip("jax.numpy")

    def f(A, y):
        return jnp.linalg.solve(A + 4 * jnp.eye(3), y[..., None])[..., 0]

    rng = np.random.default_rng(2)
    A, y = rng.normal(size=(2, 3, 3, 3)), rng.normal(size=(2, 3, 3))
    JA, Jy = dgraph.make_function(f, "jacobian", point=[A, y])(A, y)
    M = A + 4 * np.eye(3)
    z = np.linalg.solve(M, y[..., None])[..., 0]
    inv = np.linalg.inv(M)
    want_y = np.zeros((2, 3, 3, 2, 3, 3))
    want_A = np.zeros((2, 3, 3, 2, 3, 3, 3))
    for i, j in np.ndindex(2, 3):  # dz = M⁻¹ dy, dz = -M⁻¹ dA z
        want_y[i, j, :, i, j, :] = inv[i, j]
        want_A[i, j, :, i, j] = -np.einsum("ak,l->akl", inv[i, j], z[i, j])
    np.testing.assert_allclose(np.asarray(Jy), want_y, atol=1e-13)
    np.testing.assert_allclose(np.asarray(JA), want_A, atol=1e-13)
