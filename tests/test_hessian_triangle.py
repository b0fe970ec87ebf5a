"""A sparse Hessian computed on and below the diagonal only (issue 55;
``dgraph/codegen/tensor/triangle.py``): the generated program counts fewer operations
than the one that computes the whole matrix, its values equal ``jax.hessian``'s at a
point it was not made at, it is symmetric bit for bit, its nonzeros are the true ones,
and its lower triangle alone (``tril=True``) is the whole matrix's, bit for bit."""

from __future__ import annotations

import functools
import re

import numpy as np
import pytest
import scipy.sparse

jax = pytest.importorskip("jax")
jnp = jax.numpy

import dgraph  # noqa: E402
from dgraph.codegen.array_passes import count_array_ops  # noqa: E402
from dgraph.codegen.evaluate import evaluate_statements  # noqa: E402
from dgraph.codegen.ir import (  # noqa: E402
    ArrayProgram,
    ArrayStatement,
    BinOp,
    Call,
    Const,
    Index,
    Name,
    ScatterAdd,
)
from dgraph.codegen.tensor import function as tensor_function  # noqa: E402
from dgraph.codegen.tensor import gathers as tensor_gathers  # noqa: E402
from dgraph.codegen.tensor import module as tensor_module  # noqa: E402
from dgraph.codegen.tensor.blockops import BlockOps  # noqa: E402
from dgraph.codegen.tensor.constants import Constants  # noqa: E402
from dgraph.codegen.tensor.module import tensor_program  # noqa: E402
from dgraph.codegen.tensor.triangle import narrowed  # noqa: E402
from dgraph.errors import DGraphError  # noqa: E402

from .dense import dense as as_dense  # noqa: E402

M = 3  # the minimal surface's grid side


def rosenbrock(x):
    return jnp.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def minsurf(x):
    """The COPS minimal-surface area on an M x M grid of unknowns (zero boundary)."""
    h = 1.0 / (M + 1)
    p = jnp.pad(jnp.reshape(x, (M, M)), 1)
    dx_low, dy_low = (p[1:, :-1] - p[:-1, :-1]) / h, (p[:-1, 1:] - p[:-1, :-1]) / h
    dx_up, dy_up = (p[1:, 1:] - p[:-1, 1:]) / h, (p[1:, 1:] - p[1:, :-1]) / h
    area = jnp.sqrt(1.0 + dx_low**2 + dy_low**2) + jnp.sqrt(1.0 + dx_up**2 + dy_up**2)
    return 0.5 * h * h * jnp.sum(area)


def lagrangian(x):
    return jnp.concatenate(
        [(0.5 * jnp.sum((x - 1.0) ** 2))[None], x[:-2] * x[1:-1] + jnp.exp(x[2:])]
    )


def diagonal(x):
    return jnp.sum(jnp.exp(x))


def cube_of_sum(x):
    return jnp.sum(x) ** 3  # every entry the one value 6·sum(x): a gather of one value


CASES = {  # f, n, weights, whether the lower triangle's program is strictly cheaper
    "rosenbrock": (rosenbrock, 8, None, True),
    "minsurf": (minsurf, M * M, None, True),
    "lagrangian": (lagrangian, 8, np.linspace(0.5, 1.5, 7), True),
    "diagonal": (diagonal, 5, None, False),  # nothing above the diagonal
    "cube_of_sum": (cube_of_sum, 6, None, False),  # the values vector one value, gathered
}


