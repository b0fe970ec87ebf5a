"""``ExpressionSet.evaluate`` on tensor graphs (issue 54 item 5): the Jacobian at a point
given as ``--at`` gives it (one number per input entry, the inputs in order, arrays
flattened), equal to JAX's for every method, at one point and a batch."""

from __future__ import annotations

import numpy as np
import pytest

from dgraph.core.graph import GraphError
from dgraph.errors import InputError
from dgraph.methods import accumulate

jax = pytest.importorskip("jax", reason="JAX is not installed")
jnp = pytest.importorskip("jax.numpy")

from dgraph.frontends.jaxpr import from_jax  # noqa: E402


def _layer(x, W):  # a dense block, a reversal, a reduction
    return jnp.tanh(W @ x) * x[::-1][:2].sum()


def _stencil(u):  # 2-D: sparse (banded) blocks
    return u * jnp.roll(u, 1, axis=0) + jnp.sin(u[:, ::-1])


def _scalar_and_vector(a, v):  # a 0-d input beside a 1-d one; two outputs
    return a * jnp.exp(v), jnp.sum(v**2) * a


CASES = [
    (_layer, (np.array([0.3, -0.2, 0.5]), np.arange(6.0).reshape(2, 3) / 7)),
    (_stencil, (np.linspace(-1, 1, 12).reshape(3, 4),)),
    (_scalar_and_vector, (np.array(0.7), np.array([0.1, -0.4, 0.9]))),
]


def _reference(f, args) -> np.ndarray:
    with jax.enable_x64(True):
        outs = f(*map(jnp.asarray, args))
        outs = outs if isinstance(outs, tuple) else (outs,)
        jac = jax.jit(jax.jacfwd(f, argnums=tuple(range(len(args)))))(*map(jnp.asarray, args))
        jac = jac if isinstance(jac, tuple) and len(outs) > 1 else (jac,)
        return np.vstack(
            [
                np.hstack([np.asarray(b).reshape(np.size(y), -1) for b in row])
                for y, row in zip(outs, jac, strict=True)
            ]
        )


@pytest.mark.parametrize("method", ["forward", "reverse", "markowitz"])
@pytest.mark.parametrize(("f", "args"), CASES, ids=[f.__name__ for f, _ in CASES])
def test_a_tensor_set_evaluates_to_jaxs_jacobian(f, args, method):
    graph = from_jax(f, *args, level="array")
    assert graph.is_tensor
    point = np.concatenate([np.ravel(a) for a in args])
    got = accumulate(graph, method).evaluate(point)
    np.testing.assert_allclose(got, _reference(f, args), rtol=1e-12, atol=1e-14)


def test_a_batch_of_points_gives_a_batch_of_jacobians():
    f, args = CASES[0]
    es = accumulate(from_jax(f, *args, level="array"), "reverse")
    point = np.concatenate([np.ravel(a) for a in args])
    batch = np.stack([point, 2 * point])
    got = es.evaluate(batch)
    assert got.shape == (2, 2, 9)
    np.testing.assert_allclose(got[1], es.evaluate(2 * point))
    other = [a * 2 for a in args]
    np.testing.assert_allclose(got[1], _reference(f, other), rtol=1e-12)


def test_a_point_of_the_wrong_size_or_params_is_one_line():
    f, args = CASES[0]
    es = accumulate(from_jax(f, *args, level="array"), "forward")
    with pytest.raises(GraphError, match="needs 9, one per input entry"):
        es.evaluate([1.0, 2.0])
    with pytest.raises(InputError, match="no parameters"):
        es.evaluate(np.zeros(9), params=[1.0])
