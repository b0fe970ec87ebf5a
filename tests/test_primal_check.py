"""The check of a tensor graph's JAX primal against its own NumPy values
(dgraph.codegen.tensor.primal.check_primal): 1e-12 relative, or within the rounding the
float32 evaluation shows for an ill-conditioned function (an Euler–Bernoulli beam's
compliance through ``np.linalg.solve``, cond(K) ~ n⁴), never more: a primal off by more
is refused as a bug."""

from __future__ import annotations

import re

import numpy as np
import pytest

pytest.importorskip("jax")

from dgraph.codegen.hessian import traced_array_graph
from dgraph.codegen.tensor.primal import _check_rounding, check_primal, jax_primal
from dgraph.errors import VerificationError


def _smooth(x):
    return np.sum(np.sin(x) * x)


def _beam(EI):
    """A cantilevered beam of Hermite elements: its tip compliance Fᵀ K⁻¹ F."""
    ne = EI.shape[0]
    h = 1.0 / ne
    k = np.array([[12, 6 * h, -12, 6 * h], [6 * h, 4 * h * h, -6 * h, 2 * h * h],
                  [-12, -6 * h, 12, -6 * h], [6 * h, 2 * h * h, -6 * h, 4 * h * h]])  # fmt: skip
    K = np.zeros((2 * ne + 2, 2 * ne + 2))
    for e in range(ne):
        dofs = np.arange(2 * e, 2 * e + 4)
        K[np.ix_(dofs, dofs)] += EI[e] / h**3 * k
    F = np.zeros(2 * ne + 2)
    F[-2] = 1.0
    free = np.arange(2, 2 * ne + 2)
    return F[free] @ np.linalg.solve(K[np.ix_(free, free)], F[free])


def _off_by(primal, relative):
    """``primal`` with its output scaled by 1 + relative: a mistranslation's stand-in."""

    def wrong(*args):
        return primal(*args) * (1.0 + relative)

    return wrong


@pytest.fixture(scope="module")
def smooth():
    x = np.linspace(0.5, 1.5, 5)
    return traced_array_graph(_smooth, [x]), [x]


@pytest.fixture(scope="module")
def beam():
    EI = 1.0 + 0.3 * np.random.default_rng(0).uniform(size=10)
    return traced_array_graph(_beam, [EI]), [EI]


def test_a_well_conditioned_primal_is_held_to_1e_12(smooth):
    graph, args = smooth
    check_primal(graph, jax_primal(graph), args)
    check_primal(graph, _off_by(jax_primal(graph), 1e-13), args)
    with pytest.raises(VerificationError, match=r"more than its rounding explains.*a bug"):
        check_primal(graph, _off_by(jax_primal(graph), 1e-10), args)


def test_an_ill_conditioned_primal_may_differ_by_its_rounding_and_no_more(beam):
    """float32 errs by some 2e-5 to 1.2e-4 here (XLA's and NumPy's float32 round
    differently): float64 is allowed 1024 · that · 2^-29, 4e-11 to 2.5e-10 of scale 1,
    far above well-conditioned's 1e-12 and far below a mistranslation's 3e-9."""
    graph, args = beam
    check_primal(graph, _off_by(jax_primal(graph), 1e-11), args)
    said = r"by 3\.0e-09 relative, more than its rounding explains \((\S+), estimated from float32"
    with pytest.raises(VerificationError, match=said) as raised:
        check_primal(graph, _off_by(jax_primal(graph), 1e-8), args)
    bound = float(re.search(said, str(raised.value)).group(1))
    assert 1e-11 < bound < 1e-9


def test_no_correct_digit_in_float32_is_said_not_called_a_bug():
    expected = np.array([1.0, 2.0])
    value = expected * (1 + 1e-9)
    with pytest.raises(VerificationError, match="too ill-conditioned at this point") as e:
        _check_rounding("y", value, expected, 2.0, np.array([np.nan, 2.0]))
    assert "please report" not in str(e.value)
    _check_rounding("y", value, expected, 2.0, expected * (1 + 1e-2))  # rounding: 1.2e-9
    with pytest.raises(VerificationError, match="a bug"):
        _check_rounding("y", value, expected, 2.0, None)  # no estimate: reported as it is


def test_a_primal_numpy_runs_compiles_nothing(smooth, beam):
    """A primal whose equations NumPy all takes is run by NumPy (nothing lowered, in
    float64 or float32), with the same verdicts, a solve's too (by LAPACK); one with
    ``betainc`` (lax's ``regularized_incomplete_beta``, which NumPy does not take) is
    compiled."""
    from scipy import special

    from tests.jax_events import counted

    for graph, args in (smooth, beam):
        lowered, _ = counted(lambda g=graph, a=args: check_primal(g, jax_primal(g), a))
        assert lowered == 0
    graph, args = smooth
    with pytest.raises(VerificationError, match="a bug"):
        check_primal(graph, _off_by(jax_primal(graph), 1e-10), args)
    x = np.linspace(0.2, 0.8, 5)
    graph = traced_array_graph(lambda x: np.sum(special.betainc(2.0, 3.0, x) * x), [x])
    lowered, _ = counted(lambda: check_primal(graph, jax_primal(graph), [x]))
    assert lowered >= 1
