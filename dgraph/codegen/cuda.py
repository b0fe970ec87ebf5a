"""CUDA C++ text for the programs of :mod:`dgraph.codegen.program`, its host build and a
CuPy loader (docs/codegen.md, "Jacobians on a GPU").

Layout of the generated file (also written in its header comment):

- one ``template <typename T> __device__`` function per program, ``jacobian_point(x, J, s)``
  (``primal_point``, ``jvp_point``, ``vjp_point``, ``jacobian_values_point`` alike): the
  same straight-line program as the C output, reading argument entry k at ``x[k*s]`` and
  writing output entry k at ``J[k*s]``, so one function serves both layouts;
- ``extern "C" __global__`` kernels per program, layout and precision, one thread per
  point: ``jacobian_batch_last_f64(long long count, const double *x, double *J)`` with x
  (n, B) and J (m, n, B) (thread t reads ``x[j*B + t]``: coalesced as it stands), and
  ``jacobian_batch_first_f32`` with x (B, n), J (B, m, n), whose block of
  ``DGRAPH_BLOCK`` threads copies its points' inputs into shared memory and its outputs out
  of it with consecutive threads at consecutive addresses (coalesced), transposed so the
  point functions read shared memory with stride ``BLOCK + 1`` (no bank conflicts);
- with ``DGRAPH_HOST`` defined the file is plain C++17: the kernels are left out, and
  ``extern "C" void jacobian_host(long count, const double *x, double *J)`` (batch-first,
  point by point) and ``jacobian_batch_first_host`` / ``jacobian_batch_last_host`` (the
  kernels' own index arithmetic, looping over blocks and threads) exist in f64 and, with
  suffix ``_f32``, in f32; ``dgraph_n``, ``dgraph_m``, ``dgraph_nnz`` give the sizes.

Numbers are printed as ``T(literal)`` and functions by their overloaded names (``sin``,
``exp``, ... exist for float and double in CUDA and in ``<cmath>``), so f32 code computes
in f32; nothing asks for fast math. :func:`load_cuda` compiles the text with CuPy's NVRTC
(no nvcc) and :func:`load_cuda_host` with the system C++ compiler.
"""

from __future__ import annotations

import ctypes
import json
import os
import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import sympy

from ..errors import DGraphError
from .c import CElementPrinter, CPrinter
from .c_special import special_definitions
from .ir import Program, live_ranges
from .lowering import body_and_stores, statements
from .native_build import shared_library
from .printing import double

__all__ = [
    "HOST_FLAGS",
    "LAYOUTS",
    "CudaHostModule",
    "CudaModule",
    "compile_host",
    "cuda_source",
    "cxx_compiler",
    "load_cuda",
    "load_cuda_host",
]

LAYOUTS = ("batch_first", "batch_last")
PRECISIONS = {"f64": ("double", np.float64), "f32": ("float", np.float32)}
# no fused multiply-adds on the host: the layouts then round alike wherever inlined
HOST_FLAGS = ("-x", "c++", "-std=c++17", "-O2", "-ffp-contract=off", "-DDGRAPH_HOST")
SHARED_BYTES = 48 * 1024  # static shared memory a block may use without opting in
BLOCKS = (256, 128, 64, 32)  # batch-first block sizes, the largest whose tiles fit
BATCH_LAST_THREADS = 256
_META = "dgraph-cuda: "  # the header line the loaders read (JSON)


_OUTPUTS = {"primal": "y", "jacobian": "J", "jacobian_values": "values", "jvp": "Jv", "vjp": "wJ"}
_OUTPUTS["value_and_jacobian"] = "yJ"  # the m outputs, then J row-major


@dataclass(frozen=True)
class _Signature:
    """A program's arguments (name, size per point) and its output (name, shape)."""

    arguments: tuple[tuple[str, int], ...]
    output: str
    shape: tuple[int, ...]

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=int))

    @property
    def width(self) -> int:
        """Values per point staged through shared memory (arguments and output)."""
        return sum(size for _, size in self.arguments) + self.size


def _signature(name: str, program: Program) -> _Signature:
    """``name``'s arguments as the program has them; its output, named as in the C file
    (``J``, ``Jv``, ...), of the program's shape (``jacobian_values``: its entries)."""
    arguments = tuple((a, len(symbols)) for a, symbols in program.arguments)
    shape = (len(program.results),) if name == "jacobian_values" else tuple(program.shape)
    return _Signature(arguments, _OUTPUTS.get(name, "out"), shape)


