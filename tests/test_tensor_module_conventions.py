"""The module ``dgraph codegen FILE -o out.py`` writes for an array-level function follows
JAX's conventions itself (issue 53, item 6): imported as a user imports it, its
``jacobian`` returns the pytree ``jax.jacobian(f, argnums=(0, 1))`` returns (a tuple over
the outputs of tuples over the inputs, dense arrays or SciPy CSR / BCOO blocks),
``value_and_jacobian`` the outputs as ``f`` returns them beside it, ``jvp`` and ``vjp``
what ``jax.jvp`` and ``jax.vjp``'s pullback return; ``make_function`` gives the same."""

from __future__ import annotations

import importlib.util
import platform
import subprocess
import sys
import uuid

import numpy as np
import pytest

from dgraph.cli import main
from dgraph.codegen.function import make_function
from dgraph.frontends import load

from .dense import dense as _dense

jax = pytest.importorskip("jax")
jnp = jax.numpy

MODEL = """import numpy as np


def residual(u, c):
    return np.exp(u[1:, :]) * u[:-1, :] + c, np.sin(c) * c
"""
INPUTS = "u:4x3,c:3"  # two outputs: (3, 3) and (3,); the second does not read u


def _jax_model(u, c):
    return jnp.exp(u[1:, :]) * u[:-1, :] + c, jnp.sin(c) * c


def _point(seed: int = 5):
    rng = np.random.default_rng(seed)
    return rng.uniform(0.5, 1.5, (4, 3)), rng.uniform(0.5, 1.5, 3)


def _written(tmp_path, capsys, mode: str, lang: str, sparse: bool):
    """The module ``dgraph codegen`` writes, imported from its file."""
    (tmp_path / "model.py").write_text(MODEL)
    out = tmp_path / f"out_{mode}_{lang}_{int(sparse)}.py"
    argv = ["codegen", f"{tmp_path / 'model.py'}:residual", "--inputs", INPUTS]
    argv += ["--mode", mode, "--lang", lang, "-o", str(out), *(["--sparse"] if sparse else [])]
    assert main(argv) == 0
    assert "checked:" in capsys.readouterr().out
    spec = importlib.util.spec_from_file_location(f"written_{uuid.uuid4().hex}", out)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _sparse(block) -> bool:
    return hasattr(block, "toarray") or hasattr(block, "todense")


# the references, jitted: one compilation each, not one per eager operation
_jacobian = jax.jit(jax.jacobian(_jax_model, argnums=(0, 1)))
_model = jax.jit(_jax_model)

MATRICES = [(9, 12), (9, 3), (3, 12), (3, 3)]  # (y.size, x.size): y0, y1 by u, c