def _points(n: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(n)
    return rng.uniform(0.1, 0.6, n), rng.uniform(0.1, 0.6, n)


def _reference(f, x, v):
    """``jax.hessian`` of ``f`` (weighted by ``v``) at ``x``: jitted (eager, it compiles the
    nested derivative's primitives one by one) and computed once per case and point."""
    key = (f, x.tobytes(), None if v is None else np.asarray(v).tobytes())
    if key not in _REFERENCES:
        with jax.enable_x64(True):
            g = f if v is None else (lambda x: jnp.dot(jnp.asarray(v), f(x)))
            _REFERENCES[key] = np.asarray(jax.jit(jax.hessian(g))(jnp.asarray(x)))
    return _REFERENCES[key]


_REFERENCES: dict[tuple, np.ndarray] = {}


@functools.cache
def _sparse_hessian(name: str):
    """The sparse NumPy Hessian of a case made at its first point: built once for the
    tests that read it (its values, its operations, its lower triangle's program)."""
    f, n, v, _ = CASES[name]
    x, _ = _points(n)
    return dgraph.make_function(f, "hessian", point=[x], weights=v, sparse=True)


def _distributing(init):
    """``BlockOps.__init__`` with a Hessian's element assembly on (``distribute``), for
    the whole matrix's program built from the same gradient graph as the triangle's."""

    def distributing(self, *args, **kwargs):
        init(self, *args, **kwargs)
        self.distribute = True

    return distributing


@pytest.mark.parametrize("name", sorted(CASES))
def test_lower_triangle_values_symmetry_pattern_and_fewer_operations(name, monkeypatch):
    f, n, v, cheaper = CASES[name]
    _, x2 = _points(n)
    H = _sparse_hessian(name)
    lower = H.gradient.generated.tril  # what tril=True returns: the same module's
    args = (x2,) if v is None else (x2, v)
    h, t = H(*args), lower(*args)
    ref = _reference(f, x2, v)
    assert isinstance(h, scipy.sparse.csr_array) and H.generated.verified
    assert h.nnz == np.count_nonzero(ref)
    np.testing.assert_allclose(h.toarray(), ref, rtol=1e-12, atol=1e-12 * abs(ref).max())
    assert (h != h.T).nnz == 0  # symmetric bit for bit
    assert t.nnz == np.count_nonzero(np.tril(ref))
    assert (t != scipy.sparse.tril(h, format="csr")).nnz == 0
    es = H.generated.expression_set  # the gradient graph's, the same as it was generated
    half = count_array_ops(tensor_program(es, "python", True, symmetric=True)).ops
    with monkeypatch.context() as m:  # the whole by the same rule: a Hessian's sums'
        m.setattr(BlockOps, "__init__", _distributing(BlockOps.__init__))  # products
        whole = count_array_ops(tensor_program(es, "python", True)).ops  # distributed
    assert half.mults <= whole.mults and half.adds <= whole.adds
    assert (half.mults + half.adds < whole.mults + whole.adds) == cheaper


@pytest.mark.parametrize(
    "name, gathers, scatters",
    [
        ("minsurf", False, True),
        ("rosenbrock", True, False),
        ("minsurf", True, None),  # scatter-adds at repeated places may be left: not checked
        ("lagrangian", True, False),
    ],
)
def test_jax_lower_triangle_is_the_mirrored_bcoo(name, gathers, scatters, monkeypatch):
    """JAX: BCOO, mirrored bit for bit; ``gathers``: its scatters written as gathers and
    the mirror pushed into the assembly (``gathers.gathered``: done from
    ``GATHER_FROM`` entries on, into a compact vector's only with ``PUSH_COMPACT``; here
    at every size, into every vector); ``scatters``: whether some are left."""
    if gathers:
        monkeypatch.setattr(tensor_gathers, "GATHER_FROM", 0)
        monkeypatch.setattr(tensor_module, "GATHER_FROM", 0)
        monkeypatch.setattr(tensor_module, "PUSH_COMPACT", True)  # minsurf's vector too
    f, n, v, _ = CASES[name]
    x, x2 = _points(n)
    with jax.enable_x64(True):
        H = dgraph.make_function(f, "hessian", "jax", point=[x], weights=v, sparse=True)
        args = (jnp.asarray(x2),) if v is None else (jnp.asarray(x2), jnp.asarray(v))
        b, t = H(*args), H.gradient.generated.tril(*args)
        dense, low = as_dense(b), as_dense(t)
    assert type(b).__name__ == "BCOO" and b.indices_sorted and b.unique_indices
    text = H.gradient.generated.text
    assert scatters is None or (".at[" in text) == scatters
    np.testing.assert_array_equal(dense, dense.T)
    np.testing.assert_array_equal(low, np.tril(dense))
    ref = _reference(f, x2, v)
    assert b.nse == np.count_nonzero(ref)
    np.testing.assert_allclose(dense, ref, rtol=1e-12, atol=1e-12 * abs(ref).max())


def test_jax_compact_values_mirrored_by_one_gather(monkeypatch):
    """JAX, from ``GATHER_FROM`` entries on (here at every size): the minimal surface's
    values vector is compact (its lower entries alone), so the whole matrix's values are
    one gather of it, not the mirror pushed into the assembly (``PUSH_COMPACT`` off:
    no index array as long as the Hessian per assembled part); the lower triangle is the
    whole matrix's, bit for bit."""
    monkeypatch.setattr(tensor_gathers, "GATHER_FROM", 0)
    monkeypatch.setattr(tensor_module, "GATHER_FROM", 0)
    pushed = []
    inner = tensor_module.gathered
    monkeypatch.setattr(tensor_module, "gathered", lambda *a: pushed.append(1) or inner(*a))
    f, n, v, _ = CASES["minsurf"]
    x, x2 = _points(n)
    with jax.enable_x64(True):
        H = dgraph.make_function(f, "hessian", "jax", point=[x], weights=v, sparse=True)
        b, t = H(jnp.asarray(x2)), H.gradient.generated.tril(jnp.asarray(x2))
        dense, low = as_dense(b), as_dense(t)
    text = H.gradient.generated.text
    whole = text[
        text.index("def _jacobian_arrays(") : text.index(
            "\n\n\n", text.index("def _jacobian_arrays(")
        )
    ]
    assert not pushed
    assert re.search(r"return (\w+)\[_K\d+\]$", whole.rstrip())  # one gather of the values
    np.testing.assert_array_equal(dense, dense.T)
    np.testing.assert_array_equal(low, np.tril(dense))
    np.testing.assert_allclose(dense, _reference(f, x2, v), rtol=1e-12, atol=1e-12)


def test_tril_is_the_modules_lower_triangle():
    f, n, _, _ = CASES["rosenbrock"]
    x, x2 = _points(n)
    T = dgraph.make_function(f, "hessian", point=[x], sparse=True, tril=True)
    assert (T(x2) != T.gradient.generated.tril(x2)).nnz == 0
    assert T(x2).nnz == 2 * n - 1


def test_symmetric_is_for_one_square_sparse_block():
    es = _sparse_hessian("rosenbrock").generated.expression_set
    with pytest.raises(DGraphError, match="one square block"):
        tensor_program(es, "python", False, symmetric=True)


@pytest.mark.parametrize("name", ["rosenbrock", "minsurf", "lagrangian"])
def test_numpy_tril_has_its_own_program(name):
    """NumPy: ``jacobian_tril`` computes the lower entries alone, in order (its own
    program, ``_jacobian_tril_values``, where the whole matrix's is assembled at its
    entries' places; else the one program's values vector is compact already), not the
    whole matrix's values gathered; they are the whole matrix's lower entries bit for
    bit."""
    _, n, v, _ = CASES[name]
    _, x2 = _points(n)
    H = _sparse_hessian(name)
    text = H.gradient.generated.text
    tril = text[text.index("def jacobian_tril(") :]
    assert "numpy.take" not in tril
    assert ("_jacobian_tril_values(" in tril) == (name != "minsurf")
    args = (x2,) if v is None else (x2, v)
    h, t = H(*args), H.gradient.generated.tril(*args)
    rows = np.repeat(np.arange(h.shape[0]), np.diff(h.indptr))
    keep = rows >= h.indices
    np.testing.assert_array_equal(t.indices, h.indices[keep])
    np.testing.assert_array_equal(t.data, h.data[keep])


@pytest.mark.parametrize("spoil", [lambda v: v + 1.0, lambda v: np.nextafter(v, np.inf)])
def test_build_checks_the_numpy_tril(spoil, monkeypatch):
    """The build runs ``jacobian_tril`` where it checks ``jacobian`` and refuses a
    module whose lower triangle is not the matrix's: an entry off by one, or by one
    rounding (the two programs compute each entry by the same operations in the same
    order: bit for bit, no tolerance)."""
    f, n, _, _ = CASES["rosenbrock"]
    x, _ = _points(n)
    load = tensor_function.load_python

    def spoiled(text):
        module = load(text)
        good = module.jacobian_tril

        def bad(*args):
            t = good(*args)
            t.data = t.data.copy()
            t.data[-1] = spoil(t.data[-1])
            return t

        module.jacobian_tril = bad
        return module

    monkeypatch.setattr(tensor_function, "load_python", spoiled)
    with pytest.raises(DGraphError, match="lower triangle"):
        dgraph.make_function(f, "hessian", point=[x], sparse=True)


def test_narrowing_passes_a_broadcast_to_as_many_entries():
    """A scatter-add whose base is ``broadcast_to(ravel(a), (n,))`` of ``a`` of ``n``
    entries (as the gradient graph's sums write it) is narrowed like any other: only
    the entries read, its base and parts too; the kept values are the whole program's."""
    c = Constants()
    base = Call("broadcast_to", (Call("ravel", (Name("a"),)), Const((6,))))
    part = BinOp("+", Index(Name("x"), (c.index(np.array([1, 3, 5])),)), Const(1.0))
    read = Index(Call("ravel", (Name("t"),)), (c.index(np.array([5, 4, 3, 2, 1, 0])),))
    statements = [
        ArrayStatement("a", BinOp("*", Name("x"), Name("x"))),
        ArrayStatement("b", part),
        ArrayStatement("t", ScatterAdd(base, ((c.index(np.array([0, 3, 4])), Name("b")),))),
        ArrayStatement("v", BinOp("*", Const(2.0), read)),
    ]
    program = ArrayProgram("f", ("x",), ((6,),), ("x",), statements, ["v"], dict(c.arrays))
    keep = np.array([True, False, True, False, True, False])  # t's entries 5, 3 and 1
    out, compact = narrowed(program, "v", keep, c)
    t = next(s.value for s in out if s.target == "t")
    assert compact and isinstance(t, ScatterAdd) and t.base == Name("a")  # a: 3 entries
    ((at, _),) = t.parts
    np.testing.assert_array_equal(c.arrays[at.id], [1])  # b's one entry read: t's 3
    x = np.linspace(0.5, 1.5, 6)
    whole = evaluate_statements(statements, {"x": x, **c.arrays})["v"]
    np.testing.assert_array_equal(evaluate_statements(out, {"x": x, **c.arrays})["v"], whole[keep])


def test_narrowing_adds_a_scatter_s_parts_in_their_order():
    """``join=False`` (the NumPy module's two programs, the whole matrix's and the lower
    triangle's): a scatter-add read inside the program keeps its parts, in their order,
    where it is narrowed, each entry the whole statement's bit for bit. Parts at the
    same positions summed first (``b + (p + q)``, the assembling scatter's way) give
    another double here, ``1 + 2⁻⁵²`` for ``(1 + 2⁻⁵³) + 2⁻⁵³ = 1`` (the lower
    triangle's program narrows statements the whole matrix's computes whole: the RK4
    loop of benchmarks/hessian_loops.py failed its build there)."""
    c = Constants()
    even = c.index(np.array([0, 2, 4]))
    half_ulp = BinOp("*", Const(2.0**-53), Index(Name("x"), (even,)))
    parts = ((even, Name("p")), (even, Name("q")))
    read = Index(Call("ravel", (Name("t"),)), (c.index(np.arange(6)),))
    statements = [
        ArrayStatement("p", half_ulp),
        ArrayStatement("q", half_ulp),
        ArrayStatement("t", ScatterAdd(Name("x"), parts)),
        ArrayStatement("v", BinOp("*", Const(2.0), read)),
    ]
    program = ArrayProgram("f", ("x",), ((6,),), ("x",), statements, ["v"], dict(c.arrays))
    keep = np.array([True, False, True, False, False, False])  # t's entries 0 and 2
    x = np.ones(6)
    whole = evaluate_statements(statements, {"x": x, **c.arrays})["v"]
    np.testing.assert_array_equal(whole[keep], [2.0, 2.0])
    for join in (False, True):
        out, _ = narrowed(program, "v", keep, c, join=join)
        t = next(s.value for s in out if s.target == "t")
        assert isinstance(t, ScatterAdd) and len(t.parts) == (1 if join else 2)
        assert all(np.size(c.arrays[at.id]) == 2 for at, _ in t.parts)  # narrowed
        got = evaluate_statements(out, {"x": x, **c.arrays})["v"]
        assert np.array_equal(got, whole[keep]) != join  # joined: 2 + 2⁻⁵¹


@pytest.mark.parametrize("name", ["minsurf", "rosenbrock"])
def test_narrowing_lets_each_rank_go_after_its_last_reader(name, monkeypatch):
    """The narrowing's ranks (each a vector of its statement's whole size) are held
    only while a statement still to be rewritten reads a statement with those
    positions, none at the end; the module is the one made when every rank is held to
    the end (a rank let go is made again where asked for)."""
    from dgraph.codegen.tensor import triangle

    held: list[tuple[int, bool]] = []
    release = triangle._Narrowing.release

    def recording(self, done, last):
        release(self, done, last)
        later = {id(n.positions) for k, n in self.narrow.items() if last.get(k, -1) > done}
        held.append((len(self._ranks), set(self._ranks) <= later))

    es = _sparse_hessian(name).generated.expression_set
    monkeypatch.setattr(triangle._Narrowing, "release", recording)
    text = tensor_program(es, "python", True, symmetric=True).text
    assert held and all(ok for _, ok in held) and held[-1][0] == 0
    monkeypatch.setattr(triangle._Narrowing, "release", lambda self, done, last: None)
    assert tensor_program(es, "python", True, symmetric=True).text == text


def _beam_compliance(EI):
    """A cantilever of Hermite beam elements (survey real_programs12's beam, in JAX): each
    element's 4 × 4 stiffness scatter-added by ``.at[np.ix_(dofs, dofs)]``, the clamped
    dofs cut by ``np.ix_(free, free)``, the compliance ``Fᵀ K⁻¹ F``."""
    n, h = EI.shape[0], 1.0 / EI.shape[0]
    a, b, c = 6 * h, 4 * h * h, 2 * h * h
    base = jnp.array([[12, a, -12, a], [a, b, -a, c], [-12, -a, 12, -a], [a, c, -a, b]])
    K = jnp.zeros((2 * n + 2, 2 * n + 2))
    for e in range(n):
        dofs = np.arange(2 * e, 2 * e + 4)
        K = K.at[np.ix_(dofs, dofs)].add(EI[e] / h**3 * base)
    F = jnp.zeros(2 * n + 2).at[-2].set(1.0)
    free = np.arange(2, 2 * n + 2)
    return F[free] @ jnp.linalg.solve(K[np.ix_(free, free)], F[free])


def test_a_gather_of_a_matrix_keeps_its_shape_when_narrowed():
    """The narrowed program's statements computed whole read the narrowed vectors' new
    places: a gather ``v[K]`` of a 4 × 4 index constant ``K`` (the stiffness block taken
    out for ``inv``) stays 4 × 4, not the 16 entries flat (was ``numpy.linalg.inv``'s
    LinAlgError from inside ``dgraph.hessian(sparse=True)``)."""
    from tests import jax_reference as jref

    EI = np.array([1.0, 1.2])
    H = dgraph.hessian(_beam_compliance, EI, sparse=True)
    with jax.enable_x64(True):
        want = np.asarray(jref.hessian(_beam_compliance)(jnp.asarray(EI)))
    np.testing.assert_allclose(H(EI).toarray(), want, rtol=1e-12, atol=1e-12 * np.abs(want).max())
