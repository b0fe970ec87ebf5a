"""Element-level assembly of an array Hessian (``BlockOps._distributed``): a product of
a sum's parts by a factor that pairs each entry once (a diagonal scaling) is distributed
over the parts, so that the element contributions of a partially separable objective
(Griewank and Toint, 1982) reach the Hessian's stored entries in one scatter-add per
call, not through scatter-adds into intermediate patterns first. Values equal
``jax.hessian``'s; the counts are of the generated program, not of time."""

from __future__ import annotations

import functools
import itertools
import re
import types

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy
jax.config.update("jax_enable_x64", True)  # the JAX modules' values in doubles

import dgraph  # noqa: E402
from dgraph.codegen.ir import ArrayStatement as S  # noqa: E402
from dgraph.codegen.ir import BinOp, Call, Const, Index, Name  # noqa: E402
from dgraph.codegen.tensor.gather_scale import folded_scalings  # noqa: E402
from dgraph.codegen.tensor.triangle import _joined  # noqa: E402
from tests import jax_reference as jref  # noqa: E402
from tests.test_gather_scale import _run  # noqa: E402 (the pass's NumPy evaluator)

from .dense import dense as as_dense  # noqa: E402


@functools.cache
def minsurf(m):
    """benchmarks/hessian_functions.py's minimal surface on an m x m grid (COPS): one
    function per m, so that its jitted reference compiles once for the tests at that m."""

    def f(u):
        h = 1.0 / (m + 1)
        edge = 1.0 - (2.0 * jnp.linspace(0.0, 1.0, m + 2) - 1.0) ** 2
        p = jnp.pad(jnp.reshape(u, (m, m)), 1).at[0, :].set(edge).at[-1, :].set(edge)
        dx_low, dy_low = (p[1:, :-1] - p[:-1, :-1]) / h, (p[:-1, 1:] - p[:-1, :-1]) / h
        dx_up, dy_up = (p[1:, 1:] - p[:-1, 1:]) / h, (p[1:, 1:] - p[1:, :-1]) / h
        area = jnp.sqrt(1.0 + dx_low**2 + dy_low**2) + jnp.sqrt(1.0 + dx_up**2 + dy_up**2)
        return 0.5 * h * h * jnp.sum(area)

    return f


class _Counting:
    """``numpy`` for a generated module, counting the entries ``numpy.add.at`` adds
    (``added``) and the entries moved: those, ``numpy.bincount``'s and ``numpy.take``'s
    (``moved``)."""

    def __init__(self) -> None:
        self.added = 0
        self.moved = 0

    def __getattr__(self, name):
        real = getattr(np, name)
        counter = self
        if name in ("take", "bincount"):

            def counted(a, *rest, **k):
                counter.moved += np.size(rest[0] if name == "take" else a)
                return real(a, *rest, **k)

            return counted
        if name != "add":
            return real

        class _Add:
            def __call__(self, *a, **k):
                return real(*a, **k)

            def at(self, out, index, data):
                counter.added += np.size(index)
                counter.moved += np.size(index)
                return real.at(out, index, data)

        return _Add()


@functools.cache
def _jitted_hessian(f):
    return jref.hessian(f)  # once per function: one compilation per shape, or stored


def _reference(f, x):
    with jax.enable_x64(True):
        return np.asarray(_jitted_hessian(f)(jnp.asarray(x)))