def _same_tree(got, expected, sparse: bool) -> None:
    """``got`` has ``expected``'s pytree structure, each leaf its values: dense of the
    same shape, sparse (a Jacobian's blocks) a matrix of shape (y.size, x.size)."""
    structure = jax.tree.structure(got, is_leaf=_sparse)
    assert structure == jax.tree.structure(expected)
    leaves = jax.tree.leaves(got, is_leaf=_sparse)
    matrices = MATRICES if sparse else [None] * len(leaves)
    for leaf, ref, shape in zip(leaves, jax.tree.leaves(expected), matrices, strict=True):
        ref = np.asarray(ref)
        assert _sparse(leaf) == sparse
        assert leaf.shape == (ref.shape if shape is None else shape)
        np.testing.assert_allclose(_dense(leaf), ref.reshape(leaf.shape), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
@pytest.mark.parametrize("lang", ["python", "jax"])
def test_written_jacobian_is_jax_jacobian_pytree(tmp_path, capsys, lang, sparse):
    module = _written(tmp_path, capsys, "jacobian", lang, sparse)
    u, c = _point()
    with jax.enable_x64(True):
        expected = _jacobian(u, c)
        got = module.jacobian(u, c)
        _same_tree(got, expected, sparse)
        if lang == "jax" and not sparse:  # the module's function under jax.jit
            _same_tree(jax.jit(module.jacobian)(u, c), expected, sparse)
        if sparse:  # the stacked matrix: rows y0 then y1, columns u then c
            whole = _dense(module.jacobian_stacked(u, c))
            assert whole.shape == (12, 15)
            blocks = [[_dense(b) for b in row] for row in got]
            np.testing.assert_array_equal(whole, np.block(blocks))
        made = make_function(load(_model_path(tmp_path), inputs=INPUTS), sparse=sparse, lang=lang)
        _same_tree(made(u, c), expected, sparse)


def _model_path(tmp_path) -> str:
    return f"{tmp_path / 'model.py'}:residual"


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
@pytest.mark.parametrize("lang", ["python", "jax"])
def test_written_value_and_jacobian(tmp_path, capsys, lang, sparse):
    module = _written(tmp_path, capsys, "value_and_jacobian", lang, sparse)
    u, c = _point(6)
    with jax.enable_x64(True):
        value, got = module.value_and_jacobian(u, c)
        _same_tree(got, _jacobian(u, c), sparse)
        _same_tree(value, _model(u, c), False)  # the outputs as f returns them
        if sparse:  # and F flattened and concatenated in the stacked rows' order
            flat, whole = module.value_and_jacobian_stacked(u, c)
            np.testing.assert_allclose(flat, np.concatenate([np.ravel(v) for v in value]))
            assert whole.shape == (12, 15)


@pytest.mark.parametrize("lang", ["python", "jax"])
def test_written_jvp_and_vjp(tmp_path, capsys, lang):
    jvp = _written(tmp_path, capsys, "jvp", lang, False).jvp
    vjp = _written(tmp_path, capsys, "vjp", lang, False).vjp
    u, c = _point(7)
    rng = np.random.default_rng(8)
    du, dc = rng.standard_normal((4, 3)), rng.standard_normal(3)
    with jax.enable_x64(True):
        w = tuple(rng.standard_normal(np.shape(part)) for part in _model(u, c))
        expected, pulled = jax.jit(  # both references in one jitted program
            lambda: (
                jax.jvp(_jax_model, (u, c), (du, dc))[1],
                jax.vjp(_jax_model, u, c)[1](w),
            )
        )()
        _same_tree(jvp(u, c, du, dc), expected, False)  # a tuple over the outputs
        _same_tree(vjp(u, c, *w), pulled, False)  # a tuple over the inputs


def test_a_scalar_constant_is_printed_with_no_axes():
    """``numpy.ascontiguousarray`` makes a 0-d array 1-d: a scalar constant printed as
    ``[c]`` broadcast like a scalar in products but failed in an einsum whose subscripts
    give it no axis (the value program of ``3·dot(x[1:], x[:-1])``'s gradient)."""
    from dgraph.codegen.tensor.constants import Constants

    constants = Constants()
    name = constants.add(np.array(-3.0))
    assert constants.shapes[name.id] == () and constants.lines == [
        f"{name.id} = numpy.array(-3.0, dtype=numpy.float64)"
    ]
    jnp = jax.numpy

    def f(x):
        return jnp.sum(3 * x[:-1] * x[1:]) - 3 * jnp.dot(x[1:], x[:-1]) + jnp.sum(jnp.exp(x))

    x = np.linspace(0.1, 1.0, 6)
    _, gradient, hessian = make_function(f, "value_gradient_hessian", point=[x])(x)
    want_gradient, want_hessian = jax.jit(lambda x: (jax.grad(f)(x), jax.hessian(f)(x)))(x)
    np.testing.assert_allclose(hessian, want_hessian, atol=1e-12)
    np.testing.assert_allclose(gradient, want_gradient, atol=1e-12)


@pytest.mark.parametrize("shape", [(0,), (0, 2), (3, 0), (0, 0, 4)])
def test_an_empty_constant_keeps_its_shape(shape):
    """A literal's nested list of an empty array is ``[]`` whatever its shape: a BCOO's
    (0, 2) coordinates came back 1-d (a Hessian with no entry, made for JAX)."""
    from dgraph.codegen.tensor.constants import Constants

    constants = Constants()
    name = constants.add(np.zeros(shape, dtype=np.int32))
    (line,) = constants.lines
    made = eval(line.split(" = ", 1)[1], {"numpy": np})  # our own printed text
    assert made.shape == shape and made.dtype == np.int32 and name.id in line


_FAULTS = """import importlib.util, resource, sys
import numpy as np
spec = importlib.util.spec_from_file_location("m", sys.argv[1])
m = importlib.util.module_from_spec(spec)
spec.loader.exec_module(m)
x = np.linspace(0.5, 1.5, 40000)
m.jacobian(x)
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(20):
    m.jacobian(x)
print((resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) / 20)
"""


@pytest.mark.skipif(
    not sys.platform.startswith("linux") or platform.libc_ver()[0] != "glibc",
    reason="glibc's malloc thresholds",
)
def test_a_module_imported_by_a_fresh_process_does_not_fault_at_each_call(tmp_path):
    """A generated NumPy module (here the Hessian's: its gradient's ``jacobian``) frees a
    16 MiB array at import, so glibc's malloc keeps a call's temporaries (320 KB vectors)
    in its heap: a script that imports it pays
    no page faults a call. Without that line (the mutation) each call maps its
    temporaries again: hundreds of faults."""
    H = make_function(lambda x: jnp.sum(jnp.sin(x) * jnp.cos(x) ** 2), "hessian",
                      point=[np.linspace(0.5, 1.5, 40000)], sparse=True)  # fmt: skip
    line = "numpy.empty(1 << 21)\n"
    assert H.source.count(line) == 1

    def faults(text: str) -> float:
        path = tmp_path / f"m{uuid.uuid4().hex}.py"
        path.write_text(text)
        script = tmp_path / "faults.py"
        script.write_text(_FAULTS)
        done = subprocess.run([sys.executable, str(script), str(path)], capture_output=True,
                              text=True, check=True)  # fmt: skip
        return float(done.stdout.strip())

    assert faults(H.source) < 20
    assert faults(H.source.replace(line, "")) > 100
