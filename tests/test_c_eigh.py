"""The symmetric eigendecomposition in generated C (:mod:`dgraph.codegen.c_linalg`'s
``dgraph_eigh``, cyclic Jacobi): Jacobians and Hessians of eigenvalue functions equal
JAX's at n = 3, 8, 20 (all pairs of function, mode and size), one reading eigenvectors
equals the NumPy target's and JAX's at n = 3 and 20;
batched statements (one matrix read transposed) equal NumPy's in C and in CUDA on the
host; 40×40 matrices scaled by 1e±150 decompose to rounding; a NaN matrix gives NaN as
JAX; a helper that does not sort is caught by the code check; a program reading a vector's
sign is refused by its check or equals NumPy's. Each was refused before ("linalg.eigh is
not printed in C")."""

from __future__ import annotations

import functools

import numpy as np
import pytest

import dgraph
from dgraph.codegen.c import compiler
from dgraph.codegen.ir import ArrayStatement, BinOp, Call, Const, Index, Name, Seq
from dgraph.codegen.tensor.c_values import c_values
from dgraph.errors import VerificationError
from tests import jax_reference as jref
from tests.c_linalg_cases import (
    c_and_cuda_equal,
    close,
    dense,
    diagonal_program,
    largest_entry_signs,
    mutated,
    run_numpy,
)

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
pytestmark = [
    pytest.mark.skipif(compiler() is None, reason="needs a C compiler"),
]

SIZES = (3, 8, 20)


def _matrix(n: int):
    """A symmetric n×n matrix of x (distinct eigenvalues at :func:`_point`)."""
    b = np.random.default_rng(n).normal(size=(n, n))
    base = jnp.asarray(b + b.T)

    def a(x):
        return base + jnp.diag(x) * 3.0 + jnp.outer(x, x) * 0.1

    return a, b


def _point(n: int) -> np.ndarray:
    return np.random.default_rng(100 + n).normal(size=n)


def _squares(n: int):
    a, _ = _matrix(n)
    return lambda x: jnp.sum(jnp.linalg.eigvalsh(a(x)) ** 2)


def _largest(n: int):
    a, _ = _matrix(n)
    return lambda x: jnp.linalg.eigvalsh(a(x))[-1]


def _logdet(n: int):
    """log det S(x) as the sum of the logs of the eigenvalues of an SPD S(x)."""
    b = jnp.asarray(np.random.default_rng(n).normal(size=(n, n)))

    def f(x):
        m = b + jnp.diag(x) + 0.2 * jnp.outer(x, jnp.arange(n) / n)
        return jnp.sum(jnp.log(jnp.linalg.eigvalsh(m @ m.T + jnp.eye(n))))

    return f


def _vectors(n: int):
    """Weighted squares of the first and last eigenvectors' entries (their sign unread)."""
    a, _ = _matrix(n)
    weights = jnp.arange(1.0, n + 1.0)

    def f(x):
        v = jnp.linalg.eigh(a(x))[1]
        return jnp.sum(weights * v[:, 0] ** 2) + jnp.sum(weights[::-1] * v[:, -1] ** 2) * x

    return f


FUNCTIONS = {"squares": _squares, "largest": _largest, "logdet": _logdet}


@functools.cache
def _case(name: str, n: int):
    """``FUNCTIONS[name]`` at ``n`` and its point, made once: the tests of one case share
    the function, and with it JAX's compiled references (kept per function)."""
    return FUNCTIONS[name](n), _point(n)


@functools.cache
def _built(name: str, mode: str, n: int):
    """The case's ``make_function(f, mode, "c")``, built once for the tests that read the
    same build (the derivatives, the NaN test, the right helper of the mutation test)."""
    f, x = _case(name, n)
    with jax.enable_x64(True):
        return dgraph.make_function(f, mode, "c", point=[x])


@functools.cache
def _expected(name: str, n: int) -> dict[str, np.ndarray]:
    """JAX's gradient and Hessian of the case at its point, by mode: one jitted program
    (``value_gradient_hessian``: the gradient is the Hessian's forward pass), not one per
    mode."""
    return jref.gradient_and_hessian_by_mode(*_case(name, n))


