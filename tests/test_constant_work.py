"""Work on constants done once, when the code is made (issue 55's build and per-call
targets): the jaxpr reader folds the equations on constants together (one jitted program,
``_Reader.prefold``), a NumPy module's gathers of constants at constants are module
constants (``tensor.module._fold_gathers``), and its index constants are ``numpy.intp``;
values equal JAX's, and the eager fold's up to rounding (XLA fuses the jitted one)."""

from __future__ import annotations

import re

import numpy as np
import pytest
import scipy.sparse
from hypothesis import given, settings
from hypothesis import strategies as st

jax = pytest.importorskip("jax")
jnp = jax.numpy

import dgraph  # noqa: E402
from dgraph.frontends import jaxpr_arrays  # noqa: E402
from dgraph.frontends.jaxpr import from_jax  # noqa: E402

N = 7


def weighted(x):
    """A constant subgraph (weights from iota, sin, a power and a sum) before the input."""
    k = jnp.arange(x.size, dtype=x.dtype)
    w = jnp.sin(k) ** 2 + 1.0 + jnp.cumsum(k) / 10.0
    return jnp.sum(w * x[::-1] ** 3) + jnp.sum(x[1:] * x[:-1])


def _fold_spy(monkeypatch, names: list | None = None) -> list[bool]:
    """Whether each fold found prefold's value (True) or bound the primitive itself (in
    ``names``, each one's primitive)."""
    seen: list[bool] = []
    fold = jaxpr_arrays._Reader.fold

    def spy(self, eqn, ins):
        seen.append(id(eqn) in self.prefolded)
        if names is not None:
            names.append(eqn.primitive.name)
        return fold(self, eqn, ins)

    monkeypatch.setattr(jaxpr_arrays._Reader, "fold", spy)
    return seen


def test_constants_are_folded_together_and_equal_the_eager_fold(monkeypatch):
    x = np.linspace(-1.0, 1.0, N)
    seen = _fold_spy(monkeypatch)
    g = from_jax(jax.grad(weighted), x, level="array")
    # every operation on constants from a program of several, but cumsum alone in its call
    assert len(seen) >= 8 and seen.count(False) <= 1
    es = dgraph.accumulate(g, "forward")
    monkeypatch.setattr(jaxpr_arrays._Reader, "prefold", lambda self, eqns, env: None)
    eager = from_jax(jax.grad(weighted), x, level="array")  # each operation bound on its own
    at = np.linspace(0.3, -0.8, N)
    np.testing.assert_allclose(  # jitted: fused as XLA fuses, equal up to rounding
        es.evaluate([at]), dgraph.accumulate(eager, "forward").evaluate([at]), rtol=1e-14
    )
    with jax.enable_x64(True):
        hess = np.asarray(jax.jit(jax.hessian(weighted))(jnp.asarray(at)))
    np.testing.assert_allclose(es.evaluate([at])[0], hess, rtol=1e-13, atol=1e-13)


def test_a_nested_body_on_constants_is_compiled_once_for_all_its_calls(monkeypatch):
    """A jitted helper called on 12 constants: its body's program is jitted once and
    reused (VANDANMSLS's 880 such calls had compiled one program each)."""

    @jax.jit
    def basis(t):  # exp: left to JAX (the rest NumPy folds as JAX binds it)
        return jnp.where(t > 0.4, jnp.exp(t - 0.4) ** 3, 0.1 * t**2) + 1.0

    knots = np.linspace(0.0, 1.0, 12)

    def f(x):
        return jnp.sum(x**2 * jnp.stack([basis(t) for t in jnp.asarray(knots)]))

    readers = []
    prefold = jaxpr_arrays._Reader.prefold

    def spy(self, eqns, env):
        readers.append(self)
        return prefold(self, eqns, env)

    monkeypatch.setattr(jaxpr_arrays._Reader, "prefold", spy)
    x = np.linspace(-1.0, 1.0, 12)
    g = from_jax(jax.grad(f), x, level="array")
    bodies = {
        id(p)
        for r in readers
        for eqns, p in r.prefold_programs.values()
        if any(e.primitive.name == "exp" for e in eqns)
    }
    assert len(bodies) == 1  # the helper's body: one program for its 12 calls
    with jax.enable_x64(True):
        want = np.asarray(jax.jit(jax.hessian(f))(jnp.asarray(x)))
    got = dgraph.accumulate(g, "forward").evaluate([x])[0]
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-13)


