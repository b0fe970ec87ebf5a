"""JAX output of loops with ``jax_enable_x64`` off, as most JAX users run: a loop's Hessian
(by the loops' sweeps and by columns of the tangent program), its ``hvp`` and
``value_gradient_hessian``, a ``scan``'s Jacobian, dense and sparse. The check traces the
module with x64 on, and JAX then kept a NumPy constant's float64 type in the traces made
with it off (a float64 operand met a float32 one: each of these failed). The functions
compute in their arguments' precision (docs/hessians.md): singles here, equal to
``jax.hessian`` in doubles to single precision, and doubles again with x64 on. x64 is a
process-wide flag that other test modules turn on at import: the cases run in a fresh
process."""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("jax")

ROOT = Path(__file__).resolve().parents[1]

SCRIPT = r"""
import json, sys
import numpy as np
import jax, jax.numpy as jnp
from jax import lax
import dgraph
from dgraph.codegen.tensor import function as tensor_function

assert not jax.config.jax_enable_x64
N = 6


def forces(x):
    def step(c, t):
        force = lambda j, a: a + jnp.sin(x[j] * c[j]) * jnp.tanh(c - x[j])
        return c + 0.05 * lax.fori_loop(0, N, force, jnp.zeros(N)), None
    return jnp.sum(lax.scan(step, x, jnp.arange(5))[0] ** 2)


def rows(x):
    return lax.fori_loop(0, 4, lambda i, a: a * jnp.tanh(x[i] * x[i + 1]) + a, 1.0)


def series(x):
    def body(c, xi):
        c = jnp.sin(c) * xi + c
        return c, c
    return lax.scan(body, 0.5, x)[1]


X = np.linspace(0.1, 1.0, N)
x = np.linspace(-0.4, 0.7, N)
v = np.linspace(1.0, -0.5, N)
CASES = {
    "forces_hessian_columns": (forces, "hessian", {}),
    "rows_hessian": (rows, "hessian", {}),
    "rows_hessian_sparse": (rows, "hessian", {"sparse": True}),
    "rows_hvp": (rows, "hvp", {}),
    "forces_value_gradient_hessian": (forces, "value_gradient_hessian", {}),
    "series_jacobian": (series, "jacobian", {}),
    "series_jacobian_sparse": (series, "jacobian", {"sparse": True}),
}
SWEEPS = {"forces_hessian_sweeps": (forces, "hessian", {})}


def dense(a):
    return np.asarray(a.todense() if hasattr(a, "todense") else a)


def called(F, kind):
    out = F(x, v) if kind == "hvp" else F(x)
    return [dense(o) for o in out] if kind == "value_gradient_hessian" else [dense(out)]


found = {}
for cases in (CASES, SWEEPS):
    if cases is SWEEPS:  # the Hessian by the loops' own sweeps, not by columns
        tensor_function.columns_choice = lambda graph: None
    for name, (f, kind, kw) in cases.items():
        F = dgraph.make_function(f, kind, "jax", point=(X,), **kw)
        single = called(F, kind)
        with jax.enable_x64(True):
            double = called(F, kind)
        found[name] = {
            "kind": kind,
            "single": [a.tolist() for a in single],
            "single_dtypes": [str(a.dtype) for a in single],
            "double": [a.tolist() for a in double],
            "double_dtypes": [str(a.dtype) for a in double],
            "note": list(F.gradient.generated.loops[:1]) if name.startswith("forces_h") else [],
        }
print("RESULT" + json.dumps(found))
"""


@pytest.fixture(scope="module")
def found():
    env = dict(os.environ, JAX_ENABLE_X64="0", PYTHONPATH=str(ROOT))
    run = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, env=env, cwd=ROOT,
        timeout=600,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-3000:]
    assert "Traceback" not in run.stderr
    (line,) = [t for t in run.stdout.splitlines() if t.startswith("RESULT")]
    return json.loads(line[len("RESULT") :])


@functools.cache
def _functions() -> dict:
    """The script's functions again, in this process (x64 turned on by other modules)."""
    import jax.numpy as jnp
    from jax import lax

    n = 6

    def forces(x):
        def step(c, t):
            force = lambda j, a: a + jnp.sin(x[j] * c[j]) * jnp.tanh(c - x[j])  # noqa: E731
            return c + 0.05 * lax.fori_loop(0, n, force, jnp.zeros(n)), None

        return jnp.sum(lax.scan(step, x, jnp.arange(5))[0] ** 2)

    def rows(x):
        return lax.fori_loop(0, 4, lambda i, a: a * jnp.tanh(x[i] * x[i + 1]) + a, 1.0)

    def series(x):
        def body(c, xi):
            c = jnp.sin(c) * xi + c
            return c, c

        return lax.scan(body, 0.5, x)[1]

    return {"forces": forces, "rows": rows, "series": series}


@functools.cache
def _references(name: str, kind: str) -> list[np.ndarray]:
    """jax's own derivatives, in doubles (jitted: each function's Hessian compiled once
    for the cases that read it)."""
    import jax

    from tests import jax_reference as jref

    f = _functions()[name.split("_")[0]]
    x = np.linspace(-0.4, 0.7, 6)
    v = np.linspace(1.0, -0.5, 6)
    with jax.enable_x64(True):
        x = jax.numpy.asarray(x)
        if kind == "jacobian":
            return [np.asarray(jref.jacfwd(f)(x))]
        if kind == "hvp":
            return [np.asarray(jref.hessian(f)(x) @ v)]
        if kind == "value_gradient_hessian":
            return [np.asarray(f(x)), np.asarray(jax.grad(f)(x)), np.asarray(jref.hessian(f)(x))]
        return [np.asarray(jref.hessian(f)(x))]


NAMES = [
    "forces_hessian_columns",
    "forces_hessian_sweeps",
    "rows_hessian",
    "rows_hessian_sparse",
    "rows_hvp",
    "forces_value_gradient_hessian",
    "series_jacobian",
    "series_jacobian_sparse",
]


@pytest.mark.parametrize("name", NAMES)
def test_a_loops_jax_function_in_singles_with_x64_off(found, name):
    case = found[name]
    want = _references(name, case["kind"])
    assert case["single_dtypes"] == ["float32"] * len(want)  # the arguments' precision
    for got, ref in zip(case["single"], want, strict=True):
        scale = max(np.abs(ref).max(), 1.0)
        np.testing.assert_allclose(np.asarray(got), ref, rtol=1e-5, atol=1e-5 * scale)
    assert case["double_dtypes"] == ["float64"] * len(want)  # the same module, x64 on again
    for got, ref in zip(case["double"], want, strict=True):
        np.testing.assert_allclose(np.asarray(got), ref, rtol=1e-12, atol=1e-12)


def test_the_cases_take_both_paths(found):
    """By columns of the tangent program where chosen, by the loops' sweeps otherwise."""
    assert found["forces_hessian_columns"]["note"][0].startswith("Jacobian by 6 columns")
    assert found["forces_hessian_sweeps"]["note"] == []
