"""Complex intermediates and ``fft`` in the JAX reader (dgraph/frontends/jaxpr_complex.py):
real functions of real arguments that compute in complex numbers inside (power spectra,
spectral derivatives, packed complex states, complex matrix products, 2-D transforms) are
read as pairs of real arrays; their Jacobians and Hessians equal ``jax.jacobian`` and
``jax.hessian``; a rule made wrong on purpose is caught by the value check; complex
arguments, complex outputs and complex primitives without a rule are one line."""

from __future__ import annotations

import functools

import numpy as np
import pytest
import scipy.sparse

jax = pytest.importorskip("jax")
jnp = jax.numpy

import dgraph  # noqa: E402
from dgraph.core.value_check import USER_POINT  # noqa: E402
from dgraph.errors import DGraphError, InputError  # noqa: E402
from dgraph.frontends import dft, from_jax, jaxpr_complex  # noqa: E402
from dgraph.frontends.jax_hessian import ZERO_MODULUS, gradient_graph  # noqa: E402
from dgraph.frontends.jaxpr_arrays import JaxJvp  # noqa: E402
from dgraph.frontends.jaxpr_complex import complex_pairs  # noqa: E402
from dgraph.methods import accumulate  # noqa: E402
from tests import jax_reference as jref  # noqa: E402
from tests.jax_reference import Reference as Ref  # noqa: E402

X6 = np.linspace(0.1, 1.0, 6)
X7 = np.array([0.3, -0.2, 0.9, 0.4, 1.3, -0.7, 0.5])
K4 = np.arange(4.0)
M = np.array([[1 + 2j, 0.5 - 1j, 2j], [0.3, 1 - 1j, 1 + 1j]])


def power_spectrum(x):
    return jnp.abs(jnp.fft.rfft(x)) ** 2


def spectral_derivative(u):
    return jnp.fft.irfft(1j * K4 * jnp.fft.rfft(u), n=6) * u


def round_trip(x):
    return jnp.real(jnp.fft.ifft(jnp.fft.fft(x) * jnp.exp(1j * x)))


def packed_state(x):
    z = x[:3] + 1j * x[3:]
    return jnp.real(z**2 * jnp.conj(z) + (z + 2.0) ** -2) + jnp.imag(z**3 / (2.0 + z) + z**0)


def complex_matmul(x):
    return jnp.abs(M @ (x[:3] + 1j * x[3:]))


def spectrum_2d(x):
    return jnp.abs(jnp.fft.fft2(x.reshape(2, 3) ** 2)) ** 2


def rfft_odd(x):
    return jnp.abs(jnp.fft.rfft(x)) ** 2 + jnp.fft.irfft(jnp.fft.rfft(jnp.sin(x)), n=7)[:4]


def rfft_2d(x):
    return jnp.fft.irfft2(jnp.fft.rfft2(jnp.sin(x).reshape(2, 3)) * (1 + 1j), s=(2, 3))


def log_sin_cos(x):
    z = x[:3] + 1j * x[3:]
    return jnp.real(jnp.log(z / (x[3:] - 2j * x[:3]))) + jnp.imag(jnp.sin(z) * jnp.cos(1j * z))


def roots_and_powers(x):  # the principal branches: a quadratic's complex roots, z**2.5
    z = x[:3] + 1j * x[3:]
    root = (-x[:3] + jnp.sqrt(x[:3] ** 2 - 4 * x[3:] + 0j)) / 2
    return jnp.abs(root) + jnp.real(jnp.sqrt(z)) + jnp.imag(z**2.5 + z ** (0.5 + 1j))


def scattered_state(x):  # a state set by index: constant, then traced, amplitudes
    psi = jnp.zeros(3, dtype=complex).at[0].set(1.0)
    psi = psi.at[2].set(x[0] + 1j * x[1])
    z = (x[2:5] + 1j * x[3:6]) * psi
    return jnp.abs(jnp.exp(1j * x[5]) * z + psi + 0.5j)


CASES = {  # name: (f, point)
    "power_spectrum": (power_spectrum, X6),
    "spectral_derivative": (spectral_derivative, X6),
    "round_trip": (round_trip, X6),
    "packed_state": (packed_state, X6),
    "complex_matmul": (complex_matmul, X6),
    "spectrum_2d": (spectrum_2d, X6),
    "rfft_odd": (rfft_odd, X7),
    "rfft_2d": (rfft_2d, X6),
    "log_sin_cos": (log_sin_cos, X6),
    "scattered_state": (scattered_state, X6),
    "roots_and_powers": (roots_and_powers, np.array([0.3, -0.5, 0.9, 0.4, 1.3, -0.7])),
}


