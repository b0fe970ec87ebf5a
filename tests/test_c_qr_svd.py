"""The reduced QR and SVD and ``cumlogsumexp`` in generated C (:mod:`dgraph.codegen.c_linalg`'s
``dgraph_qr``, Householder with LAPACK's signs, and ``dgraph_svd``, one-sided Jacobi;
``dgraph_logaddexp`` a step of ``logaddexp.accumulate``): Jacobians and Hessians of
programs reading Q and R (tall 5×3, square 4×4) and singular values and vectors (tall,
square, wide) equal JAX's; batched statements (one matrix read transposed) equal NumPy's in
C and in CUDA on the host, Q and R to the sign, the singular vectors up to NumPy's signs;
a helper with a sign flipped (QR) or its sort removed (SVD) is caught by the code check;
a NaN matrix gives NaN. Each was refused before ("linalg.qr is not printed in C", "C
values: cannot translate ... logaddexp.accumulate")."""

from __future__ import annotations

import functools

import numpy as np
import pytest

import dgraph
from dgraph import from_jax
from dgraph.codegen.c import compiler
from dgraph.codegen.ir import ArrayStatement, Call, Const, Index, Name, Seq
from dgraph.codegen.tensor.c_values import c_values
from dgraph.errors import VerificationError
from tests import jax_reference as jref
from tests.c_linalg_cases import (
    c_and_cuda_equal,
    close,
    diagonal_program,
    largest_entry_signs,
    mutated,
    run_numpy,
)

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
lax = pytest.importorskip("jax.lax")
pytestmark = [
    pytest.mark.skipif(compiler() is None, reason="needs a C compiler"),
]

SHAPES = ((5, 3), (4, 4))


def _matrix(shape: tuple[int, int]):
    """A matrix of x (its entries moved by sin(x) along the rows): full rank, distinct
    singular values at :func:`_point`."""
    m, n = shape
    base = jnp.asarray(np.random.default_rng(m * 10 + n).normal(size=shape))
    scale = jnp.arange(1.0, n + 1.0)

    def a(x):
        return base + 0.3 * jnp.outer(jnp.sin(x), scale)

    return a


def _point(shape: tuple[int, int]) -> np.ndarray:
    return np.random.default_rng(100 + shape[0]).normal(size=shape[0])


def _qr(shape):
    """Weighted entries of Q (its signs read: LAPACK's, which dgraph_qr gives) and cubes of
    R's."""
    a = _matrix(shape)
    weights = jnp.arange(float(shape[0] * min(shape))).reshape(shape[0], min(shape))

    def f(x):
        q, r = jnp.linalg.qr(a(x))
        return jnp.sum(q * weights) + jnp.sum(r**3)

    return f


def _singular_values(shape):
    a = _matrix(shape)
    weights = jnp.arange(1.0, min(shape) + 1.0)
    return lambda x: jnp.sum(jnp.log(jnp.linalg.svd(a(x), compute_uv=False)) * weights)


def _singular_vectors(shape):
    """Squares of the first left and second right vector's entries, weighted (their signs
    unread), and the values."""
    a = _matrix(shape)

    def f(x):
        u, s, vt = jnp.linalg.svd(a(x), full_matrices=False)
        left = jnp.sum(u[:, 0] ** 2 * jnp.arange(float(shape[0])))
        right = jnp.sum(vt[1] ** 2 * jnp.arange(float(shape[1])))
        return left + right * jnp.sum(s)

    return f


FUNCTIONS = {"qr": _qr, "svd-values": _singular_values, "svd-vectors": _singular_vectors}


@functools.cache
def _case(name: str, shape: tuple[int, int]):
    """``FUNCTIONS[name]`` at ``shape`` and its point, made once: the tests of one case
    share the function, and with it JAX's compiled references (kept per function)."""
    return FUNCTIONS[name](shape), _point(shape)


@functools.cache
def _built(name: str, shape: tuple[int, int], mode: str):
    """The case's ``make_function(f, mode, "c")``, built once for the tests that read the
    same build (the derivatives, the NaN test, the right helper of the mutation tests)."""
    f, x = _case(name, shape)
    with jax.enable_x64(True):
        return dgraph.make_function(f, mode, "c", point=[x])


