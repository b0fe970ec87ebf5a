"""A loop's operands that no derivative reaches (parameters: a particle filter's noise
draws passed as data) take no tangent columns in its region: the sweeps run over the
inputs' columns alone, and the Hessian is that of the same filter in NumPy."""

from __future__ import annotations

import numpy as np
import pytest

import dgraph

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")


def _filter(th, eps, y):
    """A scan over parameter arrays (``eps``, ``y`` its xs), two inputs."""

    def step(carry, inp):
        x, ll = carry
        e, yt = inp
        x = jnp.tanh(th[0]) * x + jnp.exp(th[1]) * e
        return (x, ll - jnp.sum((yt - x) ** 2)), None

    (_, ll), _ = jax.lax.scan(step, (jnp.zeros(eps.shape[1]), 0.0), (eps, y))
    return ll


def _numpy(th, eps, y):
    x, ll = np.zeros(eps.shape[1]), 0.0
    for e, yt in zip(eps, y, strict=True):
        x = np.tanh(th[0]) * x + np.exp(th[1]) * e
        ll -= np.sum((yt - x) ** 2)
    return ll


def test_a_scan_over_parameters_sweeps_the_inputs_columns_alone():
    rng = np.random.default_rng(3)
    th, eps, y = np.array([0.4, -0.7]), rng.normal(size=(6, 5)), rng.normal(size=(6, 5))
    g = dgraph.from_jax(_filter, th, eps, y, params=["eps", "y"], level="array")
    (region,) = {id(op.param["region"]): op.param["region"] for v in g.vertices
                 if (op := g.op(v)) is not None and op.primitive == "loop"}.values()  # fmt: skip
    operands = next(
        g.op(v).operands for v in g.vertices if getattr(g.op(v), "primitive", 0) == "loop"
    )
    assert [x for x, a in zip(operands, region.active, strict=True) if a and isinstance(x, str)]
    assert not any(a for x, a in zip(operands, region.active, strict=True) if x in ("eps", "y"))
    assert region._columns([np.zeros(s) for s in region.operand_shapes])[-1] == 2
    h, unit = 1e-4, np.eye(2)  # second central differences of the same filter in NumPy
    want = np.array([[(_numpy(th + h * (a + b), eps, y) - _numpy(th + h * (a - b), eps, y)
                       - _numpy(th - h * (a - b), eps, y) + _numpy(th - h * (a + b), eps, y))
                      / (4 * h * h) for b in unit] for a in unit])  # fmt: skip
    H = dgraph.hessian(_filter, params=["eps", "y"], point=[th, eps, y])
    assert H.generated.verified
    np.testing.assert_allclose(np.asarray(H(th, eps, y)), want, rtol=1e-6)
