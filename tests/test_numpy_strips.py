"""A NumPy Hessian body's elementwise run done block by block
(``dgraph/codegen/tensor/numpy_strips.py``): the values bit for bit those of the body
printed without blocks, whatever the block size (one that does not divide the run's
length) and the number of threads; where no run fits, the body as it was."""

from __future__ import annotations

import functools
import re

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy

import dgraph  # noqa: E402
from dgraph.codegen import ir  # noqa: E402
from dgraph.codegen.ir import BinOp, Call, Const, Index, Name  # noqa: E402
from dgraph.codegen.tensor import numpy_strips  # noqa: E402
from dgraph.codegen.tensor.numpy_strips import Printed, stripped  # noqa: E402
from tests import jax_reference as jref  # noqa: E402

from .test_numpy_form import minsurf  # noqa: E402  (the COPS minimal surface, 3 x 3)


def rosenbrock(x):
    return jnp.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def lagrangian(x):
    f0 = 0.5 * jnp.sum((x - 1.0) ** 2)
    return jnp.concatenate([f0[None], x[:-2] * x[1:-1] + jnp.exp(x[2:]) + 2.0 * x[:-2]])


def band(x):
    return jnp.sum(3.0 * (x[2:] - 0.5 * x[:-2] * x[1:-1]) ** 2) + jnp.sum(7.0 * jnp.sin(x) ** 4)


CASES = {  # the function, its unknowns, weights (a vector output)
    "rosenbrock": (rosenbrock, 23, None),
    "lagrangian": (lagrangian, 21, np.linspace(0.5, 1.5, 20)),
    "band": (band, 25, None),
    "minsurf": (minsurf, 9, None),
}


def _lower(H) -> str:
    text = H.gradient.generated.text
    end = "def _jacobian_tril_values" if "def _jacobian_tril_values" in text else "def jacobian("
    return text[text.index("def _jacobian_lower") : text.index(end)]


def _hessian(name: str, **strips):
    """The case's sparse Hessian built with ``numpy_strips``' settings ``strips``."""
    f, n, v = CASES[name]
    x = np.random.default_rng(n).uniform(0.1, 0.6, n)
    with pytest.MonkeyPatch.context() as m:
        for setting, value in strips.items():
            m.setattr(numpy_strips, setting, value)
        return dgraph.make_function(f, "hessian", point=[x], weights=v, sparse=True)


@functools.cache
def _blocked(name: str, block: int):
    """The Hessian with its run done by blocks of ``block`` entries (from 4 entries, one
    vector kept in the kernel enough), built once per module (the settings are read at
    the build, never at a call)."""
    return _hessian(name, FROM=4, LOCAL=1, BLOCK=block)


@functools.cache
def _plain(name: str):
    """The same Hessian without blocks, built once per module."""
    return _hessian(name, FROM=10**12)


def _both(name, block):
    """The Hessian by blocks of ``block`` entries and the same without blocks."""
    H, P = _blocked(name, block), _plain(name)
    assert "_strips(" not in P.gradient.generated.text
    return H, P


@functools.cache
def _reference(name: str) -> np.ndarray:
    """JAX's Hessian (of the weighted sum for a vector output) at the case's second
    point, jitted, once per case (read-only)."""
    f, n, v = CASES[name]
    x2 = np.random.default_rng(n + 1).uniform(0.1, 0.6, n)
    with jax.enable_x64(True):
        g = f if v is None else (lambda x: jnp.dot(jnp.asarray(v), f(x)))
        ref = np.asarray(jref.hessian(g)(jnp.asarray(x2)))
    ref.flags.writeable = False
    return ref


def _same(H, P, args) -> None:
    """Pattern and values (both functions of the module) bit for bit."""
    h, p = H(*args), P(*args)
    np.testing.assert_array_equal(h.indices, p.indices)
    np.testing.assert_array_equal(h.indptr, p.indptr)
    assert np.array_equal(h.data.view(np.int64), p.data.view(np.int64))
    t, tp = H.gradient.generated.tril(*args), P.gradient.generated.tril(*args)
    assert np.array_equal(np.asarray(t.data).view(np.int64), np.asarray(tp.data).view(np.int64))


@pytest.mark.parametrize("block", [3, 8])
@pytest.mark.parametrize("name", list(CASES))
def test_blocks_change_no_double(name, block):
    """Rosenbrock's run and assembly in the kernel (its values the one whole vector);
    the Lagrangian's and the band's runs (an ``exp``, a ``sin``) by blocks; the minimal
    surface (a grid, 2-D input) as it was; all bit for bit, and JAX's Hessian."""
    H, P = _both(name, block)
    _, n, v = CASES[name]
    x2 = np.random.default_rng(n + 1).uniform(0.1, 0.6, n)
    args = (x2,) if v is None else (x2, v)
    _same(H, P, args)
    body = _lower(H)
    if name == "minsurf":
        assert "_strips(" not in H.gradient.generated.text
    else:  # runs of n - 1 and n - 2 entries: no multiple of 3 or 8
        assert f"_strips(_strip, {n - 1 if name == 'rosenbrock' else n - 2}, {block})" in body
    if name == "rosenbrock":
        assert body.count("numpy.empty(") == 1  # the values alone: the assembly in the kernel
        kernel = body[body.index("def _strip(") : body.index("_strips(_strip")]
        assert "out=t14[3 * _lo:3 * _hi:3])" in kernel  # the diagonal, its constants added
        assert "t14[1 + 3 * _lo:1 + 3 * _hi:3] = t9" in kernel  # the mirror, from t9
    ref = _reference(name)
    np.testing.assert_allclose(H(*args).toarray(), ref, rtol=1e-12, atol=1e-12 * abs(ref).max())


