"""The determinant's derivative at a singular matrix: the cofactor matrix ``adj(A)ᵀ``
(:func:`dgraph.blocks.decompositions.cofactors`), defined at every matrix, not Jacobi's
``det A·A⁻ᵀ`` (NaN there). Jacobians (forward and reverse elimination), jvp and vjp of
``det`` at rank n-1 and n-2 matrices (n = 2, 3, 4), of one matrix and of a stack, in
NumPy, JAX and C (and CUDA compiled for the host) equal ``jax.grad`` of
``jnp.linalg.det`` and verify (the C SVD converges at an exactly rank-deficient matrix);
a rule with the cofactors transposed is caught by the checks. On main each raised "gave
an expression set that did not verify" (or its check failed). ``slogdet``'s sign already
had derivative 0 there on main; its ``log|det A|`` has none (NaN/inf, as JAX's)."""

from __future__ import annotations

import functools

import numpy as np
import pytest

import dgraph
import dgraph.blocks.linalg as L
import dgraph.codegen.tensor.linalg_code as LC
from dgraph.codegen.c import compiler
from dgraph.codegen.cuda import cxx_compiler
from dgraph.errors import DGraphError, VerificationError

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")

from tests import jax_reference as jref  # noqa: E402

RNG = np.random.default_rng(42)


def _low_rank(n: int, rank: int) -> np.ndarray:
    """A non-symmetric n×n matrix of the given rank (a product of n×r and r×n factors)."""
    return RNG.normal(size=(n, rank)) @ RNG.normal(size=(rank, n))


def _exactly_singular(n: int, repeated: int) -> np.ndarray:
    """An integer n×n matrix whose last ``repeated`` rows repeat its first ones (twice one,
    minus one, ...): LAPACK's LU meets an exactly zero pivot (Jacobi's ``det A·A⁻ᵀ`` is
    NaN, not rounded to a large finite number), rank n - ``repeated``."""
    a = RNG.integers(-4, 5, size=(n, n)).astype(float)
    for i in range(repeated):
        a[n - 1 - i] = (2.0 if i % 2 else -1.0) * a[i]
    return a


CASES = {  # name: the matrix (flat), its order
    "2 rank 1": (np.array([[1.0, 2.0], [2.0, 4.0]]), 2),
    "2 rank 0": (np.zeros((2, 2)), 2),
    "3 rank 2": (_low_rank(3, 2), 3),
    "3 rank 1": (_low_rank(3, 1), 3),
    "4 rank 3": (_low_rank(4, 3), 4),
    "4 rank 2": (_exactly_singular(4, 2), 4),
    "4 rank 3 exactly": (_exactly_singular(4, 1), 4),
}


def _det(n: int):
    return lambda a: np.linalg.det(a.reshape(n, n))


@functools.cache
def _det_gradient(n: int):
    """``jax.grad`` of the n × n determinant: stored as data (tests/jax_reference_store.py),
    jitted once per n where missed (one compile, not one per eager operation of its LU)."""
    return jref.grad(lambda x: jnp.linalg.det(x.reshape(n, n)))


def _grad(n: int, a: np.ndarray) -> np.ndarray:
    with jax.enable_x64(True):
        return np.asarray(_det_gradient(n)(jnp.asarray(a)))


def _close(got, want) -> None:
    got, want = np.ravel(np.asarray(got, dtype=float)), np.ravel(want)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12 * max(1.0, np.abs(want).max()))


@pytest.mark.parametrize("name", sorted(CASES))
def test_det_jacobian_at_a_singular_matrix_equals_jax(name: str) -> None:
    """The NumPy Jacobian (forward elimination, the cheapest's) at rank n-1 and n-2:
    ``adj(A)ᵀ`` as JAX's gradient ([4, -2, -2, 1] at [[1, 2], [2, 4]]), verified."""
    matrix, n = CASES[name]
    a = matrix.ravel()
    fn = dgraph.make_function(_det(n), "jacobian", point=[a])
    assert fn.generated.verified
    _close(fn(a), _grad(n, a))
    if name == "2 rank 1":
        _close(fn(a), [4.0, -2.0, -2.0, 1.0])


@pytest.mark.parametrize("lang", ["python", "jax", "c"])
@pytest.mark.parametrize("method", ["forward", "reverse"])
def test_det_jacobian_in_each_language_and_method(lang: str, method: str) -> None:
    """At a rank-2 4×4 (adj 0) and a rank-3 4×4 matrix: NumPy, JAX and C code, forward
    and reverse elimination (the tangent and the cotangent rule), verified, equal JAX."""
    if lang == "c" and compiler() is None:
        pytest.skip("needs a C compiler")
    for name in ("4 rank 3", "4 rank 2"):
        matrix, n = CASES[name]
        a = matrix.ravel()
        with jax.enable_x64(True):  # JAX's code in double precision
            fn = dgraph.make_function(_det(n), "jacobian", lang, method=method, point=[a])
            got = np.asarray(fn(a))
        assert fn.generated.verified and fn.generated.lang == lang
        _close(got, _grad(n, a))


