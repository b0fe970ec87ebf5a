"""The normal quantile ``scipy.special.ndtri`` as one operation (SciPy's), not the composite
``√2·erfinv(2p − 1)``: that composite rounds ``2p − 1`` first, so its derivative
``√(2π)·exp(z²/2)`` was 2.2e-5 off at p = 1e-12 and its value -inf at p = 1e-20. Also
``erfcinv`` (``−ndtri(y/2)/√2``) and scipy.stats' quantiles ``ppf``/``isf``, whose
derivatives are ``±1/pdf`` at the quantile (scipy's own ``pdf``: an independent reference)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.special as sps
import scipy.stats as sst

import dgraph
from dgraph.cli import main
from dgraph.codegen.c import compiler
from dgraph.core.block_values import vertex_values
from dgraph.errors import InputError

TAILS = np.array([1e-12, 1e-20, 1e-100, 0.3, 0.6, 1 - 1e-10])


def _dense(a) -> np.ndarray:
    return a.toarray() if hasattr(a, "toarray") else np.asarray(a)


def _ndtri_derivative(p: np.ndarray) -> np.ndarray:
    z = sps.ndtri(p)
    return math.sqrt(2 * math.pi) * np.exp(z * z / 2)


def quantiles(p):
    return 2.0 * sps.ndtri(p) + sps.erfcinv(p)


def _quantiles_derivative(p: np.ndarray) -> np.ndarray:
    e = sps.erfcinv(p)
    return 2.0 * _ndtri_derivative(p) - math.sqrt(math.pi) / 2 * np.exp(e * e)


@pytest.mark.parametrize("level", ["array", "element"])
def test_far_tail_derivatives_keep_their_digits(level: str) -> None:
    graph = dgraph.from_function(quantiles, sizes=[TAILS.size], point=[TAILS], level=level)
    es = dgraph.accumulate(graph, "reverse")
    assert es.verified == (level == "element")  # array: differences leave [0, 1] at 1e-12
    J = np.asarray(es.evaluate(TAILS), dtype=float)
    np.testing.assert_allclose(np.diag(J), _quantiles_derivative(TAILS), rtol=1e-13)
    assert np.count_nonzero(J - np.diag(np.diag(J))) == 0


@pytest.mark.parametrize("lang", ["python", "c", "jax"])
def test_generated_code_computes_the_tails(lang: str) -> None:
    if lang == "c" and compiler() is None:
        pytest.skip("needs a C compiler")
    if lang == "jax":
        jax = pytest.importorskip("jax")
        context = jax.enable_x64(True)
    else:
        import contextlib

        context = contextlib.nullcontext()
    with context:
        fn = dgraph.make_function(  # the method the choice gives (the same code)
            quantiles, "value_and_jacobian", point=[TAILS], lang=lang, method="forward"
        )
        value, J = fn(TAILS)
    # at 1 - 1e-10 central differences along the direction leave [0, 1]: at the user's
    # point they run along a direction shrunk to the domain, with exact displacements
    # (value_check.edge_differences; the array level still says "not verified")
    check = fn.generated.check
    assert fn.generated.verified and check.points[0] == tuple(TAILS)
    assert len(check.points) >= 3 and max(check.errors.values()) < 1e-13
    if lang == "c":
        assert "dgraph_ndtri(" in fn.generated.text
    np.testing.assert_allclose(np.asarray(value), quantiles(TAILS), rtol=1e-14)
    np.testing.assert_allclose(np.diag(_dense(J)), _quantiles_derivative(TAILS), rtol=1e-12)


def test_hessian_of_the_quantile() -> None:
    p = np.array([1e-12, 1e-20, 0.3, 1 - 1e-10])
    fn = dgraph.make_function(lambda p: np.sum(sps.ndtri(p)), "hessian", point=[p])
    z = sps.ndtri(p)
    H = _dense(fn(p))
    assert fn.generated.verified
    np.testing.assert_allclose(np.diag(H), 2 * math.pi * z * np.exp(z * z), rtol=1e-12)


FAMILIES = {  # family: shape parameters
    "norm": (),
    "expon": (),
    "laplace": (),
    "cauchy": (),
    "logistic": (),
    "halfnorm": (),
    "halfcauchy": (),
    "lognorm": (0.7,),
    "weibull_min": (1.7,),
}
Q = np.array([1e-9, 0.2, 0.45, 0.7, 1 - 1e-6])


@pytest.mark.parametrize("method", ["ppf", "isf"])
@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_stats_quantiles_equal_scipy(family: str, method: str) -> None:
    """Values within 1e-14 of scipy's; derivatives ±1/pdf at the quantile."""
    shapes = FAMILIES[family]
    dist = getattr(sst, family)

    def f(q):
        return getattr(dist, method)(q, *shapes, loc=0.3, scale=2.0)

    graph = dgraph.from_function(f, sizes=[Q.size], point=[Q], level="array")
    es = dgraph.accumulate(graph, "reverse")
    assert es.verification.status != "wrong"
    x = f(Q)
    np.testing.assert_allclose(
        vertex_values(graph, dict(graph.point))[graph.outputs[0]], x, rtol=1e-14
    )
    J = es.evaluate(Q)
    sign = 1.0 if method == "ppf" else -1.0
    expected = sign / dist.pdf(x, *shapes, loc=0.3, scale=2.0)
    np.testing.assert_allclose(np.diag(J), expected, rtol=1e-7)


