"""jvp and vjp of tensor graphs (issue 41, item 4): the tangent and adjoint sweeps over the
blocks equal jax.jvp and jax.vjp of the same function in jax.numpy, never form J (their
text does not grow with the grid), and ``dgraph codegen`` writes them (and the Jacobian)
for a Python function traced at the array level or a dgraph/1 tensor graph file; the
linear MPC of FastDifferentiation.jl's issue #26 at a small N."""

from __future__ import annotations

import functools
import importlib.util
import re
import sys
from pathlib import Path

import numpy as np
import pytest

from dgraph.cli import main
from dgraph.codegen.function import make_function
from dgraph.codegen.python import load_python
from dgraph.codegen.tensor.sweeps import sweep_module
from dgraph.errors import DGraphError
from dgraph.frontends import from_function, from_jax, load
from dgraph.methods import accumulate

jax = pytest.importorskip("jax")
jnp = jax.numpy

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_codegen_arrays import GRAPHS, mlp, stencil_1d, stencil_2d  # noqa: E402

from tests import jax_reference as jref  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def _point(g, seed=7):
    rng = np.random.default_rng(seed)
    inputs = [rng.uniform(0.5, 1.5, g.shape(x)) for x in g.inputs]
    tangents = [rng.standard_normal(g.shape(x)) for x in g.inputs]
    cotangents = [rng.standard_normal(g.shape(y)) for y in g.outputs]
    return inputs, tangents, cotangents


def _close(got, expected):
    assert np.shape(got) == np.shape(expected)
    assert np.allclose(np.asarray(got), np.asarray(expected), rtol=1e-10, atol=1e-12)


@functools.cache
def _jax_jvp_and_vjp(build):
    """jax.jvp and jax.vjp of the graph's function at :func:`_point`, in one compiled
    program (eager, each primitive, its linearization and its transpose compile apart),
    once for both languages."""
    g, f = build()
    inputs, tangents, cotangents = _point(g)

    def both(primals, tangents, cotangent):
        _, pull = jax.vjp(f, *primals)
        return jax.jvp(f, primals, tangents)[1], pull(cotangent)

    with jax.enable_x64(True):
        arrays = [tuple(jnp.asarray(a) for a in part) for part in (inputs, tangents)]
        expected, bars = jax.jit(both)(*arrays, jnp.asarray(cotangents[0]))
    return np.asarray(expected), tuple(np.asarray(bar) for bar in bars)


@pytest.mark.parametrize("build", GRAPHS, ids=lambda b: b.__name__)
@pytest.mark.parametrize("lang", ["python", "jax"])
def test_jvp_and_vjp_equal_jax(build, lang):
    g, _ = build()
    inputs, tangents, cotangents = _point(g)
    jvp = make_function(g, "jvp", lang)
    vjp = make_function(g, "vjp", lang)
    for F in (jvp, vjp):
        assert F.generated.verified and "central differences" in F.generated.check.detail
        assert "expression set's blocks" in F.generated.check.detail
    expected, bars = _jax_jvp_and_vjp(build)
    with jax.enable_x64(True):
        runs = [(jvp, vjp)]
        if lang == "jax":
            runs.append((jax.jit(jvp), jax.jit(vjp)))  # jit-compatible
        for forward, backward in runs:
            _close(forward(*inputs, *tangents), expected)  # one output: its array
            got = backward(*inputs, *cotangents)  # a tuple over the inputs, one's array
            got = got if len(g.inputs) > 1 else (got,)
            assert isinstance(got, tuple) and len(got) == len(bars)
            for part, bar in zip(got, bars, strict=True):
                _close(part, bar)


def test_an_expression_set_checks_the_sweep():
    g, _ = mlp()
    es = accumulate(g, "markowitz")
    F = make_function(es, "vjp")
    assert "(markowitz;" in F.generated.check.detail and F.generated.method == "adjoint"
    assert F.generated.mults > 0


@pytest.mark.parametrize("build", [stencil_1d, stencil_2d], ids=["1-D", "2-D"])
@pytest.mark.parametrize("mode", ["jvp", "vjp"])
def test_sweep_text_does_not_grow_with_the_grid(build, mode):
    """One statement per operation and per edge: the same lines at two grid sizes."""
    texts = [sweep_module(build(n)[0], mode, "python").text for n in (6, 14)]
    bodies = [t[t.index(f"def {mode}") :] for t in texts]
    assert len(bodies[0].splitlines()) == len(bodies[1].splitlines())
    # no dense block anywhere: cuts, segment sums and vectors of at most 14 · 14 entries
    sizes = [int(n) for n in re.findall(r"_scatter\((\d+),", bodies[1])]
    assert all(n <= 14 * 14 for n in sizes)