def _minsurf_reference(m, x):
    """``_reference(minsurf(m), x)`` from nine Hessian-vector products: an entry couples
    two grid points of one cell, at most one apart in each direction, so the points of
    one colour (i mod 3, j mod 3) share no row, and ``H·t`` with t the colour's ones holds
    each row's one entry of that colour (Curtis, Powell and Reid, 1974, "On the
    estimation of sparse Jacobian matrices"): the dense ``jax.hessian`` at m = 60 forms
    3,600 of them (most of its test's time). Zero outside the 3 x 3 window of each point,
    as the exact Hessian."""
    n = m * m
    i, j = np.divmod(np.arange(n), m)
    colour = (i % 3) * 3 + j % 3
    seeds = (colour[None, :] == np.arange(9)[:, None]).astype(float)
    with jax.enable_x64(True):
        grad = jax.grad(minsurf(m))
        hvp = jax.jit(jax.vmap(lambda t, x: jax.jvp(grad, (x,), (t,))[1], (0, None)))
        compressed = np.asarray(hvp(jnp.asarray(seeds), jnp.asarray(x)))
    ref = np.zeros((n, n))
    for di, dj in itertools.product((-1, 0, 1), repeat=2):
        inside = (i + di >= 0) & (i + di < m) & (j + dj >= 0) & (j + dj < m)
        rows, cols = np.flatnonzero(inside), ((i + di) * m + j + dj)[inside]
        ref[rows, cols] = compressed[colour[cols], rows]
    return ref


def _rosenbrock(x):
    return jnp.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def _exp_cos(x):
    return jnp.sum(jnp.exp(0.1 * (x[2:] - x[:-2]) * x[1:-1]) * jnp.cos(x[1:-1]))


def _log_sin(x):
    return jnp.sum(jnp.log(1.0 + (x[:-1] * x[1:]) ** 2)) + jnp.sum(jnp.sin(x) ** 2)


OBJECTIVES = [(_rosenbrock, 30), (_exp_cos, 25), (_log_sin, 20)]


@functools.cache
def _python_hessian(f, n):
    """The sparse NumPy Hessian of ``f`` made at ``rng(n)``'s point (in (0.5, 1.5)):
    built once for the two tests that read it (values; statements and entries moved)."""
    x = np.random.default_rng(n).uniform(0.5, 1.5, n)
    return dgraph.make_function(f, "hessian", "python", point=[x], sparse=True)


def _assert_close_on_the_pattern(h, ref: np.ndarray, rtol: float, atol: float) -> None:
    """``h.toarray()`` close to ``ref`` (``assert_allclose``), read at ``h``'s stored
    entries (3600² dense entries at m = 60: the dense copy and its comparison cost more
    than the Hessian): ``ref`` is zero elsewhere, its nonzeros all stored."""
    h = h.tocoo()
    at = ref[h.row, h.col]
    assert np.count_nonzero(at) == np.count_nonzero(ref)  # none outside the pattern
    np.testing.assert_allclose(h.data, at, rtol=rtol, atol=atol)


@pytest.mark.parametrize("m", [12, 60])  # 60: parts at grids printed through views
def test_the_minimal_surface_scatter_adds_each_stored_entry_once(m):
    f = minsurf(m)
    rng = np.random.default_rng(m)
    x, x2 = rng.uniform(0.0, 0.5, m * m), rng.uniform(0.0, 0.5, m * m)
    H = dgraph.make_function(f, "hessian", "python", point=[x], sparse=True)
    ref = _minsurf_reference(m, x2)
    if m == 12:  # the colouring's reference is jax.hessian's
        np.testing.assert_allclose(ref, _reference(f, x2), rtol=1e-14, atol=1e-14)
    h = H(x2)
    assert h.nnz == np.count_nonzero(ref) and H.generated.verified
    _assert_close_on_the_pattern(h, ref, rtol=1e-12, atol=1e-12 * abs(ref).max())
    module = types.ModuleType("generated")
    exec(H.gradient.generated.text, module.__dict__)
    counting = _Counting()
    module.__dict__["numpy"] = counting
    lower = module._jacobian_lower(x2)
    assert lower.size == np.count_nonzero(np.tril(ref))
    # each stored entry once (main before this: 7.2 entries a stored entry at m = 12)
    assert counting.added == lower.size


def test_the_minimal_surface_in_jax_is_four_scatter_adds():
    m = 12
    f = minsurf(m)
    rng = np.random.default_rng(5)
    x, x2 = rng.uniform(0.0, 0.5, m * m), rng.uniform(0.0, 0.5, m * m)
    H = dgraph.make_function(f, "hessian", "jax", point=[x], sparse=True)
    got = as_dense(H(jnp.asarray(x2)))
    ref = _reference(f, x2)
    np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-12 * abs(ref).max())
    text = H.gradient.generated.text
    body = text[text.index("def _jacobian_arrays") : text.index("def _jacobian_tril_arrays")]
    assert body.count(".at[") <= 4  # one per place the parts go to (main before: 13)