@functools.cache
def _expected(name: str, shape: tuple[int, int]) -> dict[str, np.ndarray]:
    """JAX's gradient and Hessian of the case at its point, by mode: one jitted program
    (``value_gradient_hessian``: the gradient is the Hessian's forward pass), not one per
    mode."""
    return jref.gradient_and_hessian_by_mode(*_case(name, shape))


# Every function at every shape (wide 3×5 for the SVD alone: the QR's rule needs m ≥ n),
# each in one mode, so that every pair of function × mode and shape × mode is there too
# (8 of the 16 cases: one helper a function, one rule a mode); the builds the NaN test and
# the mutation tests read (qr and svd-values, 5×3, jacobian) are among them
CASES = [
    ("qr", (5, 3), "jacobian"),
    ("qr", (4, 4), "hessian"),
    ("svd-values", (5, 3), "jacobian"),
    ("svd-values", (4, 4), "jacobian"),
    ("svd-values", (3, 5), "hessian"),
    ("svd-vectors", (5, 3), "hessian"),
    ("svd-vectors", (4, 4), "hessian"),
    ("svd-vectors", (3, 5), "jacobian"),
]


@pytest.mark.parametrize(
    ("name", "shape", "mode"), CASES, ids=[f"{n}-{s[0]}x{s[1]}-{m}" for n, s, m in CASES]
)
def test_qr_and_svd_derivatives_in_c_equal_jax(name: str, shape, mode: str) -> None:
    """Gradients and Hessians of QR and SVD functions in C, verified, equal to JAX's to
    1e-9 of their largest entry (seen: about 1e-15)."""
    x, fn = _case(name, shape)[1], _built(name, shape, mode)
    expected = _expected(name, shape)[mode]
    helper = "dgraph_qr(" if name == "qr" else "dgraph_svd("
    assert fn.generated.lang == "c" and fn.generated.verified
    assert helper in fn.generated.text
    close(fn(x), expected)


def test_distinct_singular_values_at_the_points() -> None:
    """The test points are regular for the SVD: its values distinct and nonzero."""
    for shape in [*SHAPES, (3, 5)]:
        with jax.enable_x64(True):  # jitted: one program, not an eager one per operation
            a = np.asarray(jax.jit(_matrix(shape))(_point(shape)))
        s = np.linalg.svd(a, compute_uv=False)
        assert -np.diff(s).min() > 1e-2 and s.min() > 1e-2


def _stack_program(shape):
    """qr and svd of a stack of matrices (and both of its transposes, a strided read)."""
    axes = (Const(-1), Const(-2))
    reduced = (("full_matrices", Const(False)),)
    wide = Call("linalg.svd", (Call("swapaxes", (Name("x_"), *axes)),), reduced)
    statements = [
        ArrayStatement("p", Call("linalg.qr", (Name("x_"),))),
        ArrayStatement("d", Call("linalg.svd", (Name("x_"),), reduced)),
        ArrayStatement("q", Index(Name("p"), (Const(0),))),
        ArrayStatement("r", Index(Name("p"), (Const(1),))),
        ArrayStatement("u", Index(Name("d"), (Const(0),))),
        ArrayStatement("s", Index(Name("d"), (Const(1),))),
        ArrayStatement("vt", Index(Name("d"), (Const(-1),))),
        ArrayStatement("ws", Index(wide, (Const(1),))),
        ArrayStatement("wu", Index(wide, (Const(0),))),
        ArrayStatement("wr", Index(Call("linalg.qr", (wide.args[0],)), (Const(1),))),
    ]
    parts = [Call("ravel", (Name(v),)) for v in ("q", "r", "u", "s", "vt", "ws", "wu", "wr")]
    statements.append(ArrayStatement("y", Call("concatenate", (Seq(tuple(parts)),))))
    return diagonal_program(statements, shape)


@functools.cache
def _stack_values(shape: tuple[int, int, int]):
    """:func:`_stack_program` at ``shape``, its statements and its C values, printed once
    (and compiled once: a text's library is loaded once per process) for the tests of
    one stack shape."""
    program, body = _stack_program(shape)
    return program, body, c_values(program)


