"""Hessians in C and CUDA (issue 55, dgraph.codegen.hessian_native): an array function's
value_gradient_hessian from one compiled C call, dense, CSR and lower triangle; its hvp,
the gradient graph's tangent sweep in C and as CUDA kernels; its CUDA kernels run through
their host build; a graph of scalars' CUDA kernels writing the symmetric H (loaded here
through the host build in place of CuPy); the CLI's .cu files; values against
jax.hessian or jax.jvp(jax.grad(f)) (or sympy) at the user's point and a random one."""

from __future__ import annotations

import ctypes
import functools
import re
import shutil
import subprocess

import numpy as np
import pytest
import scipy.sparse

jax = pytest.importorskip("jax")
jnp = jax.numpy

import dgraph  # noqa: E402
import dgraph.codegen.hessian_native as native  # noqa: E402
from dgraph.cli import main  # noqa: E402
from dgraph.codegen.c import compiler  # noqa: E402
from dgraph.codegen.cuda import compile_host, cxx_compiler, load_cuda_host, metadata  # noqa: E402
from dgraph.codegen.tensor.c_values import read_index_file  # noqa: E402
from dgraph.errors import DGraphError  # noqa: E402
from dgraph.frontends import from_trace  # noqa: E402
from tests import jax_reference as jref  # noqa: E402

needs_cc = pytest.mark.skipif(compiler() is None, reason="no C compiler")
needs_cxx = pytest.mark.skipif(cxx_compiler() is None, reason="no C++ compiler")
needs_nvcc = pytest.mark.skipif(shutil.which("nvcc") is None, reason="no nvcc")

N = 6
X = np.random.default_rng(5).uniform(-1.0, 1.0, N)  # the user's point
Z = np.random.default_rng(6).uniform(-1.0, 1.0, N)  # another one
DOMAIN_11 = "inputs: x, y\noutputs: f\nv1 = x*y\nv2 = sin(x)\nf = v1 + v2"
TWO_OUTPUTS = "inputs: x, y\noutputs: f, h\nf = x*y\nh = sin(x)*y*y"
POINTS = np.array([[0.5, 0.3], [1.0, 2.0], [-0.2, 0.7]])


def coupled(x):
    """Rosenbrock's chain with a product coupling two neighbours further on."""
    chain = jnp.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)
    return chain + jnp.sum(jnp.sin(x[:-2] * x[2:]))


def constraints(x):
    return x[:-2] * x[1:-1] + jnp.exp(x[2:]) + 2.0 * x[:-2] - x[1:-1]


def _jax(f, x):
    """f, ∇f and H of ``f`` at ``x`` by JAX, in doubles: one jitted program per function
    (tests/jax_reference.py), or its stored values."""
    with jax.enable_x64(True):
        f_, g, h = jref.value_gradient_hessian(f)(jnp.asarray(x))
        return float(f_), np.asarray(g), np.asarray(h)


@functools.cache
def _hvp_program(f, weighted):
    """H·t of ``f`` (of ``vᵀf`` where weighted) by JAX, jvp(grad(f)), jitted once."""
    if not weighted:
        return jax.jit(lambda x, t: jax.jvp(jax.grad(f), (x,), (t,))[1])
    return jax.jit(lambda x, t, v: jax.jvp(jax.grad(lambda y: v @ f(y)), (x,), (t,))[1])


def _hvp_reference(f, x, t, v=None):
    """H·t of ``f`` (of ``vᵀf`` with weights ``v``) at ``x`` by JAX: jvp(grad(f))."""
    with jax.enable_x64(True):
        args = [jnp.asarray(a) for a in (x, t) + (() if v is None else (v,))]
        return np.asarray(_hvp_program(f, v is not None)(*args))


def two_arrays(x, y):
    """Two arguments, written with NumPy (traced, read back through jax.numpy)."""
    return np.sum(np.sin(x) * y[:3]) + np.sum(y**3) * x[0]


def _domain_11(p):
    return np.array([[-np.sin(p[0]), 1.0], [1.0, 0.0]])