def test_sweep_refusals():
    g, _ = mlp()
    with pytest.raises(DGraphError, match="--sparse is for the jacobian"):
        make_function(g, "vjp", sparse=True)
    with pytest.raises(DGraphError, match="--sparse is for the jacobian"):
        make_function(g, "vjp", "c", sparse=True)


def test_jvp_in_c_is_the_numpy_sweep_s():
    """The tangent sweep's statements printed in C (dgraph.codegen.tensor.c_values):
    J·v of the mlp layer equal to the NumPy jvp's and JAX's."""
    g, f = mlp()
    inputs, tangents, _ = _point(g)
    J = make_function(g, "jvp", "c")
    assert J.lang == "c" and J.generated.verified and "void jvp(" in J.source
    got = J(*inputs, *tangents)
    np.testing.assert_allclose(got, make_function(g, "jvp")(*inputs, *tangents), rtol=1e-13)
    with jax.enable_x64(True):
        expected = jax.jvp(f, tuple(inputs), tuple(tangents))[1]
    np.testing.assert_allclose(got, np.asarray(expected), rtol=1e-12, atol=1e-13)


def test_vjp_in_c_is_the_numpy_sweep_s():
    """The adjoint sweep's statements printed in C, and as CUDA kernels built on the host:
    wᵀ·J of the mlp layer equal to the NumPy vjp's and JAX's (the gradient of an
    objective in C was refused: "C code is ... a jvp, not vjp")."""
    g, f = mlp()
    inputs, _, _ = _point(g)
    rng = np.random.default_rng(5)
    cotangents = [rng.normal(size=g.shape(y)) for y in g.outputs]
    V = make_function(g, "vjp", "c")
    assert V.lang == "c" and V.generated.verified and "void vjp(" in V.source
    got = V(*inputs, *cotangents)
    numpy = make_function(g, "vjp")(*inputs, *cotangents)
    with jax.enable_x64(True):
        expected = jax.vjp(f, *inputs)[1](*cotangents)
    for mine, ours, theirs in zip(got, numpy, expected, strict=True):
        np.testing.assert_allclose(mine, ours, rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(mine, np.asarray(theirs), rtol=1e-12, atol=1e-13)
    host = V.generated.values.load_cuda_host()(*inputs, *cotangents)
    np.testing.assert_allclose(host, np.concatenate([np.ravel(a) for a in got]), rtol=1e-13)


def test_vjp_in_c_through_a_scan_under_checkpointing():
    """A scan's adjoint in C over a tape of all its states and under binomial
    checkpointing (``tape=3``): the same wᵀ·J as JAX's, and the loop's note says how."""
    import jax.numpy as jnp

    def rnn(h0, W):
        def step(h, _):
            h = jnp.tanh(W @ h) + 0.1 * h
            return h, jnp.sum(h**2)

        return jax.lax.scan(step, h0, None, length=40)

    args = [np.linspace(0.1, 0.5, 4), np.eye(4) * 0.3 + 0.05]
    g = from_jax(rnn, *args, level="array")
    w = [np.linspace(1.0, 2.0, 4), np.linspace(0.0, 1.0, 40)]
    with jax.enable_x64(True):
        expected = jax.vjp(rnn, *args)[1](tuple(w))
    for tape, how in ((None, "a tape of all 40 states"), (3, "binomial checkpointing")):
        V = make_function(g, "vjp", "c", tape=tape)
        assert V.generated.verified and how in V.generated.loops[0]
        for mine, theirs in zip(V(*args, *w), expected, strict=True):
            np.testing.assert_allclose(mine, np.asarray(theirs), rtol=1e-12, atol=1e-15)


# -- the command line ----------------------------------------------------------------------

MODEL = """import numpy as np


def residual(u, c):
    return np.exp(u[1:, :]) * u[:-1, :] + np.sum(c * u, axis=0)
"""


def _jax_model(u, c):
    return jnp.exp(u[1:, :]) * u[:-1, :] + jnp.sum(c * u, axis=0)


@pytest.mark.parametrize(
    ("mode", "lang", "sparse"),
    [
        ("jacobian", "python", False),
        ("jacobian", "jax", True),
        ("jvp", "python", False),
        ("jvp", "jax", False),
        ("vjp", "python", False),
        ("vjp", "jax", False),
    ],
)
def test_cli_codegen_of_a_python_function_at_the_array_level(tmp_path, capsys, mode, lang, sparse):
    (tmp_path / "model.py").write_text(MODEL)
    out = tmp_path / "out.py"
    argv = ["codegen", f"{tmp_path / 'model.py'}:residual", "--inputs", "u:5x3,c:5x3"]
    argv += ["--mode", mode, "--lang", lang, "-o", str(out), *(["--sparse"] if sparse else [])]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    assert f"{mode} of a tensor graph" in printed and "checked:" in printed
    module = load_python(out.read_text())
    assert module.INPUTS == ("u", "c") and module.SHAPES["u"] == (5, 3)
    rng = np.random.default_rng(3)
    u, c = rng.uniform(0.5, 1.5, (5, 3)), rng.uniform(0.5, 1.5, (5, 3))
    with jax.enable_x64(True):
        if mode == "jacobian":
            got = module.jacobian(u, c)  # one output, two inputs: a pair, as jax's
            expected = jref.jacfwd(_jax_model, argnums=(0, 1))(u, c)  # stored
            assert isinstance(got, tuple) and len(got) == 2
            if sparse:  # one matrix: the 12 residuals by u's and c's 15 entries each
                whole = module.jacobian_stacked(u, c)
                assert whole.shape == (12, 30) and got[0].shape == (12, 15)
                flat = np.hstack([np.asarray(e).reshape(12, 15) for e in expected])
                _close(np.asarray(whole.todense()), flat)
            for block, e in zip(got, expected, strict=True):
                dense = np.asarray(block.todense()) if sparse else np.asarray(block)
                _close(dense.reshape(e.shape), e)
        elif mode == "jvp":
            du, dc = rng.standard_normal((5, 3)), rng.standard_normal((5, 3))
            _, expected = jax.jvp(_jax_model, (u, c), (du, dc))
            _close(module.jvp(u, c, du, dc), expected)  # one output: its array
        else:
            y, pull = jax.vjp(_jax_model, u, c)
            w = rng.standard_normal(y.shape)
            got = module.vjp(u, c, w)  # two inputs: a pair, as the pullback's
            assert isinstance(got, tuple) and len(got) == 2
            for bar, ref in zip(got, pull(w), strict=True):
                _close(bar, ref)


def test_cli_codegen_of_a_tensor_graph_file(tmp_path, capsys):
    (tmp_path / "model.py").write_text(MODEL)
    g = load(f"{tmp_path / 'model.py'}:residual", inputs="u:4x3,c:4x3")
    (tmp_path / "graph.json").write_text(g.to_json())
    out = tmp_path / "jvp.py"
    argv = ["codegen", str(tmp_path / "graph.json"), "--mode", "jvp", "-o", str(out), "--json"]
    assert main(argv) == 0
    import json

    summary = json.loads(capsys.readouterr().out)
    assert summary["tensor"] and summary["verified"] and summary["method"] == "tangent"
    u, c = np.full((4, 3), 0.5), np.full((4, 3), 2.0)
    du, dc = np.ones((4, 3)), np.zeros((4, 3))
    with jax.enable_x64(True):
        _, expected = jax.jvp(_jax_model, (u, c), (du, dc))
    _close(load_python(out.read_text()).jvp(u, c, du, dc), expected)


# -- the linear MPC of FastDifferentiation.jl's issue #26 ---------------------------------


def _mpc():
    spec = importlib.util.spec_from_file_location("mpc", ROOT / "benchmarks" / "mpc.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_mpc_jacobian_and_jvp_equal_jax_and_the_graph_does_not_grow():
    mpc = _mpc()
    nx, nu = 6, 3
    graphs = {
        n: from_function(mpc.make_residuals(nx, nu), sizes=mpc.shapes(n, nx, nu), level="array")
        for n in (4, 9)
    }
    assert len(graphs[4].nx) == len(graphs[9].nx) and graphs[4].n_edges == graphs[9].n_edges
    g, n = graphs[4], 4
    rng = np.random.default_rng(5)
    point = [rng.standard_normal(s) for s in mpc.shapes(n, nx, nu)]
    tangent = [rng.standard_normal(s) for s in mpc.shapes(n, nx, nu)]
    F = make_function(g, "jacobian", sparse=True)
    blocks = F(*point)  # one output, three inputs: a tuple of three (y.size, x.size) blocks
    J = F.stacked(*point)  # outputs by inputs, one matrix
    jv = make_function(g, "jvp", "jax")
    f = mpc.make_residuals(nx, nu, jnp)
    with jax.enable_x64(True):
        dense = jref.jacfwd(f, argnums=(0, 1, 2))(*point)  # stored
        _, expected = jax.jvp(f, tuple(point), tuple(tangent))
        _close(jv(*point, *tangent), expected)
    whole = np.hstack([np.asarray(d).reshape((n + 1) * nx, -1) for d in dense])
    _close(J.toarray(), whole)
    assert len(blocks) == 3
    for block, d in zip(blocks, dense, strict=True):
        _close(block.toarray(), np.asarray(d).reshape((n + 1) * nx, -1))
    # the sparse Jacobian holds the structure: I and -A per step, -B per input, -I for x0
    assert J.nnz == (n + 1) * nx + n * nx * nx + n * nx * nu + nx
