"""Session 46, args46: a made function of a Python callable takes the callable's own
arguments at the element level as at the array level, and boolean arrays are masks
(not differentiated, read at each call). Session 53, pytree53: its own arguments may be
pytrees (a dict of parameters, a list of ``(W, b)`` tuples, a NamedTuple), and so may its
result, nested as ``jax.jacobian``, ``jax.jvp``, ``jax.vjp`` and ``jax.hessian`` nest
theirs."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pytest

import dgraph
from dgraph.codegen.tensor.function import TensorGenerated
from dgraph.errors import InputError

jnp = pytest.importorskip("jax.numpy")
jax = pytest.importorskip("jax")
flatten_util = pytest.importorskip("jax.flatten_util")


def test_the_element_level_takes_the_callables_own_arguments() -> None:
    """``G(A, b)`` of ``def g(A, b)`` read at the element level raised "jacobian() takes 1
    positional argument but 2 were given" (it took one concatenated vector), where the
    array level takes ``G(A, b)``: now both do, with ``jax.jacobian(g, argnums=(0, 1))``'s
    blocks, and ``vjp(A, b, w)`` gives ``(w̄_A, w̄_b)``; the flat call still works."""
    rng = np.random.default_rng(0)
    A, b, w = rng.normal(size=(3, 2)), rng.normal(size=2), rng.normal(size=3)

    def g(A, b):
        return np.tanh(A @ b)

    s = 1 - np.tanh(A @ b) ** 2  # closed forms: dy_i/dA_jk = s_i δ_ij b_k, dy/db = s A
    dA = np.einsum("i,ij,k->ijk", s, np.eye(3), b)
    db = s[:, None] * A
    J = dgraph.make_function(g, point=[A, b])
    assert not isinstance(J.generated, TensorGenerated)  # the element level
    found_A, found_b = J(A, b)
    np.testing.assert_allclose(found_A, dA, atol=1e-14)
    np.testing.assert_allclose(found_b, db, atol=1e-14)
    np.testing.assert_allclose(J(np.r_[A.ravel(), b]), np.c_[dA.reshape(3, 6), db], atol=1e-14)
    vjp = dgraph.make_function(g, "vjp", point=[A, b])
    bar_A, bar_b = vjp(A, b, w)
    np.testing.assert_allclose(bar_A, np.einsum("i,ijk->jk", w, dA), atol=1e-14)
    np.testing.assert_allclose(bar_b, w @ db, atol=1e-14)
    with pytest.raises(InputError, match=r"takes the function's own arguments \(A, b, w\)"):
        vjp(A, b)
    with pytest.raises(InputError, match=r"argument A has shape \(2, 3\), not \(3, 2\)"):
        vjp(A.T, b, w)


def test_a_boolean_array_is_a_mask_read_at_each_call() -> None:
    """``sum(where(m, x², sin x))`` with ``m`` a boolean array: NumPy's was refused by the
    check (``m`` differentiated as floats: "disagrees with central differences ... error
    4.2e-01"), JAX's took one vector of x and m. Now ``m`` is a parameter read at each
    call (``~m`` gives the other branch's derivative) and a float there is refused."""
    x = np.linspace(0.1, 1.2, 6)
    m = np.arange(6) % 3 == 0

    def gradient(mask):
        return np.where(mask, 2 * x, np.cos(x))  # jax.grad(h)(x, mask)

    for where, sum_, sin in ((np.where, np.sum, np.sin), (jnp.where, jnp.sum, jnp.sin)):

        def h(x, m, where=where, sum_=sum_, sin=sin):
            return sum_(where(m, x**2, sin(x)))

        J = dgraph.make_function(h, point=[x, m])
        for mask in (m, ~m):
            np.testing.assert_allclose(np.ravel(J(x, mask)), gradient(mask), atol=1e-14)
    sparse = dgraph.make_function(h, point=[x, m], sparse=True)
    np.testing.assert_allclose(sparse(x, ~m).toarray().ravel(), gradient(~m), atol=1e-14)
    with pytest.raises(InputError, match="traced as a boolean array"):
        J(x, m.astype(float))


def _same(got, want, atol=1e-12) -> None:
    """``got`` has ``want``'s pytree structure (dicts, tuples, lists, NamedTuples) and,
    leaf by leaf, its shapes and values."""
    got_leaves, got_tree = jax.tree_util.tree_flatten(got)
    want_leaves, want_tree = jax.tree_util.tree_flatten(want)
    assert got_tree == want_tree
    for a, b in zip(got_leaves, want_leaves, strict=True):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), atol=atol)


def _mlp(params, x):
    h = jnp.tanh(params["W1"] @ x + params["b1"])
    return jnp.sum((params["W2"] @ h) ** 2)