def _jacobian(f, x):
    with jax.enable_x64(True):
        return np.asarray(jref.jacfwd(f)(jnp.asarray(x)))


def _weighted(f, x):
    """``sum(w * f(x))`` with fixed weights: a scalar whose Hessian mixes every output."""
    with jax.enable_x64(True):
        size = int(np.prod(jax.eval_shape(f, jnp.asarray(x)).shape))
    w = np.linspace(0.5, 1.5, size)
    return lambda x: jnp.sum(jnp.ravel(f(x)) * w)


def _hessian(f, x):
    with jax.enable_x64(True):
        return np.asarray(jref.forward_hessian(f)(jnp.asarray(x)))  # while_loop: forward


@functools.cache
def _case_references() -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """JAX's Jacobian (``jacfwd``) of every case and the Hessian (forward over forward) of
    its :func:`_weighted` sum, at its point, by name: stored as data
    (tests/jax_reference_store.py), the misses one jitted program for all the cases
    (XLA's cost per program dominates these small ones), read-only. One point: dgraph's
    own check already compares at a random one."""
    wanted = []
    for f, x in CASES.values():
        wanted += [Ref("jacfwd", f, (x,)), Ref("forward_hessian", _weighted(f, x), (x,))]
    with jax.enable_x64(True):
        found = jref.references(wanted)
    return {name: (found[2 * i], found[2 * i + 1]) for i, name in enumerate(CASES)}


@functools.cache
def _rewritten_values() -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Each case's rewritten (pairs') program and the function itself at two points, by
    name: one jitted program for all (not two compilations per case)."""
    with jax.enable_x64(True):
        rewritten = {}
        for name, (f, x) in CASES.items():
            closed = complex_pairs(jax, jax.make_jaxpr(f)(x), name)
            assert not jaxpr_complex.has_complex(closed.jaxpr), name
            rewritten[name] = closed

        def every(points):
            return {
                name: [
                    (jax.core.eval_jaxpr(closed.jaxpr, closed.consts, p)[0], CASES[name][0](p))
                    for p in points[name]
                ]
                for name, closed in rewritten.items()
            }

        points = {name: (x, x[::-1] * 1.7 - 0.3) for name, (_, x) in CASES.items()}
        found = jax.jit(every)(points)
    return {
        name: tuple(np.stack([np.asarray(pair[k]) for pair in pairs]) for k in (0, 1))
        for name, pairs in found.items()
    }


@pytest.mark.parametrize("name", list(CASES))
def test_the_rewritten_jaxpr_computes_the_function(name):
    """The pairs' program has no complex value and gives the function's values (every
    rule's values, DFT matrices included, against JAX's own complex arithmetic and
    pocketfft) at two points."""
    got, want = _rewritten_values()[name]
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-13)


# The cases read at the element level (what make_function reads a program this small
# at): that graph is the array level's expanded, element by element; the others are read
# at the array level (a tenth of the CPU: 8.0 CPU-s for the 11 at the element level),
# their rules the same. The method make_function's choice gives each element-level case
# (the same program), named so that the cases do not each build and compare every
# candidate's program: the choice is codegen's (tests/test_codegen_choice.py), the same
# for a graph of pairs as for any.
ELEMENT_CHOSEN = {
    "spectral_derivative": "forward",
    "power_spectrum": "reverse",
    "complex_matmul": "reverse",
    "spectrum_2d": "reverse",
    "scattered_state": "reverse",  # a scatter's elements (blocks.scatter), a bool constant
}


@pytest.mark.parametrize("name", list(CASES))
def test_jacobian_equals_jax(name):
    f, x = CASES[name]
    if name in ELEMENT_CHOSEN:
        J = dgraph.make_function(f, "jacobian", point=(x,), method=ELEMENT_CHOSEN[name])
        assert not J.generated.expression_set.graph.is_tensor
    else:
        J = dgraph.make_function(from_jax(f, x, level="array"), "jacobian")
    assert J.generated.verified
    want = _case_references()[name][0]
    got = np.asarray(J(x))
    np.testing.assert_allclose(got.reshape(want.shape), want, rtol=1e-12, atol=1e-12)


SPARSE = ("power_spectrum", "spectrum_2d")  # their Jacobians and Hessians also sparse


@pytest.mark.parametrize("name", list(CASES))
def test_hessian_equals_jax(name):
    """The Hessian of the weighted sum; of :data:`SPARSE`, built sparse (one build: the
    dense ones are the other cases')."""
    f, x = CASES[name]
    s = _weighted(f, x)
    sparse = name in SPARSE
    H = dgraph.make_function(s, "hessian", point=(x,), sparse=sparse)
    assert H.generated.verified
    want = _case_references()[name][1]
    got = H(x)
    if sparse:
        assert isinstance(got, scipy.sparse.csr_array)
        got = got.toarray()
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-11, atol=1e-11)


