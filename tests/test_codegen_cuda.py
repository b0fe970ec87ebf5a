"""CUDA code out: the .cu file's host build (g++ -DDGRAPH_HOST) agrees with sympy's
Jacobian in f64 and f32, its kernels' batch-first and batch-last index arithmetic gives the
point-by-point numbers bit for bit, nvcc finds f32 kernels free of f64 instructions, the
check catches a wrong file, and the loader's errors without CuPy or a GPU. The kernels
themselves run only where CuPy and a GPU are (skipped elsewhere)."""

from __future__ import annotations

import ctypes
import functools
import importlib
import importlib.util
import re
import shutil
import subprocess
import sys
import types
from importlib import resources

import numpy as np
import pytest
import sympy

import dgraph
from dgraph.bench.pendulum import n_link_pendulum
from dgraph.bench.realworld import REAL_WORLD
from dgraph.cli import main
from dgraph.codegen.cuda import (
    HOST_FLAGS,
    CudaPrinter,
    block_size,
    cuda_source,
    cxx_compiler,
    load_cuda,
    load_cuda_host,
    metadata,
)
from dgraph.codegen.generate import generate
from dgraph.codegen.python import load_python, python_module
from dgraph.errors import DGraphError, VerificationError
from dgraph.frontends import from_sympy

from .sympy_reference import complex_step_jacobian

generate_module = importlib.import_module("dgraph.codegen.generate")
needs_cxx = pytest.mark.skipif(cxx_compiler() is None, reason="no C++ compiler")
needs_nvcc = pytest.mark.skipif(shutil.which("nvcc") is None, reason="no nvcc")
SIN = str(resources.files("dgraph.data").joinpath("naumann_sin.trace"))
SPHERICAL = str(resources.files("dgraph.data").joinpath("spherical_coordinates.trace"))
FUNCTIONS = ["heart-dipole", "black-scholes"]  # among the fastest to generate
MODES = ("jacobian", "jvp", "vjp")


def _gpu() -> bool:
    if importlib.util.find_spec("cupy") is None:
        return False
    import cupy

    try:
        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:
        return False


needs_gpu = pytest.mark.skipif(not _gpu(), reason="needs CuPy and a CUDA GPU")


@functools.cache
def _generated(name: str):
    """The graph, its checked CUDA file (all modes, sparse) and the host build."""
    graph = REAL_WORLD[name]()
    gen = generate(graph, "cuda", "reverse", MODES, sparse=True)
    return graph, gen, load_cuda_host(gen.text)


def _stepped_jacobian(graph, points: np.ndarray) -> np.ndarray:
    """The Jacobian at ``points`` by the complex step of sympy's lambdified outputs."""
    return complex_step_jacobian(graph)(points)


def _close(actual, expected, rtol=1e-10):
    scale = max(1.0, float(np.abs(expected).max()))
    np.testing.assert_allclose(actual, expected, rtol=rtol, atol=rtol * scale)


@needs_cxx
@pytest.mark.parametrize("name", FUNCTIONS)
def test_host_build_agrees_with_sympy_in_f64_and_f32(name):
    graph, gen, host = _generated(name)
    assert gen.verified and gen.lang == "cuda"
    n, m = len(graph.inputs), len(graph.outputs)
    rng = np.random.default_rng(7)
    batch = 300  # more than one batch-first block, the last one partly filled
    x = rng.uniform(0.5, 1.5, size=(batch, n))
    v, w = rng.normal(size=(batch, n)), rng.normal(size=(batch, m))
    expected = _stepped_jacobian(graph, x)
    numpy_module = load_python(
        python_module(gen.programs, title=name, inputs=graph.inputs, outputs=graph.outputs)
    )
    jac = host.jacobian(x)
    assert jac.shape == (batch, m, n) and jac.dtype == np.float64
    _close(jac, expected)
    _close(host.jvp(x, v), np.einsum("bij,bj->bi", expected, v))
    _close(host.vjp(x, w), np.einsum("bi,bij->bj", w, expected))
    _close(host.primal(x), numpy_module.primal(x), 1e-13)
    _close(host.jacobian(x[3]), expected[3])  # a single point: (n,) -> (m, n)
    meta = metadata(gen.text)
    values = host.jacobian_values(x)
    assert values.shape == (batch, meta["nnz"])
    np.testing.assert_array_equal(values, jac[:, meta["rows"], meta["cols"]])
    # f32: computed in float, within float's rounding of the f64 numbers
    x32 = x.astype(np.float32)
    jac32 = host.jacobian(x32)
    assert jac32.dtype == np.float32
    reference = host.jacobian(x32.astype(np.float64))
    assert 0 < np.abs(jac32 - reference).max() / np.abs(reference).max() < 1e-5
    jvp32 = host.jvp(x32, v.astype(np.float32))
    assert jvp32.dtype == np.float32
    _close(jvp32, host.jvp(x32.astype(np.float64), v.astype(np.float32).astype(float)), 1e-4)