# All pairs of function × size, mode × function and mode × size (10 of the 18 cases:
# one helper, one rule per mode), with the three whose code no other case reached
# (coverage: logdet's and squares' Hessians at n = 20 take the blocks' paths of a large
# Hessian, logdet's Jacobian at 3 an expansion); the builds the NaN test (squares,
# jacobian, 3) and the mutation test (largest, jacobian, 8) read are among them
DERIVATIVES = [
    ("largest", "hessian", 3),
    ("largest", "jacobian", 8),
    ("largest", "hessian", 20),
    ("logdet", "jacobian", 3),
    ("logdet", "hessian", 8),
    ("logdet", "hessian", 20),
    ("squares", "jacobian", 3),
    ("squares", "jacobian", 8),
    ("squares", "hessian", 20),
    ("squares", "jacobian", 20),
]


@pytest.mark.parametrize(
    ("name", "mode", "n"), DERIVATIVES, ids=[f"{a}-{b}-{c}" for a, b, c in DERIVATIVES]
)
def test_eigenvalue_derivatives_in_c_equal_jax(name: str, mode: str, n: int) -> None:
    """Gradients and Hessians of eigenvalue functions in C, verified, equal to JAX's to
    1e-9 of their largest entry (seen: about 1e-14)."""
    x, fn = _case(name, n)[1], _built(name, mode, n)
    expected = _expected(name, n)[mode]
    assert fn.generated.lang == "c" and fn.generated.verified
    assert "dgraph_eigh(" in fn.generated.text
    close(fn(x), expected)


@pytest.mark.parametrize("n", [3, 20])
def test_an_eigenvector_function_in_c_equals_numpy_and_jax(n: int) -> None:
    """A function of eigenvectors (their squares, weighted): its C Jacobian equals the
    NumPy target's and JAX's (the smallest and the largest size: n = 8 runs the same
    code)."""
    f, x = _vectors(n), _point(n)
    with jax.enable_x64(True):
        in_c = dgraph.make_function(f, "jacobian", "c", point=[x], sparse=True)
        in_numpy = dgraph.make_function(f, "jacobian", "python", point=[x])
        expected = np.asarray(jref.jacobian(f)(x))
    assert in_c.generated.verified and "dgraph_eigh(" in in_c.generated.text
    close(in_c(x), dense(in_numpy(x)).reshape(expected.shape))
    close(in_c(x), expected)


def test_distinct_eigenvalues_at_the_points() -> None:
    """The test points are regular for eigh: no two eigenvalues within 1e-3."""
    for n in SIZES:
        a, _ = _matrix(n)
        with jax.enable_x64(True):  # jitted: one program, not an eager one per operation
            w = np.linalg.eigvalsh(np.asarray(jax.jit(a)(_point(n))))
        assert np.diff(w).min() > 1e-3


def _stack_program(shape):
    """eigh of a stack (and of its transposes, a strided read) of symmetric matrices."""
    axes = (Const(-1), Const(-2))
    s = BinOp("+", Name("x_"), Call("swapaxes", (Name("x_"), *axes)))
    pair = Call("linalg.eigh", (Call("swapaxes", (Name("s"), *axes)),))
    statements = [
        ArrayStatement("s", s),
        ArrayStatement("e", Call("linalg.eigh", (Name("s"),))),
        ArrayStatement("w", Index(Name("e"), (Const(0),))),
        ArrayStatement("v", BinOp("*", Index(Name("e"), (Const(1),)), Const(2.0))),
        ArrayStatement("wt", BinOp("-", Index(pair, (Const(0),)), Const(1.0))),
    ]
    parts = [Call("ravel", (Name(v),)) for v in ("w", "v", "wt")]
    statements.append(ArrayStatement("y", Call("concatenate", (Seq(tuple(parts)),))))
    return diagonal_program(statements, shape)


@functools.cache
def _stack_values(shape: tuple[int, int, int]):
    """:func:`_stack_program` at ``shape``, its statements and its C values, printed once
    for the tests of one stack shape (the three scales of the larger stack)."""
    program, body = _stack_program(shape)
    return program, body, c_values(program)


def _numpy_signs(v: np.ndarray) -> np.ndarray:
    """NumPy's vectors with dgraph_eigh's signs: each vector's largest entry positive."""
    return v * largest_entry_signs(v)


