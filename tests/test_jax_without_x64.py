"""JAX output of loops with ``jax_enable_x64`` off, as most JAX users run: a loop's Hessian
(by the loops' sweeps and by columns of the tangent program), its ``hvp`` and
``value_gradient_hessian``, a ``scan``'s Jacobian, dense and sparse. The check traces the
module with x64 on, and JAX then kept a NumPy constant's float64 type in the traces made
with it off (a float64 operand met a float32 one: each of these failed). The functions
compute in their arguments' precision (docs/hessians.md): singles here, equal to
``jax.hessian`` in doubles to single precision, and doubles again with x64 on. x64 is a
process-wide flag that other test modules turn on at import: the cases turn it off with
JAX's ``enable_x64(False)``, which every trace reads as it reads the flag (a fresh process,
as before, paid JAX's and dgraph's import again and compiled every program without the
run's compilation cache)."""

from __future__ import annotations

import functools

import numpy as np
import pytest

from .dense import dense as _dense

pytest.importorskip("jax")

X = np.linspace(0.1, 1.0, 6)
CASES = {  # name: (function, kind, options); the sweeps' case last
    "rows_hessian": ("rows", "hessian", {}),
    "rows_hessian_sparse": ("rows", "hessian", {"sparse": True}),
    "rows_hvp": ("rows", "hvp", {}),
    "forces_value_gradient_hessian": ("forces", "value_gradient_hessian", {}),
    "series_jacobian": ("series", "jacobian", {}),
    "series_jacobian_sparse": ("series", "jacobian", {"sparse": True}),
    "forces_hessian_sweeps": ("forces", "hessian", {}),
}


def _called(F, kind):
    x = np.linspace(-0.4, 0.7, 6)
    v = np.linspace(1.0, -0.5, 6)
    out = F(x, v) if kind == "hvp" else F(x)
    return [_dense(o) for o in out] if kind == "value_gradient_hessian" else [_dense(out)]


@pytest.fixture(scope="module")
def found():
    """Each case made and called with x64 off (JAX's own ``enable_x64(False)``, this
    thread's setting over the process's: JAX reads it for every trace, constant and
    cache key), then called again with it on. In this process rather than a fresh one:
    the same setting as a user's, and the run's compiled programs are shared."""
    import jax

    import dgraph
    from dgraph.codegen.tensor import function as tensor_function

    found = {}
    with pytest.MonkeyPatch.context() as patch:
        for name, (f, kind, kw) in CASES.items():
            if name == "forces_hessian_sweeps":  # by the loops' own sweeps, not columns
                patch.setattr(tensor_function, "columns_choice", lambda graph: None)
            with jax.enable_x64(False):
                assert not jax.config.jax_enable_x64
                F = dgraph.make_function(_functions()[f], kind, "jax", point=(X,), **kw)
                single = _called(F, kind)
            with jax.enable_x64(True):
                double = _called(F, kind)
            found[name] = {
                "kind": kind,
                "single": single,
                "single_dtypes": [str(a.dtype) for a in single],
                "double": double,
                "double_dtypes": [str(a.dtype) for a in double],
                "note": list(F.gradient.generated.loops[:1]) if kind != "jacobian" else [],
            }
    return found


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
    """jax's own derivatives, in doubles (jitted: each function's value, gradient and
    Hessian compiled once, as one program, for the cases that read them)."""
    import jax

    from tests import jax_reference as jref

    f = _functions()[name.split("_")[0]]
    x = np.linspace(-0.4, 0.7, 6)
    v = np.linspace(1.0, -0.5, 6)
    with jax.enable_x64(True):
        x = jax.numpy.asarray(x)
        if kind == "jacobian":
            return [np.asarray(jref.jacfwd(f)(x))]
        value, gradient, hessian = (np.asarray(a) for a in jref.value_gradient_hessian(f)(x))
        if kind == "hvp":
            return [hessian @ v]
        if kind == "value_gradient_hessian":
            return [value, gradient, hessian]
        return [hessian]


NAMES = [
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
    """By columns of the tangent program where chosen, by the loops' sweeps otherwise
    (the Hessian alone by columns: rows_hessian's, value_gradient_hessian's the same
    columns of forces)."""
    assert found["forces_value_gradient_hessian"]["note"][0].startswith("Jacobian by 6 columns")
    assert found["rows_hessian"]["note"][0].startswith("Jacobian by 6 columns")
    assert found["forces_hessian_sweeps"]["note"] == []