@needs_cxx
@pytest.mark.parametrize("name", FUNCTIONS)
def test_kernel_index_arithmetic_gives_the_point_results_bit_for_bit(name):
    graph, _, host = _generated(name)
    n, m = len(graph.inputs), len(graph.outputs)
    rng = np.random.default_rng(1)
    for dtype in (np.float64, np.float32):
        for batch in (1, 31, 257, 700):
            x = rng.uniform(0.5, 1.5, size=(batch, n)).astype(dtype)
            w = rng.normal(size=(batch, m)).astype(dtype)
            for f, args in (("jacobian", (x,)), ("vjp", (x, w)), ("primal", (x,))):
                point = getattr(host, f)(*args)
                first = getattr(host, f)(*args, layout="batch_first_kernel")
                last = getattr(host, f)(*(a.T for a in args), layout="batch_last")
                assert point.dtype == first.dtype == last.dtype == dtype
                np.testing.assert_array_equal(first, point)
                np.testing.assert_array_equal(np.moveaxis(last, -1, 0), point)


def test_block_sizes_fit_shared_memory():
    meta_width = {"jacobian": 8 + 64, "primal": 8 + 8}  # heart dipole, n = m = 8
    assert block_size(meta_width["jacobian"]) == 64  # 72 * 65 * 8 bytes <= 48 KiB
    assert block_size(meta_width["jacobian"], 4) == 128
    assert block_size(meta_width["primal"]) == 256
    assert block_size(200) is None  # 200 * 33 * 8 > 48 KiB: no batch-first kernel
    for width in range(1, 187):  # 186 * 33 * 8 bytes <= 48 KiB
        block = block_size(width)
        assert block is not None and width * (block + 1) * 8 <= 48 * 1024


@needs_cxx
def test_a_file_without_a_batch_first_kernel_still_runs_batch_last():
    inputs = [f"x{k}" for k in range(14)]
    lines = [f"inputs: {', '.join(inputs)}", "outputs: " + ", ".join(f"y{k}" for k in range(14))]
    lines += [f"y{k} = x{k}*x{(k + 1) % 14}" for k in range(14)]  # J: 196 entries, 210 values
    graph = dgraph.from_trace("\n".join(lines))
    gen = generate(graph, "cuda", "forward", ("jacobian",))
    assert gen.verified
    meta = metadata(gen.text)
    assert meta["block"]["jacobian"] == {"f64": None, "f32": 32}  # 210 * 33 * 4 bytes
    assert "jacobian_batch_first_f64" not in gen.text and "jacobian_batch_first_f32" in gen.text
    host = load_cuda_host(gen.text)
    x = np.random.default_rng(0).uniform(0.5, 1.5, size=(40, 14))
    jac = host.jacobian(x)
    assert jac[0, 0, 1] == x[0, 0] and jac[0, 0, 0] == x[0, 1] and jac[0, 0, 2] == 0
    with pytest.raises(DGraphError, match="defines no jacobian_batch_first_host"):
        host.jacobian(x, layout="batch_first_kernel")