def _signed(u: np.ndarray, vt: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """NumPy's singular vectors with dgraph_svd's signs: each left vector's largest entry
    positive, its right vector flipped with it."""
    sign = largest_entry_signs(u)
    return u * sign, vt * np.swapaxes(sign, -1, -2)


def _numpy_stack(x: np.ndarray, body) -> np.ndarray:
    """The statements run by NumPy, the singular vectors given dgraph_svd's signs."""
    space = run_numpy(body, x)
    space["u"], space["vt"] = _signed(space["u"], space["vt"])
    wu, wvt = np.linalg.svd(np.swapaxes(x, -1, -2), full_matrices=False)[::2]
    space["wu"] = _signed(wu, wvt)[0]
    names = ("q", "r", "u", "s", "vt", "ws", "wu", "wr")
    return np.concatenate([np.ravel(space[v]) for v in names])


def test_batched_qr_and_svd_in_c_and_cuda_equal_numpy(tmp_path) -> None:
    """qr and svd of a stack of three 5×3 matrices (and of their 3×5 transposes, read
    through a strided view: R wide) in C and in CUDA on the host against NumPy: Q and R
    with their signs, the singular values, the vectors up to NumPy's signs; nvcc, where installed,
    compiles the CUDA text (a thread per matrix; not run here)."""
    shape = (3, 5, 3)
    _, body, values = _stack_values(shape)
    x = np.random.default_rng(5).normal(size=shape)
    expected = _numpy_stack(x, body)
    text = values.text[values.text.index("void jacobian_values_with(") :]
    assert text.count("dgraph_qr(") == 2 and text.count("dgraph_svd(") == 2
    c_and_cuda_equal(values, x, expected, tmp_path)


@pytest.mark.parametrize("scale", [1.0, 1e150, 1e-150])
def test_a_larger_stack_decomposes_to_rounding(scale: float) -> None:
    """Two 30×20 matrices (entries scaled by 1e±150: both helpers scale before squaring):
    Q and R equal NumPy's, the singular values LAPACK's, U·diag(s)·Vt the matrix and UᵀU
    the identity, to 1e-13 relative."""
    shape = (2, 30, 20)
    x = np.random.default_rng(7).normal(size=shape) * scale
    got = _stack_values(shape)[2].load()(x).data
    q, r = np.linalg.qr(x)
    sizes = [q.size, r.size, q.size, 40, r.size]
    q_, r_, u, s, vt = np.split(got[: sum(sizes)], np.cumsum(sizes)[:-1])
    big = abs(x).max()
    assert abs(q_ - q.ravel()).max() < 1e-13 and abs(r_ - r.ravel()).max() < 1e-13 * big
    u, s, vt = u.reshape(q.shape), s.reshape(2, 20), vt.reshape(r.shape)
    assert abs(s - np.linalg.svd(x, compute_uv=False)).max() < 1e-13 * big
    assert abs((u * s[:, None, :]) @ vt - x).max() < 1e-13 * big
    assert abs(np.swapaxes(u, -1, -2) @ u - np.eye(20)).max() < 1e-13


def test_a_rank_deficient_matrix_keeps_orthonormal_vectors() -> None:
    """A 5×3 matrix of rank 1 and the zero matrix (in a stack of three, the batched test's
    program: the third a full-rank one): the values LAPACK's (two or three 0), U's
    columns still orthonormal (completed), U·diag(s)·Vt the matrix."""
    rng = np.random.default_rng(3)
    rank1 = np.outer(rng.normal(size=5), rng.normal(size=3))
    x = np.stack([rank1, np.zeros((5, 3)), rng.normal(size=(5, 3))])
    got = _stack_values((3, 5, 3))[2].load()(x).data
    u = got[45 + 27 : 45 + 27 + 45].reshape(3, 5, 3)  # after Q (3·15) and R (3·9)
    s = got[117:126].reshape(3, 3)
    vt = got[126:153].reshape(3, 3, 3)
    assert (s[0, 1:] < 1e-14 * abs(x).max()).all() and (s[1] == 0).all()
    assert abs(s - np.linalg.svd(x, compute_uv=False)).max() < 1e-14 * abs(x).max()
    assert abs(np.swapaxes(u, -1, -2) @ u - np.eye(3)).max() < 1e-14
    assert abs((u * s[:, None, :]) @ vt - x).max() < 1e-14 * abs(x).max()


def test_a_nan_matrix_gives_nan_as_jax() -> None:
    """A NaN entry gives NaN derivatives of the QR and the SVD functions, as JAX's."""
    for name in ("qr", "svd-values"):
        (f, x), fn = _case(name, (5, 3)), _built(name, (5, 3), "jacobian")
        with jax.enable_x64(True):
            bad = x.copy()
            bad[0] = np.nan
            # the gradient of the program the references compiled at x (same shape)
            assert np.isnan(np.asarray(jref.value_gradient_hessian(f)(bad)[1])).all()
        assert np.isnan(np.asarray(fn(bad))).all()


def test_a_qr_helper_with_a_sign_flipped_is_caught_by_the_check(monkeypatch) -> None:
    """The QR helper with the reflection's sign flipped (β = +sign(α)·‖x‖: still a QR,
    but not LAPACK's) gives R's diagonal and Q's columns the other signs: the code check
    refuses it (the right helper passes at the same point)."""
    (f, x), right = _case("qr", (5, 3)), _built("qr", (5, 3), "jacobian")
    assert right.generated.verified
    with jax.enable_x64(True):
        mutated("dgraph_qr", "beta = -copysign(", "beta = copysign(", monkeypatch)
        with pytest.raises(VerificationError, match="check FAILED"):
            dgraph.make_function(f, "jacobian", "c", point=[x])


def test_an_svd_helper_that_does_not_sort_is_caught_by_the_check(monkeypatch) -> None:
    """The SVD helper with its descending sort removed gives the values in Jacobi's order:
    the code check refuses it."""
    (f, x), right = _case("svd-values", (5, 3)), _built("svd-values", (5, 3), "jacobian")
    assert right.generated.verified
    with jax.enable_x64(True):
        mutated("dgraph_svd", "if (s[j] > s[high]) high = j;", "", monkeypatch)
        with pytest.raises(VerificationError, match="check FAILED"):
            dgraph.make_function(f, "jacobian", "c", point=[x])


CUMULATIVE = {
    "plain": lambda x: jnp.sin(lax.cumlogsumexp(x)),
    "reversed": lambda x: jnp.sin(lax.cumprod(x, reverse=True)) * lax.cumlogsumexp(x, reverse=True),
    "axis0": lambda x: jnp.ravel(lax.cumlogsumexp(jnp.outer(x, x), axis=0) ** 2),
}


@functools.cache
def _cumulative(name: str):
    """``CUMULATIVE[name]``'s point, graph (at the array level) and C Jacobian, built once
    for its test and the helper's mutation test (which builds the same graph again)."""
    x = np.random.default_rng(9).normal(size=6)
    with jax.enable_x64(True):
        g = from_jax(CUMULATIVE[name], x, level="array")
        return x, g, dgraph.make_function(g, "jacobian", "c", sparse=True)


@pytest.mark.parametrize("name", sorted(CUMULATIVE))
def test_cumlogsumexp_jacobian_in_c_equals_jax(name: str) -> None:
    """cumlogsumexp at the array level in C (a running ``dgraph_logaddexp`` a line, as
    NumPy's ``logaddexp.accumulate``): its Jacobian equals JAX's, also at entries of ±700
    (e^700 near overflow: the step shifts by the larger operand). (A Hessian reads JAX's
    tangent of cumlogsumexp, an associative scan of ``logaddexp``'s pieces, which C
    printed before.)"""
    f = CUMULATIVE[name]
    x, _, jac = _cumulative(name)
    with jax.enable_x64(True):
        assert jac.generated.verified and "dgraph_logaddexp(" in jac.generated.text
        close(jac(x), np.asarray(jref.jacobian(f)(x)))
        if name == "plain":
            big = np.array([700.0, -700.0, 699.0, 700.0, -1.0, 0.0])
            close(jac(big), np.asarray(jref.jacobian(f)(big)))


def test_a_logaddexp_helper_without_its_shift_is_caught_by_the_check(monkeypatch) -> None:
    """The step with the larger operand's shift dropped (``log1p(exp(-d))`` alone) gives
    other values: the code check refuses it."""
    _, g, right = _cumulative("plain")
    assert right.generated.verified
    with jax.enable_x64(True):
        mutated("dgraph_logaddexp", "return x + log1p(", "return log1p(", monkeypatch)
        with pytest.raises(VerificationError, match="check FAILED"):
            dgraph.make_function(g, "jacobian", "c", sparse=True)