class CudaPrinter(CPrinter):
    """The C printer with every number as ``T(...)`` so float code stays float."""

    one = "T(1)"

    def _number(self, expr: sympy.Expr) -> str:
        value = double(expr)
        text = str(int(value)) if value.is_integer() and abs(value) < 2**31 else repr(value)
        return f"T({text})"

    _print_Integer = _print_Rational = _print_Float = _number
    _print_Half = _print_One = _print_Zero = _print_NegativeOne = _number

    def _print_NumberSymbol(self, expr: sympy.Expr) -> str:
        return f"T({double(sympy.Float(expr.evalf(20), 20))!r})"

    _print_Pi = _print_Exp1 = _print_EulerGamma = _print_Catalan = _print_GoldenRatio = (
        _print_NumberSymbol
    )

    zero = compared_with = "T(0)"
    half = "T(0.5)"
    nan = "dgraph_nan(T(0))"
    true, false = "true", "false"

    def _cast(self, text: str) -> str:
        return f"T({text})"


class _CudaElementPrinter(CElementPrinter):
    ctype = "T"
    language = "in CUDA"


def block_size(width: int, item: int = 8) -> int | None:
    """Threads of a batch-first block: the largest of :data:`BLOCKS` whose shared tiles,
    ``width`` values per point in rows of ``block + 1``, fit :data:`SHARED_BYTES` in
    items of ``item`` bytes; None when not even a warp's do.

    >>> block_size(6 + 3 * 6), block_size(8 + 8 * 8), block_size(1000)
    (128, 64, None)
    """
    for block in BLOCKS:
        if width * (block + 1) * item <= SHARED_BYTES:
            return block
    return None


def cuda_source(
    programs: Mapping[str, Program],
    *,
    title: str,
    inputs: list[str],
    outputs: list[str],
    sparse: bool = False,
    parameters: tuple[str, ...] = (),
) -> str:
    """The text of a CUDA C++ file computing ``programs`` (keyed by function name); with
    ``parameters``, every function takes their values ``p`` after its other arguments.

    >>> from dgraph.frontends import bundled
    >>> from dgraph.methods import accumulate
    >>> from dgraph.codegen.program import jacobian_program
    >>> g = bundled("naumann_sin.trace")
    >>> text = cuda_source({"jacobian": jacobian_program(accumulate(g, "reverse"))},
    ...                    title="demo", inputs=g.inputs, outputs=g.outputs)
    >>> start = text.index("__device__ inline void jacobian_point")
    >>> print(text[start:].split("}")[0])
    __device__ inline void jacobian_point(const T *__restrict__ x, T *__restrict__ J, long long s) {
        const T v_x0 = x[0];
        const T v_x1 = x[s];
        const T v_v1 = sin(v_x1);
        J[0] = (v_v1*v_v1);
        J[s] = T(2)*v_v1*v_x0*cos(v_x1);
    <BLANKLINE>
    """
    printer = CudaPrinter()
    n, m = len(inputs), len(outputs)
    jac = programs.get("jacobian")
    nnz = len(jac.results) if jac is not None else 0
    functions = list(programs)
    if sparse and jac is not None:
        functions.insert(functions.index("jacobian") + 1, "jacobian_values")
    signatures = {
        name: _signature(name, programs["jacobian" if name == "jacobian_values" else name])
        for name in functions
    }
    blocks = {
        name: {p: block_size(sig.width, np.dtype(t).itemsize) for p, (_, t) in PRECISIONS.items()}
        for name, sig in signatures.items()
    }
    shapes = {
        name: {"arguments": [size for _, size in sig.arguments], "output": list(sig.shape)}
        for name, sig in signatures.items()
    }
    meta: dict[str, Any] = {"n": n, "m": m, "nnz": nnz, "functions": functions}
    meta |= {"block": blocks, "shapes": shapes}
    if sparse and jac is not None:
        meta["rows"] = [k[0] for k, _ in jac.results]
        meta["cols"] = [k[1] for k, _ in jac.results]
    lines = _header(programs, title, inputs, outputs, nnz, sparse and jac is not None)
    lines += [f" * {_META}{json.dumps(meta, sort_keys=True)}", " */", _PRELUDE]
    constants = [f"dgraph_n = {n}", f"dgraph_m = {m}", f"dgraph_nnz = {nnz}"]
    if sparse and jac is not None:
        constants.append(f"jacobian_rows[] = {{{', '.join(map(str, meta['rows'])) or '0'}}}")
        constants.append(f"jacobian_cols[] = {{{', '.join(map(str, meta['cols'])) or '0'}}}")
    lines += ["#ifdef DGRAPH_HOST", *(f'extern "C" const int {c};' for c in constants), "#endif"]
    head = len(lines)
    for name in functions:
        program = programs["jacobian" if name == "jacobian_values" else name]
        lines += ["", *_point(printer, program, name, signatures[name])]
        lines += ["", *_kernels(name, signatures[name], blocks[name], _bounded(program))]
    lines[head:head] = special_definitions("\n".join(lines[head:]), "static __device__ __host__")
    return "\n".join(lines) + "\n"