def test_many_equations_on_constants_are_folded_one_by_one(monkeypatch):
    """Past PREFOLD_MOST equations on constants no one program is jitted (XLA's compile
    of thousands of scalar operations took minutes); the values are the eager fold's."""
    monkeypatch.setattr(jaxpr_arrays, "PREFOLD_MOST", 20)
    names: list[str] = []
    seen = _fold_spy(monkeypatch, names)

    def f(x):
        w = jnp.arange(1.0, 4.0)
        for _ in range(15):
            w = jnp.cos(w) + 1.5
        return jnp.sum(w * x**3)

    x = np.array([0.3, -0.7, 1.1])
    g = from_jax(jax.grad(f), x, level="array")
    cosines = [s for s, name in zip(seen, names, strict=True) if name == "cos"]
    assert len(cosines) == 15 and not any(cosines)  # bound one by one, none prefolded
    with jax.enable_x64(True):
        want = np.asarray(jax.jit(jax.hessian(f))(jnp.asarray(x)))
    np.testing.assert_allclose(dgraph.accumulate(g, "forward").evaluate([x])[0], want, rtol=1e-13)


def _module(text: str) -> dict:
    namespace: dict = {}
    exec(compile(text, "<generated>", "exec"), namespace)  # our own generated module
    return namespace


def test_numpy_module_gathers_no_constant_at_constants_and_holds_intp_indices():
    x = np.linspace(-1.0, 1.0, N)

    def rosenbrock(x):
        return jnp.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)

    H = dgraph.hessian(rosenbrock, x, sparse=True)
    text = H.generated.text
    assert not re.search(r"_K\d+\)?\[_K\d+\]", text)  # K1[K2] folded to a constant
    namespace = _module(text)
    indices = [v for k, v in namespace.items() if k.startswith("_K") and v.dtype.kind in "iu"]
    assert indices and all(v.dtype == np.intp for v in indices if v.size > 8)
    at = x[::-1] * 0.7
    with jax.enable_x64(True):
        hess = np.asarray(jax.jit(jax.hessian(rosenbrock))(jnp.asarray(at)))
    np.testing.assert_allclose(H(at).toarray(), hess, rtol=1e-13, atol=1e-12)


@settings(max_examples=4, deadline=None)
@given(
    st.integers(3, 9),
    st.lists(st.floats(-2.0, 2.0), min_size=9, max_size=9),
    st.sampled_from(["python", "jax"]),
)
def test_folded_sparse_jacobian_equals_jax_on_random_points(n, values, lang):
    """A gather of constants folded (NumPy) or left to JAX: the same sparse Jacobian."""
    scale = np.linspace(1.0, 2.0, n)

    def f(x):
        return scale[1:] * x[1:] * x[:-1] + jnp.sin(x[::-1][1:]) * scale[:-1] ** 2

    x = np.asarray(values[:n])
    J = dgraph.make_function(from_jax(f, x, level="array"), "jacobian", lang, sparse=True)
    with jax.enable_x64(True):
        ref = np.asarray(jax.jacfwd(f)(jnp.asarray(x)))
        got = J(jnp.asarray(x)) if lang == "jax" else J(x)
    got = got.todense() if lang == "jax" else scipy.sparse.csr_array(got).toarray()
    tol = 1e-13 if lang == "python" else 1e-6  # the JAX module as called: float32 here
    np.testing.assert_allclose(np.asarray(got), ref, rtol=tol, atol=tol)


def test_a_second_read_of_the_same_program_compiles_no_fold(monkeypatch, caplog):
    """Reading the same program again (a new function object, as each build's is)
    reuses the constant folds compiled for it (``jaxpr_key.PREFOLDS``): XLA compiles no
    ``jit(evaluate)``; a program whose constants are computed differently (another
    literal) compiles its own; the graphs' values are the same as the first read's."""
    import logging
    from collections import OrderedDict

    from dgraph.frontends import jaxpr_key

    monkeypatch.setattr(jaxpr_key.PREFOLDS, "programs", OrderedDict())
    x, at = np.linspace(-1.0, 1.0, N), np.linspace(0.3, -0.8, N)

    def shifted(c):
        def f(x):
            k = jnp.arange(x.size, dtype=x.dtype)
            w = jnp.sin(k) ** 2 + c + jnp.cumsum(k) / 10.0
            return jnp.sum(w * x[::-1] ** 3) + jnp.sum(x[1:] * x[:-1])

        return f

    def folds(f) -> tuple[int, np.ndarray]:
        caplog.clear()
        with caplog.at_level(logging.WARNING), jax.log_compiles(True):
            g = from_jax(jax.grad(f), x, level="array")
        messages = [r.getMessage() for r in caplog.records]
        compiled = [m for m in messages if m.startswith("Compiling jit(evaluate)")]
        return len(compiled), dgraph.accumulate(g, "forward").evaluate([at])[0]

    first, h1 = folds(shifted(1.0))
    again, h2 = folds(shifted(1.0))
    other, h3 = folds(shifted(2.0))
    assert first >= 1 and again == 0 and other >= 1
    np.testing.assert_array_equal(h1, h2)
    assert len(jaxpr_key.PREFOLDS.programs) == first + other
    with jax.enable_x64(True):
        want = np.asarray(jax.jit(jax.hessian(shifted(2.0)))(jnp.asarray(at)))
    np.testing.assert_allclose(h3, want, rtol=1e-13, atol=1e-13)