STEPS = dgraph.from_trace(
    "inputs: a, b\noutputs: y, z, t\nu = abs(a - b) + max(a, b)\n"
    "y = u*Heaviside(a - 1) + sign(b - 1)*a\n"
    "z = Piecewise((a*b, a > 1), (a + b, True)) + erf(a) + 0.1*a**2/b + pi*sqrt(a) + a/3\n"
    "t = sin(a)*cos(b)"
)


@functools.cache
def _steps():
    return generate(STEPS, "cuda", "reverse", MODES, sparse=True)


@needs_cxx
def test_numbers_are_printed_in_the_kernels_precision():
    gen = _steps()
    assert gen.verified
    body = gen.text[gen.text.index("__device__ inline void primal_point") :]
    assert "T(0.1)*" in body and "T(3.141592653589793)" in body and "T(0.5)" in body
    # no bare floating literal: it would make float code compute in double
    assert not re.search(r"\d\.\d|\de[+-]|NAN|M_PI", re.sub(r"T\([^()]*\)", "T()", body))
    a = sympy.Symbol("v_NAN")  # a variable's name is never taken for NaN
    printed = CudaPrinter().doprint(sympy.Piecewise((a, a > 1)))
    assert printed == "((v_NAN > T(1)) ? (v_NAN) : (dgraph_nan(T(0))))"
    host = load_cuda_host(gen.text)
    numpy_module = load_python(generate(STEPS, "python", "reverse").text)
    x = np.random.default_rng(0).uniform(0.5, 1.5, size=(50, 2))
    _close(host.jacobian(x), numpy_module.jacobian(x), 1e-14)
    jac32 = host.jacobian(x.astype(np.float32))
    assert jac32.dtype == np.float32
    _close(jac32, numpy_module.jacobian(x.astype(np.float32).astype(float)), 1e-5)