def _header(
    programs: Mapping[str, Program],
    title: str,
    inputs: list[str],
    outputs: list[str],
    nnz: int,
    sparse: bool,
) -> list[str]:
    n, m = len(inputs), len(outputs)
    lines = ["/* " + title.replace("*/", "* /"), " *", " * Generated by dgraph; do not edit.", " *"]
    lines.append(f" * Inputs x[0..{n - 1}]: {', '.join(inputs)}.")
    lines.append(f" * Outputs y[0..{m - 1}]: {', '.join(outputs)}.")
    lines += [
        " * Per point (as the C output): primal x -> y (m), jacobian x -> J (m x n, row-major,",
        f" *     J[i*{n} + j] = d y_i / d x_j, m = {m}, n = {n}), jvp (x, v) -> Jv (m),",
        " *     vjp (x, w) -> wJ (n), for those generated:",
    ]
    for name, program in programs.items():
        method = f" (method {program.method})" if program.method else ""
        lines.append(f" *     {name}: {program.ops}{method}")
    if sparse:
        lines += [
            f" *     jacobian_values x -> values ({nnz}), values[k] =",
            " *         J[jacobian_rows[k]*n + jacobian_cols[k]].",
        ]
    lines += [
        " *",
        " * Kernels, one thread per point, f = function, P = f64 (double) or f32 (float):",
        " *   f_batch_last_P(long long count, args..., out): every array with the batch",
        " *     last, x (n, B), J (m, n, B): entry k of point t at [k*count + t];",
        f" *     blocks of at most {BATCH_LAST_THREADS} threads, ceil(count / block) blocks;",
        " *   f_batch_first_P(long long count, args..., out): the batch first, x (B, n),",
        " *     J (B, m, n): entry k of point t at [t*size + k], staged through shared",
        " *     memory; launch blocks of exactly f_BLOCK_P threads (below).",
        " * Compiled with DGRAPH_HOST defined (g++ -std=c++17 -DDGRAPH_HOST) the file is C++:",
        " *   f_host(long count, ...) point by point, batch-first; f_batch_first_host and",
        " *   f_batch_last_host run the kernels' index arithmetic over blocks and threads;",
        " *   each also with suffix _f32 on float arrays.",
        " *",
    ]
    return lines