@pytest.mark.parametrize("f, n", OBJECTIVES)
def test_other_objectives_keep_jax_values_and_exact_patterns(f, n):
    rng = np.random.default_rng(n)
    x, x2 = rng.uniform(0.5, 1.5, n), rng.uniform(0.5, 1.5, n)
    ref = _reference(f, x2)
    # NumPy's for each objective, JAX's for one (its assembly: the minimal surface's too)
    for lang in ("python", "jax") if f is _exp_cos else ("python",):
        if lang == "python":
            H = _python_hessian(f, n)  # made at x, as the JAX one
        else:
            H = dgraph.make_function(f, "hessian", lang, point=[x], sparse=True)
        h = H(x2 if lang == "python" else jnp.asarray(x2))
        got = h.toarray() if lang == "python" else as_dense(h)
        assert np.count_nonzero(got) == np.count_nonzero(ref)
        np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-12 * abs(ref).max())


def test_negated_parts_at_the_same_places_are_subtracted():
    K, L = Name("K"), Name("L")
    a, b, c = Name("a"), Name("b"), Name("c")
    joined = dict(_joined([(K, a), (K, BinOp("*", Const(-1.0), b)), (L, c), (K, c)]))
    assert joined[K] == BinOp("-", BinOp("+", a, c), b)
    assert joined[L] == c
    only = dict(_joined([(K, BinOp("*", Const(-1.0), a)), (K, BinOp("*", b, Const(-1.0)))]))
    assert only[K] == BinOp("*", Const(-1.0), BinOp("+", a, b))


def test_a_shared_gather_is_folded_into_the_scalings_that_read_it():
    """``g = p[K]`` read by two scalings (a common subexpression) is folded as the gather
    itself: ``r2 = (q · p)[K] · x``, the shared gather no longer computed."""
    rng = np.random.default_rng(2)
    K = np.array([0, 1, 1, 2, 3, 3, 4])  # 7 entries from 5 rows (at most an eighth more: 7)
    env = {"p": rng.uniform(0.5, 2, 5), "q": rng.uniform(0.5, 2, 5), "K": K}
    env |= {"x": rng.uniform(-1, 1, 7), "y": rng.uniform(-1, 1, 7)}
    rav = lambda v: Call("ravel", (Name(v),))  # noqa: E731
    statements = [
        S("g", Index(Name("p"), (Name("K"),))),
        S("r1", BinOp("*", Name("g"), rav("x"))),
        S("s1", BinOp("*", Name("g"), rav("y"))),
        S("r2", BinOp("*", Index(Name("q"), (Name("K"),)), rav("r1"))),
        S("s2", BinOp("*", Index(Name("q"), (Name("K"),)), rav("s1"))),
    ]
    shapes = {k: np.shape(v) for k, v in env.items()} | {s.target: (7,) for s in statements}
    out = folded_scalings(statements, ["r2", "s2"], shapes)
    assert "g" not in {s.target for s in out} and "r1" not in {s.target for s in out}

    before, after = _run(statements, env), _run(out, env)
    for name in ("r2", "s2"):
        np.testing.assert_allclose(after[name], before[name], rtol=1e-15)


def _statements(text: str, function: str) -> int:
    """The statements of ``function`` in a generated module (``del`` lines not counted)."""
    import ast

    for node in ast.parse(text).body:
        if isinstance(node, ast.FunctionDef) and node.name == function:
            return sum(
                1
                for s in ast.walk(node)
                if isinstance(s, ast.stmt) and not isinstance(s, (ast.Delete, ast.Expr))
            )
    raise AssertionError(f"no {function}")


