"""A NumPy Hessian body's elementwise run done block by block
(``dgraph/codegen/tensor/numpy_strips.py``): the values bit for bit those of the body as
printed without blocks, whatever the block size and the number of threads."""

from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy

import dgraph  # noqa: E402
from dgraph.codegen.tensor import numpy_assembly, numpy_strips  # noqa: E402


def rosenbrock(x):
    return jnp.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def lagrangian(x):
    f0 = 0.5 * jnp.sum((x - 1.0) ** 2)
    return jnp.concatenate([f0[None], x[:-2] * x[1:-1] + jnp.exp(x[2:]) + 2.0 * x[:-2]])


def band(x):
    return jnp.sum(3.0 * (x[2:] - 0.5 * x[:-2] * x[1:-1]) ** 2) + jnp.sum(7.0 * jnp.sin(x) ** 4)


def minsurf(x):
    h = 1.0 / 4
    p = jnp.pad(jnp.reshape(x, (3, 3)), 1)
    dx_low, dy_low = (p[1:, :-1] - p[:-1, :-1]) / h, (p[:-1, 1:] - p[:-1, :-1]) / h
    dx_up, dy_up = (p[1:, 1:] - p[:-1, 1:]) / h, (p[1:, 1:] - p[1:, :-1]) / h
    area = jnp.sqrt(1.0 + dx_low**2 + dy_low**2) + jnp.sqrt(1.0 + dx_up**2 + dy_up**2)
    return 0.5 * h * h * jnp.sum(area)


CASES = {
    "rosenbrock": (rosenbrock, 23, None),
    "lagrangian": (lagrangian, 21, np.linspace(0.5, 1.5, 20)),
    "band": (band, 25, None),
    "minsurf": (minsurf, 9, None),
}


def _lower(H) -> str:
    text = H.gradient.generated.text
    end = "def _jacobian_tril_values" if "def _jacobian_tril_values" in text else "def jacobian("
    return text[text.index("def _jacobian_lower") : text.index(end)]


def _both(name, monkeypatch, block, blocked_assembly):
    """The Hessian with its run done by blocks of ``block`` entries (from 4 entries, one
    vector kept in the kernel enough) and the same without blocks."""
    f, n, v = CASES[name]
    x = np.random.default_rng(n).uniform(0.1, 0.6, n)
    if blocked_assembly:  # the assembly's own blocked writes (a loop the kernel takes in)
        monkeypatch.setattr(numpy_assembly, "BLOCK", 4)
        monkeypatch.setattr(numpy_assembly, "BLOCKED", 8)
    monkeypatch.setattr(numpy_strips, "FROM", 4)
    monkeypatch.setattr(numpy_strips, "LOCAL", 1)
    monkeypatch.setattr(numpy_strips, "BLOCK", block)
    H = dgraph.make_function(f, "hessian", point=[x], weights=v, sparse=True)
    monkeypatch.setattr(numpy_strips, "FROM", 10**12)
    P = dgraph.make_function(f, "hessian", point=[x], weights=v, sparse=True)
    assert "_strips(" not in P.gradient.generated.text
    return H, P


def _same(H, P, args) -> None:
    h, p = H(*args), P(*args)
    np.testing.assert_array_equal(h.indices, p.indices)
    assert np.array_equal(h.data.view(np.int64), p.data.view(np.int64))  # bit for bit
    t, tp = H.gradient.generated.tril(*args), P.gradient.generated.tril(*args)
    assert np.array_equal(t.data.view(np.int64), tp.data.view(np.int64))