@pytest.mark.parametrize("threads", ["1", "2", "3", "9"])
def test_the_values_do_not_depend_on_the_threads(threads, monkeypatch):
    """DGRAPH_NUM_THREADS splits the blocks (8 of 3 entries, the last 1) over threads: the
    same doubles as the body without blocks, for any count (more than blocks: one each)."""
    H, P = _both("rosenbrock", 3)
    x2 = np.random.default_rng(9).uniform(0.1, 0.6, CASES["rosenbrock"][1])
    monkeypatch.setenv("DGRAPH_NUM_THREADS", threads)
    _same(H, P, (x2,))
    values = [H(x2).data for _ in range(3)]
    assert all(np.array_equal(values[0], w) for w in values)


@pytest.mark.parametrize("asked", ["two", "-2", "1.5"])
def test_a_thread_count_that_is_no_count_is_refused_in_one_line(asked, monkeypatch):
    """A DGRAPH_NUM_THREADS that is not a count stops the call with one line naming it,
    never a traceback from int() nor a silent serial run."""
    H, _ = _both("rosenbrock", 3)
    x2 = np.random.default_rng(9).uniform(0.1, 0.6, CASES["rosenbrock"][1])
    monkeypatch.setenv("DGRAPH_NUM_THREADS", asked)
    with pytest.raises(ValueError, match=f"DGRAPH_NUM_THREADS is '{re.escape(asked)}'"):
        H(x2)


def test_past_from_rosenbrock_is_done_by_blocks_as_generated(monkeypatch):
    """At the default sizes (a run of FROM entries and more, not a multiple of BLOCK):
    the diagonal a vector of the block, its + 200 added where it lies in the block, then
    written; the assembly's own blocked loop gone; bit for bit the body without blocks."""
    n = numpy_strips.FROM + 7
    x = np.random.default_rng(2).uniform(0.5, 1.5, n)
    H = dgraph.make_function(rosenbrock, "hessian", point=[x], sparse=True)
    body = _lower(H)
    assert f"_strips(_strip, {n - 1}, {numpy_strips.BLOCK})" in body
    assert body.count("numpy.empty(") == 1 and "for _lo in range" not in body
    assert f"if _lo < {n - 1} and 1 < _hi:" in body and "numpy.add(_v, 200.0, out=_v)" in body
    assert "t14[3 * _lo:3 * _hi:3] = _p0" in body  # the diagonal written after its + 200
    monkeypatch.setattr(numpy_strips, "FROM", 10**12)
    plain = dgraph.make_function(rosenbrock, "hessian", point=[x], sparse=True)
    assert "for _lo in range" in _lower(plain)
    _same(H, plain, (np.random.default_rng(3).uniform(0.5, 1.5, n),))


def _printed(target, value, dead=()):
    return Printed(target, value, [f"    {target} = ..."], list(dead), ir.names_in(value))


def test_a_statement_not_entry_by_entry_ends_the_run(monkeypatch):
    """A reduction ends the run; a vector read after it stays whole (written by blocks);
    a run below FROM entries, or with too few vectors kept in the kernel, is declined."""
    shapes = {"u_": (10,), "a": (9,), "b": (9,), "c": (9,), "d": (9,), "e": (), "f": (9,)}
    body = [
        _printed("a", Index(Name("u_"), (ir.Slice(1, 10),))),
        _printed("b", BinOp("**", Name("a"), Const(2))),
        _printed("c", Call("multiply", (Const(3.0), Name("b")), (("out", Name("b")),))),
        _printed("d", Call("exp", (Name("a"),)), dead=["a"]),
        _printed("e", Call("sum", (Name("c"),)), dead=["c"]),
        _printed("f", BinOp("*", Name("d"), Name("e")), dead=["d", "e"]),
    ]
    assert stripped(body, {"f"}, shapes) is None  # 9 entries: below FROM
    monkeypatch.setattr(numpy_strips, "FROM", 4)
    assert stripped(body, {"f"}, shapes) is None  # b alone stays in the kernel: below LOCAL
    monkeypatch.setattr(numpy_strips, "LOCAL", 1)
    lines = stripped(body, {"f"}, shapes)
    assert lines is not None
    text = "\n".join(lines)
    assert "c = numpy.empty(9)" in text and "d = numpy.empty(9)" in text
    assert "b = numpy.empty" not in text and "a = u_[1 + _lo:1 + _hi]" in text
    assert "c[_lo:_hi] = numpy.multiply(3.0, b, out=b)" in text
    assert "d[_lo:_hi] = numpy.exp(a)" in text and "_strips(_strip, 9, " in text
    assert lines[-4:] == ["    e = ...", "    del c", "    f = ...", "    del d, e"]
