"""A dense Hessian of a time loop by columns of the gradient graph's tangent program,
chosen by counts where the loops' own Jacobian sweeps count more
(dgraph/codegen/tensor/jacobian_columns.py); values against jax.hessian (jitted: eagerly
each call compiles the loops again; tests/jax_reference.py)."""

from __future__ import annotations

import functools

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")

import dgraph  # noqa: E402
from dgraph.codegen.tensor import function as tensor_function  # noqa: E402
from dgraph.codegen.tensor.jacobian_columns import columns_choice  # noqa: E402
from dgraph.errors import VerificationError  # noqa: E402
from tests import jax_reference as jref  # noqa: E402

N, STEPS = 6, 5


def forces(x):
    """A time step summing over particles in a fori_loop (benchmarks/region_body_maps)."""

    def step(c, t):
        force = lambda j, a: a + jnp.sin(x[j] * c[j]) * jnp.tanh(c - x[j])  # noqa: E731
        return c + 0.05 * jax.lax.fori_loop(0, N, force, jnp.zeros(N)), None

    return jnp.sum(jax.lax.scan(step, x, jnp.arange(STEPS))[0] ** 2)


def kicks(x):
    def step(c, t):
        kick = lambda j, a: a + jnp.sin(x[j] * c[j]) * x  # noqa: E731
        return c + 0.01 * jax.lax.fori_loop(0, N, kick, jnp.zeros(N)), None

    return jnp.sum(jax.lax.scan(step, x, jnp.arange(STEPS))[0] ** 2)


def elementwise(x):
    """Each entry its own loop: the region's sweep compresses to a few colours."""

    def step(c, t):
        return c * 0.9 + 0.1 * jnp.sin(c * x), None

    return jnp.sum(jax.lax.scan(step, x, jnp.arange(4))[0] ** 2)


X = np.linspace(0.1, 1.0, N)


def _note(H) -> str:
    (note,) = H.gradient.generated.loops
    return note


@functools.cache
def _forces_hessian(lang: str):
    """forces' Hessian by columns in ``lang``, built once for the tests that only read it
    (each test that needs a build of its own, or patches one, makes its own)."""
    return dgraph.make_function(forces, "hessian", lang, point=(X,))


@pytest.fixture(autouse=True)
def _x64():
    with jax.enable_x64(True):
        yield


@pytest.mark.parametrize(
    ("f", "lang"),
    [(forces, "python"), (forces, "jax"), (kicks, "python")],  # kicks': the same printing
    ids=["forces-python", "forces-jax", "kicks-python"],
)
def test_a_loops_hessian_by_columns_equals_jax(f, lang):
    H = (
        _forces_hessian(lang)
        if f is forces
        else dgraph.make_function(f, "hessian", lang, point=(X,))
    )
    generated = H.gradient.generated
    choice = columns_choice(generated.expression_set.graph)
    assert choice.columns == N and choice.region_fma > N * choice.jvp.ops.mults
    assert _note(H).startswith(f"Jacobian by {N} columns of the tangent program")
    assert generated.mults == choice.mults and generated.verified
    assert "def jacobian" in generated.text or "jacobian = _bound(_jacobian)" in generated.text
    x = np.linspace(-0.4, 0.7, N)  # another point than the one checked
    got = np.asarray(H(x))
    np.testing.assert_allclose(got, jref.hessian(f)(x), rtol=1e-12, atol=1e-12)
    assert np.array_equal(got, got.T)  # mirrored from the lower triangle