@needs_nvcc
@needs_cxx
def test_nvcc_compiles_the_kernels_and_f32_stays_f32(tmp_path):
    _, gen, _ = _generated("black-scholes")
    for text in (gen.text, _steps().text):
        source = tmp_path / "jac.cu"
        source.write_text(text)
        ptx = tmp_path / "jac.ptx"
        command = ["nvcc", "-std=c++17", "-ptx", "-arch=sm_80", "-o", str(ptx), str(source)]
        done = subprocess.run(command, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        # each kernel's code runs to the next .entry or .func (a called function)
        pattern = r"\.entry (\w+)\((.*?)(?=\n\.(?:visible|func|weak)|\Z)"
        kernels = dict(re.findall(pattern, ptx.read_text(), re.S))
        expected = {
            f"{f}_{layout}_{p}"
            for f in ("primal", "jacobian", "jacobian_values", "jvp", "vjp")
            for layout in ("batch_first", "batch_last")
            for p in ("f32", "f64")
        }
        assert set(kernels) == expected
        for name, body in kernels.items():
            if name.endswith("_f32"):  # no float widened to double (sinf's reduction of
                assert "cvt.f64.f32" not in body, name  # huge arguments uses doubles)
            else:
                assert "fma.rn.f64" in body or "mul.f64" in body, name
        assert ".shared" in kernels["jacobian_batch_first_f64"]
        assert ".shared" not in kernels["jacobian_batch_last_f64"]


@needs_cxx
def test_the_check_catches_a_wrong_entry_and_a_wrong_layout(monkeypatch):
    graph = dgraph.bundled("spherical_coordinates.trace")
    good = generate_module.cuda_source

    def wrong_entry(*args, **kwargs):
        return good(*args, **kwargs).replace("    J[s] = ", "    J[s] = T(1e-6) + ", 1)

    monkeypatch.setattr(generate_module, "cuda_source", wrong_entry)
    with pytest.raises(VerificationError, match="jacobian"):
        generate(graph, "cuda", "reverse", ("jacobian",))

    def wrong_staging(*args, **kwargs):  # the batch-first store reads the wrong tile slot
        text = good(*args, **kwargs)
        out = text.index("dgraph_stage_out")
        fixed = text[out:].replace("tile[(k % width) * pitch + k / width]", "tile[k]", 1)
        return text[:out] + fixed

    monkeypatch.setattr(generate_module, "cuda_source", wrong_staging)
    with pytest.raises(VerificationError, match="batch_first kernel"):
        generate(graph, "cuda", "reverse", ("jacobian",))


def test_without_a_cxx_compiler_the_file_is_not_verified(monkeypatch):
    monkeypatch.setenv("CXX", "/nonexistent/c++")
    gen = generate(dgraph.bundled("naumann_sin.trace"), "cuda", "reverse")
    assert not gen.verified and not gen.check.ran
    assert "no C++ compiler" in gen.check.summary()
    with pytest.raises(DGraphError, match="no C\\+\\+ compiler"):
        load_cuda_host(gen.text)


@needs_cxx
def test_cli_writes_cuda_from_suffix_and_flag(capsys, tmp_path):
    target = tmp_path / "jac.cu"
    assert main(["codegen", SPHERICAL, "-o", str(target)]) == 0
    out = capsys.readouterr().out
    assert "(cuda): primal, jacobian, jvp, vjp" in out and "checked: jacobian, jvp, vjp" in out
    text = target.read_text()
    assert "\njacobian_batch_first_f32(long long count, const float *__restrict__ x" in text
    host = load_cuda_host(target)
    x = np.array([[1.2, 0.4, 2.0], [0.7, 1.1, -0.3]])
    expected = dgraph.accumulate(dgraph.bundled("spherical_coordinates.trace"), "zhou")
    np.testing.assert_allclose(host.jacobian(x), expected.evaluate(x), rtol=1e-12, atol=1e-14)
    other = tmp_path / "kernels.txt"
    assert main(["codegen", SIN, "-o", str(other), "--lang", "cuda", "--mode", "vjp"]) == 0
    assert "vjp_batch_last_f64" in other.read_text() and "jvp_point" not in other.read_text()


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["-o", "jac.cux"], "cannot tell the language from the suffix '.cux'"),
        (["-o", "jac.cu", "--lang", "cuda12"], "invalid choice: 'cuda12'"),
        (["-o", "nowhere/jac.cu"], "nowhere"),
    ],
)
def test_cli_hostile_cases_exit_2_and_write_nothing(capsys, tmp_path, monkeypatch, argv, needle):
    monkeypatch.chdir(tmp_path)
    assert main(["codegen", SIN, *argv]) == 2
    err = capsys.readouterr().err
    assert needle in err and len(err.strip().splitlines()) == 1
    assert list(tmp_path.iterdir()) == []


def test_metadata_and_arguments_are_checked():
    with pytest.raises(DGraphError, match="dgraph-cuda"):
        metadata("__global__ void f() {}")
    with pytest.raises(DGraphError, match=r"no C\+\+ compiler|dgraph-cuda"):
        load_cuda_host("int x;\nint y;\n")


@needs_cxx
def test_host_functions_refuse_wrong_shapes_and_layouts():
    _, _, host = _generated("black-scholes")
    with pytest.raises(DGraphError, match=r"expected shape \(5,\) or \(B, 5\)"):
        host.jacobian(np.ones((3, 4)))
    with pytest.raises(DGraphError, match=r"\(5, B\)"):
        host.jacobian(np.ones((3, 5)), layout="batch_last")
    with pytest.raises(DGraphError, match="batch sizes differ"):
        host.jvp(np.ones((3, 5)), np.ones((4, 5)))
    with pytest.raises(DGraphError, match="unknown layout 'rows'"):
        host.jacobian(np.ones(5), layout="rows")


def test_load_cuda_without_cupy_is_one_clear_error(tmp_path):
    if importlib.util.find_spec("cupy") is not None:
        pytest.skip("CuPy is installed here")
    source = tmp_path / "jac.cu"
    source.write_text(_text_sin())
    with pytest.raises(
        DGraphError, match=r"needs CuPy: pip install 'jacobian-accumulation\[gpu\]'"
    ):
        load_cuda(source)
    with pytest.raises(DGraphError, match="needs CuPy"):
        dgraph.load_cuda(str(source))
    with pytest.raises(DGraphError, match="needs CuPy"):
        dgraph.make_function(dgraph.bundled("naumann_sin.trace"), lang="cuda")


