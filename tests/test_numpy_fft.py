"""Complex values and ``np.fft`` in the NumPy tracer (dgraph/frontends/array_complex.py):
NumPy programs that compute in complex numbers inside (power spectra, spectral
derivatives, 2-D transforms, ``1j * k * U``, ``np.exp(1j * x)``, ``z * np.conj(z)``) are
traced with complex values as pairs of real arrays and the DFT as products with the
constant matrices of dgraph/frontends/dft.py (the JAX reader's); their Jacobians and
Hessians equal ``jax.jacobian`` and ``jax.hessian`` of the same code run with jax.numpy;
``|z|**2`` is ``re² + im²`` (smooth at a zero bin); a wrong DFT matrix is caught; what is
not read is one line."""

from __future__ import annotations

import functools

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy

import dgraph  # noqa: E402
from dgraph.errors import DGraphError, InputError  # noqa: E402
from dgraph.frontends import array_complex, dft, from_function  # noqa: E402
from tests import jax_reference as jref  # noqa: E402


def power_spectrum(xp):
    return lambda x: xp.abs(xp.fft.rfft(x)) ** 2 / x.shape[0]


def spectral_derivative(xp):
    def f(u):
        n = u.shape[0]
        k = np.arange(n // 2 + 1.0)
        return xp.fft.irfft(1j * k * xp.fft.rfft(u), n=n) * u

    return f


def round_trip(xp):
    return lambda x: xp.real(xp.fft.ifft(xp.fft.fft(x) * xp.exp(1j * x)))


def packed_state(xp):
    def f(x):
        h = x.shape[0] // 2
        z = x[:h] + 1j * x[h : 2 * h]
        w = z * xp.conj(z) + z**3 / (2.0 + z) - 0.5j * z + (z + 2.0) ** -2 + z**0
        return xp.concatenate([xp.real(w), xp.imag(w), xp.angle(z + 2.0), xp.abs(z)])

    return f


def shifted_frequencies(xp):
    def f(x):
        k = np.fft.fftshift(np.fft.fftfreq(x.shape[0]))
        z = xp.fft.fftshift(xp.fft.fft(xp.sin(x)))
        return xp.real(xp.fft.ifft(xp.fft.ifftshift(z * k * 2j))) + z.imag

    return f


def norms_and_lengths(xp):
    def f(x):
        n = x.shape[0]
        a = xp.fft.fft(x, norm="forward")
        b = xp.fft.rfft(x**2, n=n + 3, norm="ortho")
        c = xp.fft.irfft(xp.fft.rfft(x), n=n - 2, norm="forward")
        d = xp.fft.ifft(x[::-1] * x, n=n - 1, norm="ortho")
        return xp.concatenate([a.real, a.imag, xp.abs(b) ** 2, c, d.imag])

    return f


def mixed_operations(xp):
    def f(x):
        z = xp.fft.fft(x) / (x[0] + 2.0) + xp.exp(0.5j * x)
        w = (x[1] - z) / (3.0 + 1j * x) + abs(z[::2]).sum() * z**2 / (z + 4.0)
        u = xp.concatenate([w, xp.conj(z) @ np.linspace(1.0, 2.0, x.shape[0]) * x[:2]])
        return xp.where(x > 0.3, u[: x.shape[0]].real, u[2:].imag) + xp.mean(z * w).real

    return f


def spectrum_2d(xp):
    return lambda x: xp.abs(xp.fft.fft2(x.reshape(3, 4) ** 2)) ** 2


def inverse_2d(xp):
    return lambda x: xp.real(xp.fft.ifft2(xp.fft.fft2(x.reshape(3, 4)) * (1 + 2j) * x[0]))


def real_2d(xp):
    def f(x):
        y = xp.fft.rfft2(xp.sin(x).reshape(3, 4)) * (1 + 1j)
        return xp.fft.irfft2(y * y, s=(3, 4)) + xp.fft.fftn(x.reshape(3, 4), axes=(0,)).imag

    return f


def along_axis_0(xp):
    return lambda x: xp.fft.irfftn(xp.fft.rfftn(x.reshape(4, 3) ** 3, axes=(0,)), [4], axes=[0])


CASES = {
    "power_spectrum": power_spectrum,
    "spectral_derivative": spectral_derivative,
    "round_trip": round_trip,
    "packed_state": packed_state,
    "shifted_frequencies": shifted_frequencies,
    "norms_and_lengths": norms_and_lengths,
    "mixed_operations": mixed_operations,
}
CASES_2D = {  # of 12 numbers
    "spectrum_2d": spectrum_2d,
    "inverse_2d": inverse_2d,
    "real_2d": real_2d,
    "along_axis_0": along_axis_0,
}
# A length of each parity for each 1-d case (rfft's Nyquist bin, fftshift's centre),
# each parity with each mode: the Jacobian at 9, the Hessian at 8 (and the Jacobian at 8
# of the element level's cases below); the reading (the DFT matrices) is the same for
# both modes, the accumulation the same for both lengths.
JACOBIAN_PARAMS = [(name, 9) for name in CASES] + [(name, 12) for name in CASES_2D]
HESSIAN_PARAMS = [(name, 8) for name in CASES] + [(name, 12) for name in CASES_2D]


def _case(name: str):
    return (CASES | CASES_2D)[name]


def _point(n: int) -> np.ndarray:
    return np.sin(1.3 * np.arange(n) + 0.4) + 0.2 * np.arange(n) / n


def _weighted(f):
    """``sum(w * f(x))`` with fixed weights: a scalar whose Hessian mixes every output."""

    def s(x):
        y = f(x)
        return (y.reshape(-1) * np.linspace(0.5, 1.5, y.size)).sum()

    return s


METHODS = {  # (Jacobian's, Hessian's): the methods make_function's choice gives each
    # case (the same generated text), named so that the tests, of the frontend, do not
    # build and cost every candidate's program (the choice is tests/test_codegen_choice.py's)
    ("power_spectrum", 8): ("reverse", "markowitz"),
    ("power_spectrum", 9): ("reverse", "markowitz"),
    ("spectral_derivative", 8): ("reverse", "forward"),
    ("spectral_derivative", 9): ("reverse", "forward"),
    ("round_trip", 8): ("forward", "forward"),
    ("round_trip", 9): ("forward", "forward"),
    ("packed_state", 8): ("markowitz", "markowitz"),
    ("packed_state", 9): ("markowitz", "markowitz"),
    ("shifted_frequencies", 8): ("reverse", "forward"),
    ("shifted_frequencies", 9): ("reverse", "forward"),
    ("norms_and_lengths", 8): ("reverse", "markowitz"),
    ("norms_and_lengths", 9): ("reverse", "markowitz"),
    ("mixed_operations", 8): ("markowitz", "reverse"),
    ("mixed_operations", 9): ("forward", "reverse"),
    ("spectrum_2d", 12): ("reverse", "markowitz"),
    ("inverse_2d", 12): ("forward", "forward"),
    ("real_2d", 12): ("reverse", "markowitz"),
    ("along_axis_0", 12): ("reverse", "forward"),
}


@functools.cache
def _references() -> dict[str, np.ndarray]:
    """``jax.jacfwd`` of each case at :func:`_point` of each of its Jacobian tests' lengths
    (``"jacobian:<name>:<n>"``) and ``jax.hessian`` of its :func:`_weighted` sum at each of
    its Hessian tests' (``"hessian:<name>:<n>"``), in doubles, stored (tests/jax_reference.py)
    or else as one jitted program (XLA's cost per program dominates these small ones: one
    compile, not one per case and length), read-only."""
    wanted = [("jacobian", name, n) for name, n in JACOBIAN_PARAMS]
    wanted += [("jacobian", name, 8) for name in CHOSEN]  # the element level's
    wanted += [("hessian", name, n) for name, n in HESSIAN_PARAMS]
    wanted = list(dict.fromkeys(wanted))
    with jax.enable_x64(True):
        points = {n: jnp.asarray(_point(n)) for n in (8, 9, 12)}
        found = jref.references(
            [
                jref.Reference("jacfwd", _case(name)(jnp), (points[n],))
                if mode == "jacobian"
                else jref.Reference("hessian", _weighted(_case(name)(jnp)), (points[n],))
                for mode, name, n in wanted
            ]
        )
    return {f"{mode}:{name}:{n}": a for (mode, name, n), a in zip(wanted, found, strict=True)}


@pytest.mark.parametrize(("name", "n"), JACOBIAN_PARAMS)
def test_jacobian_equals_jax(name, n):
    make = _case(name)
    x = _point(n)
    g = from_function(make(np), sizes=[n], level="array", point=[x])  # values checked there
    J = dgraph.make_function(g, "jacobian", method=METHODS[name, n][0])
    assert J.generated.verified
    want = _references()[f"jacobian:{name}:{n}"]
    got = np.asarray(J(x))
    np.testing.assert_allclose(got.reshape(want.shape), want, rtol=1e-11, atol=1e-11)


# The method make_function's choice gives each program's element-level Jacobian (the same
# generated text), named so that the tests do not build and compare every candidate's
# program: the choice is codegen's (tests/test_codegen_choice.py).
CHOSEN = {"power_spectrum": "reverse", "spectral_derivative": "paths"}


@functools.cache
def _element_level(name: str):
    """The case's Jacobian at :func:`_point` (8) read by default (the element level), made
    once: the wrong-DFT test's unmutated make is this one (each made it before)."""
    return dgraph.make_function(
        CASES[name](np), "jacobian", point=(_point(8),), method=CHOSEN[name]
    )


@pytest.mark.parametrize("name", ["power_spectrum", "spectral_derivative"])
def test_element_level_jacobian_equals_jax(name):
    """The default reading of a small program (the element level, expanded from the
    same trace) gives the same Jacobian."""
    x = _point(8)
    J = _element_level(name)
    assert not J.generated.expression_set.graph.is_tensor  # the element level
    assert J.generated.verified
    want = _references()[f"jacobian:{name}:8"]
    np.testing.assert_allclose(np.asarray(J(x)), want, rtol=1e-11, atol=1e-11)


@pytest.mark.parametrize(("name", "n"), HESSIAN_PARAMS)
def test_hessian_equals_jax(name, n):
    make = _case(name)
    x = _point(n)
    H = dgraph.make_function(_weighted(make(np)), "hessian", point=(x,), method=METHODS[name, n][1])
    assert H.generated.verified
    want = _references()[f"hessian:{name}:{n}"]
    np.testing.assert_allclose(np.asarray(H(x)), want, rtol=1e-10, atol=1e-10)


def test_the_survey_program_reads_as_the_jax_reader_does():
    """``np.abs(np.fft.rfft(x))**2`` is the DFT's two products (a cosine and a sine
    matrix, dot_general) and ``re² + im²``: no square root."""
    g = from_function(power_spectrum(np), sizes=[8], level="array")
    ops = [g.op(v).primitive for v in g.vertices if g.op(v) is not None]
    assert ops.count("dot_general") == 2
    assert "sqrt" not in ops


def _smooth_power(xp, w):
    """``Σ w |rfft(x)|²``, ``|z|²`` written as ``re² + im²`` (its derivatives at z = 0
    are the polynomial's: JAX's ``abs`` takes 0 for the Hessian there)."""

    def f(x):
        z = xp.fft.rfft(x)
        return xp.sum((xp.real(z) ** 2 + xp.imag(z) ** 2) * w)

    return f


@functools.cache
def _smooth_hessian() -> np.ndarray:
    """JAX's Hessian at x = 0 of :func:`_smooth_power` with weights 1..5, jitted and kept
    (the three forms compare with it; eagerly it compiled each primitive of the
    Hessian's program)."""
    with jax.enable_x64(True):
        want = np.asarray(jref.hessian(_smooth_power(jnp, np.arange(5.0) + 1.0))(jnp.zeros(8)))
    want.flags.writeable = False
    return want


@pytest.mark.parametrize("form", ["abs_squared", "square", "times_conj"])
def test_zero_bins_have_the_smooth_hessian(form):
    """At ``x = 0`` every bin is exactly 0: ``|z|`` has no derivative there, but the
    power spectrum ``|z|²`` (``np.abs(z)**2``, ``np.square(np.abs(z))``, ``z *
    np.conj(z)``) is a polynomial, read as ``re² + im²``: its Hessian is jax.hessian's of
    that polynomial (read as ``sqrt(s)**2`` it was 0, and verified)."""
    w = np.arange(5.0) + 1.0
    spectra = {
        "abs_squared": lambda x: np.sum(np.abs(np.fft.rfft(x)) ** 2 * w),
        "square": lambda x: np.sum(np.square(np.abs(np.fft.rfft(x))) * w),
        "times_conj": lambda x: np.sum(np.real(np.fft.rfft(x) * np.conj(np.fft.rfft(x))) * w),
    }
    want = _smooth_hessian()
    assert np.abs(want).max() > 1.0
    for x in (np.zeros(8), np.ones(8)):  # all bins 0; a constant signal's non-DC bins 0
        H = dgraph.make_function(spectra[form], "hessian", point=(x,))
        assert H.generated.verified
        np.testing.assert_allclose(np.asarray(H(x)), want, rtol=1e-12, atol=1e-12)


def test_without_the_rewrite_the_zero_bin_hessian_is_wrong(monkeypatch):
    """The rewrite is what makes it right: without it ``sqrt(s + e) − e`` squared has a
    Hessian of 0 at ``z = 0``."""
    monkeypatch.setattr(array_complex, "squared_norm_of", lambda x: None)
    w = np.arange(5.0) + 1.0
    H = dgraph.make_function(lambda x: np.sum(np.abs(np.fft.rfft(x)) ** 2 * w), "hessian",
                             point=(np.zeros(8),))  # fmt: skip
    assert np.abs(np.asarray(H(np.zeros(8)))).max() == 0.0


def test_abs_at_zero_has_jaxs_derivative():
    def f(x):
        return np.abs(x[:3] + 1j * x[3:]) * 2.0 + x[:3]

    x0 = np.array([0.0, 0.5, 0.3, 0.0, -0.2, 0.4])
    J = dgraph.make_function(f, "jacobian", point=(x0,), method="reverse")  # the choice's
    got = np.asarray(J(x0))
    assert np.array_equal(got[0], [1.0, 0, 0, 0, 0, 0])  # z = 0: |z|'s derivative 0
    with jax.enable_x64(True):
        want = np.asarray(jref.jacfwd(lambda x: jnp.abs(x[:3] + 1j * x[3:]) * 2.0 + x[:3])(x0))
    np.testing.assert_allclose(got, want, rtol=1e-14, atol=1e-15)


def _log_sqrt(xp):
    def f(x):  # Heston's characteristic function's operations (survey61)
        z = x[0] + 1j * x[1] * xp.arange(1.0, 3.0) - x[2]
        w = xp.sqrt(z * z - 2.0 + 1j * x[0]) + xp.log(1 - z / 3.0)
        return xp.concatenate([xp.real(w), xp.imag(xp.sqrt(-1.0 - 0.3j * x[:1]))])

    return f


def test_complex_log_and_sqrt_are_numpys_principal_branches():
    f, x0, h = _log_sqrt(np), np.array([-1.2, 0.2, 0.5]), 1e-6  # sqrt(-1 + 0.36j): near the cut
    J = dgraph.make_function(f, "jacobian", point=(x0,))
    want = np.transpose([(f(x0 + h * e) - f(x0 - h * e)) / (2 * h) for e in np.eye(3)])
    np.testing.assert_allclose(np.asarray(J(x0)), want, rtol=1e-7, atol=1e-8)  # NumPy's own
    assert J.generated.verified


def test_a_wrong_dft_matrix_is_caught(monkeypatch):
    """The one matrix builder made wrong (the sine matrix's sign flipped: the conjugate
    DFT) is caught for the NumPy reader (its values at the point against NumPy's own
    pocketfft) and for the JAX reader (against JAX's jvp)."""
    f, x = spectral_derivative(np), _point(8)
    assert _element_level("spectral_derivative").generated.verified  # made right (unmutated)
    right = dft.matrices
    monkeypatch.setattr(dft, "matrices", lambda n, rows: (right(n, rows)[0], -right(n, rows)[1]))
    with pytest.raises(DGraphError, match="read wrongly"):
        dgraph.make_function(f, "jacobian", point=(x,))
    with pytest.raises(DGraphError):
        dgraph.make_function(spectral_derivative(jnp), "jacobian", point=(x,))


def _complex_output(x):
    return np.fft.rfft(x)


def _too_long(x):
    return np.abs(np.fft.rfft(x, n=5000)) ** 2


def _bad_norm(x):
    return np.fft.fft(x, norm="unitary").real


def _rfft_of_complex(x):
    return np.fft.rfft(x * 1j).real


def _complex_sine(x):
    return np.sin(x + 1j * x).real


def _compares(x):
    return np.where(np.fft.fft(x) > 0, 1.0, 0.0) * x


@pytest.mark.parametrize(
    ("f", "needle"),
    [
        (_complex_output, "output 'y' is complex: the derivatives are of real outputs"),
        (_too_long, "fft of length 5000: at most 4096"),
        (_bad_norm, "norm must be one of backward, ortho, forward, not 'unitary'"),
        (_rfft_of_complex, "numpy.fft.rfft of a complex array: its input must be real"),
        (_complex_sine, "numpy.sin of a complex value is not supported"),
        (_compares, "a comparison of a complex value is not supported"),
    ],
)
def test_what_is_not_read_is_one_line(f, needle):
    with pytest.raises(InputError) as caught:
        from_function(f, sizes=[4], level="array")
    assert needle in str(caught.value)
    assert "\n" not in str(caught.value)


def test_a_complex_argument_is_one_line():
    with pytest.raises(InputError, match="point= entry 0 is complex"):
        dgraph.make_function(power_spectrum(np), "jacobian", point=(np.ones(4) + 1j,))