def test_value_gradient_hessian_by_columns_equals_jax():
    """NumPy's; JAX's the same function's in test_jax_without_x64 (its note and values,
    made with x64 off, called with it on too)."""
    V = dgraph.make_function(forces, "value_gradient_hessian", "python", point=(X,))
    assert _note(V).startswith(f"Jacobian by {N} columns")
    assert "def value_and_jacobian" in V.gradient.generated.text
    x = np.linspace(-0.4, 0.7, N)
    value, gradient, hessian = V(x)
    np.testing.assert_allclose(value, forces(jnp.asarray(x)), rtol=1e-13)
    np.testing.assert_allclose(gradient, jref.jacrev(forces)(x), rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(hessian, jref.hessian(forces)(x), rtol=1e-12, atol=1e-12)


def test_the_loops_sweeps_kept_where_they_count_less():
    H = dgraph.make_function(elementwise, "hessian", point=(X,))
    choice = columns_choice(H.gradient.generated.expression_set.graph)
    assert choice.region_fma <= choice.mults
    assert _note(H).startswith("Jacobian by the loops' Jacobian sweeps")
    assert "def jvp" not in H.gradient.generated.text
    np.testing.assert_allclose(H(X), jref.hessian(elementwise)(X), rtol=1e-12, atol=1e-12)


def test_the_same_hessian_by_the_loops_sweeps_when_the_choice_is_off(monkeypatch):
    monkeypatch.setattr(tensor_function, "columns_choice", lambda graph: None)
    H = dgraph.make_function(forces, "hessian", point=(X,))
    assert H.gradient.generated.loops == () and "def jvp" not in H.gradient.generated.text
    np.testing.assert_allclose(H(X), jref.hessian(forces)(X), rtol=1e-12, atol=1e-12)


def test_two_arrays_blocks_by_columns():
    def f(x, w):
        def step(c, t):
            kick = lambda j, a: a + jnp.sin(w[j] * c[j]) * x  # noqa: E731
            return c + 0.01 * jax.lax.fori_loop(0, N, kick, jnp.zeros(N)), None

        return jnp.sum(jax.lax.scan(step, x * w, jnp.arange(STEPS))[0] ** 2)

    w = np.linspace(0.5, 1.2, N)
    H = dgraph.make_function(f, "hessian", point=(X, w))
    assert _note(H).startswith(f"Jacobian by {2 * N} columns")
    got = H(X, w)
    want = jref.hessian(f, argnums=(0, 1))(X, w)
    for i in range(2):
        for j in range(2):
            np.testing.assert_allclose(got[i][j], want[i][j], rtol=1e-12, atol=1e-12)


def test_a_lagrangian_hessian_by_columns_takes_the_weights_last():
    def f(x):
        def step(c, t):
            force = lambda j, a: a + jnp.sin(x[j] * c[j]) * jnp.tanh(c - x[j])  # noqa: E731
            return c + 0.05 * jax.lax.fori_loop(0, N, force, jnp.zeros(N)), None

        return jax.lax.scan(step, x, jnp.arange(STEPS))[0][:3] ** 2

    v = np.array([0.5, -1.0, 2.0])
    H = dgraph.make_function(f, "hessian", point=(X,), weights=v)
    assert _note(H).startswith(f"Jacobian by {N} columns")
    u = np.array([1.5, 0.25, -0.75])
    want = jref.hessian(lambda x: jnp.dot(u, f(x)))(X)
    np.testing.assert_allclose(H(X, u), want, rtol=1e-12, atol=1e-12)


def test_a_wrong_column_is_caught_by_the_check(monkeypatch):
    made = tensor_function.columns_module

    def wrong(graph, lang, choice, mode):  # column 2 seeded with e_2 + e_3
        text = made(graph, lang, choice, mode)
        eye = f"seeds = numpy.eye({N})"
        assert eye in text
        return text.replace(eye, f"{eye}\n    seeds[2, 3] = 1.0")

    monkeypatch.setattr(tensor_function, "columns_module", wrong)
    with pytest.raises(VerificationError):
        dgraph.make_function(forces, "hessian", point=(X,))


def test_by_columns_checked_against_the_reference_alone():
    """No expression set verified nor made while building (the loops' blocks it would
    form grow as n⁴): the code's J·v against JAX's directly; the set made when read."""
    from dgraph.codegen.tensor.function import Later

    H = dgraph.make_function(forces, "hessian", point=(X,))
    generated = H.gradient.generated
    assert isinstance(generated.__dict__["_expression_set"], Later)
    assert generated.verified and "directly" in generated.check.detail
    assert "expression set" not in " ".join(generated.check.against)
    assert generated.graph is generated.__dict__["_expression_set"].graph
    es = generated.expression_set  # made now, priced, not verified
    assert es.graph is generated.graph and not es.verified
    np.testing.assert_allclose(H(X), jref.hessian(forces)(X), rtol=1e-12, atol=1e-12)


def _columns_code(lang, mode, damage):
    """The columns' code of forces' gradient graph, ``damage`` applied to its text."""
    from dgraph.codegen.python import load_python
    from dgraph.codegen.tensor.jacobian_columns import columns_module

    graph = _forces_hessian(lang).gradient.generated.graph
    text = damage(columns_module(graph, lang, columns_choice(graph), mode))
    return getattr(load_python(text), mode), graph


@pytest.mark.parametrize("lang", ["python", "jax"])
def test_the_direct_check_catches_a_wrong_column(lang):
    from dgraph.codegen.tensor.check import check_dense_whole

    xp = "numpy" if lang == "python" else "jnp"
    eye = f"seeds = {xp}.eye({N})"
    wrong = f"{eye} + {xp}.eye({N}, k=1) * 1e-6"  # column j seeded with e_j + 1e-6·e_(j+1)
    right, graph = _columns_code(lang, "jacobian", lambda t: t)
    assert check_dense_whole(right, graph, lang).status == "verified"
    bad, graph = _columns_code(lang, "jacobian", lambda t: t.replace(eye, wrong))
    check = check_dense_whole(bad, graph, lang)
    assert check.status == "wrong" and "differs from JAX" in check.detail


def test_the_direct_check_catches_a_wrong_value():
    from dgraph.codegen.tensor.check import check_dense_whole

    def damage(text):  # F(x) off by 1e-6 of itself
        old = "    return vals[0], rows[0][0]"
        assert old in text
        return text.replace(old, "    return vals[0] * (1 + 1e-6), rows[0][0]")

    bad, graph = _columns_code("python", "value_and_jacobian", damage)
    check = check_dense_whole(bad, graph, "python", mode="value_and_jacobian")
    assert check.status == "wrong" and "F(x)" in check.detail


def test_a_direct_check_not_passed_falls_back_to_the_expression_set(monkeypatch):
    """Rounding read as an error against the code's own magnitudes (a false alarm) is
    checked again against the verified expression set: the code is still made."""
    from dgraph.codegen.tensor import check as tensor_check
    from dgraph.core.value_check import CodeCheck

    calls = []

    def alarmed(function, graph, lang, seed=0, mode="jacobian"):
        calls.append(mode)
        return CodeCheck(False, True, "differs (simulated rounding)")

    monkeypatch.setattr(tensor_function, "check_dense_whole", alarmed)
    H = dgraph.make_function(forces, "hessian", point=(X,))
    generated = H.gradient.generated
    assert calls == ["jacobian"] and generated.verified
    assert "the expression set's blocks" in generated.check.against
    assert generated.expression_set.verified  # verified, not made later
    assert _note(H).startswith(f"Jacobian by {N} columns")
    np.testing.assert_allclose(H(X), jref.hessian(forces)(X), rtol=1e-12, atol=1e-12)
    assert tensor_check.check_dense_whole is not alarmed  # the module's own left alone