_PRELUDE = r"""#ifdef DGRAPH_HOST
#include <cmath>
#include <vector>
#define __device__
#define __host__
#define __forceinline__ inline
using std::abs; using std::acos; using std::acosh; using std::asin; using std::asinh;
using std::atan; using std::atan2; using std::atanh; using std::cbrt; using std::ceil;
using std::cos; using std::cosh; using std::erf; using std::erfc; using std::exp;
using std::exp2; using std::expm1; using std::fabs; using std::floor; using std::fmax;
using std::fmin; using std::fmod; using std::hypot; using std::lgamma; using std::log;
using std::log10; using std::log1p; using std::log2; using std::nearbyint; using std::pow;
using std::sin; using std::sinh; using std::sqrt; using std::tan; using std::tanh;
using std::tgamma; using std::nan; using std::nanf; using std::isfinite; using std::isinf;
using std::isnan;
#endif

__device__ __forceinline__ float dgraph_nan(float) { return nanf(""); }
__device__ __forceinline__ double dgraph_nan(double) { return nan(""); }

/* Batch-first staging: the block's points first .. first + threads - 1 hold `width`
 * values each at src[point*width + k]; consecutive threads copy consecutive addresses
 * into tile[k*pitch + point - first] (and back out), so global memory is read and
 * written whole lines at a time. */
template <typename T>
__device__ __forceinline__ void dgraph_stage_in(int thread, int threads, long long first,
        long long count, int width, const T *__restrict__ src, T *__restrict__ tile,
        int pitch) {
    const long long left = count - first;
    const int total = (left < threads ? (int)left : threads) * width;  /* < 2^31 */
    const T *block = src + first * width;
    for (int k = thread; k < total; k += threads)
        tile[(k % width) * pitch + k / width] = block[k];
}

template <typename T>
__device__ __forceinline__ void dgraph_stage_out(int thread, int threads, long long first,
        long long count, int width, const T *__restrict__ tile, T *__restrict__ dst,
        int pitch) {
    const long long left = count - first;
    const int total = (left < threads ? (int)left : threads) * width;
    T *block = dst + first * width;
    for (int k = thread; k < total; k += threads)
        block[k] = tile[(k % width) * pitch + k / width];
}
"""


def _point(printer: CudaPrinter, program: Program, name: str, sig: _Signature) -> list[str]:
    """``template <typename T> __device__ void <name>_point(args, out, s)``."""
    out, size = sig.output, sig.size
    params = ", ".join(f"const T *__restrict__ {a}" for a, _ in sig.arguments)
    lines = [
        "template <typename T>",
        f"__device__ inline void {name}_point({params}, T *__restrict__ {out}, long long s) {{",
    ]
    show = _CudaElementPrinter(name, printer, stride="s")
    body, stores = body_and_stores(statements(program))
    lines += [show.statement(s) for s in body]
    flat = name == "jacobian_values"
    written = {}
    for k, ((index, _), store) in enumerate(zip(program.results, stores, strict=True)):
        at = k if flat else int(np.ravel_multi_index(index, sig.shape))
        written[at] = show.value(store.value)
    for k in range(size):  # every entry once, zeros included: J is not cleared before
        if k in written or not flat:
            lines.append(f"    {out}[{_at(k)}] = {written.get(k, 'T(0)')};")
    lines.append("}")
    return lines


def _at(k: int) -> str:
    return "0" if k == 0 else "s" if k == 1 else f"{k}*s"


def _bounded(program: Program) -> bool:
    """Whether the f64 batch-last kernel gets ``__launch_bounds__(256, 2)`` (two blocks
    resident, at most 128 registers a thread): where the program's peak of live values,
    two registers each in f64, asks for a little more than 128. On an H200 that ran the Roe
    flux (78 live, 152 registers unbounded) 1.2-1.7x faster, and made the 4- and 5-link
    pendulums (232 and 255 registers unbounded) 1.9-2.9x slower: spilling most of a
    large program's values costs more than the lost occupancy."""
    return 64 < live_ranges(program)[1] <= 96


