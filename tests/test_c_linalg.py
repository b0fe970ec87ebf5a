"""Linear algebra in generated C (:mod:`dgraph.codegen.c_linalg`, the C values'
``inv``, ``cholesky``, ``det`` and ``slogdet``): Jacobians and Hessians of programs with a
small solve, a Cholesky factor and triangular solves, or a log-determinant, equal JAX's;
batched statements equal NumPy's; a singular matrix gives NaN as JAX does; a helper
without pivoting is caught by the code check. Each was refused on main ("linalg.inv:
linear algebra is not in the C values vocabulary")."""

from __future__ import annotations

import numpy as np
import pytest

import dgraph
from dgraph.codegen.c import compiler
from dgraph.codegen.cuda import cxx_compiler
from dgraph.codegen.ir import ArrayStatement, BinOp, Call, Const, Index, Name, Seq
from dgraph.codegen.tensor.c_values import c_values
from dgraph.errors import VerificationError
from tests import jax_reference as jref
from tests.c_linalg_cases import (
    dense,
    diagonal_program,
    mutated,
    run_numpy,
)

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
pytestmark = [
    pytest.mark.skipif(compiler() is None, reason="needs a C compiler"),
]

N = 4
_RNG = np.random.default_rng(0)
B0 = _RNG.normal(size=(N, N))
BV = _RNG.normal(size=N)
X = _RNG.normal(size=N) + 2.0


def _solve(x):
    """An implicit step's solve: A(x)⁻¹·(b∘x), A 4×4 depending on x."""
    a = B0 + jnp.diag(x) * 3.0 + jnp.outer(x, x) * 0.1
    return jnp.linalg.solve(a, BV * x)


def _cho_solve(x):
    """``cho_factor`` and ``cho_solve`` of an SPD matrix depending on x."""
    s = B0 @ B0.T + jnp.outer(x, x) + 4.0 * jnp.eye(N)
    return jax.scipy.linalg.cho_solve(jax.scipy.linalg.cho_factor(s, lower=True), x)


def _slogdet(x):
    a = B0 + jnp.diag(x) * 3.0
    return jnp.linalg.slogdet(a)[1] * x


def _gauss(x):
    """A Gaussian negative log-likelihood: Cholesky factor, triangular solve, log-det."""
    s = B0 @ B0.T + jnp.outer(x, x) + 4.0 * jnp.eye(N)
    chol = jnp.linalg.cholesky(s)
    z = jax.scipy.linalg.solve_triangular(chol, x, lower=True)
    return 0.5 * z @ z + jnp.sum(jnp.log(jnp.diag(chol)))


def _solve_norm(x):
    return jnp.sum(_solve(x) ** 2)


def _logdet(x):
    a = B0 + jnp.diag(x) * 3.0
    return jnp.linalg.slogdet(a)[1] + 0.01 * jnp.linalg.det(a)


PROGRAMS = {  # name: function, mode, a helper its C calls
    "solve": (_solve, "jacobian", "dgraph_inv("),
    "cho_solve": (_cho_solve, "jacobian", "dgraph_cholesky("),
    "slogdet": (_slogdet, "jacobian", "dgraph_determinant("),
    "gauss_hessian": (_gauss, "hessian", "dgraph_triangle_inv("),
    "solve_hessian": (_solve_norm, "hessian", "dgraph_inv("),
    "logdet_hessian": (_logdet, "hessian", "dgraph_triangle_inv("),  # lu in the gradient
}


# Each program once, dense or sparse, every pair of mode × layout among them (6 of the
# 12 cases: the layout is the result's assembly, the same for every helper; the sparse
# Jacobians of solve, cho_solve and slogdet are also checked at n = 64 below)
LAYOUTS = [
    ("cho_solve", True),
    ("gauss_hessian", True),
    ("logdet_hessian", True),
    ("slogdet", False),
    ("solve", False),
    ("solve_hessian", False),
]


