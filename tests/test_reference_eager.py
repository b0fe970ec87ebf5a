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


IDX = np.array([-2, 0, 3, 4, 6])  # out of bounds on both sides of 5 rows
X = np.array(
    [[0.5, -1.0, 2.0], [1.5, np.nan, -3.0], [0.5, 2.5, 0.0], [-4.0, 1.0, 7.0], [2.0, 0.25, 1.0]]
)
S = np.array(
    [[0.5, -1.0, 2.0], [1.5, 3.0, -3.0], [0.5, 2.5, 0.0], [-4.0, 1.0, 7.0], [2.0, 0.25, 1.0]]
)


def _taken(x, s, i, k):
    """Gathers, scatters, sorts and argmax/argmin whose every window and order NumPy
    computes as XLA does: clamped and filled reads (NaN, a given value, an integer's
    least), clamped and dropped additions, a dropped set, NaN and ties for argmax, ties
    in a stable sort, two keys."""
    u = jnp.arange(15.0).reshape(5, 3)
    k5 = jnp.array([4, -7, 9, 0, 2])  # distinct targets, two dropped (-7 + 5 too)
    return (
        x.at[i].get(mode="clip"),
        x.at[i].get(mode="fill"),
        x.at[i, 1].get(mode="fill", fill_value=-2.0),
        k.at[i].get(mode="fill"),
        x.at[i].add(u, mode="clip"),
        x.at[i].add(u, mode="drop"),
        x.at[k5].set(u, mode="drop"),
        k.at[i].add(k[:5], mode="drop"),
        jnp.argmax(x, axis=0),
        jnp.argmin(x, axis=1),
        jnp.sort(s, axis=0),
        jnp.argsort(jnp.floor(s), axis=1, stable=True),
        jax.lax.sort((jnp.floor(s[:, 0]), s[:, 1], s[:, 2]), num_keys=2),
    )


def _left(x, s, i):
    """What NumPy leaves to JAX: a read out of bounds under ``promise_in_bounds``, a set
    writing one entry twice, a NaN or a -0.0 in a sort's key, ties in an unstable one."""
    return (
        x.at[i].get(mode="promise_in_bounds"),
        x.at[jnp.array([1, 1])].set(s[:2]),
        jnp.sort(x, axis=0),
        jnp.sort(s.at[0, 0].set(-0.0), axis=0),
        jax.lax.sort(jnp.floor(s), dimension=1, is_stable=False),
    )


def test_gathers_scatters_sorts_and_argmax_run_by_numpy_equal_jax_s(monkeypatch):
    """:func:`run_eagerly` runs them by NumPy (nothing lowered) with XLA's values, and
    binds in JAX what NumPy cannot say; before, each was bound in JAX (a compile per
    primitive and shape)."""
    from dgraph.frontends.jaxpr_numpy import numpy_program
    from tests.jax_events import counted

    bound = []
    binds = jaxpr_arrays.bind_equation
    monkeypatch.setattr(
        jaxpr_arrays,
        "bind_equation",
        lambda eqn, ins: bound.append(eqn.primitive.name) or binds(eqn, ins),
    )
    with x64(jax):
        k = np.arange(15).reshape(5, 3) - 7
        closed = jax.make_jaxpr(_taken)(X, S, IDX, k)
        assert numpy_program(closed.jaxpr)
        lowered, got = counted(lambda: run_eagerly(closed.jaxpr, closed.consts, [X, S, IDX, k]))
        assert (lowered, bound) == (0, [])
        for g, w in zip(got, jax.tree_util.tree_leaves(jax.jit(_taken)(X, S, IDX, k)), strict=True):
            assert np.asarray(g).dtype == w.dtype
            np.testing.assert_array_equal(np.asarray(g), np.asarray(w))
        closed = jax.make_jaxpr(_left)(X, S, IDX)
        got = run_eagerly(closed.jaxpr, closed.consts, [X, S, IDX])
        assert sorted(bound) == ["gather", "scatter", "sort", "sort", "sort"]
        for g, w in zip(got, jax.tree_util.tree_leaves(jax.jit(_left)(X, S, IDX)), strict=True):
            np.testing.assert_array_equal(np.asarray(g), np.asarray(w))


def _indexed(x):
    """A sort, an argmax, gathers at computed and clamped positions and an addition at
    computed ones: ``J·v``'s program is all gathers, scatter-adds, sorts and arithmetic."""
    at = jnp.argsort(x)[:3]
    y = jnp.sort(x) * jnp.arange(6.0) + x.at[at + 4].get(mode="clip").sum()
    return y.at[at].add(x[jnp.argmax(x)] * x[:3]) ** 2


def test_a_reference_through_gathers_scatters_and_sorts_compiles_nothing():
    """Such a reference's ``J·v`` runs by NumPy, nothing lowered (before: one program
    compiled per build), and equals JAX's ``jvp``."""
    from tests.jax_events import counted

    x = np.array([0.3, -0.7, 1.1, 0.5, -1.3, 0.9])
    v = np.cos(np.arange(6.0))
    reference = JaxJvp(_indexed, ["x"], ["y"])
    lowered, out = counted(lambda: reference({"x": x}, {"x": v}))
    assert lowered == 0 and reference.jitted is False
    with x64(jax):
        _, want = jax.jit(lambda x, v: jax.jvp(_indexed, (x,), (v,)))(x, v)
    np.testing.assert_allclose(out["y"], np.asarray(want), rtol=1e-13, atol=1e-13)


def test_the_graph_s_parameters_are_constants_to_the_reference_s_jvp():
    """A soft-label cross-entropy with the labels' entropy, ``xlogy(y, y)`` of labels with
    zeros (parameters): JAX's ``xlogy`` rule multiplies a zero tangent by ``log 0``, NaN,
    so a reference that gave the parameters zero tangents was not finite and the user's
    point went unchecked ("not verified"); closed over as constants they have none."""
    import dgraph

    labels = np.array([[1.0, 0.0, 0.0], [0.2, 0.5, 0.3]])
    features = np.array([[0.3, -1.0], [1.2, 0.4]])

    def f(w, x, y):
        logp = jax.nn.log_softmax(x @ w, axis=1)
        return -jnp.sum(y * logp) + jnp.sum(jax.scipy.special.xlogy(y, y))

    w = np.array([[0.1, -0.2, 0.3], [0.5, 0.0, -0.4]])
    graph = dgraph.from_jax(f, w, features, labels, params=["x", "y"], level="array")
    es = dgraph.accumulate(graph, "forward")
    assert es.verification.status == "verified", es.verification.detail
    with x64(jax):
        jv = JaxJvp(f, ["w", "x", "y"], ["y0"])  # zero tangents for x and y: NaN
        got = jv({"w": w, "x": features, "y": labels}, {"w": np.ones_like(w)})
    assert np.isnan(got["y0"]).all()