def _kernels(name: str, sig: _Signature, blocks: dict[str, int | None], bounded: bool) -> list[str]:
    """The per-thread bodies of both layouts, their kernels and their host loops;
    ``bounded``: the f64 batch-last kernel gets launch bounds (:func:`_bounded`)."""
    out, size = sig.output, sig.size
    args = [a for a, _ in sig.arguments]
    params = ", ".join([*(f"const T *__restrict__ {a}" for a in args), f"T *__restrict__ {out}"])
    names = ", ".join([*args, out])
    lines = [
        "template <typename T>",
        f"__device__ __forceinline__ void {name}_batch_last_thread(long long t, long long count,",
        f"        {params}) {{",
        f"    if (t < count) {name}_point<T>({', '.join(f'{a} + t' for a in args)},"
        f" {out} + t, count);",
        "}",
        "",
        "template <typename T, int BLOCK>",
        f"__device__ __forceinline__ void {name}_batch_first_phase(int phase, int t,",
        f"        long long first, long long count, {params}, T *tile) {{",
        "    const int pitch = BLOCK + 1;",
    ]
    offsets, at = {}, 0
    for a, width in [*sig.arguments, (out, size)]:
        offsets[a] = at
        at += width
    tiles = {a: f"tile + {offsets[a]}*pitch" if offsets[a] else "tile" for a in [*args, out]}
    lines.append("    if (phase == 0) {")
    for a, width in sig.arguments:
        lines.append(
            f"        dgraph_stage_in<T>(t, BLOCK, first, count, {width}, {a}, {tiles[a]}, pitch);"
        )
    lines.append("    } else if (phase == 1) {")
    calls = ", ".join(f"{tiles[a]} + t" for a in [*args, out])
    lines.append(f"        if (first + t < count) {name}_point<T>({calls}, pitch);")
    lines.append("    } else {")
    lines.append(
        f"        dgraph_stage_out<T>(t, BLOCK, first, count, {size}, {tiles[out]}, {out}, pitch);"
    )
    lines += ["    }", "}", ""]
    kernels, hosts = [], []
    for precision, (ctype, _) in PRECISIONS.items():
        block = blocks[precision]
        cparams = ", ".join(
            [*(f"const {ctype} *__restrict__ {a}" for a in args), f"{ctype} *__restrict__ {out}"]
        )
        plain = ", ".join([*(f"const {ctype} *{a}" for a in args), f"{ctype} *{out}"])
        suffix = "" if precision == "f64" else "_f32"
        constant = f"{name}_BLOCK_{precision}"
        lines.append(f"#define {constant} {block or 0}")
        bounds = ""
        if precision == "f64" and bounded:
            bounds = f"__launch_bounds__({BATCH_LAST_THREADS}, 2) "
        kernels += [
            f'extern "C" __global__ void {bounds}{name}_batch_last_{precision}(long long count,',
            f"        {cparams}) {{",
            f"    {name}_batch_last_thread<{ctype}>((long long)blockIdx.x * blockDim.x"
            f" + threadIdx.x, count, {names});",
            "}",
            "",
        ]
        strides = {a: w for a, w in sig.arguments}
        point_calls = ", ".join([*(f"{a} + k*{strides[a]}" for a in args), f"{out} + k*{size}"])
        hosts += [
            f'extern "C" void {name}_host{suffix}(long count, {plain}) {{',
            f"    for (long k = 0; k < count; ++k) {name}_point<{ctype}>({point_calls}, 1);",
            "}",
            "",
            f'extern "C" void {name}_batch_last_host{suffix}(long count, {plain}) {{',
            "    for (long long t = 0; t < count; ++t)",
            f"        {name}_batch_last_thread<{ctype}>(t, count, {names});",
            "}",
            "",
        ]
        if block is None:  # not even a warp's tiles fit: no batch-first kernel
            continue
        kernels += [
            f'extern "C" __global__ void __launch_bounds__({block})',
            f"{name}_batch_first_{precision}(long long count, {cparams}) {{",
            f"    __shared__ {ctype} tile[{sig.width}*({block} + 1)];",
            f"    const long long first = (long long)blockIdx.x * {block};",
            "    for (int phase = 0; phase < 3; ++phase) {",
            f"        {name}_batch_first_phase<{ctype}, {block}>(phase, threadIdx.x, first, count,",
            f"            {names}, tile);",
            "        __syncthreads();",
            "    }",
            "}",
            "",
        ]
        hosts += [
            f'extern "C" void {name}_batch_first_host{suffix}(long count, {plain}) {{',
            f"    std::vector<{ctype}> tile({sig.width}*({block} + 1));",
            f"    for (long long first = 0; first < count; first += {block})",
            "        for (int phase = 0; phase < 3; ++phase)",
            f"            for (int t = 0; t < {block}; ++t)",
            f"                {name}_batch_first_phase<{ctype}, {block}>(phase, t, first, count,",
            f"                    {names}, tile.data());",
            "}",
            "",
        ]
    lines += ["", "#ifndef DGRAPH_HOST", *kernels, "#else", *hosts, "#endif"]
    return lines


def metadata(text: str) -> dict[str, Any]:
    """The sizes, functions and batch-first block sizes a generated file records in its
    header (the line ``dgraph-cuda: {...}``); a DGraphError for a file without it."""
    for line in text.splitlines()[:200]:
        start = line.find(_META)
        if start >= 0:
            try:
                meta = json.loads(line[start + len(_META) :])
            except ValueError:
                break
            if isinstance(meta, dict) and {"n", "m", "functions", "block", "shapes"} <= set(meta):
                return meta
            break
    raise DGraphError("not a CUDA file generated by dgraph (no 'dgraph-cuda:' header line)")