@pytest.mark.parametrize(("name", "sparse"), LAYOUTS)
def test_linear_algebra_derivatives_in_c_equal_jax(name: str, sparse: bool) -> None:
    """Jacobians and Hessians in C (dense and sparse), verified and equal to JAX's to
    1e-10 relative (seen: below 1e-15)."""
    f, mode, called = PROGRAMS[name]
    with jax.enable_x64(True):
        fn = dgraph.make_function(f, mode, "c", point=[X], sparse=sparse)
        expected = np.asarray((jref.hessian if mode == "hessian" else jref.jacobian)(f)(X))
    assert fn.generated.lang == "c" and fn.generated.verified and called in fn.generated.text
    got = dense(fn(X)).reshape(expected.shape)
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-10 * abs(expected).max())


def test_a_singular_matrix_gives_nan_as_jax() -> None:
    """At a point where A(x) is singular (x = 0) the C Jacobian of a solve is NaN where
    JAX's is NaN (the NumPy module raises LinAlgError there); generated at a regular
    point."""
    m = np.array([[2.0, 1, 0], [1, 3, 1], [0, 1, 4]])

    def f(x):
        return jnp.linalg.solve(jnp.asarray(m) * x[0] + jnp.diag(x), x)

    with jax.enable_x64(True):
        fn = dgraph.make_function(f, "jacobian", "c", point=[np.array([1.0, 2.0, 3.0])])
        expected = np.asarray(jref.jacobian(f)(np.zeros(3)))
    got = np.asarray(fn(np.zeros(3)))
    assert np.isnan(expected).all() and np.isnan(got).all()


def test_a_helper_without_pivoting_is_caught_by_the_check(monkeypatch) -> None:
    """The LU helper with its pivot search removed divides by A's zero (0, 0) entry: the
    code check (the C code's J·v against the expression set's) refuses it; the right
    helper passes at the same point."""
    p = np.array([[0.0, 1, 0], [1, 0, 0], [0, 0, 1]])
    upper = np.triu(np.ones((3, 3)), 1)

    def f(x):  # A[0, 0] = 0 at every x: the first step must pivot
        a = 2.0 * jnp.asarray(p) + jnp.diag(x * jnp.array([0.0, 1, 1]))
        return jnp.linalg.solve(a + jnp.outer(x, x) * jnp.asarray(upper), x)

    x0 = np.array([0.5, 1.5, 2.0])
    with jax.enable_x64(True):
        good = dgraph.make_function(f, "jacobian", "c", point=[x0])
        np.testing.assert_allclose(np.asarray(good(x0)), jref.jacobian(f)(x0), rtol=1e-12)
        mutated("dgraph_lu_of", "if (fabs(a[i * n + k]) > best) {", "if (0) {", monkeypatch)
        with pytest.raises(VerificationError, match="check FAILED"):
            dgraph.make_function(f, "jacobian", "c", point=[x0])


def test_batched_statements_in_c_and_cuda_equal_numpy() -> None:
    """``inv``, ``inv`` of a triangle, ``cholesky``, ``slogdet``, ``det`` and ``matmul``
    of a stack of three 4×4 matrices (one read transposed, no copy) in C and in CUDA on
    the host, against NumPy running the same statements."""
    shape = (3, N, N)
    axes = (Const(-1), Const(-2))
    spd = Call("matmul", (Name("w"), Call("swapaxes", (Name("w"), *axes))))
    statements = [
        ArrayStatement("w", BinOp("+", Name("x_"), Name("_K1"))),  # regular at x = 0 too
        ArrayStatement("s", BinOp("+", spd, Name("_K0"))),
        ArrayStatement("ai", Call("linalg.inv", (Call("swapaxes", (Name("w"), *axes)),))),
        ArrayStatement("l", Call("linalg.cholesky", (Name("s"),))),
        ArrayStatement("li", Call("linalg.inv", (Call("tril", (Name("l"),)),))),
        ArrayStatement("ui", Call("linalg.inv", (Call("triu", (Name("w"),)),))),
        ArrayStatement("ld", Index(Call("linalg.slogdet", (Name("w"),)), (Const(1),))),
        ArrayStatement("sg", Index(Call("linalg.slogdet", (Name("w"),)), (Const(0),))),
        ArrayStatement("d", Call("linalg.det", (Name("s"),))),
    ]
    parts = [Call("ravel", (Name(v),)) for v in ("ai", "l", "li", "ui", "ld", "sg", "d")]
    statements.append(ArrayStatement("y", Call("concatenate", (Seq(tuple(parts)),))))
    constants = {"_K0": np.eye(N) * 0.5, "_K1": np.eye(N) * 3.0}
    program, body = diagonal_program(statements, shape, constants)
    values = c_values(program)
    x = np.random.default_rng(5).normal(size=shape)
    space = run_numpy(body, x, constants)
    expected = np.ravel(space["y"])
    assert "dgraph_triangle_inv(" in values.text and "dgraph_cholesky(" in values.text
    np.testing.assert_allclose(values.load()(x).data, expected, rtol=1e-12, atol=1e-13)
    if cxx_compiler() is not None:
        got = values.load_cuda_host()(x).data
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-13)


