"""A symmetric Hessian's two JAX functions (every entry, the lower triangle) rewritten by
one run of the JAX passes on their statements merged
(``dgraph/codegen/tensor/jax_pair.py``): each function gets back its own statements
under its own names, the passes run once, and the values are the separate runs'."""

from __future__ import annotations

import numpy as np
import pytest

from dgraph.codegen.ir import ArrayStatement as S
from dgraph.codegen.ir import BinOp, Const, Index, Name
from dgraph.codegen.tensor.jax_pair import merged, split

jax = pytest.importorskip("jax")
jnp = jax.numpy

import dgraph  # noqa: E402
from dgraph.codegen.tensor import gathers as tensor_gathers  # noqa: E402
from dgraph.codegen.tensor import module as tensor_module  # noqa: E402

from .dense import dense as as_dense  # noqa: E402


def _programs():
    a = S("a", BinOp("+", Name("x"), Const(1.0)))
    b = S("b", BinOp("*", Name("a"), Const(2.0)))
    whole = [a, b, S("J", Index(Name("b"), (Name("K1"),)))]
    lower = [
        a,
        b,
        S("J", Index(Name("b"), (Name("K2"),))),
        S("t", BinOp("*", Name("J"), Name("J"))),
    ]
    return [(whole, "J"), (lower, "t[K3]")]


def test_shared_statements_are_kept_once_and_each_program_comes_back_as_it_was():
    programs = _programs()
    statements, results, renames = merged(programs)
    assert [s.target for s in statements] == ["a", "b", "J", "J_m2", "t"]
    assert statements[-1].value == BinOp("*", Name("J_m2"), Name("J_m2"))
    assert results == ["J", "t[K3]"]
    assert split(statements, results, renames) == programs


def test_a_program_that_assigns_a_name_twice_is_not_merged():
    whole, _ = _programs()[0]
    assert merged([([*whole, S("a", Name("J"))], "a"), _programs()[1]]) is None


def minsurf(x, m=4):
    h = 1.0 / (m + 1)
    p = jnp.pad(jnp.reshape(x, (m, m)), 1)
    dx_low, dy_low = (p[1:, :-1] - p[:-1, :-1]) / h, (p[:-1, 1:] - p[:-1, :-1]) / h
    dx_up, dy_up = (p[1:, 1:] - p[:-1, 1:]) / h, (p[1:, 1:] - p[1:, :-1]) / h
    area = jnp.sqrt(1.0 + dx_low**2 + dy_low**2) + jnp.sqrt(1.0 + dx_up**2 + dy_up**2)
    return 0.5 * h * h * jnp.sum(area)


def test_the_passes_run_once_for_both_functions_and_give_their_values(monkeypatch):
    """With the mirror pushed into the assembly at every size (``GATHER_FROM`` 0) the
    two functions differ in their last statements; the grid search runs once, and each
    function's values are the Hessian's (the whole one symmetric bit for bit, the lower
    one its lower triangle bit for bit)."""
    monkeypatch.setattr(tensor_gathers, "GATHER_FROM", 0)
    monkeypatch.setattr(tensor_module, "GATHER_FROM", 0)
    monkeypatch.setattr(tensor_module, "PUSH_COMPACT", True)  # minsurf's vector is compact
    runs = []
    inner = tensor_module.grid_gathers
    monkeypatch.setattr(tensor_module, "grid_gathers", lambda *a: runs.append(1) or inner(*a))
    x = np.random.default_rng(4).uniform(0.1, 0.6, 16)
    with jax.enable_x64(True):
        H = dgraph.make_function(minsurf, "hessian", "jax", point=[x], sparse=True)
        text = H.gradient.generated.text
        whole = as_dense(H(jnp.asarray(x)))
        lower = as_dense(H.gradient.generated.tril(jnp.asarray(x)))
        want = np.asarray(jax.jit(jax.hessian(minsurf))(x))  # one compile, not one per operation
    assert len(runs) == 1
    whole_body, tril_body = (
        text[text.index(f"def {f}(") : text.index("\n\n\n", text.index(f"def {f}("))]
        for f in ("_jacobian_arrays", "_jacobian_tril_arrays")
    )
    assert whole_body.split("\n")[1:] != tril_body.split("\n")[1:]  # the gathers differ
    assert "_m2" not in text  # each function under its own names
    np.testing.assert_array_equal(whole, whole.T)
    np.testing.assert_array_equal(lower, np.tril(whole))
    np.testing.assert_allclose(whole, want, rtol=1e-12, atol=1e-12)