def test_load_cuda_without_a_gpu_is_one_clear_error(monkeypatch):
    class CUDARuntimeError(RuntimeError):
        pass

    def no_device():
        raise CUDARuntimeError("cudaErrorNoDevice: no CUDA-capable device is detected")

    runtime = types.SimpleNamespace(getDeviceCount=no_device)
    fake = types.SimpleNamespace(cuda=types.SimpleNamespace(runtime=runtime))
    monkeypatch.setitem(sys.modules, "cupy", fake)
    with pytest.raises(DGraphError, match="no CUDA GPU found"):
        load_cuda(_text_sin())
    runtime.getDeviceCount = lambda: 0
    with pytest.raises(DGraphError, match="no CUDA GPU found"):
        load_cuda(_text_sin())


class _HostCupy(types.SimpleNamespace):
    """A stand-in for CuPy on the CPU: arrays are NumPy's, and RawModule's kernels run the
    file's host loops over the same blocks and threads (``*_batch_first_host`` emulates
    blocks of the compiled size, so a launch with another block size is refused)."""

    def __init__(self):
        runtime = types.SimpleNamespace(getDeviceCount=lambda: 1)
        super().__init__(cuda=types.SimpleNamespace(runtime=runtime), ndarray=np.ndarray)
        self.asarray, self.empty = np.asarray, np.empty
        self.ascontiguousarray, self.broadcast_to = np.ascontiguousarray, np.broadcast_to
        self.launches = []
        outer = self

        class RawModule:
            def __init__(self, code, options):
                assert "--std=c++17" in options and not any("fast" in o for o in options)
                self.host, self.meta = load_cuda_host(code), metadata(code)

            def compile(self):
                pass

            def get_function(self, kernel):
                name, layout, precision = re.fullmatch(
                    r"(\w+?)_(batch_first|batch_last)_(f32|f64)", kernel
                ).groups()
                suffix = "_f32" if precision == "f32" else ""
                host = getattr(self.host.library, f"{name}_{layout}_host{suffix}")
                block = self.meta["block"][name][precision]

                def launch(grid, threads, args):
                    count, *arrays = args
                    assert isinstance(count, np.int64)
                    assert grid[0] * threads[0] >= count > (grid[0] - 1) * threads[0]
                    if layout == "batch_first":
                        assert threads[0] == block
                    ctype = ctypes.c_float if precision == "f32" else ctypes.c_double
                    assert all(a.dtype == np.dtype(ctype) and a.flags.c_contiguous for a in arrays)
                    pointers = [a.ctypes.data_as(ctypes.POINTER(ctype)) for a in arrays]
                    host(ctypes.c_long(int(count)), *pointers)
                    outer.launches.append(kernel)

                return launch

        self.RawModule = RawModule

    @staticmethod
    def from_dlpack(a):
        if a.__dlpack_device__()[0] == 1:  # as CuPy: host arrays are not shared
            raise TypeError("CPU arrays cannot be directly imported to CuPy")
        return a.array


class _Shared:
    """An array from another library: only ``__dlpack__`` (as JAX's and PyTorch's), on the
    GPU (DLPack device type 2) or the CPU (1)."""

    def __init__(self, array, device=2):
        self.array, self.device = array, device

    def __dlpack__(self, **kwargs):
        return self.array.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return (self.device, 0)