def _text(source: str | Path) -> str:
    """A file's text: ``source`` itself when it is a string of several lines (a generated
    file has dozens), else the file it names."""
    if isinstance(source, str) and "\n" not in source:
        source = Path(source)
    if isinstance(source, Path):
        try:
            return source.read_text()
        except (OSError, UnicodeDecodeError) as exc:
            raise DGraphError(f"{source}: cannot read ({type(exc).__name__})") from None
    return source


def _sizes(meta: dict[str, Any], name: str) -> tuple[list[int], tuple[int, ...]]:
    """Per point: the sizes of ``name``'s arguments and the shape of its output."""
    shapes = meta["shapes"][name]
    return list(shapes["arguments"]), tuple(shapes["output"])


class _Functions:
    """``primal``, ``jacobian``, ``jvp``, ``vjp`` and ``jacobian_values`` over
    :meth:`_call`, for whichever the file defines."""

    meta: dict[str, Any]

    layouts: tuple[str, ...] = LAYOUTS

    def _call(self, name: str, arrays: list, layout: str, params: bool) -> Any:
        raise NotImplementedError

    def _function(self, name: str, arrays: tuple, layout: str, p: Any = None) -> Any:
        if name not in self.meta["functions"]:
            raise DGraphError(f"the generated file defines no {name}()")
        if layout not in self.layouts:
            raise DGraphError(f"unknown layout {layout!r}: use {', '.join(self.layouts)}")
        given = [*arrays] if p is None else [*arrays, p]
        return self._call(name, given, layout, p is not None)

    def primal(self, x, p=None, *, layout: str = "batch_first"):
        """The outputs: x (B, n) -> (B, m); batch-last x (n, B) -> (m, B). ``p``: the
        parameters, (B, k) (batch-last (k, B)), where the file has any."""
        return self._function("primal", (x,), layout, p)

    def jacobian(self, x, p=None, *, layout: str = "batch_first"):
        """J[b, i, j] = d y_i / d x_j at x[b]: (B, n) -> (B, m, n); batch-last
        x (n, B) -> J (m, n, B)."""
        return self._function("jacobian", (x,), layout, p)

    def jacobian_values(self, x, p=None, *, layout: str = "batch_first"):
        """The nonzero entries (``--sparse``): (B, n) -> (B, nnz); batch-last (nnz, B)."""
        return self._function("jacobian_values", (x,), layout, p)

    def jvp(self, x, v, p=None, *, layout: str = "batch_first"):
        """J(x) v: x, v (B, n) -> (B, m); batch-last (n, B) -> (m, B)."""
        return self._function("jvp", (x, v), layout, p)

    def vjp(self, x, w, p=None, *, layout: str = "batch_first"):
        """w^T J(x): x (B, n), w (B, m) -> (B, n); batch-last x (n, B), w (m, B) -> (n, B)."""
        return self._function("vjp", (x, w), layout, p)

    def value_and_jacobian(self, x, p=None, *, layout: str = "batch_first"):
        """(primal, jacobian) from one kernel: x (B, n) -> (B, m), (B, m, n); batch-last
        (m, B), (m, n, B). The kernel writes m + m·n values per point, the outputs first."""
        flat = self._function("value_and_jacobian", (x,), layout, p)
        m = self.meta["m"]
        n = self.meta["n"]
        if layout == "batch_last":
            return flat[:m], flat[m:].reshape((m, n, *flat.shape[1:]))
        return flat[..., :m], flat[..., m:].reshape((*flat.shape[:-1], m, n))


def _spread(xp: Any, arrays: list, params: bool, layout: str) -> list:
    """One parameter vector (k,) for a batch of points: broadcast over the batch (a view;
    the contiguous copy the kernel reads is made with the others)."""
    if not params or arrays[-1].ndim != 1:
        return arrays
    batched = [a for a in arrays[:-1] if a.ndim == 2]
    if not batched:
        return arrays
    p = arrays[-1]
    if layout == "batch_last":
        spread = xp.broadcast_to(p[:, None], (p.shape[0], batched[0].shape[1]))
    else:
        spread = xp.broadcast_to(p[None, :], (batched[0].shape[0], p.shape[0]))
    return [*arrays[:-1], spread]