def _undistributed(monkeypatch, build):
    """``build()`` with no product distributed over a sum's parts (main before element
    assembly)."""
    from dgraph.codegen.tensor.blockops import BlockOps

    with monkeypatch.context() as m:
        m.setattr(BlockOps, "_distributed", lambda self, a, b, va, vb: None)
        return build()


def _ring_step(u, d, steps):
    """docs/control_flow.md's reaction-diffusion step on a ring, scanned."""
    from jax import lax

    def step(u, _):
        lap = jnp.roll(u, 1) + jnp.roll(u, -1) - 2.0 * u
        return u + 0.1 * (d * lap + u - u**3), None

    return lax.scan(step, u, None, length=steps)[0]


def test_a_loop_jacobian_is_the_program_without_distribution(monkeypatch):
    """The Jacobian of a loop (docs/control_flow.md's, printed there) is not a Hessian:
    its sums' products are one statement each, as before element assembly. Distributed,
    its adjoint body gained ``ravel(d)[K] * numpy.ravel(1.0)`` and eight more constant
    multiplications (the merge reverted on main, c1e94a9)."""
    u0, d0 = np.linspace(0.2, 0.8, 12), np.array(0.3)
    g = dgraph.from_jax(lambda u, d: _ring_step(u, d, 3), u0, d0, level="array", name="rd")

    def build():
        return dgraph.make_function(g, "jacobian", lang="python", method="forward")

    J = build()
    before = _undistributed(monkeypatch, build)
    assert J.generated.verified
    assert "ravel(1.0)" not in J.generated.text
    assert J.generated.text == before.generated.text
    body = J.generated.text[J.generated.text.index("def _adjoint_rd_body") :]
    body = body[: body.index("_adjoint_rd_xs")]
    assert body.count(" * ") == 7  # main's seven: none added to the loop's body


def _ring(x):
    """A scalar times the squares of a ring's Laplacian: its Hessian's products scale
    sums of constant parts (the stencil's) by a factor that varies."""
    lap = jnp.roll(x, 1) + jnp.roll(x, -1) - 2.0 * x
    return jnp.sum(jnp.exp(x[0]) * lap**2) + jnp.sum(x**4)


@pytest.mark.parametrize(
    "f, n",
    [
        (_ring, 12),
        *OBJECTIVES,
        (lambda x: jnp.sum((x[1:] - x[:-1]) ** 3), 20),
    ],
)
def test_distribution_never_lengthens_a_hessian_program(monkeypatch, f, n):
    """Element assembly moves no more entries per call (scatter-added, taken) than the
    program without it, and writes more statements only where it moves fewer (the sum
    of a varying factor times the stencil's constant parts, ``_ring``: no more of
    either); no multiplication by a constant one and no product of two numbers left for
    each call (``2.0 * (-1.0 * x)`` is ``-2.0 * x``); values are ``jax.hessian``'s."""
    x = np.random.default_rng(n).uniform(0.5, 1.5, n)

    def build():
        return dgraph.make_function(f, "hessian", "python", point=[x], sparse=True)

    def counted(H):
        module = types.ModuleType("generated")
        exec(H.gradient.generated.text, module.__dict__)
        counting = _Counting()
        module.__dict__["numpy"] = counting
        module._jacobian_lower(x)
        return _statements(H.gradient.generated.text, "_jacobian_lower"), counting.moved

    H = _python_hessian(f, n)  # build()'s, shared with the values' test
    (lines, moved), (lines_before, moved_before) = (
        counted(H),
        counted(_undistributed(monkeypatch, build)),
    )
    assert moved <= moved_before
    assert lines <= lines_before or moved < moved_before
    if f is _ring:
        assert (lines, moved) < (lines_before, moved_before) and lines <= lines_before
    text = H.gradient.generated.text
    assert not re.search(r"ravel\(1\.0\)|(?<![-\d.])1\.0 \*|\* 1\.0(?![\d])", text)
    assert not re.search(r"(?<![\w.])\d+\.\d+ \* \(-?\d+\.\d+ \*", text)
    ref = _reference(f, x)
    np.testing.assert_allclose(H(x).toarray(), ref, rtol=1e-12, atol=1e-12 * abs(ref).max())