def test_an_mlp_loss_of_a_dict_of_parameters_is_jax_s() -> None:
    """``loss(params, x)`` with ``params`` a dict of arrays was refused ("point= entry 0 is
    a dict"): its Jacobian is now ``jax.jacobian(loss, argnums=(0, 1))``'s (a dict of
    blocks beside x's), its Hessian nested as ``jax.hessian``'s (each block H[i][j]
    summed against a tangent is JAX's hvp), its hvp's tangents and answer dicts; the
    graph's inputs are the leaves, named by their key paths."""
    rng = np.random.default_rng(0)
    P = {"W1": rng.normal(size=(3, 2)), "b1": rng.normal(size=3), "W2": rng.normal(size=(1, 3))}
    x = rng.normal(size=2)
    t = (jax.tree_util.tree_map(lambda a: rng.normal(size=np.shape(a)), P), rng.normal(size=2))
    J = dgraph.make_function(_mlp, point=[P, x], method="reverse")  # no search: cheap
    H = dgraph.hessian(_mlp, P, x)
    hvp = dgraph.make_function(_mlp, "hvp", point=[P, x])
    with jax.enable_x64(True):
        hessian = jax.hessian(_mlp, argnums=(0, 1))
        want_J, want_hvp = jax.jit(
            lambda P, x, t: (
                jax.jacobian(_mlp, argnums=(0, 1))(P, x),
                jax.jvp(jax.grad(_mlp, argnums=(0, 1)), (P, x), t)[1],
            )
        )(P, x, t)
        shapes = jax.eval_shape(hessian, P, x)
    _same(J(P, x), want_J)
    _same(hvp(P, x, *t), want_hvp)
    got = H(P, x)
    _same(jax.tree_util.tree_map(np.shape, got), jax.tree_util.tree_map(lambda s: s.shape, shapes))
    blocks, tangents = jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(t)
    n = len(tangents)
    for i, want in enumerate(jax.tree_util.tree_leaves(want_hvp)):  # Σ_j H[i][j]·t_j
        row = [np.tensordot(blocks[i * n + j], v, np.ndim(v)) for j, v in enumerate(tangents)]
        np.testing.assert_allclose(sum(row), want, atol=1e-12)
    graph = J.generated.expression_set.graph
    assert graph.inputs[:2] == ["params_W1_0_0", "params_W1_0_1"]
    assert "params_W1 = params['W1']" in graph.notes[-1]
    graph = dgraph.from_jax(_mlp, P, x, level="array")  # a TypeError out of float() before
    assert graph.inputs == ["params_W1", "params_W2", "params_b1", "x"]


class _Layer(NamedTuple):
    W: np.ndarray
    b: np.ndarray


def _layers(layers, x, np=np):
    for W, b in layers:
        x = np.tanh(W @ x + b)
    return {"out": x, "norm": np.sum(x**2)}


def test_numpy_layers_as_a_list_of_tuples_with_a_dict_output_are_jax_s() -> None:
    """A NumPy function of a list of ``(W, b)`` tuples returning a dict: J and wᵀJ as
    JAX's of the same function written with ``jax.numpy`` (a dict over the outputs of
    a tuple over the arguments; the cotangent a dict); ``sparse=True`` keeps the one
    (Σ size(y), Σ size(x)) matrix, leaves in flatten order. A NamedTuple layer is
    flattened the same way, its fields' names in the inputs'."""
    rng = np.random.default_rng(1)
    L = [
        (rng.normal(size=(3, 2)), rng.normal(size=3)),
        (rng.normal(size=(2, 3)), rng.normal(size=2)),
    ]
    x, w = rng.normal(size=2), {"out": np.array([1.0, -2.0]), "norm": 0.5}

    def twin(layers, x):
        return _layers(layers, x, np=jnp)

    J = dgraph.make_function(_layers, point=[L, x], method="forward")  # no search: cheap
    vjp = dgraph.make_function(_layers, "vjp", point=[L, x], method="reverse")
    S = dgraph.make_function(_layers, sparse=True, point=[L, x], method="forward")
    with jax.enable_x64(True):
        z, unravel = flatten_util.ravel_pytree((L, x))
        want_J, want_vjp, flat = jax.jit(
            lambda L, x, w, z: (
                jax.jacobian(twin, argnums=(0, 1))(L, x),
                jax.vjp(twin, L, x)[1](w),
                jax.jacobian(lambda z: flatten_util.ravel_pytree(twin(*unravel(z)))[0])(z),
            )
        )(L, x, w, z)
    _same(J(L, x), want_J)
    _same(vjp(L, x, w), want_vjp)
    np.testing.assert_allclose(S(L, x).toarray(), flat, atol=1e-12)
    named = [_Layer(*layer) for layer in L]
    graph = dgraph.from_function(_layers, point=[named, x], level="array")
    assert graph.inputs == ["layers_0_W", "layers_0_b", "layers_1_W", "layers_1_b", "x"]
    assert graph.outputs == ["norm", "out"]