def _batch(name: str, arrays: list, sizes: list[int], layout: str) -> tuple[int, bool]:
    """The batch size shared by ``arrays`` and whether they are single points (n,)."""
    axis = -1 if layout == "batch_first" else 0
    single = all(a.ndim == 1 for a in arrays)
    for a, size in zip(arrays, sizes, strict=True):
        if a.ndim not in (1, 2) or a.shape[axis] != size:
            shape = f"(B, {size})" if layout == "batch_first" else f"({size}, B)"
            raise DGraphError(f"{name}: expected shape ({size},) or {shape}, not {a.shape}")
    batches = {1 if a.ndim == 1 else a.shape[1 + axis] for a in arrays}
    if len(batches) > 1:
        raise DGraphError(f"{name}: the arguments' batch sizes differ ({sorted(batches)})")
    return batches.pop(), single


class CudaHostModule(_Functions):
    """A generated ``.cu`` file compiled as C++ (``DGRAPH_HOST``): the same functions as
    :class:`CudaModule` on NumPy arrays, ``layout="batch_first"`` point by point or
    ``"batch_first_kernel"``/``"batch_last"`` through the kernels' index arithmetic,
    ``precision`` f64 or f32 from the arrays' dtype (other dtypes become f64)."""

    layouts = ("batch_first", "batch_first_kernel", "batch_last")

    def __init__(self, library: ctypes.CDLL, meta: dict[str, Any]) -> None:
        self.library, self.meta = library, meta
        self.n = ctypes.c_int.in_dll(library, "dgraph_n").value
        self.m = ctypes.c_int.in_dll(library, "dgraph_m").value

    def _call(self, name: str, arrays: list, layout: str, params: bool) -> np.ndarray:
        sizes, shape = _sizes(self.meta, name)
        arrays = [np.asarray(a) for a in arrays]
        f32 = all(a.dtype == np.float32 for a in arrays)
        dtype, ctype = (np.float32, ctypes.c_float) if f32 else (np.float64, ctypes.c_double)
        last = layout == "batch_last"
        arrays = _spread(np, arrays, params, "batch_last" if last else "batch_first")
        batch, single = _batch(name, arrays, sizes, "batch_last" if last else "batch_first")
        arrays = [np.ascontiguousarray(a, dtype=dtype) for a in arrays]
        out = np.empty((*shape, batch) if last else (batch, *shape), dtype=dtype)
        suffix = {
            "batch_first": "",
            "batch_first_kernel": "_batch_first",
            "batch_last": "_batch_last",
        }
        symbol = f"{name}{suffix[layout]}_host{'_f32' if f32 else ''}"
        try:
            function = getattr(self.library, symbol)
        except AttributeError:
            raise DGraphError(f"the generated file defines no {symbol}()") from None
        pointer = ctypes.POINTER(ctype)
        function(ctypes.c_long(batch), *(a.ctypes.data_as(pointer) for a in [*arrays, out]))
        if single:
            return out[..., 0] if last else out[0]
        return out


def cxx_compiler() -> str | None:
    """The C++ compiler to use: ``$CXX`` or ``c++``, if it is on the PATH."""
    return shutil.which(os.environ.get("CXX", "c++"))


def load_cuda_host(source: str | Path, flags: tuple[str, ...] = HOST_FLAGS) -> CudaHostModule:
    """Compile a generated ``.cu`` file (its text, or a path) as C++ with ``DGRAPH_HOST``
    defined, into a temporary directory, and load it with ctypes."""
    text = _text(source)
    return CudaHostModule(compile_host(text, flags), metadata(text))


def compile_host(text: str, flags: tuple[str, ...] = HOST_FLAGS) -> ctypes.CDLL:
    """A ``.cu`` text compiled as C++ (``flags``: :data:`HOST_FLAGS`, ``DGRAPH_HOST``
    defined) into a temporary directory and loaded with ctypes."""
    cxx = cxx_compiler()
    if cxx is None:
        raise DGraphError("no C++ compiler found (set CXX or install c++)")
    return shared_library(cxx, tuple(flags), text, ".cu", what="C++")


_DLPACK_CPU = 1  # DLPack's kDLCPU device type