@pytest.mark.parametrize("mode", ["jvp", "vjp"])
def test_det_jvp_and_vjp_at_a_singular_matrix(mode: str) -> None:
    """jvp ``tr(adj(A)·v)`` and vjp ``w·adj(A)ᵀ`` at a rank-2 3×3 matrix equal JAX's."""
    matrix, n = CASES["3 rank 2"]
    a = matrix.ravel()
    fn = dgraph.make_function(_det(n), mode, point=[a])
    grad = _grad(n, a)
    if mode == "jvp":
        v = RNG.normal(size=a.shape)
        _close(fn(a, v), grad @ v)
    else:
        _close(fn(a, np.float64(1.5)), 1.5 * grad)


def test_det_of_a_stack_and_of_a_matrix_argument() -> None:
    """A (3, 4, 4) stack (rank 3, rank 2, full), one ``det`` a matrix, and a (2, 3, 3)
    stack written out by cofactors (already exact), and a 2-d argument: each Jacobian
    equals ``jax.jacfwd`` of ``jnp.linalg.det``, verified."""
    stack = np.stack([_low_rank(4, 3), _low_rank(4, 2), RNG.normal(size=(4, 4))])
    small = np.stack([_low_rank(3, 2), _low_rank(3, 1)])
    x = np.concatenate([stack.ravel(), small.ravel()])

    def f(x):
        return np.concatenate(
            [np.linalg.det(x[:48].reshape(3, 4, 4)), np.linalg.det(x[48:].reshape(2, 3, 3))]
        )

    def g(x):
        return jnp.concatenate(
            [jnp.linalg.det(x[:48].reshape(3, 4, 4)), jnp.linalg.det(x[48:].reshape(2, 3, 3))]
        )

    fn = dgraph.make_function(f, "jacobian", point=[x])
    with jax.enable_x64(True):
        want = np.asarray(jref.jacfwd(g)(jnp.asarray(x)))
    assert fn.generated.verified
    _close(fn(x), want)
    matrix = CASES["3 rank 1"][0]
    square = dgraph.make_function(lambda m: np.linalg.det(m), "jacobian", point=[matrix])
    assert square.generated.verified
    _close(square(matrix), _grad(3, matrix.ravel()))


def test_det_read_from_jax_at_a_singular_matrix() -> None:
    """``jnp.linalg.det`` of a 5×5 (read from JAX's ``lu``-based ``custom_jvp`` as one
    ``det``) at an exactly singular rank-4 matrix: JAX's gradient, verified."""
    a = _exactly_singular(5, 1).ravel()

    def f(x):
        return jnp.linalg.det(x.reshape(5, 5))

    with jax.enable_x64(True):
        fn = dgraph.make_function(f, "jacobian", point=[a])
        want = np.asarray(jref.grad(f)(jnp.asarray(a)))
    assert fn.generated.verified
    _close(fn(a), want)


@pytest.mark.skipif(compiler() is None, reason="needs a C compiler")
def test_det_cofactors_in_c_and_cuda_on_the_host(tmp_path) -> None:
    """The C values of det's Jacobian at a rank-2 4×4 matrix (the SVD helper) equal JAX's;
    the CUDA text, compiled for the host where a C++ compiler is, gives the same; nvcc,
    where installed, compiles it (not run here)."""
    import shutil
    import subprocess

    matrix, n = CASES["4 rank 2"]
    a = matrix.ravel()
    fn = dgraph.make_function(_det(n), "jacobian", "c", point=[a])
    values = fn.generated.values
    assert fn.generated.verified and "dgraph_svd(" in values.text
    want = _grad(n, a)
    plain = values.load()(a).toarray().ravel()
    _close(plain, want)
    if cxx_compiler() is not None:
        _close(values.load_cuda_host()(a).toarray().ravel(), want)
    if shutil.which("nvcc") is not None:
        source = tmp_path / "values.cu"
        source.write_text(values.cuda)
        command = ["nvcc", "-arch=sm_80", "-c", "-o", str(tmp_path / "values.o"), str(source)]
        done = subprocess.run(command, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr


def _transposed(rule):
    """A cofactor rule returning ``adj(A)`` for ``adj(A)ᵀ`` (wrong for a non-symmetric A)."""

    def wrong(*args):
        return np.swapaxes(rule(*args), -1, -2)

    return wrong


def _swapped(rule):
    """The generated code's SVD formula returning ``adj(A)`` (its IR swapped)."""
    return lambda a, n, xp: xp.swap(rule(a, n, xp))


def test_a_transposed_cofactor_rule_is_caught(monkeypatch) -> None:
    """The blocks' cofactors transposed (``adj(A)`` for ``adj(A)ᵀ``, non-symmetric A of
    rank 3): the expression set does not verify against JAX's jvp; the generated code's
    SVD formula transposed, at an exactly singular A (where the code runs it): its code
    check fails. The right rules pass at both."""
    a, singular = _low_rank(4, 3).ravel(), _exactly_singular(4, 1).ravel()
    with monkeypatch.context() as m:
        m.setattr(L, "_cofactors", _transposed(L._cofactors))
        with pytest.raises(DGraphError, match="did not verify: J·v"):
            dgraph.make_function(_det(4), "jacobian", point=[a])
    for lang in ("python", "c"):
        with monkeypatch.context() as m:
            m.setattr(LC, "cofactors", _swapped(LC.cofactors))
            with pytest.raises(VerificationError, match="check FAILED"):
                dgraph.make_function(_det(4), "jacobian", lang, point=[singular])
        assert dgraph.make_function(_det(4), "jacobian", lang, point=[singular]).generated.verified
    assert dgraph.make_function(_det(4), "jacobian", point=[a]).generated.verified