def test_the_array_level_nests_pytrees_and_takes_a_pytree_parameter() -> None:
    """A ``scan`` (read at the array level) over the rows of ``p["W"]``, with ``p`` named
    in ``params=`` (a parameter pytree, taken after the differentiated arguments and
    their tangents or cotangents) and a ``None`` leaf: its value and J, J·v and wᵀJ as
    JAX's; another structure or shape refused in one line."""
    rng = np.random.default_rng(2)
    p = {"W": rng.normal(size=(3, 2)), "b": rng.normal(size=2), "unused": None}
    s = {"x": rng.normal(size=2), "k": 0.7}

    def g(s, p):
        def body(c, w):
            return jnp.tanh(c * w + p["b"]) * s["k"], None

        return jax.lax.scan(body, s["x"], p["W"])[0]

    J = dgraph.make_function(g, "value_and_jacobian", point=[s, p], params=("p",))
    jvp = dgraph.make_function(g, "jvp", point=[s, p], params=("p",))
    vjp = dgraph.make_function(g, "vjp", point=[s, p], params=("p",))
    assert isinstance(J.generated, TensorGenerated)
    t, w = {"x": np.array([1.0, -0.5]), "k": 2.0}, np.array([0.3, 1.0])
    with jax.enable_x64(True):
        want_value, want_J, want_jvp, want_vjp = jax.jit(
            lambda s, p, t, w: (
                g(s, p),
                jax.jacobian(g)(s, p),
                jax.jvp(lambda s: g(s, p), (s,), (t,))[1],
                jax.vjp(lambda s: g(s, p), s)[1](w)[0],
            )
        )(s, p, t, w)
    value, found_J = J(s, p)
    np.testing.assert_allclose(value, want_value, atol=1e-14)
    _same(found_J, want_J)
    _same(jvp(s, t, p), want_jvp)
    _same(vjp(s, w, p), want_vjp)
    with pytest.raises(InputError, match=r"argument s is \{'x': \*\}, not the point's"):
        jvp({"x": s["x"]}, t, p)
    with pytest.raises(InputError, match=r"p\['W'\] has shape \(2, 2\), not \(3, 2\)"):
        J(s, {**p, "W": np.ones((2, 2))})


def test_one_leaf_and_a_dict_output_of_arrays_nest_as_jax_s() -> None:
    """A function of arrays returning a dict kept the flat (m, n) matrix at the element
    level (a tuple at the array level): its J is now a dict over the outputs, as
    ``jax.jacobian``'s, here of the one differentiated argument (``b`` in ``params=``:
    no tuple over the arguments), and wᵀJ takes a dict cotangent. A dict of one leaf is
    a dict again in the Hessian, ``{'w': {'w': H}}``, and in ``value_gradient_hessian``;
    closed forms (NumPy)."""
    a, b = np.array([0.1, 0.2, 0.3]), 2.0

    def f(a, b):
        return {"s": np.sin(a) * b, "c": np.cos(a).sum()}

    J = dgraph.make_function(f, point=[a, b], params=("b",), method="forward")
    found = J(a, b)
    assert sorted(found) == ["c", "s"]
    np.testing.assert_allclose(found["s"], np.diag(b * np.cos(a)), atol=1e-14)
    np.testing.assert_allclose(found["c"], -np.sin(a), atol=1e-14)
    vjp = dgraph.make_function(f, "vjp", point=[a, b], params=("b",), method="reverse")
    w = {"s": np.array([1.0, -1.0, 0.5]), "c": 2.0}
    np.testing.assert_allclose(vjp(a, w, b), w["s"] * b * np.cos(a) - 2.0 * np.sin(a))
    H = dgraph.hessian(lambda p: np.sum(np.sin(p["w"]) ** 2), {"w": a})
    np.testing.assert_allclose(H({"w": a})["w"]["w"], np.diag(2 * np.cos(2 * a)), atol=1e-14)
    vgh = dgraph.make_function(
        lambda p: np.sum(np.sin(p["w"]) ** 2), "value_gradient_hessian", point=[{"w": a}]
    )
    value, gradient, hessian = vgh({"w": a})
    np.testing.assert_allclose(value, np.sum(np.sin(a) ** 2), atol=1e-14)
    np.testing.assert_allclose(gradient["w"], np.sin(2 * a), atol=1e-14)
    np.testing.assert_allclose(hessian["w"]["w"], np.diag(2 * np.cos(2 * a)), atol=1e-14)