def test_quantile_misuse_is_one_line() -> None:
    def no_q(q):
        return sst.norm.ppf(loc=q)

    def beta_ppf(q):
        return sst.beta.ppf(q, 2.0, 3.0)

    with pytest.raises(InputError, match="needs q"):
        dgraph.from_function(no_q, sizes=[2], point=[np.array([0.1, 0.2])], level="array")
    with pytest.raises(InputError, match=r"scipy.stats.beta.ppf .* not supported"):
        dgraph.from_function(beta_ppf, sizes=[2], point=[np.array([0.1, 0.2])], level="array")


def test_command_line_reads_the_quantile(tmp_path, capsys) -> None:
    source = tmp_path / "q.py"
    source.write_text(
        "import scipy.stats as st\n\ndef f(q):\n    return st.norm.ppf(q, loc=1.0, scale=3.0)\n"
    )
    code = main(["accumulate", f"{source}:f", "--inputs", "q:3", "--at", "1e-12,0.5,0.9"])
    out = capsys.readouterr().out
    assert code == 0 and "verified (exact" in out
    target = tmp_path / "j.c"
    code = main(
        ["codegen", f"{source}:f", "--inputs", "q:3", "--at", "1e-12,0.5,0.9", "-o", str(target)]
    )
    assert code == 0 and "dgraph_ndtri(" in target.read_text()


def test_cuda_device_function_on_the_host() -> None:
    """The CUDA file's ``dgraph_ndtri`` (a device function), compiled as C++ on the host."""
    from dgraph.codegen.cuda import cxx_compiler, load_cuda_host
    from dgraph.codegen.generate import generate

    if cxx_compiler() is None:
        pytest.skip("needs a C++ compiler")
    graph = dgraph.from_function(quantiles, sizes=[TAILS.size], point=[TAILS])
    gen = generate(graph, "cuda", "reverse", ("jacobian",))
    assert "dgraph_ndtri(" in gen.text and gen.check.ok  # at the tails too (edge_differences)
    assert gen.check.points[0] == tuple(TAILS)
    J = load_cuda_host(gen.text).jacobian(TAILS[None, :]).reshape(TAILS.size, TAILS.size)
    np.testing.assert_allclose(np.diag(J), _quantiles_derivative(TAILS), rtol=1e-12)


def test_differences_beside_the_domain_s_edge_catch_a_wrong_rule() -> None:
    """The differences at 1 - 1e-10 (shrunk entries, exact steps) resolve J·u to 1e-7 and
    tell a derivative 0.1 % off from the right one."""
    from dgraph.core.value_check import TOLERANCE, edge_differences, worst_error

    d = _quantiles_derivative(TAILS)
    v = np.random.default_rng(1).standard_normal(TAILS.size) * TAILS
    value, estimate, u, label = edge_differences(quantiles, TAILS, v, np.diag(np.abs(d)))
    unit = np.abs(d) * np.abs(u)
    assert "shrunk" in label and np.max(estimate / unit) < 1e-7
    assert u[-1] != 0 and abs(u[-1]) < 1e-6 * abs(v[-1])  # the entry beside the edge
    assert worst_error(d * u, value, unit, estimate) <= TOLERANCE
    assert worst_error(1.001 * d * u, value, unit, estimate) > 1e-4  # a wrong rule