@needs_cxx
def test_load_cuda_launches_the_kernels_it_names(monkeypatch):
    fake = _HostCupy()
    monkeypatch.setitem(sys.modules, "cupy", fake)
    _, gen, host = _generated("heart-dipole")
    module = load_cuda(gen.text)
    rng = np.random.default_rng(4)
    x, w = rng.uniform(0.5, 1.5, size=(130, 8)), rng.normal(size=(130, 8))
    expected = host.jacobian(x)
    np.testing.assert_array_equal(module.jacobian(x), expected)
    last = module.jacobian(np.asarray(x.T), layout="batch_last")
    np.testing.assert_array_equal(np.moveaxis(last, -1, 0), expected)
    np.testing.assert_array_equal(module.jacobian(_Shared(x)), expected)  # via DLPack
    np.testing.assert_array_equal(module.jacobian(_Shared(x, 1)), expected)  # copied over
    np.testing.assert_array_equal(module.jacobian(x[5]), expected[5])
    np.testing.assert_array_equal(module.vjp(x, w), host.vjp(x, w))
    x32 = x.astype(np.float32)
    assert module.primal(x32).dtype == np.float32
    np.testing.assert_array_equal(module.jvp(x32, x32), host.jvp(x32, x32))
    assert fake.launches == [
        "jacobian_batch_first_f64",
        "jacobian_batch_last_f64",
        "jacobian_batch_first_f64",
        "jacobian_batch_first_f64",
        "jacobian_batch_first_f64",
        "vjp_batch_first_f64",
        "primal_batch_first_f32",
        "jvp_batch_first_f32",
    ]
    with pytest.raises(DGraphError, match="all be float32 or all float64, not float32, float64"):
        module.jvp(x32, x)
    with pytest.raises(DGraphError, match="not int64"):
        module.jacobian(np.ones((3, 8), dtype=np.int64))
    with pytest.raises(DGraphError, match="unknown layout"):
        module.jacobian(x, layout="rows")
    assert module.jacobian(np.empty((0, 8))).shape == (0, 8, 8)
    function = dgraph.make_function(dgraph.bundled("naumann_sin.trace"), lang="cuda")
    assert function.lang == "cuda" and function.generated.verified
    xs = np.array([[1.0, 0.5], [2.0, 1.0]])
    np.testing.assert_allclose(
        function(xs.T, layout="batch_last")[:, :, 0], [[0.2298, 0.8415]], atol=5e-5
    )


@functools.cache
def _text_sin() -> str:
    return generate(dgraph.bundled("naumann_sin.trace"), "cuda", "reverse", check=False).text


def test_generated_text_is_deterministic():
    graph = dgraph.bundled("spherical_coordinates.trace")
    programs = generate(graph, "cuda", "zhou", MODES, check=False).programs
    names = {"title": "t", "inputs": graph.inputs, "outputs": graph.outputs}
    assert cuda_source(programs, **names) == cuda_source(programs, **names)
    assert HOST_FLAGS[:2] == ("-x", "c++") and "-ffast-math" not in HOST_FLAGS


# -- on a GPU ------------------------------------------------------------------------------


@needs_gpu
@needs_cxx
@pytest.mark.parametrize("name", FUNCTIONS)
def test_gpu_kernels_agree_with_the_host_build(name):
    import cupy

    graph, gen, host = _generated(name)
    module = load_cuda(gen.text)
    n, m = len(graph.inputs), len(graph.outputs)
    rng = np.random.default_rng(5)
    for dtype, rtol in ((np.float64, 1e-12), (np.float32, 1e-5)):
        x = rng.uniform(0.5, 1.5, size=(1000, n)).astype(dtype)
        w = rng.normal(size=(1000, m)).astype(dtype)
        expected = host.jacobian(x)
        first = module.jacobian(cupy.asarray(x))
        assert first.dtype == dtype and first.shape == (1000, m, n)
        _close(cupy.asnumpy(first), expected, rtol)
        last = module.jacobian(cupy.asarray(x.T), layout="batch_last")
        _close(np.moveaxis(cupy.asnumpy(last), -1, 0), expected, rtol)
        _close(cupy.asnumpy(module.vjp(cupy.asarray(x), cupy.asarray(w))), host.vjp(x, w), rtol)
        _close(cupy.asnumpy(module.primal(x)), host.primal(x), rtol)  # NumPy: copied over


@needs_gpu
@needs_cxx
def test_gpu_kernels_take_jax_arrays_through_dlpack():
    jax = pytest.importorskip("jax")
    import cupy

    _, gen, host = _generated("heart-dipole")
    if not any(d.platform == "gpu" for d in jax.devices()):
        pytest.skip("JAX has no GPU here")
    module = load_cuda(gen.text)
    x = np.random.default_rng(2).uniform(0.5, 1.5, size=(64, 8)).astype(np.float32)
    jac = module.jacobian(jax.numpy.asarray(x))
    back = jax.dlpack.from_dlpack(jac)
    _close(np.asarray(back), host.jacobian(x), 1e-5)
    assert isinstance(jac, cupy.ndarray)