def test_batched_eigh_in_c_and_cuda_equals_numpy(tmp_path) -> None:
    """``eigh`` of a stack of three 5×5 matrices (named, and inline through a transposed
    view) in C and in CUDA on the host against NumPy: the values, and the vectors up to
    NumPy's signs (normalized: each vector's entry of largest magnitude positive); nvcc,
    where installed, compiles the CUDA text (a thread per matrix; not run here)."""
    shape = (3, 5, 5)
    _, body, values = _stack_values(shape)
    x = np.random.default_rng(5).normal(size=shape)
    space = run_numpy(body, x)
    k = 3 * 5
    expected = np.ravel(space["y"]).copy()
    v = np.reshape(expected[k : k + 75], shape) / 2.0
    expected[k : k + 75] = np.ravel(2.0 * _numpy_signs(v))
    body = values.text[values.text.index("void jacobian_values_with(") :]
    assert body.count("dgraph_eigh(") == 2  # one for s, one for its transpose
    c_and_cuda_equal(values, x, expected, tmp_path)


def test_a_nan_matrix_gives_nan_as_jax() -> None:
    """A NaN entry (x[0] NaN) gives NaN values and vectors, as JAX's eigh."""
    (f, x), fn = _case("squares", 3), _built("squares", "jacobian", 3)
    with jax.enable_x64(True):
        bad = x.copy()
        bad[0] = np.nan
        # the gradient of the program the references compiled at x (same shape)
        assert np.isnan(np.asarray(jref.value_gradient_hessian(f)(bad)[1])).all()
    assert np.isnan(np.asarray(fn(bad))).all()


def test_a_helper_that_does_not_sort_is_caught_by_the_check(monkeypatch) -> None:
    """The helper with its ascending sort removed gives the eigenvalues in Jacobi's
    order: the code check refuses it (the right helper passes at the same point)."""
    (f, x), right = _case("largest", 8), _built("largest", "jacobian", 8)
    assert right.generated.verified
    with jax.enable_x64(True):
        mutated("dgraph_eigh", "if (w[j] < w[low]) low = j;", "", monkeypatch)
        with pytest.raises(VerificationError, match="check FAILED"):
            dgraph.make_function(f, "jacobian", "c", point=[x])


@pytest.mark.parametrize("scale", [1.0, 1e150, 1e-150])
def test_a_larger_stack_decomposes_to_rounding(scale: float) -> None:
    """Two 40×40 matrices (entries scaled by 1e±150: no overflow or underflow in the
    sweeps' sums, the matrix is scaled by its largest entry first): the eigenvalues equal
    LAPACK's, V·diag(w)·Vᵀ the matrix and VᵀV the identity, to 1e-13 relative."""
    shape = (2, 40, 40)
    x = np.random.default_rng(7).normal(size=shape) * scale
    got = _stack_values(shape)[2].load()(x).data
    s = x + np.swapaxes(x, -1, -2)
    w = got[:80].reshape(2, 40)
    v = got[80 : 80 + s.size].reshape(shape) / 2.0
    big = abs(s).max()
    assert abs(w - np.linalg.eigvalsh(s)).max() < 1e-13 * big
    assert abs(v @ (w[..., None] * np.swapaxes(v, -1, -2)) - s).max() < 1e-13 * big
    assert abs(np.swapaxes(v, -1, -2) @ v - np.eye(40)).max() < 1e-13


def test_a_program_reading_a_vector_sign_is_refused_or_equals_numpy() -> None:
    """Σ k·v_k of the first eigenvector reads its sign, which LAPACK leaves arbitrary and
    dgraph_eigh makes its largest entry's: the C code's check fails where the two signs
    differ, and where they agree the Jacobian equals the NumPy target's; never a silently
    different number."""
    a, _ = _matrix(5)

    def f(x):
        return jnp.sum(jnp.linalg.eigh(a(x))[1][:, 0] * jnp.arange(5.0))

    x = _point(5)
    with jax.enable_x64(True):
        in_numpy = dgraph.make_function(f, "jacobian", "python", point=[x])
        try:
            in_c = dgraph.make_function(f, "jacobian", "c", point=[x])
        except VerificationError as error:
            assert "check FAILED" in str(error)
            return
    close(in_c(x), dense(in_numpy(x)))