@pytest.mark.parametrize("blocked_assembly", [False, True])
@pytest.mark.parametrize("block", [3, 8])
@pytest.mark.parametrize("name", list(CASES))
def test_blocks_change_no_double(name, block, blocked_assembly, monkeypatch):
    """Rosenbrock's whole body but the constant corner in the kernel (no whole vector but
    the values); the Lagrangian's and the band's runs (an ``exp``, a ``sin``) by blocks;
    the minimal surface (a grid, 2-D input) as it was; all bit for bit."""
    H, P = _both(name, monkeypatch, block, blocked_assembly)
    f, n, v = CASES[name]
    x2 = np.random.default_rng(n + 1).uniform(0.1, 0.6, n)
    args = (x2,) if v is None else (x2, v)
    _same(H, P, args)
    body = _lower(H)
    if name == "minsurf":
        assert "_strips(" not in H.gradient.generated.text
    else:
        assert f"_strips(_strip, {n - 1 if name == 'rosenbrock' else n - 2}, {block})" in body
    if name == "rosenbrock":
        assert body.count("numpy.empty(") == 1  # the values alone: the assembly in the kernel
        kernel = body[body.index("def _strip(") : body.index("_strips(_strip")]
        assert "[3 * _lo:3 * _hi:3]" in kernel and "[1 + 3 * _lo:1 + 3 * _hi:3] = " in kernel
    with jax.enable_x64(True):
        g = f if v is None else (lambda x: jnp.dot(jnp.asarray(v), f(x)))
        ref = np.asarray(jax.jit(jax.hessian(g))(jnp.asarray(x2)))
    h = H(*args).toarray()
    np.testing.assert_allclose(h, ref, rtol=1e-12, atol=1e-12 * abs(ref).max())


@pytest.mark.parametrize("threads", ["1", "2", "3", "8"])
def test_the_values_do_not_depend_on_the_threads(threads, monkeypatch):
    """DGRAPH_NUM_THREADS splits the blocks (8 of 3 entries, the last 1) over threads: the
    same doubles as the body without blocks, for any count (more than blocks: one each)."""
    H, P = _both("rosenbrock", monkeypatch, 3, True)
    x2 = np.random.default_rng(9).uniform(0.1, 0.6, CASES["rosenbrock"][1])
    monkeypatch.setenv("DGRAPH_NUM_THREADS", threads)
    _same(H, P, (x2,))
    values = [H(x2).data for _ in range(3)]
    assert all(np.array_equal(values[0], w) for w in values)


def test_past_from_rosenbrock_is_done_by_blocks_as_generated():
    """At the default sizes (a run of FROM entries and more, blocks of BLOCK, the
    assembly's own blocked writes taken in): bit for bit the body without blocks."""
    n = numpy_strips.FROM + 7
    x = np.random.default_rng(2).uniform(0.5, 1.5, n)
    H = dgraph.make_function(rosenbrock, "hessian", point=[x], sparse=True)
    body = _lower(H)
    assert f"_strips(_strip, {n - 1}, {numpy_strips.BLOCK})" in body
    assert body.count("numpy.empty(") == 1 and "for _lo in range" not in body
    assert "numpy.add(_v, 200.0, out=_v)" in body  # the diagonal's + 200 where it is added
    plain = dgraph.make_function(rosenbrock, "hessian", point=[x], sparse=True)
    mp = pytest.MonkeyPatch()
    try:
        mp.setattr(numpy_strips, "FROM", 10**12)
        plain = dgraph.make_function(rosenbrock, "hessian", point=[x], sparse=True)
    finally:
        mp.undo()
    assert "for _lo in range" in _lower(plain)
    x2 = np.random.default_rng(3).uniform(0.5, 1.5, n)
    _same(H, plain, (x2,))


def test_a_statement_not_entry_by_entry_ends_the_run():
    """A reduction, a gather and a vector of another length are not taken in: the text
    after the run is the body's own."""
    lines = [
        "    u_ = numpy.reshape(numpy.asarray(u, dtype=float), (10,))",
        "    a = u_[1:10,]",
        "    b = a ** 2",
        "    c = numpy.multiply(3.0, b, out=b)",
        "    d = numpy.exp(a)",
        "    e = numpy.sum(c)",
        "    f = d * e",
    ]
    kept = numpy_strips.FROM, numpy_strips.LOCAL
    try:
        numpy_strips.FROM, numpy_strips.LOCAL = 4, 1
        out = numpy_strips.stripped(lines, {"f"})
    finally:
        numpy_strips.FROM, numpy_strips.LOCAL = kept
    text = "\n".join(out)
    assert "def _strip(_lo, _hi):" in text and out[-2:] == lines[-2:]
    assert "c = numpy.empty(9)" in text and "d = numpy.empty(9)" in text
    assert "numpy.multiply(3.0, b, out=c[_lo:_hi])" in text
    assert numpy_strips.stripped(lines, {"f"}) == lines  # 9 entries: below FROM