@needs_cxx
def test_one_parameter_vector_serves_a_batch_in_both_layouts():
    pendulum = n_link_pendulum(2)
    graph = from_sympy(pendulum.rhs, pendulum.states, params=pendulum.params)
    host = load_cuda_host(generate(graph, "cuda", "forward", ("jacobian",)).text)
    rng = np.random.default_rng(3)
    x, p = rng.uniform(-1, 1, size=(6, 4)), rng.uniform(0.5, 2, size=len(graph.parameters))
    expected = host.jacobian(x, np.tile(p, (6, 1)))
    _close(host.jacobian(x, p), expected, 1e-15)
    last = host.jacobian(x.T, p, layout="batch_last")
    _close(np.moveaxis(last, -1, 0), expected, 1e-15)
    with pytest.raises(DGraphError, match="batch sizes differ"):
        host.jacobian(x, np.tile(p, (5, 1)))


@needs_gpu
@needs_cxx
def test_gpu_kernels_take_parameters_and_return_value_and_jacobian():
    import cupy

    pendulum = n_link_pendulum(2)
    graph = from_sympy(pendulum.rhs, pendulum.states, params=pendulum.params)
    gen = generate(graph, "cuda", None, ("jacobian", "value_and_jacobian"))
    host, module = load_cuda_host(gen.text), load_cuda(gen.text)
    rng = np.random.default_rng(8)
    x = rng.uniform(-1, 1, size=(700, len(graph.inputs)))
    p = rng.uniform(0.5, 2, size=(700, len(graph.parameters)))
    for dtype, rtol in ((np.float64, 1e-12), (np.float32, 1e-4)):
        xs, ps = x.astype(dtype), p.astype(dtype)
        value, jac = module.value_and_jacobian(cupy.asarray(xs), cupy.asarray(ps))
        _close(cupy.asnumpy(jac), host.jacobian(xs, ps), rtol)
        _close(cupy.asnumpy(value), host.primal(xs, ps), rtol)
        last = module.jacobian(cupy.asarray(xs.T), cupy.asarray(ps[0]), layout="batch_last")
        _close(np.moveaxis(cupy.asnumpy(last), -1, 0), host.jacobian(xs, ps[0]), rtol)


@needs_cxx
def test_a_host_build_has_the_ieee_tests_of_a_softplus():
    """JAX's softplus (``logaddexp``) tests ``isinf`` and ``isnan``: CUDA has them as
    functions, the host build's C++ as ``std::`` ones (g++ said "'isinf' was not declared
    in this scope" of a generated file, and the command line only its context line)."""
    jax = pytest.importorskip("jax")
    jnp = pytest.importorskip("jax.numpy")
    from tests import jax_reference as jref

    def f(x):
        return jax.nn.softplus(x) * x[::-1]

    x = np.array([0.3, -1.2, 2.0])
    graph = dgraph.from_jax(f, x)
    gen = generate(graph, "cuda", "forward", ("jacobian",))
    assert "isinf(" in gen.text and gen.verified
    with jax.enable_x64(True):
        want = np.asarray(jref.jacfwd(f)(jnp.asarray(x)))
    _close(load_cuda_host(gen.text).jacobian(x), want, 1e-13)


def test_a_compiler_failure_names_its_first_error_line():
    from dgraph.codegen.native_build import first_error

    stderr = (
        "g.cu: In instantiation of 'void primal_point(const T*)':\n"
        "g.cu:174:60: error: 'isinf' was not declared in this scope\n"
        "g.cu:180:1: error: later\n"
    )
    assert first_error(stderr) == "g.cu:174:60: error: 'isinf' was not declared in this scope"
    assert first_error("ld: cannot find -lfoo\n") == "ld: cannot find -lfoo"