@pytest.mark.parametrize("name", SPARSE)
def test_sparse_jacobian(name):
    f, x = CASES[name]
    J = dgraph.make_function(from_jax(f, x, level="array"), "jacobian", sparse=True)
    got = J(x)
    assert isinstance(got, scipy.sparse.csr_array)
    want = _case_references()[name][0]
    np.testing.assert_allclose(got.toarray(), want.reshape(got.shape), rtol=1e-12, atol=1e-12)


def spectral_heat(u):  # real carry, complex inside the body
    def step(u, _):
        return jnp.fft.irfft(jnp.exp(-0.1 * K4**2) * jnp.fft.rfft(u), n=6) + 0.01 * u**2, None

    return jax.lax.scan(step, u, None, length=3)[0]


def complex_carry(x):  # a complex carry and complex ys
    def step(z, _):
        return z * (0.9 + 0.1j) + 0.05 * z**2, z

    z, zs = jax.lax.scan(step, x[:3] + 1j * x[3:], None, length=3)
    return jnp.abs(z) + jnp.real(zs).sum(0)


def complex_while(x):  # a while_loop (a Hessian: its trip count fixed, run as a scan)
    def step(c):
        return c[0] * (0.9 + 0.1j) + 0.05 * c[0] ** 2, c[1] + 1

    z, _ = jax.lax.while_loop(lambda c: c[1] < 3, step, (x[:3] + 1j * x[3:], 0))
    return jnp.abs(z)


def escape_time(x):  # a while_loop whose trip count the complex values decide
    c = (x[:3] + 1j * x[3:]) * 0.3

    def step(s):
        return s[0] ** 2 + c, s[1] + 1

    w, _ = jax.lax.while_loop(lambda s: (jnp.max(jnp.abs(s[0])) < 2.0) & (s[1] < 5), step, (c, 0))
    return jnp.real(w) + jnp.imag(w)


def complex_branch(x):
    z = x[:3] + 1j * x[3:]
    return jnp.abs(jax.lax.cond(x[0] > 0, lambda z: z * 1j + z**2, lambda z: z, z))


LOOPS = [spectral_heat, complex_carry, complex_while, escape_time, complex_branch]


@functools.cache
def _loop_references() -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """JAX's Jacobian of each of :data:`LOOPS` at X6 and the Hessian (forward over forward:
    JAX's reverse mode refuses a while_loop) of its :func:`_weighted` sum, by name: stored
    as data, the misses one jitted program for all (not two compilations each)."""
    wanted = []
    for f in LOOPS:
        wanted += [Ref("jacfwd", f, (X6,)), Ref("forward_hessian", _weighted(f, X6), (X6,))]
    with jax.enable_x64(True):
        found = jref.references(wanted)
    return {f.__name__: (found[2 * i], found[2 * i + 1]) for i, f in enumerate(LOOPS)}


@pytest.mark.parametrize("f", LOOPS)
def test_loops_and_branches_on_complex_values(f):
    jacobian, hessian = _loop_references()[f.__name__]
    J = dgraph.make_function(f, "jacobian", point=(X6,))
    np.testing.assert_allclose(np.asarray(J(X6)), jacobian, rtol=1e-12, atol=1e-12)
    H = dgraph.make_function(_weighted(f, X6), "hessian", point=(X6,))
    np.testing.assert_allclose(np.asarray(H(X6)), hessian, rtol=1e-11, atol=1e-11)


def test_abs_at_zero_has_jaxs_derivative():
    """``|z|`` at ``z = 0``: JAX's derivative there is 0 (the value check and the
    generated code agree; no NaN from ``sqrt``'s derivative at 0)."""

    def f(x):
        return jnp.abs(x[:3] + 1j * x[3:]) * 2.0 + x[:3]

    x0 = np.array([0.0, 0.5, 0.3, 0.0, -0.2, 0.4])
    J = dgraph.make_function(f, "jacobian", point=(x0,))
    got, want = np.asarray(J(x0)), _jacobian(f, x0)
    assert np.array_equal(got[0], [1.0, 0, 0, 0, 0, 0])  # z = 0: |z|'s derivative 0
    np.testing.assert_allclose(got, want, rtol=1e-14, atol=1e-15)


