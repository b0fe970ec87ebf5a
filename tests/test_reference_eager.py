"""The JAX reference run operation by operation (:func:`run_eagerly`, what a program of more
than ``REFERENCE_JIT_MOST`` equations gets) on functions with JAX's ``custom_jvp`` rules
inside (``relu``, ``softplus``, ``logaddexp``): their calls are bound as
``jax.core.eval_jaxpr`` binds them; before, binding with the equation's own parameters
failed with ``KeyError: 'subfuns'``."""

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy

from dgraph.frontends import jaxpr_arrays  # noqa: E402
from dgraph.frontends.jaxpr_arrays import JaxJvp, run_eagerly, x64  # noqa: E402


def _f(x):
    return jnp.sum(jax.nn.softplus(x) + jax.nn.relu(x) * x + jnp.logaddexp(x, 2.0 * x))


def test_run_eagerly_binds_custom_jvp_calls_as_jax_does():
    with x64(jax):
        x = np.linspace(-1.0, 1.0, 7)
        v = np.cos(np.arange(7.0))
        closed = jax.make_jaxpr(lambda x, v: jax.jvp(_f, (x,), (v,)))(x, v)
        assert "custom_jvp_call" in str(closed.jaxpr)
        got = run_eagerly(closed.jaxpr, closed.consts, [x, v])
        want = jax.jvp(_f, (x,), (v,))
        np.testing.assert_allclose([float(g) for g in got], [float(w) for w in want], rtol=1e-13)


def test_a_long_program_s_reference_runs_eagerly_and_equals_jax_s_jvp(monkeypatch):
    monkeypatch.setattr(jaxpr_arrays, "REFERENCE_JIT_MOST", 0)
    x = np.linspace(-1.0, 1.0, 5)
    v = np.arange(1.0, 6.0)
    reference = JaxJvp(_f, ["x"], ["y"])
    out = reference({"x": x}, {"x": v})
    assert reference.jitted is False
    with x64(jax):
        _, want = jax.jvp(_f, (jnp.asarray(x),), (jnp.asarray(v),))
    np.testing.assert_allclose(out["y"], float(want), rtol=1e-13)
