"""The sparse tangent sweep of a scan (``region_sweep.sparse_sweep``, issue 55): its body
Jacobians taken a chunk of steps at once, each step one sparse product. It must give
:meth:`Region._sweep`'s blocks and rounding scales (the step-by-step reference it
replaces where the dense sweep does not fit), on every loop of the loop tests, and a
Hessian built where the dense sweep does not fit must not step the tangents one SciPy
product per body input (main's behaviour)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
lax = jax.lax

import dgraph  # noqa: E402
from dgraph.blocks.arrays import operand_value  # noqa: E402
from dgraph.core import region_sweep  # noqa: E402
from dgraph.core.block_values import vertex_values  # noqa: E402
from dgraph.core.regions import Region, regions_of  # noqa: E402
from dgraph.frontends.jax_hessian import gradient_graph  # noqa: E402

from .test_loop_hessians import FUNCTIONS  # noqa: E402

A = np.array([[0.5, 0.1, 0.0], [0.2, 0.3, 0.1], [0.0, 0.4, 0.2]])


def _scan(reverse: bool):
    def f(x):
        def step(c, xt):
            return jnp.tanh(A @ c) * x[:3] + xt, jnp.sin(c) * xt[0]

        c, ys = lax.scan(step, x[:3], x[3:].reshape(-1, 3), reverse=reverse)
        return jnp.sum(c**2) + jnp.sum(ys**3)

    return f


def _nested(x):
    def outer(c, _):
        inner = lax.scan(lambda d, __: (jnp.sin(d) * x + 0.3 * d, None), c, None, length=3)
        return inner[0] * 0.5 + c, jnp.cos(c)

    c, ys = lax.scan(outer, x, None, length=4)
    return jnp.sum(c**2) + jnp.sum(ys)


def _chained(x):
    body = lambda i, a: a + 100.0 * (x[i + 1] - x[i] ** 2) ** 2 + (1.0 - x[i]) ** 2  # noqa: E731
    return lax.fori_loop(0, x.shape[0] - 1, body, 0.0)


def _rk4_program():
    """The RK4 loop of a Duffing oscillator of benchmarks/hessian_loops.py (a body reading
    part of a vector's entries), 5 steps, with its point."""
    path = Path(__file__).resolve().parents[1] / "benchmarks" / "hessian_loops.py"
    spec = importlib.util.spec_from_file_location("hessian_loops", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.programs(rk4_steps=5)["RK4 of a Duffing oscillator, fori_loop"]


_rk4, _RK4_POINT = _rk4_program()


CASES = {
    **FUNCTIONS,
    "a scan with ys": (_scan(False), np.linspace(-0.5, 0.7, 12)),
    "a reverse scan with ys": (_scan(True), np.linspace(-0.5, 0.7, 12)),
    "a scan in a scan": (_nested, np.array([0.3, -0.2, 0.5])),
    "the chained Rosenbrock": (_chained, np.linspace(-0.8, 0.9, 7)),
    "RK4 of a Duffing oscillator": (_rk4, _RK4_POINT),
}


def _scans(f, x) -> list[tuple[Region, list[np.ndarray]]]:
    """Every scan of the gradient's graph with its operands at another point."""
    jax.config.update("jax_enable_x64", True)
    g = gradient_graph(f, x)
    values = vertex_values(g, {g.inputs[0]: 0.8 * np.asarray(x) + 0.1}, {})
    found = []
    for v, r in regions_of(g):
        if r.kind == "scan" and r.length:
            found.append((r, [np.asarray(operand_value(u, values)) for u in g.op(v).operands]))
    return found


def _dense(m) -> np.ndarray:
    return m.toarray() if hasattr(m, "toarray") else np.asarray(m)


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_sparse_sweep_gives_the_step_by_step_blocks(name, monkeypatch):
    scans = _scans(*CASES[name])
    assert scans
    for r, args in scans:
        want = r._sweep(args, True, True)
        for chunk in (1, 10**7):  # a step a chunk, or all
            monkeypatch.setattr(region_sweep, "CHUNK_ENTRIES", chunk)
            got = region_sweep.sparse_sweep(r, args, True)
            assert got is not None
            assert got["trips"] == want["trips"]
            for a, b in zip(got["outputs"], want["outputs"], strict=True):
                np.testing.assert_allclose(a, b, rtol=1e-13, atol=0)
            for field in ("jacobian", "magnitudes"):
                assert set(got[field]) == set(want[field])
                for key, m in want[field].items():
                    expected, found = _dense(m), _dense(got[field][key])
                    assert found.shape == expected.shape
                    scale = np.abs(expected).max(initial=0.0) or 1.0
                    np.testing.assert_allclose(found, expected, rtol=0, atol=1e-13 * scale)


def test_a_loop_too_large_for_dense_tangents_is_not_swept_step_by_step(monkeypatch):
    """With the dense sweep refused (as at n = 3,000 for the chained Rosenbrock's loops),
    the value checks take the sparse sweep: ``Region._sweep`` is not asked for tangents
    (main's behaviour was to step them there, one SciPy product per body input)."""
    jax.config.update("jax_enable_x64", True)
    monkeypatch.setattr(region_sweep, "DENSE_ENTRIES", 0)
    stepped = []
    plain = Region._sweep

    def counted(self, args, tangents, absolute=False):
        stepped.append(tangents)
        return plain(self, args, tangents, absolute)

    monkeypatch.setattr(Region, "_sweep", counted)
    x = np.linspace(-0.8, 0.9, 9)
    h = dgraph.hessian(_chained, x, sparse=True)
    want = np.asarray(jax.hessian(_chained)(x + 0.01))
    np.testing.assert_allclose(h(x + 0.01).toarray(), want, rtol=1e-12, atol=1e-12)
    assert True not in stepped


def test_the_dense_sweep_reads_a_part_of_an_operand_s_rows():
    """The dense sweep shares the body Jacobian's planned products with the sparse one:
    an RK4 body (blocks reading some of a vector's entries) against ``jax.hessian``."""
    jax.config.update("jax_enable_x64", True)
    p = _RK4_POINT
    h = dgraph.hessian(_rk4, p, sparse=True)
    want = np.asarray(jax.hessian(_rk4)(p + 0.01))
    np.testing.assert_allclose(h(p + 0.01).toarray(), want, rtol=1e-12, atol=1e-12)