def test_a_power_spectrum_is_read_without_a_square_root():
    """``jnp.abs(z)**2`` is read as ``re² + im²`` (the NumPy tracer's reading too): the
    rewritten jaxpr's outputs reach no ``sqrt``, and its Jacobian at a signal whose bins
    are exactly 0 is jax.jacobian's."""
    f = lambda x: jnp.abs(jnp.fft.rfft(x)) ** 2 * (1.0 + K4)  # noqa: E731
    with jax.enable_x64(True):
        rewritten = complex_pairs(jax, jax.make_jaxpr(f)(X6), "f").jaxpr
    used = {id(v) for v in rewritten.outvars}
    for e in reversed(rewritten.eqns):
        if any(id(v) in used for v in e.outvars):
            assert e.primitive.name != "sqrt"
            used.update(id(v) for v in e.invars)
    J = dgraph.make_function(f, "jacobian", point=(np.zeros(6),))
    np.testing.assert_allclose(np.asarray(J(np.zeros(6))), _jacobian(f, np.zeros(6)), atol=1e-15)


def test_a_wrong_dft_matrix_is_caught(monkeypatch):
    """The rule made wrong on purpose (the sine matrix's sign flipped: the conjugate DFT)
    is reported: the graph's Jacobian is not verified, make_function refuses the
    Jacobian and the Hessian (a power spectrum does not see the flip: |conj z| = |z|)."""
    f = spectral_derivative
    assert accumulate(from_jax(f, X6, level="array"), "forward").verify().status == "verified"
    right = dft.matrices  # the one builder (the NumPy tracer's too: tests/test_numpy_fft.py)
    monkeypatch.setattr(dft, "matrices", lambda n, rows: (right(n, rows)[0], -right(n, rows)[1]))
    check = accumulate(from_jax(f, X6, level="array"), "forward").verify()
    assert check.status == "wrong", check.detail
    with pytest.raises(DGraphError):
        dgraph.make_function(f, "jacobian", point=(X6,))
    with pytest.raises(DGraphError):
        dgraph.make_function(lambda x: jnp.sum(f(x) * jnp.sin(x)), "hessian", point=(X6,))


def test_complex_constants_fold_as_jax_computes_them():
    """Complex equations on constants alone are JAX's to evaluate (folded, as before the
    rewrite): a primitive with no rule on pairs (``tan``) or an fft past FFT_MOST."""
    w = np.cos(np.arange(5000.0))

    def f(x):
        return (
            jnp.abs(jnp.sqrt(jnp.array(-4.0 + 0j))) * x + jnp.sum(jnp.abs(jnp.fft.rfft(w))) * x**2
        )

    J = dgraph.make_function(f, "jacobian", point=(X6,))
    np.testing.assert_allclose(np.asarray(J(X6)), _jacobian(f, X6), rtol=1e-12)


def test_a_real_program_keeps_its_jaxpr():
    with jax.enable_x64(True):
        closed = jax.make_jaxpr(lambda x: jnp.sin(x) * x)(X6)
    assert complex_pairs(jax, closed, "f") is closed


@pytest.mark.parametrize(
    ("f", "x", "needle"),
    [
        (lambda x: jnp.fft.rfft(x), X6, "output 1 is complex (complex128)"),
        (lambda x: jnp.abs(jnp.tan(x + 1j)), X6, "'tan' on complex numbers is not supported"),
        (lambda x: jnp.abs(jnp.log1p(x * 1j)), X6, "'log1p' on complex numbers is not supported"),
        (lambda x: jnp.abs(jnp.fft.rfft(x)), np.ones(4097), "fft of length 4097: at most 4096"),
        (lambda x: jnp.sum(x), X6 + 1j, "argument 1 is complex"),
    ],
)
def test_what_is_not_read_is_one_line(f, x, needle):
    with pytest.raises(InputError) as raised:
        from_jax(f, x, level="array")
    message = str(raised.value)
    assert needle in message and "\n" not in message and len(message) < 300, message


# -- the Hessian at a zero bin: the complex values paired before JAX's gradient -------------

W4 = np.arange(1.0, 5.0)
_J, _K = np.arange(6.0), np.arange(4.0)
COS, SIN = np.cos(2 * np.pi * np.outer(_K, _J) / 6), np.sin(2 * np.pi * np.outer(_K, _J) / 6)


def weighted_spectrum(x):
    return jnp.sum(W4 * jnp.abs(jnp.fft.rfft(x)) ** 2)