class CudaModule(_Functions):
    """A generated ``.cu`` file compiled on the GPU by CuPy (NVRTC): ``jacobian(x,
    layout=...)`` and the others take CuPy arrays, or anything with ``__dlpack__`` (JAX,
    PyTorch: shared, not copied, by ``cupy.from_dlpack``), or NumPy arrays (copied to
    the device), and return CuPy arrays (``jax.dlpack.from_dlpack`` or
    ``torch.from_dlpack`` take them back without copies). The dtype, float32 or float64,
    is the arguments'; every argument must have it."""

    def __init__(self, cupy: Any, module: Any, meta: dict[str, Any]) -> None:
        self.cupy, self.module, self.meta = cupy, module, meta
        self.n, self.m = meta["n"], meta["m"]

    def _array(self, a: Any) -> Any:
        """A CuPy array: device arrays shared through DLPack, host arrays (NumPy, or a
        library's CPU arrays, which CuPy's ``from_dlpack`` refuses) copied over."""
        cp = self.cupy
        if isinstance(a, cp.ndarray):
            return a
        if hasattr(a, "__dlpack__") and not isinstance(a, np.ndarray):
            on_host = hasattr(a, "__dlpack_device__") and a.__dlpack_device__()[0] == _DLPACK_CPU
            return cp.asarray(np.from_dlpack(a)) if on_host else cp.from_dlpack(a)
        return cp.asarray(a)

    def _call(self, name: str, arrays: list, layout: str, params: bool) -> Any:
        cp = self.cupy
        sizes, shape = _sizes(self.meta, name)
        arrays = _spread(cp, [self._array(a) for a in arrays], params, layout)
        dtypes = {a.dtype for a in arrays}
        if len(dtypes) > 1 or dtypes.pop() not in (np.float32, np.float64):
            found = ", ".join(sorted({str(a.dtype) for a in arrays}))
            raise DGraphError(f"{name}: arguments must all be float32 or all float64, not {found}")
        precision = "f32" if arrays[0].dtype == np.float32 else "f64"
        batch, single = _batch(name, arrays, sizes, layout)
        arrays = [cp.ascontiguousarray(a) for a in arrays]
        last = layout == "batch_last"
        out = cp.empty((*shape, batch) if last else (batch, *shape), dtype=arrays[0].dtype)
        if batch:
            if last:
                threads = BATCH_LAST_THREADS
            else:
                threads = self.meta["block"][name][precision]
                if threads is None:
                    raise DGraphError(
                        f"{name}: its batch-first tiles do not fit shared memory; use"
                        " layout='batch_last'"
                    )
            kernel = self.module.get_function(f"{name}_{layout}_{precision}")
            blocks = (batch + threads - 1) // threads
            kernel((blocks,), (threads,), (np.int64(batch), *arrays, out))
        if single:
            return out[..., 0] if last else out[0]
        return out


def load_cuda(source: str | Path, options: tuple[str, ...] = ("--std=c++17",)) -> CudaModule:
    """Compile a generated ``.cu`` file for the GPU with CuPy's ``RawModule`` (NVRTC: no
    nvcc; the ``gpu`` extra installs CuPy).

    Parameters
    ----------
    source
        The file's text, or its path.
    options
        NVRTC's options.

    Returns
    -------
    CudaModule
        The file's functions, taking and returning GPU arrays.

    Raises
    ------
    DGraphError
        Without CuPy or without a GPU, in one line.
    """
    try:
        import cupy
    except ImportError:
        raise DGraphError(
            "load_cuda needs CuPy: pip install 'jacobian-accumulation[gpu]' (cupy-cuda12x), or"
            " run the file on the CPU with dgraph.codegen.cuda.load_cuda_host"
        ) from None
    text = _text(source)
    meta = metadata(text)
    try:
        devices = cupy.cuda.runtime.getDeviceCount()
    except Exception:  # CUDARuntimeError without a driver or a device
        devices = 0
    if not devices:
        raise DGraphError(
            "no CUDA GPU found: load_cuda runs the kernels on a GPU (on the CPU use"
            " dgraph.codegen.cuda.load_cuda_host)"
        )
    try:
        module = cupy.RawModule(code=text, options=options)
        module.compile()
    except Exception as exc:
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise DGraphError(f"NVRTC failed to compile the file: {first}") from None
    return CudaModule(cupy, module, meta)