def _body(text: str) -> str:
    """The generated function's statements (the helpers' definitions left out)."""
    return text[text.index("void jacobian_values_with(") :]


def _products(body: str, n: int) -> list[tuple[int, int]]:
    """The triangle flags (a's, b's) of each n×n by n×n ``dgraph_matmul`` call."""
    head = f"dgraph_matmul({n}L, {n}L, {n}L, "
    calls = [line.split(head, 1)[1] for line in body.splitlines() if head in line]
    return [(int(c.split(", ")[3]), int(c.split(", ")[7])) for c in calls]


N64 = 64
_R64 = np.random.default_rng(1)
B64, V64 = _R64.normal(size=(N64, N64)), _R64.normal(size=N64)
X64 = _R64.normal(size=N64) + 2.0


def _solve64(x):
    """A nonsymmetric 64×64 A(x): A⁻¹·(b∘x)."""
    return jnp.linalg.solve(B64 + jnp.diag(x) * 3.0 + jnp.outer(x, x) * 0.1, V64 * x)


def _cho_solve64(x):
    """An SPD 64×64 S(x): cho_solve(cho_factor(S), x)."""
    s = B64 @ B64.T + jnp.outer(x, x) + N64 * jnp.eye(N64)
    return jax.scipy.linalg.cho_solve(jax.scipy.linalg.cho_factor(s, lower=True), x)


def _slogdet64(x):
    """log|det A(x)|·x: the value's LU and the gradient's inverse of one matrix."""
    return jnp.linalg.slogdet(B64 + jnp.diag(x) * 3.0)[1] * x


@pytest.mark.parametrize(
    ("name", "factored", "triangular"),
    [("solve", 1, 0), ("cho_solve", 0, 3), ("slogdet", 1, 0)],
)
def test_jacobians_at_n64_equal_jax_one_lu_a_matrix(name, factored, triangular) -> None:
    """Sparse Jacobians at n = 64 equal JAX's (1e-10 relative; seen 2e-15 to 6e-15).
    Counted in the C: the matrix of solve and of slogdet (its value and its gradient's
    inverse) is factored once (``dgraph_lu_of``; main factored inside each inverse and
    determinant, twice for slogdet, and called no dgraph_lu_of); cho_solve factors none
    (the Cholesky factor's inverse by substitution: main took an LU of it) and its three
    64×64×64 products of each direction's tangent each sum over a triangle (main: loop
    nests over every entry)."""
    f = {"solve": _solve64, "cho_solve": _cho_solve64, "slogdet": _slogdet64}[name]
    with jax.enable_x64(True):
        fn = dgraph.make_function(f, "jacobian", "c", point=[X64], sparse=True)
        expected = np.asarray(jref.jacobian(f)(X64))
    body = _body(fn.generated.text)
    assert body.count("dgraph_lu_of(") == factored
    products = _products(body, N64)
    assert sum(flags != (0, 0) for flags in products) == triangular
    got = dense(fn(X64))
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-10 * abs(expected).max())