def spectrum_twin(x):  # the same function in real numbers: re² + im² by cos and sin
    return jnp.sum(W4 * ((COS @ x) ** 2 + (SIN @ x) ** 2))


def _made_hessian(f, x):
    """make_function's Hessian at ``x`` and its check's detail (a warning where it is not
    verified)."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        H = dgraph.make_function(f, "hessian", point=(x,))
    return H, H.generated.expression_set.verification


@pytest.mark.parametrize("x", [np.zeros(6), np.ones(6)], ids=["zero", "constant"])
def test_the_hessian_at_zero_bins_is_the_true_one(x):
    """x = 0 (every bin 0) and a constant signal (the bins but DC 0): JAX's Hessian loses
    the zero bins (its abs rule's derivative at 0), the graph's is the real twin's; the
    user's point is not claimed verified (JAX's jvp is no reference there), the random
    point is checked."""
    want = _hessian(spectrum_twin, x)
    assert not np.allclose(_hessian(weighted_spectrum, x), want)  # JAX's own: bins lost
    H, check = _made_hessian(weighted_spectrum, x)
    np.testing.assert_allclose(np.asarray(H(x)), want, rtol=1e-13, atol=1e-12)
    assert not H.generated.verified
    assert check.status == "not verified" and "zero bin" in check.detail, check.detail
    assert "agrees with JAX's jvp at a random point in [0.5, 1.5) only" in check.detail
    g = gradient_graph(weighted_spectrum, x)
    assert g.jvp_reference({"x": x}, {"x": np.ones(6)}) == ZERO_MODULUS


def test_the_lagrangian_hessian_at_a_zero_bin():
    """A vector power spectrum with weights v: H(x, v) at x = 0 is the twin's."""
    import warnings

    x = np.zeros(6)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        H = dgraph.make_function(
            lambda x: jnp.abs(jnp.fft.rfft(x)) ** 2, "hessian", point=[x], weights=W4
        )
    assert not H.generated.verified
    np.testing.assert_allclose(np.asarray(H(x, W4)), _hessian(spectrum_twin, x), atol=1e-12)


def test_away_from_zero_bins_the_hessian_is_verified():
    x = X6
    H, check = _made_hessian(weighted_spectrum, x)
    assert H.generated.verified and check.status == "verified", check.detail
    assert f"at {USER_POINT} and a random point" in check.detail, check.detail
    np.testing.assert_allclose(np.asarray(H(x)), _hessian(weighted_spectrum, x), rtol=1e-12)
    np.testing.assert_allclose(np.asarray(H(x)), _hessian(spectrum_twin, x), rtol=1e-12)
    real = gradient_graph(lambda x: jnp.sum(jnp.sin(x) ** 2), x)  # no complex value: as before
    assert type(real.jvp_reference) is JaxJvp


def test_a_wrong_squared_modulus_is_caught(monkeypatch):
    """|z|² read as re² + im²/2 on purpose: the random point (bins nonzero) disagrees
    with JAX's Hessian of f as written: wrong, no code, at a zero bin too."""
    right = jaxpr_complex._Interpreter.squared

    def wrong(self, eqn, ins):
        x = ins[0]
        entry = self.squares.get(id(x))
        return right(self, eqn, ins) if entry is None else right(self, eqn, ins) * 1.001

    monkeypatch.setattr(jaxpr_complex._Interpreter, "squared", wrong)
    for x in (np.zeros(6), X6):
        check = accumulate(gradient_graph(weighted_spectrum, x), "forward").verify()
        assert check.status == "wrong", check.detail
        with pytest.raises(DGraphError):
            dgraph.make_function(weighted_spectrum, "hessian", point=(x,))


def test_a_zero_modulus_inside_a_call_is_found():
    """|z| taken inside a jitted function (a ``pjit`` call): the reference declines x = 0
    and holds at X6, where it is JAX's jvp of the gradient."""

    def f(x):
        return jnp.sum(jax.jit(lambda z: jnp.abs(z) ** 2)(jnp.fft.rfft(x)) * W4)

    with jax.enable_x64(True):
        assert jaxpr_complex.zero_modulus(jax, f, [np.zeros(6)])
        assert not jaxpr_complex.zero_modulus(jax, f, [X6])
    reference = gradient_graph(f, X6).jvp_reference
    assert reference({"x": np.zeros(6)}, {"x": np.ones(6)}) == ZERO_MODULUS
    got = reference({"x": X6}, {"x": np.ones(6)})["y"]
    np.testing.assert_allclose(got, _hessian(spectrum_twin, X6) @ np.ones(6), rtol=1e-12)