@functools.cache
def _c_value_gradient_hessian():
    return dgraph.make_function(coupled, "value_gradient_hessian", "c", point=[X], sparse=True)


@needs_cc
def test_c_value_gradient_hessian_of_an_array_function_is_jax_s():
    V = _c_value_gradient_hessian()
    assert V.lang == "c" and V.generated.verified
    assert "double *restrict value" in V.source  # (f, ∇f) from the same C function
    for point in (X, Z):
        f, g, h = V(point)
        f_ref, g_ref, h_ref = _jax(coupled, point)
        assert isinstance(h, scipy.sparse.csr_array) and h.shape == (N, N)
        assert h.nnz == 3 * N - 2 + 2 * (N - 2)  # the chain's band and the coupling
        assert np.array_equal(h.toarray(), h.toarray().T)  # symmetric by construction
        np.testing.assert_allclose(float(f), f_ref, rtol=1e-13)
        np.testing.assert_allclose(g, g_ref, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(h.toarray(), h_ref, rtol=1e-12, atol=1e-12)


@needs_cc
def test_c_dense_and_lower_triangle_hessians():
    H = dgraph.make_function(coupled, "hessian", "c", point=[X])
    h_ref = _jax(coupled, Z)[2]
    assert H.generated.verified and isinstance(H(Z), np.ndarray)
    np.testing.assert_allclose(H(Z), h_ref, rtol=1e-12, atol=1e-12)
    V = dgraph.make_function(coupled, "value_gradient_hessian", "c", point=[X], tril=True)
    f, g, lower = V(Z)
    np.testing.assert_allclose(lower, np.tril(h_ref), rtol=1e-12, atol=1e-12)
    f_ref, g_ref, _ = _jax(coupled, Z)
    np.testing.assert_allclose([float(f), *g], [f_ref, *g_ref])


@functools.cache
def _c_hvp():
    return dgraph.make_function(coupled, "hvp", "c", point=[X])


@needs_cc
def test_c_hvp_of_an_array_function_is_jax_s_jvp_of_its_gradient():
    hvp = _c_hvp()
    assert hvp.lang == "c" and hvp.generated.verified and hvp.generated.method == "tangent"
    assert "void jvp(" in hvp.source and "jacobian_values" not in hvp.source  # H never formed
    assert "JAX's jvp at the user's point" in hvp.generated.check.detail
    t = np.linspace(-1.0, 1.0, N)
    for point in (X, Z):
        np.testing.assert_allclose(
            hvp(point, t), _hvp_reference(coupled, point, t), rtol=1e-12, atol=1e-12
        )
    # a Lagrangian's: hvp(x, v, t), the weights taken per call
    lam, other = np.linspace(0.5, 1.5, N - 2), np.linspace(2.0, -1.0, N - 2)
    lagrangian = dgraph.make_function(constraints, "hvp", "c", point=[X], weights=lam)
    assert lagrangian.generated.verified
    expected = _hvp_reference(constraints, Z, t, other)
    np.testing.assert_allclose(lagrangian(Z, other, t), expected, rtol=1e-12, atol=1e-12)


def softplus_of_a_shift(w):
    """softplus(w[:-1] + w[-1]): its tangent sweep fills an array with ``1.0 * (1)``."""
    return jnp.sum(jnp.logaddexp(0.0, w[:-1] + w[-1]))


@needs_cc
def test_c_hvp_whose_fill_value_is_an_operation_on_numbers():
    """The sweep prints a fill value as ``numpy.full((n,), 1.0 * (1))`` (a product with a
    formula of no operands): C refused it as "not a literal" (hessian_methods_survey's
    logistic loss), now the number is folded as NumPy rounds it."""
    point = np.array([0.2, -0.4, 0.1])
    hvp = dgraph.make_function(softplus_of_a_shift, "hvp", "c", point=[point])
    assert hvp.generated.verified
    t = np.array([1.0, -2.0, 0.5])
    for x in (point, np.array([-1.1, 0.3, 0.8])):
        want = _hvp_reference(softplus_of_a_shift, x, t)
        np.testing.assert_allclose(hvp(x, t), want, rtol=1e-12, atol=1e-12)


@needs_cc
def test_c_hvp_of_two_numpy_arguments_is_a_tuple_of_their_blocks():
    x, y = np.linspace(0.5, 1.5, 3), np.linspace(-1.0, 1.0, 4)
    hvp = dgraph.make_function(two_arrays, "hvp", "c", point=[x, y])
    tx, ty = np.array([1.0, 2.0, 3.0]), np.array([0.5, -1.0, 0.0, 2.0])
    got = hvp(x, y, tx, ty)
    with jax.enable_x64(True):
        reference = lambda x, y: jnp.sum(jnp.sin(x) * y[:3]) + jnp.sum(y**3) * x[0]  # noqa: E731
        jax_hvp = jax.jit(lambda p, t: jax.jvp(jax.grad(reference, argnums=(0, 1)), p, t)[1])
        expected = jax_hvp((x, y), (tx, ty))
    assert hvp.generated.verified and isinstance(got, tuple) and len(got) == 2
    for part, want in zip(got, expected, strict=True):
        np.testing.assert_allclose(part, np.asarray(want), rtol=1e-12, atol=1e-12)


@needs_cc
def test_c_hvp_through_a_pad_prints_the_selection_s_ones():
    """jnp.pad's block in the tangent sweep is a selection of ones (numpy.ones in the
    NumPy hvp), which the C printer fills as any constant."""

    def padded(x):
        p = jnp.pad(x, 1)
        return jnp.sum(jnp.sin(p[1:] * p[:-1]))

    hvp = dgraph.make_function(padded, "hvp", "c", point=[X])
    t = np.linspace(1.0, 2.0, N)
    assert hvp.generated.verified
    np.testing.assert_allclose(hvp(Z, t), _hvp_reference(padded, Z, t), rtol=1e-12, atol=1e-12)


@functools.cache
def _cuda_hvp():
    lam = np.linspace(0.5, 1.5, N - 2)
    return dgraph.make_function(constraints, "hvp", "cuda", point=[X], weights=lam)


@needs_cxx
def test_cuda_hvp_of_an_array_function_runs_its_kernels_host_build():
    hvp = _cuda_hvp()
    assert hvp.lang == "cuda" and hvp.generated.verified
    assert "__global__" in hvp.source and "jvp_launch" in hvp.source
    assert "hessian_mirror" not in hvp.source  # H·t: no matrix to mirror
    t, other = np.arange(N, dtype=float), np.linspace(-1.0, 1.0, N - 2)
    expected = _hvp_reference(constraints, Z, t, other)
    np.testing.assert_allclose(hvp(Z, other, t), expected, rtol=1e-12, atol=1e-12)


@functools.cache
def _cuda_hessian():
    return dgraph.make_function(coupled, "hessian", "cuda", point=[X], sparse=True)


@needs_cxx
def test_cuda_hessian_of_an_array_function_runs_its_kernels_host_build():
    H = _cuda_hessian()
    assert H.lang == "cuda" and H.generated.verified
    assert "__global__" in H.source and "hessian_mirror_launch" in H.source
    h = H(Z)
    assert np.array_equal(h.toarray(), h.toarray().T)
    np.testing.assert_allclose(h.toarray(), _jax(coupled, Z)[2], rtol=1e-12, atol=1e-12)
    # a Lagrangian's, the weights taken per call, its lower triangle
    x0, lam = np.linspace(0.5, 1.5, 7), np.linspace(-1.0, 1.0, 5)
    V = dgraph.make_function(
        constraints, "value_gradient_hessian", "cuda", point=[x0], weights=lam, tril=True
    )
    assert V.lang == "cuda" and "__restrict__ value" in V.source  # (f, ∇f) from the kernels
    other = np.linspace(2.0, -1.0, 5)
    f, g, lower = V(x0, other)
    f_ref, g_ref, h_ref = _jax(lambda x: other @ constraints(x), x0)
    np.testing.assert_allclose(float(f), f_ref, rtol=1e-13)
    np.testing.assert_allclose(g, g_ref, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(lower, np.tril(h_ref), rtol=1e-12, atol=1e-12)


@needs_nvcc
def test_nvcc_compiles_the_cuda_hessians(tmp_path):
    scalar = native.cuda_scalar_hessian(
        dgraph.core.hessian_graph.hessian_graph(from_trace(DOMAIN_11)), "hessian"
    )
    (tmp_path / "scalar.cu").write_text(scalar.text)
    ptx = ["nvcc", "-std=c++17", "-ptx", "-arch=sm_80", "-o", str(tmp_path / "s.ptx")]
    done = subprocess.run([*ptx, str(tmp_path / "scalar.cu")], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    (tmp_path / "array.cu").write_text(_cuda_hessian().source)
    objects = ["nvcc", "-arch=sm_80", "-c", "-o", str(tmp_path / "a.o")]
    done = subprocess.run([*objects, str(tmp_path / "array.cu")], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    (tmp_path / "hvp.cu").write_text(_cuda_hvp().source)  # an array function's H·t kernels
    objects[-1] = str(tmp_path / "h.o")
    done = subprocess.run([*objects, str(tmp_path / "hvp.cu")], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


@pytest.fixture
def host_gpu(monkeypatch):
    """CuPy's loader replaced by the host build: the same functions, run on the CPU."""
    monkeypatch.setattr(native, "load_cuda", load_cuda_host)


@needs_cxx
def test_a_graph_of_scalars_cuda_hessian_is_symmetric_in_both_layouts(host_gpu):
    g = from_trace(DOMAIN_11)
    H = dgraph.make_function(g, "hessian", "cuda")
    assert H.lang == "cuda" and H.generated.verified
    expected = np.stack([_domain_11(p) for p in POINTS])
    np.testing.assert_allclose(H(POINTS), expected, atol=1e-14)
    last = H(POINTS.T, layout="batch_last")
    np.testing.assert_array_equal(np.moveaxis(last, -1, 0), H(POINTS))
    # the upper entry stores the lower one's value: computed once
    body = H.source[H.source.index("void jacobian_point") :].split("}")[0]
    assert re.search(r"J\[s\] = (\w+);\n\s+J\[2\*s\] = \1;", body), body


@needs_cxx
def test_a_graph_of_scalars_cuda_value_gradient_hessian_and_hvp(host_gpu):
    g = from_trace(DOMAIN_11)
    V = dgraph.make_function(g, "value_gradient_hessian", "cuda")
    f, grad, h = V(POINTS)
    x, y = POINTS.T
    np.testing.assert_allclose(f, x * y + np.sin(x), atol=1e-14)
    np.testing.assert_allclose(grad, np.stack([y + np.cos(x), x], axis=1), atol=1e-14)
    np.testing.assert_allclose(h, np.stack([_domain_11(p) for p in POINTS]), atol=1e-14)
    hvp = dgraph.make_function(g, "hvp", "cuda")
    t = np.array([[1.0, 2.0], [0.5, -1.0], [3.0, 0.0]])
    expected = np.einsum("bij,bj->bi", np.stack([_domain_11(p) for p in POINTS]), t)
    np.testing.assert_allclose(hvp(POINTS, t), expected, atol=1e-14)


@needs_cxx
def test_a_graph_of_scalars_cuda_lagrangian_lower_triangle_values(host_gpu):
    """Sparse and lower: the values of the lower pattern, the weights per point."""
    H = dgraph.make_function(from_trace(TWO_OUTPUTS), "hessian", "cuda", sparse=True, tril=True)
    assert H.generated.verified
    meta = metadata(H.source)
    assert (meta["rows"], meta["cols"]) == ([0, 1, 1], [0, 0, 1])
    v = np.array([[2.0, 3.0], [-1.0, 0.5], [0.0, 1.0]])
    x, y = POINTS.T
    expected = np.stack(  # of v0·x·y + v1·sin(x)·y²: H[0, 0], H[1, 0], H[1, 1]
        [
            -v[:, 1] * np.sin(x) * y**2,
            v[:, 0] + 2 * v[:, 1] * np.cos(x) * y,
            2 * v[:, 1] * np.sin(x),
        ],
        axis=1,
    )
    np.testing.assert_allclose(H(POINTS, v), expected, atol=1e-13)


@pytest.mark.parametrize(
    ("call", "needle"),
    [
        (
            lambda: dgraph.make_function(coupled, "hvp", "c", point=[X], sparse=True),
            "sparse= and tril= are for the Hessian",
        ),
        (lambda: _c_hvp()(X), "hvp takes 2 arguments"),
        (
            lambda: dgraph.make_function(
                from_trace(DOMAIN_11), "value_gradient_hessian", "cuda", sparse=True
            ),
            "sparse=True is for mode hessian",
        ),
        (
            lambda: dgraph.make_function(coupled, "hvp", "cuda", point=[X], tril=True),
            "sparse= and tril= are for the Hessian",
        ),
    ],
)
def test_bad_input_is_one_line(call, needle):
    with pytest.raises(DGraphError) as raised:
        call()
    assert needle in str(raised.value) and "\n" not in str(raised.value)


def _pointer(a):
    return a.ctypes.data_as(ctypes.c_void_p)


@needs_cxx
def test_command_line_writes_cuda_hessians(tmp_path, monkeypatch, capsys):
    (tmp_path / "model.py").write_text(
        "import numpy as np\n\n\ndef rosenbrock(x):\n"
        "    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)\n"
    )
    (tmp_path / "d11.trace").write_text(DOMAIN_11 + "\n")
    monkeypatch.chdir(tmp_path)
    argv = ["codegen", "model.py:rosenbrock", "--inputs", f"x:{N}", "--mode", "hessian"]
    assert main([*argv, "--level", "array", "-o", "dense.cu"]) == 2  # sparse values
    assert "give --sparse" in capsys.readouterr().err and not (tmp_path / "dense.cu").exists()
    assert main([*argv, "--sparse", "-o", "hess.cu"]) == 0
    assert "hess.bin" in capsys.readouterr().out
    text = (tmp_path / "hess.cu").read_text()
    arrays = read_index_file(tmp_path / "hess.bin")
    indices, indptr, _ = (arrays.pop(k) for k in ("indices", "indptr", "shape"))
    lib = compile_host(text)  # the kernels' host build: one thread each, in launch order
    sizes = re.search(r"(\d+) double, (\d+) int32_t, (\d+) int64_t entries", text).groups()
    types = (np.float64, np.int32, np.int64)  # the scratch arrays, in the order listed
    scratch = [np.zeros(int(n), t) for n, t in zip(sizes, types, strict=True)]
    data = np.zeros(indices.size)
    x = np.ascontiguousarray(Z)
    constants = [np.ascontiguousarray(a) for a in arrays.values()]
    lib.jacobian_values_launch(*(_pointer(a) for a in [x, *constants, data, *scratch]), None)
    lib.hessian_mirror_launch(
        ctypes.c_longlong(N), _pointer(indptr), _pointer(indices), _pointer(data), None
    )
    h = scipy.sparse.csr_array((data, indices, indptr), shape=(N, N)).toarray()
    rosenbrock = lambda x: jnp.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)  # noqa: E731
    assert indices.size == 3 * N - 2 and np.array_equal(h, h.T)
    np.testing.assert_allclose(h, _jax(rosenbrock, Z)[2], rtol=1e-12, atol=1e-12)
    assert main(["codegen", "d11.trace", "--mode", "hessian", "-o", "d11.cu"]) == 0
    H = load_cuda_host(tmp_path / "d11.cu").jacobian(POINTS)
    np.testing.assert_allclose(H, np.stack([_domain_11(p) for p in POINTS]), atol=1e-14)