def test_batched_statements_at_n64_share_the_lu_and_equal_numpy() -> None:
    """A stack of two 64×64 matrices W (nonsymmetric) and S = W·Wᵀ + I (SPD): ``inv(W)``,
    ``slogdet(W)``'s two parts, ``det(W)``, ``cholesky(S)``, the factor's inverse and
    products with triangular and transposed operands, in C and CUDA on the host, equal
    NumPy's statements; W is factored once for its inverse and three determinants (main:
    four LUs, no dgraph_lu_of call) and the factor's inverse is by substitution."""
    shape = (2, N64, N64)
    axes = (Const(-1), Const(-2))

    def swap(name: str) -> Call:
        return Call("swapaxes", (Name(name), *axes))

    statements = [
        ArrayStatement("w", BinOp("+", Name("x_"), Name("_K1"))),
        ArrayStatement("s", BinOp("+", Call("matmul", (Name("w"), swap("w"))), Name("_K0"))),
        ArrayStatement("ai", Call("linalg.inv", (Name("w"),))),
        ArrayStatement("ld", Index(Call("linalg.slogdet", (Name("w"),)), (Const(1),))),
        ArrayStatement("sg", Index(Call("linalg.slogdet", (Name("w"),)), (Const(0),))),
        ArrayStatement("d", BinOp("*", Call("linalg.det", (Name("w"),)), Const(1e-30))),
        ArrayStatement("l", Call("linalg.cholesky", (Name("s"),))),
        ArrayStatement("li", Call("linalg.inv", (Name("l"),))),
        ArrayStatement("p1", Call("matmul", (Name("li"), Name("w")))),
        ArrayStatement("p2", Call("matmul", (Name("w"), swap("li")))),
        ArrayStatement("p3", Call("matmul", (swap("w"), Name("l")))),
    ]
    names = ("ai", "ld", "sg", "d", "l", "li", "p1", "p2", "p3")
    parts = [Call("ravel", (Name(v),)) for v in names]
    statements.append(ArrayStatement("y", Call("concatenate", (Seq(tuple(parts)),))))
    constants = {"_K0": np.eye(N64), "_K1": np.eye(N64) * 8.0}
    program, body = diagonal_program(statements, shape, constants)
    values = c_values(program)
    x = np.random.default_rng(6).normal(size=shape)
    space = run_numpy(body, x, constants)
    expected = np.ravel(space["y"])
    text = _body(values.text)
    assert text.count("dgraph_lu_of(") == 1 and text.count("dgraph_determinant(") == 3
    assert text.count("dgraph_triangle_inv(") == 1
    assert sorted(_products(text, N64)) == [(0, 0), (0, 1), (0, 2), (1, 0)]
    tolerance = {"rtol": 1e-9, "atol": 1e-12 * abs(expected).max()}
    np.testing.assert_allclose(values.load()(x).data, expected, **tolerance)
    if cxx_compiler() is not None:
        np.testing.assert_allclose(values.load_cuda_host()(x).data, expected, **tolerance)


def test_scratch_is_the_callers_and_kept_a_thread() -> None:
    """The statements are ``jacobian_values_with(..., scratch)`` and ``jacobian_values``
    mallocs the scratch and calls it (main: one function, a malloc a call, which at a
    128×128 solve's Jacobian mapped 54 MB afresh: 13,121 page faults a call). Loaded,
    each thread keeps its own scratch: four threads calling at once get each their
    own input's values, equal to the malloc'ing entry point's."""
    import threading

    shape = (2, N64, N64)
    statements = [
        ArrayStatement("w", BinOp("+", Name("x_"), Name("_K1"))),
        ArrayStatement("ai", Call("linalg.inv", (Name("w"),))),
        ArrayStatement("p", Call("matmul", (Name("ai"), Name("w")))),
        ArrayStatement("y", BinOp("+", Name("p"), Name("ai"))),
    ]
    program, _ = diagonal_program(statements, shape, {"_K1": np.eye(N64) * 8.0})
    values = c_values(program)
    statements_part = _body(values.text).split("\nvoid jacobian_values(")[0]
    assert "malloc(" not in statements_part and "free(" not in statements_part
    from dgraph.codegen.tensor.c_values import compile_values

    mallocing = values._caller(compile_values(values.text, ("-O2",)), extra=0)
    kept = values.load()
    xs = [np.random.default_rng(k).normal(size=shape) for k in range(4)]
    expected = [mallocing(x).data for x in xs]
    got: dict[int, list[np.ndarray]] = {k: [] for k in range(4)}

    def run(k: int) -> None:
        for _ in range(10):
            got[k].append(kept(xs[k]).data)

    threads = [threading.Thread(target=run, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for k in range(4):
        for data in got[k]:
            np.testing.assert_array_equal(data, expected[k])
