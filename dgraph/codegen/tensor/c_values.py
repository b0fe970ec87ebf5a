"""The value program of a sparse tensor Jacobian in C99 and CUDA, for its fixed pattern:
the C and CUDA printers of the array statements of :mod:`dgraph.codegen.ir` (issue 42).

:func:`c_values` prints the array program of the sparse Jacobian
(:func:`~dgraph.codegen.tensor.module.tensor_program`, its statements once constants are
folded: the same statements the NumPy module prints) as one C function

    void jacobian_values(const double *in0, ..., const T *K.., ..., double *data)

that fills the CSR ``data`` array (``nnz`` values, in the module's row order) from the
inputs (flattened, C order) and the program's constant arrays ``_K…`` (integer gathers and
scatters, folded float constants; ``K…`` in C), which it takes as arguments. The program
of ``value_and_jacobian`` gives the same function with one more argument after ``data``,
``double *value``: F(x), the outputs flattened and concatenated in the rows' order. One loop
nest per statement over whole arrays; slices (with steps), reshapes, transposes, flips and
broadcasts are strided views (no copy); scratch buffers are sized from the shapes the
statements have at generation; the last one is ``data`` itself. The statements are
``jacobian_values_with(..., data, scratch_double, scratch_int32_t, scratch_int64_t)``, the
scratch the caller's (:meth:`CValues.load` keeps one a thread between calls: a block
larger than the C library maps afresh, 54 MB at a 128×128 solve's Jacobian, cost as
much in page faults as the statements); ``jacobian_values`` mallocs it and calls that.
A scatter adds into a buffer in place where no later statement reads it. A body of more
than :data:`PART_LINES` lines (a program unrolled from a Python loop) is printed as static
functions of whole statements, ``jacobian_values_part<k>``, that ``_with`` calls in turn; a
statement of one entry is one line, without a loop.

The vocabulary (node kinds of :mod:`dgraph.codegen.ir`, one method each): input
reshape/asarray, slicing, reshape, transpose, flip, broadcast_to, ravel; elementwise
arithmetic, integer powers, the array functions (``exp``, ``sin``, ..., ``maximum``,
``heaviside``, ``where``), :class:`~dgraph.codegen.ir.AsType` and
:class:`~dgraph.codegen.ir.Formula` (its sympy expression printed by
:mod:`dgraph.codegen.c`'s printer); ``concatenate``, ``stack``,
``cumsum``, ``cumprod``, ``logaddexp.accumulate`` (``cumlogsumexp``: NumPy's
``logaddexp`` a step, ``dgraph_logaddexp``), ``argmax``/``argmin`` (any axis),
``argsort``/``lexsort`` (stable: :mod:`dgraph.codegen.c_sort`'s merge sort a line),
``searchsorted`` (its binary search, one per query),
``take_along_axis`` and ``take`` at integer arrays computed at run time (a take at an
``argmax``, at ``argsort``'s positions, at a ``clip`` of ``astype(int)``), ``pad`` with a
constant (inside an expression too: into a buffer first, as a reduction is), a basic slice
of a computed value (its buffer's view: a convolution's transpose), gathers
``ravel(x)[K]`` (also inside an expression), :class:`~dgraph.codegen.ir.Scatter`,
:class:`~dgraph.codegen.ir.ScatterAdd` (one or more parts, each position once a part),
:class:`~dgraph.codegen.ir.SegmentSum`, ``sum(x, axis)`` and ``max(x, axis)``, ``full``,
``arange``, ``einsum`` of views (one operand that only permutes axes: a view; a
product of two matrices, a loop step's dense block times its tangent matrix, as
``matmul``'s: a ``dgraph_matmul`` call, NumPy's ``optimize`` ignored; another
contraction, a dense layer's ``W @ x``: a loop nest over every subscript), a
:class:`~dgraph.codegen.ir.Loop` (a ``for`` loop around its body's loop nests; on a GPU the
launcher's loop around the body's kernels, the step their argument); linear algebra:
``matmul`` of stacks (a ``dgraph_matmul`` call per matrix, its sums bounded to a triangular
operand's triangle; on a GPU a thread per product term), ``take``, ``tril``/``triu`` (a
constant mask), ``eye``, and ``linalg.inv`` (of a triangle, a ``tril``/``triu`` or a matrix
triangular by construction: by substitution), ``linalg.cholesky``, ``linalg.det`` and
``linalg.slogdet`` of a stack of matrices, one call per matrix of
:mod:`dgraph.codegen.c_linalg`'s helpers (LU with partial pivoting, once for every inverse
and determinant of one matrix; on a GPU a thread per matrix), ``linalg.eigh`` (its values and
vectors, ``eigh(a)[0]`` and ``[1]``: one cyclic Jacobi call a matrix, ``dgraph_eigh``),
``linalg.qr`` (reduced: Q and R, Householder with LAPACK's signs, ``dgraph_qr``) and
``linalg.svd`` (reduced: U, s and Vt, one-sided Jacobi, ``dgraph_svd``), each made once for
each view of the matrices; and the final
:class:`~dgraph.codegen.ir.SparseMatrix`. Shapes and types are inferred node by node from
those of the arguments and constants (:mod:`dgraph.codegen.shapes`); the sparse pattern is
read from the program's constants.

:attr:`CValues.cuda` is the same program as CUDA text: one kernel per loop nest, a thread
per entry (grid-stride loop), ``atomicAdd`` where positions repeat (a segment sum, a sum
over axes), launched in order by ``jacobian_values_launch`` with scratch from the caller.
It is generated and compiled by tests where ``nvcc`` exists, never run here.

The constants and the pattern are written beside the C file (``jac.c`` + ``jac.bin``) in
one binary file, :func:`index_file`; :func:`read_index_file` reads it back. Layout (all
integers little-endian)::

    8 bytes   magic b"DGCVALS1"
    uint64    number of arrays
    per array:
      32 bytes  name, ASCII, NUL-padded
      8 bytes   NumPy dtype string ("<f8", "<i4", "<i8"), NUL-padded
      uint64    number of entries
      the entries, then zero bytes up to a multiple of 8

The arrays are the function's constant arguments in the order of its signature, then
``indices`` and ``indptr`` (CSR, int64) and ``shape`` (int64, 2 entries). Compiled with
``-DDGRAPH_LOADER`` the C file also has ``jacobian_values_load(path, arrays, counts,
count)``, which reads them (C callers need no Python).

The tangent sweep of a tensor graph (:func:`~dgraph.codegen.tensor.sweeps.jvp_program`,
the statements of the NumPy ``jvp``) prints the same way as one C function ``jvp(in…, K…,
data)`` (kernels ``jvp_k…``, ``jvp_launch``) that writes J·t, the outputs' tangents
flattened and concatenated, into ``data``: the Hessian-vector product of an array
function is this of its gradient graph (:mod:`dgraph.codegen.hessian_native`).

A reduction (``sum``, ``max``, a contraction) read inside an elementwise expression is
computed into a buffer of its own first, as is an ``einsum``'s computed operand.
Statements outside this vocabulary (``frexp``, ...) are refused with one
:class:`~dgraph.errors.DGraphError` naming the statement.
"""

from __future__ import annotations

import bisect
import ctypes
import functools
import heapq
import math
import re
import struct
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse

from ...errors import DGraphError
from .. import ir
from ..c import C_CALLS, C_FORMS, CElementPrinter, compiler
from ..c_special import special_definitions
from ..cuda import HOST_FLAGS, compile_host
from ..ir import ArrayProgram, ArrayStatement, Node
from ..native_build import shared_library
from ..python import NumPyArrayPrinter
from ..shapes import Shaped, ShapeError, ShapeInference, arguments

__all__ = [
    "FUNCTION",
    "MAGIC",
    "CValues",
    "c_inputs",
    "c_type",
    "c_values",
    "compile_values",
    "index_file",
    "packed_call",
    "read_index_file",
]

FUNCTION = "jacobian_values"
SWEEPS = ("jvp", "vjp")  # sweep programs: the C function writes their results, flat, into data
THREADS = 256  # CUDA threads per block
MAGIC = b"DGCVALS1"

# computed into a buffer of their own first where an expression (or a view) reads them
_COMPUTED = {"sum", "prod", "max", "min", "einsum", "cumsum", "cumprod", "concatenate", "arange"}
_COMPUTED |= {"accumulate"}  # logaddexp.accumulate: cumlogsumexp
_COMPUTED |= {"argmax", "argmin", "argsort", "lexsort", "take_along_axis"}  # run-time takes
_COMPUTED |= {"searchsorted"}  # a binary search per query (c_sort)
_COMPUTED |= {"matmul", "take", "inv", "cholesky", "det"}  # linear algebra (c_linalg)
_COMPUTED |= {"pad"}  # a sum of shifted copies (a convolution's transpose: its vjp)
_COMPUTED |= {"SegmentSum"}  # where a take's adjoint lands (a structural zero's condition)
_SHOWN = 200  # the most characters of a refused statement its error line shows
_TILE = 16  # a transposing copy's tile (entries a side)
_WORD = re.compile(r"\w+")
PART_LINES = 2_000
"""The most lines of the C function's body printed as one function: a longer body is
printed as static functions of at most this many lines each (whole statements), called
in turn, as C compilers' optimizing passes grow faster than linearly in a function's
size."""
_TRIANGLES = ("tril", "triu", "cholesky", "inv", "swapaxes")  # calls that may keep a triangle
_DECOMPOSED = {"eigh", "qr", "svd"}  # several results: c_linalg's dgraph_eigh, _qr, _svd
# views of a computed operand: of its own buffer (expand_dims: a take's one-hot compared)
_OWN_BUFFER = {"reshape", "ravel", "transpose", "moveaxis", "swapaxes", "expand_dims", "flip"}
_VIEWS = {
    "reshape", "transpose", "broadcast_to", "flip", "ravel", "asarray", "array",
    "expand_dims", "moveaxis", "swapaxes",
}  # fmt: skip


@dataclass(frozen=True)
class _View:
    """A strided view of a contiguous C buffer: ``base[offset + Σ k_d strides_d]``."""

    base: str
    offset: int
    shape: tuple[int, ...]
    strides: tuple[int, ...]
    ctype: str = "double"

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def contiguous(self) -> bool:
        return self.strides == _c_strides(self.shape) or self.size <= 1

    def to(self, shape: tuple[int, ...]) -> _View:
        """Broadcast to ``shape`` (NumPy's rules: aligned on the right, stride 0 where
        this view has extent 1)."""
        if self.shape == shape:
            return self
        lead = len(shape) - len(self.shape)
        if lead < 0:
            raise DGraphError(f"cannot broadcast {self.shape} to {shape}")
        mine = (1,) * lead + self.shape
        strides = (0,) * lead + self.strides
        out = []
        for m, n, s in zip(mine, shape, strides, strict=True):
            if m not in (1, n):
                raise DGraphError(f"cannot broadcast {self.shape} to {shape}")
            out.append(s if m == n else 0)
        return _View(self.base, self.offset, shape, tuple(out), self.ctype)


def _c_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    strides, step = [], 1
    for n in reversed(shape):
        strides.append(step if n != 1 else 0)
        step *= n
    return tuple(reversed(strides))


def _normal(view: _View) -> tuple[int, ...]:
    """Strides with those of extent-1 axes zeroed (they never move)."""
    return tuple(0 if n == 1 else s for n, s in zip(view.shape, view.strides, strict=True))


def _contiguous(base: str, shape: tuple[int, ...], ctype: str = "double") -> _View:
    return _View(base, 0, tuple(shape), _c_strides(tuple(shape)), ctype)


def c_type(dtype: np.dtype) -> str:
    if dtype.kind == "f" or dtype.kind == "b":
        return "double"
    if dtype.kind in "iu":
        return "int32_t" if dtype.itemsize <= 4 else "int64_t"
    raise DGraphError(f"C values: arrays of {dtype} are not supported")


@dataclass
class CValues:
    """The C value program of one sparse Jacobian and what it reads: its text, the
    constant arrays its signature takes (in order), the CSR pattern, the inputs."""

    text: str
    cuda: str  # the same statements as CUDA kernels (on the host: load_cuda_host)
    constants: dict[str, np.ndarray]
    indices: np.ndarray
    indptr: np.ndarray
    shape: tuple[int, int]
    inputs: tuple[str, ...]
    input_shapes: tuple[tuple[int, ...], ...]
    scratch: dict[str, int] = field(default_factory=dict)  # the CUDA launcher's, per type
    _library: Any = field(default=None, repr=False)
    value_size: int = 0  # value_and_jacobian: F's entries, written to ``value`` after data
    function: str = FUNCTION  # the C function's name: ``jvp`` (``vjp``) for a sweep's program

    @property
    def nnz(self) -> int:
        return int(self.indices.size)

    def index_bytes(self) -> bytes:
        """The constants and the pattern in the layout of the module docstring."""
        return index_file(self.constants, self.indices, self.indptr, self.shape)

    def load(self, flags: tuple[str, ...] = ("-O2",)):
        """Compile the C text (the system compiler, as :func:`~dgraph.codegen.c.load_c`)
        and return ``jacobian(*inputs) -> scipy.sparse.csr_array``: ``..._with`` given
        scratch of its own in each calling thread, kept between calls."""
        types = {"double": np.float64, "int32_t": np.int32, "int64_t": np.int64}
        sizes = {c: self.scratch.get(c, 0) for c in types}
        name, count = f"{self.function}_with", self._count(len(sizes))
        if count <= CTYPES_ARGUMENTS:
            return self._caller(
                compile_values(self.text, flags, name), len(sizes), scratch=(sizes, types)
            )
        function = compile_values(self.text + packed_call(name, count), flags, f"{name}_packed")
        return self._caller(function, len(sizes), scratch=(sizes, types), packed=True)

    def load_cuda_host(self, flags: tuple[str, ...] = HOST_FLAGS):
        """Compile the CUDA text as C++ on the host (``DGRAPH_HOST``: one thread runs each
        kernel's loop, in launch order) and return ``jacobian(*inputs)`` as :meth:`load`
        does: the kernels' bodies, their index arithmetic and their launches checked where
        no GPU is (a GPU's scheduling and atomics are not)."""
        lib = compile_host(self.cuda, flags)
        launch = getattr(lib, f"{self.function}_launch")
        launch.restype = None
        launch._lib = lib  # type: ignore[attr-defined]
        types = {"double": np.float64, "int32_t": np.int32, "int64_t": np.int64}
        scratch = [np.zeros(n, dtype=types[c]) for c, n in self.scratch.items()]
        return self._caller(launch, extra=len(scratch) + 1, after=[*scratch, None])

    def _count(self, extra: int) -> int:
        """The C function's number of arguments (``extra`` of them after data)."""
        return len(self.inputs) + len(self.constants) + 1 + extra + bool(self.value_size)

    def _caller(self, function, extra: int, after: list | None = None, scratch=None, packed=False):
        """``jacobian(*inputs)``: ``function(inputs..., constants..., data, *after)`` (the
        pointers of ``after``'s arrays, None as NULL), ``extra`` arguments after data;
        with :attr:`value_size` ``value`` comes after data and ``(F, J)`` is returned; a
        ``jvp``'s ``data`` is returned as it is (J·t, flat). ``scratch`` (sizes and
        NumPy types by C type): arrays of those sizes after data, one set a thread.
        ``packed``: ``function`` takes the pointers as one array (:func:`_packed`)."""
        value_size = self.value_size
        count = self._count(extra)
        call = function
        if packed:
            function.argtypes = [ctypes.c_void_p]

            def call(*pointers):
                function(ctypes.cast((ctypes.c_void_p * count)(*pointers), ctypes.c_void_p))

        else:
            function.argtypes = [ctypes.c_void_p] * count
        constants = [np.ascontiguousarray(a) for a in self.constants.values()]
        pointers = [a.ctypes.data for a in constants]
        tail = [None if a is None else a.ctypes.data for a in after or []]
        indices, indptr, shape, nnz = self.indices, self.indptr, self.shape, self.nnz
        sizes = [math.prod(s) for s in self.input_shapes]
        names = self.inputs
        flat = self.function in SWEEPS
        local = threading.local()  # each thread's scratch (ctypes calls run concurrently)

        def jacobian(*inputs):
            arrays = c_inputs(inputs, names, sizes)
            data = np.empty(nnz)
            value = np.empty(value_size)
            out = [data.ctypes.data, *([value.ctypes.data] if value_size else [])]
            if scratch is not None:
                held = getattr(local, "pointers", None)
                if held is None:  # this thread's first call: its scratch, kept
                    counts, types = scratch
                    local.arrays = [np.empty(max(n, 1), types[c]) for c, n in counts.items()]
                    held = local.pointers = [a.ctypes.data for a in local.arrays]
                out += held
            call(*[a.ctypes.data for a in arrays], *pointers, *out, *tail)
            if flat:
                return data
            J = scipy.sparse.csr_array((data, indices, indptr), shape=shape)
            return (value, J) if value_size else J

        jacobian._keep = (function, constants, after)  # type: ignore[attr-defined]
        return jacobian


def c_inputs(inputs: tuple, names: tuple[str, ...], sizes: list[int]) -> list[np.ndarray]:
    """The inputs of a call of a C function as contiguous float64 arrays, their count and
    sizes checked (one line each)."""
    if len(inputs) != len(names):
        raise DGraphError(f"jacobian takes {len(names)} inputs {names}, not {len(inputs)}")
    arrays = [np.ascontiguousarray(x, dtype=np.float64) for x in inputs]
    for name, a, size in zip(names, arrays, sizes, strict=True):
        if a.size != size:
            raise DGraphError(f"input {name}: {a.size} entries, not {size}")
    return arrays


CTYPES_ARGUMENTS = 1024  # ctypes refuses a foreign function of more arguments


def packed_call(name: str, count: int) -> str:
    """A C function ``<name>_packed(void **a)`` calling ``name(a[0], ..., a[count-1])``:
    a program of many constant arrays (thousands, one per gather of an unrolled loop)
    has more pointer arguments than ctypes passes (:data:`CTYPES_ARGUMENTS`); C converts
    each ``void *`` to the parameter's pointer type."""
    arguments = ", ".join(f"a[{k}]" for k in range(count))
    return f"\nvoid {name}_packed(void **a) {{ {name}({arguments}); }}\n"


def compile_values(text: str, flags: tuple[str, ...], name: str = FUNCTION):
    cc = compiler()
    if cc is None:
        raise DGraphError("no C compiler found (set CC or install cc); use --lang python")
    lib = shared_library(cc, tuple(flags), text, ".c", ("-lm",))
    function = getattr(lib, name)
    function.restype = None
    function._lib = lib  # type: ignore[attr-defined]
    return function


def index_file(constants: dict[str, np.ndarray], indices, indptr, shape) -> bytes:
    """The binary file beside the C file (layout: module docstring)."""
    arrays = dict(constants)
    arrays["indices"] = np.asarray(indices, dtype=np.int64)
    arrays["indptr"] = np.asarray(indptr, dtype=np.int64)
    arrays["shape"] = np.asarray(shape, dtype=np.int64)
    parts = [MAGIC, struct.pack("<Q", len(arrays))]
    for name, a in arrays.items():
        a = np.ascontiguousarray(a).ravel()
        a = a.astype(a.dtype.newbyteorder("<"), copy=False)
        parts += [name.encode().ljust(32, b"\0"), a.dtype.str.encode().ljust(8, b"\0")]
        payload = a.tobytes()
        parts += [struct.pack("<Q", a.size), payload, b"\0" * (-len(payload) % 8)]
    return b"".join(parts)


def read_index_file(path: str | Path | bytes) -> dict[str, np.ndarray]:
    """The arrays of an :func:`index_file` (a path or its bytes), in file order.

    >>> raw = index_file({"_K0": np.arange(3, dtype=np.int32)}, [0, 1], [0, 1, 2], (2, 2))
    >>> {k: v.tolist() for k, v in read_index_file(raw).items()}
    {'_K0': [0, 1, 2], 'indices': [0, 1], 'indptr': [0, 1, 2], 'shape': [2, 2]}
    """
    raw = path if isinstance(path, bytes) else Path(path).read_bytes()
    if raw[:8] != MAGIC:
        raise DGraphError("not a dgraph C values index file (bad magic)")
    (count,) = struct.unpack_from("<Q", raw, 8)
    at, out = 16, {}
    for _ in range(count):
        name = raw[at : at + 32].rstrip(b"\0").decode()
        dtype = np.dtype(raw[at + 32 : at + 40].rstrip(b"\0").decode())
        (n,) = struct.unpack_from("<Q", raw, at + 40)
        at += 48
        out[name] = np.frombuffer(raw, dtype, n, at).copy()
        at += n * dtype.itemsize + (-(n * dtype.itemsize) % 8)
    return out


def c_values(program: ArrayProgram, made_at: str = "") -> CValues:
    """The C value program of the array program of a NumPy sparse ``jacobian`` or
    ``value_and_jacobian`` (:func:`~dgraph.codegen.tensor.module.tensor_program` with
    ``keep_arrays``; module docstring), or of a tangent sweep (``jvp``,
    :func:`~dgraph.codegen.tensor.sweeps.jvp_program`: the C function ``jvp`` writes J·t
    into ``data``, the outputs' tangents flattened and concatenated). ``made_at``: what
    its title adds, as the other modules' (the values that fix the program's structure,
    :func:`~dgraph.frontends.fixed_parameters.made_at`)."""
    if program.name not in ("jacobian", "value_and_jacobian", *SWEEPS):
        raise DGraphError("C values: the program is not jacobian(); generate mode jacobian")
    return _Translator(program, made_at).run()


class _Translator(CElementPrinter):
    """One pass over the statements: views kept symbolic, every other statement one loop
    nest writing a scratch buffer (or ``data``)."""

    def __init__(self, program: ArrayProgram, made_at: str = "") -> None:
        self.program = program
        self.made_at = made_at.replace("*/", "* /")
        self.module_constants = program.constants
        self.body = program.statements
        self.args = list(program.arguments)
        self.inputs, self.shapes = program.inputs, program.shapes
        self.function = program.name if program.name in SWEEPS else FUNCTION
        super().__init__(self.function)
        self.printer = NumPyArrayPrinter()
        self.inference = ShapeInference(arguments(program))
        self.env: dict[str, _View | float] = {}
        self.constants: dict[str, np.ndarray] = {}
        self.scratch: list[tuple[str, int, str]] = []  # name, size, ctype
        self.tick = 0  # the statements translated so far, loop bodies' included
        self.born: dict[str, int] = {}  # a buffer: the statement that makes it (its tick)
        self.last: dict[str, int] = {}  # a buffer: the last statement that reads it
        self.lines: list[str] = []
        self.kernels: list[tuple[int, list[str], str]] = []  # entries, index decoding, body
        self.counter = 0
        self.pattern: tuple | None = None
        self.value_size = 0  # value_and_jacobian: the entries of F
        self.current = ""
        self.views: dict[int, _View | None] = {}
        self.factored: dict[tuple, tuple] = {}  # a matrix view: its LU (eigh, qr, svd) buffers
        self.triangles: dict[str, str] = {}  # a name: "lower" or "upper" (_triangle)
        self.last_read = _last_reads(self.body)
        self.ends: list[int] = []  # each statement's end in self.lines (_parts)
        self.index = 0
        self.loops = 0  # how many loops the statement being translated is inside
        self.alive: list[Node] = []  # the loop bodies' nodes: ids in self.views stay theirs
        self.masks: dict[int, ir.Name] = {}  # tril/triu nodes: their masks' names

    # -- statements -----------------------------------------------------------------------

    def run(self) -> CValues:
        if any(_call_name(n) == "sort" for st in self.body for n in ir.walk(st.value)):
            raise DGraphError(
                "C values: sort is not printed in C (its values are a take at argsort's"
                " positions, which C prints): use lang python or jax"
            )
        for index, statement in enumerate(self.body):
            self.index = index
            self.current = self.printer.statement(statement).strip()
            self._statement(statement.target, statement.value)
            self.ends.append(len(self.lines))
        self.tick += 1  # the results' copies: after every statement
        if self.program.name in SWEEPS:
            self._tangents()
        if self.pattern is None:
            raise DGraphError("C values: the module returns no scipy.sparse.csr_array")
        if self.program.name == "value_and_jacobian":  # F(x) copied into ``value``
            self.current = f"value = {self.program.results[1]}"
            found = self._operand(ir.Name(self.program.results[1]))
            self.value_size = found.size
            out = _contiguous("value", (found.size,))
            copy = [out, found.to(out.shape)]
            self._loop(copy, lambda i: f"value[{i[0]}] = {found.base}[{i[1]}];")
        return self._finish()

    def _tangents(self) -> None:
        """A ``jvp``'s results (the outputs' tangents) copied into ``data``, one after
        another; its "pattern" the one dense row they make."""
        at = 0
        for name in self.program.results:
            self.current = f"data = {name}"
            found = self._operand(ir.Name(name))  # contiguous: read flat
            flat = _View(found.base, found.offset, (found.size,), (1,), found.ctype)
            out = _View("data", at, (found.size,), (1,))
            self._loop([out, flat], lambda i, b=found.base: f"data[{i[0]}] = {b}[{i[1]}];")
            at += found.size
        indptr = np.array([0, at], dtype=np.int64)
        self.pattern = (np.arange(at, dtype=np.int64), indptr, (1, at))

    def _statement(self, target: str, node: Node) -> None:
        """One statement: its shape inferred (a loop's: the tuple of its outputs'), then
        translated."""
        loop = isinstance(node, (ir.Loop, ir.While, ir.Cond))
        if loop:  # named in one line where its body is refused
            self.current = f"{target} = <{type(node).__name__.lower()}>"
        self.tick += 1
        start = self.tick
        outer = [self.env.get(n) for n in ir.names_in(node) | {target}]
        self._read(outer)
        if _call_name(node) == "eig":
            self._refuse(
                "the eigenvalues of a nonsymmetric matrix (eigvals, sqrtm) have no C helper:"
                " use Python or JAX"
            )
        if _call_name(node) in _DECOMPOSED:  # eigh's (w, V), qr's (Q, R), svd's (U, s, Vt)
            self.inference.env[target] = self._inferred(node)
            self.env[target] = self._decomposition(node)  # type: ignore[arg-type]
            return
        shaped = self._inferred(node) if loop else self._shaped(node)
        self.inference.env[target] = shaped
        if loop:  # its buffers written again each step: no LU shared across its edges
            self.factored.clear()
        self._assign(target, node, shaped)
        if loop:
            self.factored.clear()
            # what the loop reads from outside, and its own buffers (carries, stacked ys,
            # slices, outputs), live through every step: to its last statement
            self._read(outer, self.tick)
            for name, born in self.born.items():
                if born == start:
                    self.last[name] = max(self.last[name], self.tick)
        elif self._triangle(node):
            self.triangles[target] = self._triangle(node)  # type: ignore[assignment]

    def _refuse(self, why: str) -> None:
        shown = " ".join(self.current.split())  # one line, a long statement cut short
        if len(shown) > _SHOWN:
            shown = f"{shown[: _SHOWN - 20]} … {shown[-19:]}"
        raise DGraphError(f"C values: cannot translate `{shown}` ({why})")

    def _assign(self, target: str, node: Node, shaped: Shaped) -> None:
        if isinstance(node, ir.SparseMatrix):
            self._csr(node)
            return
        if isinstance(node, ir.Loop):
            self._loop_statement(target, node)
            return
        if isinstance(node, ir.While):
            self._while_statement(target, node)
            return
        if isinstance(node, ir.Cond):
            self._cond_statement(target, node)
            return
        shape = shaped.shape
        view = self._view(node)
        if view is not None:
            self._check(view.shape, shape)
            self.env[target] = view
            return
        ctype = c_type(shaped.dtype)
        if isinstance(node, ir.ScatterAdd) and self._dead(node.base, shape):
            base = self.env[node.base.id]  # type: ignore[attr-defined]
            self.factored = {k: v for k, v in self.factored.items() if k[0] != base.base}
            for flat, data in node.parts:
                self._scatter(base.base, flat, data, "+=")
            self.env[target] = base
            return
        out = _contiguous(self._buffer(target, math.prod(shape), ctype), shape, ctype)
        write = getattr(self, f"_statement_{type(node).__name__}", self._copy)
        write(out, node)
        self.env[target] = out

    # -- statements that compute: one method per kind (the rest elementwise, _copy) --------

    def _statement_ScatterAdd(self, out: _View, node: ir.ScatterAdd) -> None:
        self._copy(out, node.base)
        for flat, data in node.parts:
            self._scatter(out.base, flat, data, "+=")

    def _statement_Scatter(self, out: _View, node: ir.Scatter) -> None:
        self._fill(out, 0.0)
        self._scatter(out.base, node.flat, node.data, "=")

    def _statement_SegmentSum(self, out: _View, node: ir.SegmentSum) -> None:
        self._fill(out, 0.0)
        self._scatter(out.base, node.ids, node.data, "+=", repeats=True)

    def _statement_Index(self, out: _View, node: ir.Index) -> None:
        if _call_name(node.value) == "slogdet":
            self._determinant(out, node.value, self._integer(node.items[0]))  # type: ignore[arg-type]
        elif self._index_array(node.items) is not None:
            self._gather(out, node)
        else:
            self._copy(out, node)

    def _statement_Call(self, out: _View, node: ir.Call) -> None:
        kind = _call_name(node)
        if kind in ("sum", "prod"):
            self._sum(out, node, "+" if kind == "sum" else "*")
        elif kind in ("max", "min"):
            self._extreme(out, node, kind)
        elif kind == "einsum":
            self._einsum(out, node)
        elif kind == "concatenate":
            self._concatenate(out, node)
        elif kind == "stack":
            self._stack(out, node)
        elif kind in ("cumsum", "cumprod"):
            self._cumulative(out, node, "+" if kind == "cumsum" else "*")
        elif node.func == "logaddexp.accumulate":
            self._cumulative(out, node, "logaddexp")
        elif kind in ("argmax", "argmin"):
            self._arg_extreme(out, node, ">" if kind == "argmax" else "<")
        elif kind in ("argsort", "lexsort"):
            self._argsort(out, node)
        elif kind == "searchsorted":
            self._searchsorted(out, node)
        elif kind == "take_along_axis":
            self._take_along_axis(out, node)
        elif kind == "pad":
            self._pad(out, node)
        elif kind == "full":
            self._fill(out, self._number(node.args[1]))
        elif kind in ("zeros", "ones"):  # ones: a sweep's leaf of a selection's block
            self._fill(out, float(kind == "ones"))
        elif kind == "arange":
            self._arange(out, node)
        elif kind == "matmul":
            self._matmul(out, node)
        elif kind == "take":
            self._take(out, node)
        elif kind in ("inv", "cholesky"):
            self._matrix_function(out, node)
        elif kind == "det":
            self._determinant(out, node, 2)
        else:
            self._copy(out, node)

    def _dead(self, node: Node, shape: tuple[int, ...]) -> bool:
        """``node`` names a whole scratch buffer of ``shape`` that no later statement
        reads, through any name: a scatter may add into it in place."""
        if not isinstance(node, ir.Name) or not isinstance(self.env.get(node.id), _View):
            return False
        if self.loops:  # a buffer read again by the next step
            return False
        view = self.env[node.id]
        mine = view.base in self.born  # a scratch buffer (born: each one, as it is made)
        if not mine or view.offset or not view.contiguous or view.shape != shape:
            return False
        read = [v for n, v in self.env.items() if self.last_read.get(n, -1) > self.index]
        read += [p for v in read if isinstance(v, tuple) for p in v]  # a decomposition's
        return not any(isinstance(v, _View) and v.base == view.base for v in read)

    def _check(self, got: tuple[int, ...], want: tuple[int, ...]) -> None:
        if tuple(got) != tuple(want):
            self._refuse(f"its shape {got} differs from the inferred {want}")

    def _buffer(self, hint: str, size: int, ctype: str) -> str:
        self.counter += 1
        hint = re.sub(r"\W", "_", hint)  # a loop body's names: <loop>.<name>
        name = f"b{self.counter}_{hint}"[:40]
        self.scratch.append((name, size, ctype))
        self.born[name] = self.last[name] = self.tick
        return name

    def _read(self, value: object, at: int | None = None) -> None:
        """Record that the buffers ``value`` views (a view, or a tuple of them: a loop's
        or a decomposition's outputs) are read at statement ``at`` (now: the current)."""
        if isinstance(value, (tuple, list)):
            for part in value:
                self._read(part, at)
        elif isinstance(value, _View) and value.base in self.last:
            self.last[value.base] = max(self.last[value.base], self.tick if at is None else at)

    # -- views ------------------------------------------------------------------------------

    def _view(self, node: Node) -> _View | None:
        """``node`` as a view of a buffer, or None when it computes something (once per
        node: a materialized copy is emitted once)."""
        key = id(node)
        if key not in self.views:
            self._keep(node, self._make_view(node))
        self._read(self.views[key])
        return self.views[key]

    def _keep(self, node: Node, view: _View | None) -> None:
        """``node``'s view kept under ``id(node)``, and ``node`` kept alive with it: a
        node made for one lookup (``_tangents``' ``Name`` of each result) freed would pass
        its id to the next one, which would then read the first one's view."""
        self.views[id(node)] = view
        self.alive.append(node)

    def _make_view(self, node: Node) -> _View | None:
        if isinstance(node, ir.Name):
            return self._name(node.id)
        if isinstance(node, ir.Item) and isinstance(node.value, ir.Name):
            outputs = self.env.get(node.value.id)
            return outputs[node.index] if isinstance(outputs, tuple) else None
        if isinstance(node, ir.Index) and self._decomposition_part(node) is not None:
            return self._decomposition_part(node)
        if isinstance(node, ir.Index) and self._index_array(node.items) is None:
            base = self._view(node.value)
            if base is None and _call_name(node.value) != "slogdet":  # (sign, log): its own
                base = self._operand(node.value)  # a slice of a computed value: its buffer's
            return None if base is None else self._slice(base, node.items)
        kind = _call_name(node)
        if kind == "einsum" and isinstance(node, ir.Call):
            return self._permutation(node)
        if kind == "take" and isinstance(node, ir.Call) and isinstance(node.args[1], ir.Const):
            source = self._view(node.args[0]) or self._operand(node.args[0])  # a[..., k, ...]
            axis = _literal(node.keyword("axis")) % len(source.shape)
            items = (*(ir.Slice(None, None, None),) * axis, node.args[1])
            return self._slice(source, items)
        if kind == "eye" and isinstance(node, ir.Call) and len(node.args) == 1:
            n = self._integer(node.args[0])
            self.constants.setdefault(f"I{n}", np.eye(n))
            return _contiguous(f"I{n}", (n, n))
        if kind not in _VIEWS or not isinstance(node, ir.Call):
            return None
        inner = self._view(node.args[0])
        if inner is None and kind in _OWN_BUFFER:
            inner = self._operand(node.args[0])  # of a computed value: its buffer
        elif inner is None and _call_name(node.args[0]) in _COMPUTED:  # a cumprod flipped
            inner = self._reduction(node.args[0])
        if inner is None:
            return None
        if kind in ("asarray", "array"):  # a copy (F's) read only: the buffer itself
            return inner
        if kind in ("reshape", "ravel"):
            shape = self._shaped(node).shape  # by the call-shape table
            if not inner.contiguous:
                inner = self._materialize(inner)
            return _View(inner.base, inner.offset, shape, _c_strides(shape), inner.ctype)
        if kind == "expand_dims":  # a new axis of length 1 (stride 0)
            axis = _literal(node.args[1]) % (len(inner.shape) + 1)
            strides = _normal(inner)
            return _View(
                inner.base,
                inner.offset,
                (*inner.shape[:axis], 1, *inner.shape[axis:]),
                (*strides[:axis], 0, *strides[axis:]),
                inner.ctype,
            )
        if kind in ("transpose", "moveaxis", "swapaxes"):
            axes = _axes_of(kind, [_literal(a) for a in node.args[1:]], len(inner.shape))
            return _permuted(inner, axes)
        if kind == "broadcast_to":
            return _View(inner.base, inner.offset, inner.shape, _normal(inner), inner.ctype).to(
                _literal_shape(node.args[1])
            )
        # flip
        axes = _literal(node.args[1]) if len(node.args) > 1 else range(len(inner.shape))
        axes = (axes,) if isinstance(axes, int) else tuple(axes)
        offset, strides = inner.offset, list(_normal(inner))
        for a in axes:
            offset += (inner.shape[a] - 1) * strides[a]
            strides[a] = -strides[a]
        return _View(inner.base, offset, inner.shape, tuple(strides), inner.ctype)

    def _permutation(self, node: ir.Call) -> _View | None:
        """A one-operand ``einsum`` that only permutes axes (``'ab->ba'``): a transpose;
        any other einsum (a contraction, a sum, a diagonal) computes and is refused."""
        spec = _literal(node.args[0]) if node.args else None
        if not isinstance(spec, str) or len(node.args) != 2 or "->" not in spec:
            return None
        source, result = spec.replace(" ", "").split("->")
        if sorted(source) != sorted(result) or len(set(source)) != len(source):
            return None
        inner = self._view(node.args[1])
        if inner is None:
            return None
        return _permuted(inner, [source.index(c) for c in result])

    def _name(self, name: str) -> _View | None:
        if name in self.env:
            value = self.env[name]
            return value if isinstance(value, _View) else None
        if name in self.args:
            k = self.args.index(name)
            view = _contiguous(f"in{k}", self.shapes[k])
            self.env[name] = view
            return view
        value = self.module_constants.get(name)
        if isinstance(value, np.ndarray):
            cname = name.lstrip("_")  # _K3 -> K3 (C reserves _ and a capital)
            if value.dtype.kind == "b":  # booleans are doubles in C (_ctype)
                value = value.astype(np.float64)
            self.constants.setdefault(cname, value)
            return _contiguous(cname, value.shape, c_type(value.dtype))
        return None

    def _slice(self, base: _View, parts: tuple[Node, ...]) -> _View:
        offset, shape, strides = base.offset, [], []
        axis = 0
        for part in parts:
            if isinstance(part, ir.Const) and part.value is Ellipsis:  # the axes not named
                skip = len(base.shape) - (len(parts) - 1)
                shape += base.shape[axis : axis + skip]
                strides += base.strides[axis : axis + skip]
                axis += skip
                continue
            if axis >= len(base.shape):
                self._refuse("more indices than axes")
            n, s = base.shape[axis], base.strides[axis]
            if isinstance(part, ir.Slice):
                bounds = [part.lower, part.upper, part.step]
                start, stop, step = slice(*bounds).indices(n)
                offset += start * s
                shape.append(len(range(start, stop, step)))
                strides.append(step * s)
            else:
                k = self._integer(part)
                offset += (k + n if k < 0 else k) * s
            axis += 1
        shape += base.shape[axis:]
        strides += base.strides[axis:]
        return _View(base.base, offset, tuple(shape), tuple(strides), base.ctype)

    def _integer(self, node: Node) -> int:
        value = _literal(node)
        if not isinstance(value, int):
            self._refuse("an index that is not an integer")
        return value

    def _index_array(self, items: tuple[Node, ...]) -> _View | None:
        """The integer constant array the one index of ``items`` names (a gather), or
        None."""
        index = items[0] if len(items) == 1 else None
        if isinstance(index, ir.Name):
            value = self.module_constants.get(index.id)
            if isinstance(value, np.ndarray) and value.dtype.kind in "iu":
                return self._name(index.id)
            if value is None and index.id in self.env:  # an integer array made at run time
                found = self._view(index)
                if found is not None and found.ctype != "double":
                    return found
        if isinstance(index, ir.Index) and self._index_array(index.items) is not None:
            found = self._operand(index)  # positions read from integers at run time: K[i]
            return found if found.ctype != "double" else None
        return None

    def _materialize(self, view: _View) -> _View:
        out = self._buffer("copy", view.size, view.ctype)
        out_view = _contiguous(out, view.shape, view.ctype)
        body = lambda i: f"{out}[{i[0]}] = {view.base}[{i[1]}];"  # noqa: E731
        runs = [d for d, s in enumerate(_normal(view)) if s == 1]  # the axis view runs along
        last = len(view.shape) - 1
        if not runs or runs[0] == last or min(view.shape[runs[0]], view.shape[-1]) < 2 * _TILE:
            self._loop([out_view, view], body)
            return out_view
        self._loop([out_view, view], body, host=False)
        self._tiled_copy(out_view, view, runs[0])
        return out_view

    def _tiled_copy(self, out: _View, view: _View, axis: int) -> None:
        """``out = view`` (out contiguous), view running along ``axis`` (stride 1), not its
        last one: a transpose, copied by _TILE×_TILE tiles of those two axes so that
        both sides' cache lines are read and written whole (a row-by-row copy of a
        64×4096 transpose read a new line each entry)."""
        shape, last = view.shape, len(view.shape) - 1
        lines, indent = [], "    "
        tiled = (axis, last)
        for d in [d for d in range(len(shape)) if d not in tiled]:  # the other axes outside
            lines.append(f"{indent}for (long k{d} = 0; k{d} < {shape[d]}L; k{d}++) {{")
            indent += "    "
        for d in tiled:
            lines.append(f"{indent}for (long t{d} = 0; t{d} < {shape[d]}L; t{d} += {_TILE}L) {{")
            indent += "    "
        for d in tiled:
            end = f"(t{d} + {_TILE}L < {shape[d]}L ? t{d} + {_TILE}L : {shape[d]}L)"
            lines.append(f"{indent}for (long k{d} = t{d}; k{d} < {end}; k{d}++) {{")
            indent += "    "
        index = []
        for v in (out, view):
            terms = [f"k{d} * {s}L" if s != 1 else f"k{d}" for d, s in enumerate(_normal(v)) if s]
            index.append(_plus(v.offset, " + ".join(terms) or None))
        lines.append(f"{indent}{out.base}[{index[0]}] = {view.base}[{index[1]}];")
        for _ in range(len(shape) + 2):
            indent = indent[:-4]
            lines.append(f"{indent}}}")
        self.lines += lines

    # -- loops --------------------------------------------------------------------------

    def _loop(
        self, views: list[_View], body, atomic=None, *, host: bool = True, device: bool = True
    ) -> None:
        """One loop nest over the (common) shape of ``views`` (and one CUDA kernel, a
        thread per entry); ``body`` gets each view's index expression; ``atomic``, where
        given, is the kernel's body (an addition where positions repeat). ``host`` /
        ``device`` False: the C loop / the kernel left out (a statement printed in two
        forms)."""
        shape = views[0].shape
        n = math.prod(shape)
        kernel = atomic or body
        lines_at, kernels_at = len(self.lines), len(self.kernels)
        self._loop_both(views, body, kernel, shape, n)
        if not host:
            del self.lines[lines_at:]
        if not device:
            del self.kernels[kernels_at:]

    def _loop_both(self, views: list[_View], body, kernel, shape, n: int) -> None:
        """The C loop nest and the CUDA kernel of :meth:`_loop`. An axis of one entry
        gets no loop (its index is 0): an unrolled program's scalar statements are each
        one line, which C compilers take in a fraction of the time a loop costs them."""
        if all(v.contiguous or not any(_normal(v)) for v in views):
            index = [_plus(v.offset, "i" if any(_normal(v)) and n > 1 else None) for v in views]
            self.lines += (
                [f"    {_unlooped(body(index), ['i'])}"]
                if n == 1
                else [f"    for (long i = 0; i < {n}L; i++) {{", f"        {body(index)}", "    }"]
            )
            self.kernels.append((n, [], kernel(index)))
            return
        looped = [d for d, extent in enumerate(shape) if extent > 1]
        lines, indent = [], "    "
        for d in looped:
            lines.append(f"{indent}for (long k{d} = 0; k{d} < {shape[d]}L; k{d}++) {{")
            indent += "    "
        index = []
        for v in views:
            terms = [
                f"k{d} * {s}L" if s != 1 else f"k{d}"
                for d, s in enumerate(_normal(v))
                if s and d in looped
            ]
            index.append(_plus(v.offset, " + ".join(terms) or None))
        dropped = [f"k{d}" for d in range(len(shape)) if d not in looped]
        lines.append(f"{indent}{_unlooped(body(index), dropped)}")
        for _ in looped:
            indent = indent[:-4]
            lines.append(f"{indent}}}")
        self.lines += lines
        depth = len(shape)
        decode = ["long long r = i;"]
        for d in range(depth - 1, 0, -1):
            decode += [f"long long k{d} = r % {shape[d]}LL;", f"r /= {shape[d]}LL;"]
        decode.append("long long k0 = r;")
        self.kernels.append((n, decode, kernel(index)))

    def _fill(self, out: _View, value: float | str, host: bool = True) -> None:
        text = value if isinstance(value, str) else _double(value)
        self._loop([out], lambda i: f"{out.base}[{i[0]}] = {text};", host=host)

    def _elementwise(self, node: Node, at: _View) -> tuple[list[_View], Callable[[list[str]], str]]:
        """The views a loop over ``at`` reads the elementwise expression ``node`` through
        (``at`` first, then ``node``'s leaves broadcast to its shape), and the expression's
        text at a loop index (one index per view)."""
        leaves: list[_View] = []
        expression = self._expression(node, leaves, at.shape)
        views = [at, *(leaf.to(at.shape) for leaf in leaves)]

        def text(index: list[str]) -> str:
            out = expression
            for k, view in enumerate(views[1:]):
                out = out.replace(f"@{k}@", f"{view.base}[{index[k + 1]}]")
            return out

        return views, text

    def _copy(self, out: _View, node: Node) -> None:
        """``out`` = the elementwise expression ``node`` (broadcast to ``out``'s shape)."""
        views, text = self._elementwise(node, out)
        self._loop(views, lambda index: f"{out.base}[{index[0]}] = {text(index)};")

    def _scatter(self, out: str, flat: Node, data: Node, op: str, repeats: bool = False) -> None:
        ids = self._view(flat)
        if ids is None or ids.ctype == "double":
            self._refuse("a scatter whose positions are not an integer array")
        ids = ids if ids.contiguous else self._materialize(ids)
        views, text = self._elementwise(data, ids)

        def body(index: list[str]) -> str:
            return f"{out}[{ids.base}[{index[0]}]] {op} {text(index)};"

        def atomic(index: list[str]) -> str:
            line = body(index)
            target, value = line[:-1].split(f" {op} ", 1)
            return f"atomicAdd(&{target}, {value});"

        self._loop(views, body, atomic if repeats else None)

    def _gather(self, out: _View, node: ir.Index) -> None:
        constant = self._one_number(node.value)
        if constant is not None:
            self._fill(out, constant)
            return
        source = self._view(node.value)
        if source is None:
            self._refuse("a gather from a computed expression")
        if not source.contiguous:
            source = self._materialize(source)
        ids = self._index_array(node.items)
        if len(source.shape) > 1:  # whole rows (a loop's tangent rows at a pattern's columns)
            self._row_gather(out, source, ids)
            return

        def body(i: list[str]) -> str:
            at = _plus(source.offset, f"{ids.base}[{i[1]}]")
            return f"{out.base}[{i[0]}] = {source.base}[{at}];"

        self._loop([out, ids], body)

    def _row_gather(self, out: _View, source: _View, ids: _View | None) -> None:
        """``out = source[K]``: the rows of ``source`` (contiguous, its first axis) at the
        integer vector ``K`` (NumPy's ``D[K]``: the tangent rows a loop's sparse product
        reads at a pattern's columns); ``out[i, ...] = source[K[i], ...]``."""
        if ids is None or len(ids.shape) != 1 or out.shape[1:] != source.shape[1:]:
            self._refuse("a gather of rows at an index that is not one vector")
        rest = math.prod(source.shape[1:])
        inner = (0, *_c_strides(source.shape[1:]))  # the entry within a row
        within = _View(source.base, source.offset, out.shape, inner, source.ctype)
        at = _View(
            ids.base,
            ids.offset,
            out.shape,
            (_normal(ids)[0],) + (0,) * (len(out.shape) - 1),
            ids.ctype,
        )

        def body(i: list[str]) -> str:
            row = f"(long){at.base}[{i[2]}] * {rest}L"
            return f"{out.base}[{i[0]}] = {source.base}[{i[1]} + {row}];"

        self._loop([out, within, at], body)

    def _reduced(self, out: _View, node: ir.Call, kind: str) -> tuple[_View, tuple[int, ...]]:
        """A reduction's result ``out`` as a view over its operand's shape (stride 0 on
        the axes reduced), and that shape."""
        shape = self._shaped(node.args[0]).shape
        axis_node = node.keyword("axis")
        axis = None if axis_node is None else _literal(axis_node)
        if len(node.args) > 1 or any(k not in ("axis", "keepdims") for k, _ in node.keywords):
            self._refuse(f"{kind} with other arguments than axis and keepdims")
        axes = range(len(shape)) if axis is None else (axis,) if isinstance(axis, int) else axis
        axes = {a % len(shape) for a in axes} if shape else set()
        kept = [d for d in range(len(shape)) if d not in axes]
        strides = dict(zip(kept, _c_strides(tuple(shape[d] for d in kept)), strict=True))
        into = _View(out.base, 0, shape, tuple(strides.get(d, 0) for d in range(len(shape))))
        return into, shape

    def _sum(self, out: _View, node: ir.Call, op: str) -> None:
        """``sum(x, axis=...)`` (``keepdims`` or not): zeros, then each entry of x added
        to its place (atomically on a GPU); ``prod`` (``op`` ``*``): ones, each entry
        multiplied in (on a GPU by a compare-and-swap loop, ``dgraph_atomic_mul``)."""
        if op == "*" and out.ctype != "double":
            self._refuse("prod of an integer array")
        into, shape = self._reduced(out, node, "sum" if op == "+" else "prod")
        self._fill(out, 0.0 if op == "+" else 1.0)
        leaves: list[_View] = []
        expression = self._expression(node.args[0], leaves, shape)
        views = [into, *(leaf.to(shape) for leaf in leaves)]

        def body(index: list[str]) -> str:
            text = expression
            for k in range(len(leaves)):
                text = text.replace(f"@{k}@", f"{views[k + 1].base}[{index[k + 1]}]")
            return f"{out.base}[{index[0]}] {op}= {text};"

        def atomic(index: list[str]) -> str:
            target, value = body(index)[:-1].split(f" {op}= ", 1)
            return f"{'atomicAdd' if op == '+' else 'dgraph_atomic_mul'}(&{target}, {value});"

        self._loop(views, body, atomic)

    def _einsum(self, out: _View, node: ir.Call) -> None:
        """A contraction ``einsum('ab,bc->ac', W, x)`` (a dense layer's product; any
        number of operands, each a view of a buffer): one loop nest over every letter, the
        result's first, the summed ones inside, each product of the operands' entries
        added to its place (atomically on a GPU); with no letter summed, assigned. A
        product of two matrices (a loop step's dense block times its tangent matrix,
        either operand transposed by its letters) is :meth:`_product`'s: one
        ``dgraph_matmul`` call. ``optimize`` (NumPy's choice of a contraction path, BLAS)
        does not change the value: ignored."""
        spec = _literal(node.args[0]) if node.args else None
        if not isinstance(spec, str) or "->" not in spec or "." in spec:
            self._refuse("einsum without explicit result subscripts")
        if any(name != "optimize" for name, _ in node.keywords):
            self._refuse("einsum with keywords other than optimize")
        sources, result = spec.replace(" ", "").split("->")
        parts, operands = sources.split(","), node.args[1:]
        if len(parts) != len(operands) or len(set(result)) != len(result):
            self._refuse("einsum subscripts that do not fit its operands")
        views, extent = [], {}
        for letters, operand in zip(parts, operands, strict=True):
            view = self._view(operand)
            if view is None:  # a computed operand (a where of a gathered block): a buffer
                view = self._operand(operand)
            if len(letters) != len(view.shape):
                self._refuse("einsum subscripts that do not fit its operands")
            for c, n in zip(letters, view.shape, strict=True):
                if extent.setdefault(c, n) != n:
                    self._refuse(f"einsum axis {c} of extents {extent[c]} and {n}")
            views.append(view)
        summed = [c for c in dict.fromkeys(sources.replace(",", "")) if c not in result]
        matrices = _matrix_pair(parts, result, views)
        if matrices is not None:
            self._product(out, *matrices, 0, 0)
            return
        letters = [*result, *summed]
        shape = tuple(extent[c] for c in letters)

        def spread(view: _View, own: str) -> _View:
            """``view`` over every letter (stride 0 on the letters it lacks; a letter it
            repeats, a diagonal, the sum of its strides)."""
            strides = dict.fromkeys(letters, 0)
            for c, stride in zip(own, _normal(view), strict=True):
                strides[c] += stride
            return _View(
                view.base, view.offset, shape, tuple(strides[c] for c in letters), view.ctype
            )

        into = _View(out.base, out.offset, shape, _normal(out) + (0,) * len(summed), out.ctype)
        spread_views = [spread(v, own) for v, own in zip(views, parts, strict=True)]
        op = "+=" if summed else "="
        if summed:
            self._fill(out, 0.0)

        def body(index: list[str]) -> str:
            factors = [f"{v.base}[{i}]" for v, i in zip(spread_views, index[1:], strict=True)]
            return f"{out.base}[{index[0]}] {op} {' * '.join(factors)};"

        def atomic(index: list[str]) -> str:
            target, value = body(index)[:-1].split(" += ", 1)
            return f"atomicAdd(&{target}, {value});"

        self._loop([into, *spread_views], body, atomic if summed else None)

    def _extreme(self, out: _View, node: ir.Call, kind: str) -> None:
        """``max(x, axis=...)`` or ``min`` (``keepdims`` or not): -inf (+inf), then each
        entry of x taken where it is larger (smaller) or NaN (NumPy's max and min
        propagate NaN); on a GPU by a compare-and-swap loop (``dgraph_atomic_max``,
        ``dgraph_atomic_min``)."""
        if out.ctype != "double":
            self._refuse(f"{kind} of an integer array")
        into, shape = self._reduced(out, node, kind)
        leaves: list[_View] = []
        expression = self._expression(node.args[0], leaves, shape)
        views = [into, *(leaf.to(shape) for leaf in leaves)]
        self._fill(out, -math.inf if kind == "max" else math.inf)
        beats = ">" if kind == "max" else "<"

        def value(index: list[str]) -> str:
            text = expression
            for k in range(len(leaves)):
                text = text.replace(f"@{k}@", f"{views[k + 1].base}[{index[k + 1]}]")
            return text

        def body(index: list[str]) -> str:
            target = f"{out.base}[{index[0]}]"
            return (
                f"{{ double v = {value(index)}; if (v {beats} {target} || v != v) {target} = v; }}"
            )

        def atomic(index: list[str]) -> str:
            return f"dgraph_atomic_{kind}(&{out.base}[{index[0]}], {value(index)});"

        self._loop(views, body, atomic)

    def _concatenate(self, out: _View, node: ir.Call) -> None:
        pieces = node.args[0]
        if not isinstance(pieces, ir.Seq):
            self._refuse("concatenate of something other than a list")
        axis_node = node.keyword("axis")
        axis = 0 if axis_node is None else _literal(axis_node)
        axis = axis + len(out.shape) if axis < 0 else axis
        at = 0
        for piece in pieces.items:
            shape = self._shaped(piece).shape
            offset = out.offset + at * out.strides[axis]
            region = _View(out.base, offset, shape, out.strides, out.ctype)
            self._copy(region, piece)
            at += shape[axis]

    def _stack(self, out: _View, node: ir.Call) -> None:
        """``stack(pieces, axis)``: each piece copied into ``out`` at its index along the
        new axis (a view of ``out`` without that axis)."""
        pieces = node.args[0]
        if not isinstance(pieces, ir.Seq):
            self._refuse("stack of something other than a list")
        axis_node = node.keyword("axis")
        axis = 0 if axis_node is None else _literal(axis_node)
        axis = axis + len(out.shape) if axis < 0 else axis
        shape = out.shape[:axis] + out.shape[axis + 1 :]
        strides = out.strides[:axis] + out.strides[axis + 1 :]
        for k, piece in enumerate(pieces.items):
            offset = out.offset + k * out.strides[axis]
            self._copy(_View(out.base, offset, shape, strides, out.ctype), piece)

    def _cumulative(self, out: _View, node: ir.Call, op: str) -> None:
        """``cumsum(x, axis)`` (``cumprod``: ``op`` ``*``; ``logaddexp.accumulate``, the
        running log-sum-exp: ``op`` ``logaddexp``, each step NumPy's ``logaddexp`` of the
        sum so far and the entry, ``dgraph_logaddexp``): ``x`` copied into ``out``, then
        each line along the axis summed (multiplied) in place in order (a loop over the
        lines; a thread per line on a GPU)."""
        x = node.args[0]
        axis_node = node.keyword("axis") or (node.args[1] if len(node.args) > 1 else None)
        if axis_node is None and len(self._shaped(x).shape) != 1:
            self._refuse(f"{_call_name(node)} of a flattened array")
        axis = 0 if axis_node is None else _literal(axis_node)
        axis = axis + len(out.shape) if axis < 0 else axis
        self._copy(out, x)
        length, step = out.shape[axis], out.strides[axis]
        if length < 2:
            return
        lines = _View(out.base, out.offset, out.shape[:axis] + out.shape[axis + 1 :],
                      out.strides[:axis] + out.strides[axis + 1 :], out.ctype)  # fmt: skip

        def body(index: list[str]) -> str:
            at = f"{out.base}[({index[0]}) + j * {step}L]"
            before = f"{out.base}[({index[0]}) + (j - 1) * {step}L]"
            if op == "logaddexp":
                return (
                    f"for (long j = 1; j < {length}L; j++) {at} = dgraph_logaddexp({before}, {at});"
                )
            return f"for (long j = 1; j < {length}L; j++) {at} {op}= {before};"

        self._loop([lines], body)

    def _arg_extreme(self, out: _View, node: ir.Call, better: str) -> None:
        """``argmax(x, axis)`` / ``argmin``: along each line the first index of the largest
        (smallest) entry, NumPy's tie rule (a loop over the lines; a thread per line on a
        GPU). ``x`` along one axis (a vector's without one)."""
        source = self._view(node.args[0]) or self._operand(node.args[0])
        axis_node = node.keyword("axis") or (node.args[1] if len(node.args) > 1 else None)
        flat = axis_node is None and len(source.shape) == 1  # a vector's: its one axis
        if (axis_node is None and not flat) or node.keyword("keepdims") is not None:
            self._refuse("argmax/argmin other than of an array along one axis")
        axis = 0 if flat else _literal(axis_node)
        axis = axis + len(source.shape) if axis < 0 else axis
        length, step = source.shape[axis], source.strides[axis]
        keep = [d for d in range(len(source.shape)) if d != axis]
        lines = _View(source.base, source.offset, tuple(source.shape[d] for d in keep),
                      tuple(source.strides[d] for d in keep), source.ctype)  # fmt: skip

        def body(index: list[str]) -> str:
            at = f"{source.base}[({index[1]}) + j * {step}L]"
            best = f"{source.base}[({index[1]}) + b * {step}L]"
            return (f"{{ long b = 0; for (long j = 1; j < {length}L; j++) if ({at} {better}"
                    f" {best}) b = j; {out.base}[{index[0]}] = ({out.ctype})b; }}")  # fmt: skip

        self._loop([out, lines], body)

    def _searchsorted(self, out: _View, node: ir.Call) -> None:
        """``searchsorted(a, v, side)``: per query a binary search of the table
        (:mod:`dgraph.codegen.c_sort`'s ``dgraph_searchsorted``: NumPy's positions, NaN
        last), a loop over the queries (a thread per query on a GPU)."""
        table = self._operand(node.args[0])
        query = self._view(node.args[1]) or self._operand(node.args[1])
        side = node.keyword("side")
        side = "left" if side is None else _literal(side)
        if len(table.shape) != 1 or side not in ("left", "right") or len(node.args) != 2:
            self._refuse("searchsorted other than of a 1-D table, side left or right")
        self._check(out.shape, query.shape)
        m, right = table.shape[0], int(side == "right")
        start = f"{table.base} + {table.offset}L" if table.offset else table.base
        self._loop(
            [out, query],
            lambda i: (
                f"{out.base}[{i[0]}] = ({out.ctype})dgraph_searchsorted({m}L, {start},"
                f" (double){query.base}[{i[1]}], {right});"
            ),
        )

    def _arange(self, out: _View, node: ir.Call) -> None:
        """``arange(stop)``, ``arange(start, stop[, step])`` of literals: a flat loop,
        entry i ``start + i * step``."""
        bounds = [_literal(a) for a in node.args]
        if not 1 <= len(bounds) <= 3 or not all(isinstance(b, (int, float)) for b in bounds):
            self._refuse("arange of bounds that are not numbers")
        start, step = (0, 1) if len(bounds) == 1 else (bounds[0], 1)
        if len(bounds) == 3:
            step = bounds[2]
        first = f"{start!r} + " if start else ""
        times = f" * {step!r}" if step != 1 else ""
        self._loop([out], lambda i: f"{out.base}[{i[0]}] = ({out.ctype})({first}i{times});")

    def _argsort(self, out: _View, node: ir.Call) -> None:
        """``argsort(x, axis)`` / ``lexsort(keys, axis)``: each line's stable
        order (:mod:`dgraph.codegen.c_sort`'s merge sort, one call a line; a thread per
        line on a GPU), through ``order`` and ``work`` blocks of the line's length."""
        kind = _call_name(node)
        axis_node = node.keyword("axis") or (node.args[1] if len(node.args) > 1 else None)
        axis = -1 if axis_node is None else _literal(axis_node)
        if kind == "argsort":  # stable: an order any kind of sort may give
            keys = [node.args[0]]
        elif isinstance(node.args[0], ir.Seq):
            keys = list(node.args[0].items)
        else:
            self._refuse("lexsort of something other than a list")
        shape = out.shape
        if not shape:
            self._refuse(f"{kind} of a number")
        axis %= len(shape)
        source = self._view(keys[0]) if len(keys) == 1 else None
        if source is None or source.ctype != "double" or source.shape != shape:
            size = math.prod(shape)
            name = self._buffer("keys", len(keys) * size, "double")
            for k, key in enumerate(keys):  # each key's entries, as doubles, one after another
                self._copy(_View(name, k * size, shape, _c_strides(shape)), key)
            source, key_step = _contiguous(name, shape), size
        else:
            key_step = 0
        n, stride = shape[axis], _normal(source)[axis]
        keep = [d for d in range(len(shape)) if d != axis]
        lines = tuple(shape[d] for d in keep)
        count = math.prod(lines)
        blocks = tuple(s * n for s in _c_strides(lines))
        order, work = (self._buffer(w, count * n, "int64_t") for w in ("order", "work"))
        views = [
            _View(out.base, out.offset, lines, tuple(_normal(out)[d] for d in keep), out.ctype),
            _View(source.base, source.offset, lines, tuple(_normal(source)[d] for d in keep)),
            _View(order, 0, lines, blocks, "int64_t"),
            _View(work, 0, lines, blocks, "int64_t"),
        ]
        step = _normal(out)[axis]

        def body(i: list[str]) -> str:
            at = f"{out.base}[({i[0]}) + j * {step}L]"
            return (
                f"{{ dgraph_argsort({n}L, {len(keys)}L, {source.base} + ({i[1]}), {key_step}L,"
                f" {stride}L, {order} + ({i[2]}), {work} + ({i[3]}));"
                f" for (long j = 0; j < {n}L; j++) {at} = ({out.ctype}){order}[({i[2]}) + j]; }}"
            )

        self._loop(views, body)

    def _take_along_axis(self, out: _View, node: ir.Call) -> None:
        """``take_along_axis(a, K, axis)``, ``K`` an integer array of a's number of axes
        (the others broadcast): ``out[..., j, ...] = a[..., K[..., j, ...], ...]``, a
        negative position counted from the end (one loop over the result)."""
        source = self._view(node.args[0]) or self._operand(node.args[0])
        ids = self._view(node.args[1]) or self._operand(node.args[1])
        axis_node = node.keyword("axis") or (node.args[2] if len(node.args) > 2 else None)
        if ids.ctype == "double" or axis_node is None or len(ids.shape) != len(source.shape):
            self._refuse("take_along_axis other than of an integer array along one axis")
        axis = _literal(axis_node) % len(source.shape)
        strides = _normal(source)
        full = out.shape
        if len(full) != len(source.shape) or any(
            source.shape[d] not in (1, full[d]) for d in range(len(full)) if d != axis
        ):
            self._refuse(f"take_along_axis of shapes {source.shape} and {ids.shape}")
        spread = _View(source.base, source.offset, full,
                       tuple(0 if d == axis else strides[d] for d in range(len(full))),
                       source.ctype)  # fmt: skip
        picks = ids.to(full)
        n, step = source.shape[axis], strides[axis]

        def body(i: list[str]) -> str:
            k = f"(long){ids.base}[{i[2]}]"
            return (
                f"{out.base}[{i[0]}] = {source.base}[({i[1]}) + ({k} < 0 ? {k} + {n}L : {k})"
                f" * {step}L];"
            )

        self._loop([out, spread, picks], body)

    # -- linear algebra (dgraph.codegen.c_linalg's helpers, one call per matrix) ------------

    def _matrix_operand(self, node: Node) -> _View:
        """A float operand of a product or a matrix function, as a view (strided, no copy
        where it is one)."""
        view = self._view(node)
        view = self._operand(node) if view is None else view
        if view.ctype != "double":
            self._refuse("linear algebra of an integer array")
        return view

    def _matrix_calls(
        self, out: _View, source: _View, text, factors: tuple[str, str] | None = None
    ) -> None:
        """One helper call per matrix of the batch (the leading axes of ``source``, an
        n×n stack): ``text(n, matrix, at, lu, piv)``, the C call writing ``out`` at
        ``at``, ``lu`` and ``piv`` the matrix's place in ``factors``' buffers (n² doubles
        and n pivots a matrix; :meth:`_factors`) where given."""
        *batch, n, m = source.shape
        if n != m:
            self._refuse(f"a matrix of shape {(n, m)} that is not square")
        batch = tuple(batch)
        flat = _c_strides(batch)
        views = [
            _View(out.base, out.offset, batch, _normal(out)[: len(batch)], out.ctype),
            _View(source.base, source.offset, batch, _normal(source)[: len(batch)]),
        ]
        lu, piv = factors or ("", "")
        if factors:
            views += [
                _View(lu, 0, batch, tuple(s * n * n for s in flat)),
                _View(piv, 0, batch, tuple(s * n for s in flat), "int64_t"),
            ]
        rows, cols = (0 if n == 1 else s for s in source.strides[-2:])
        self._loop(
            views,
            lambda i: text(
                n,
                f"{source.base} + ({i[1]}), {rows}L, {cols}L",
                f"{out.base} + ({i[0]})",
                f"{lu} + ({i[2]})" if factors else "",
                f"{piv} + ({i[3]})" if factors else "",
            ),
        )

    def _factors(self, source: _View) -> tuple[str, str]:
        """The buffers of the LU factors and pivots of a stack of n×n matrices
        (``dgraph_lu_of`` once a matrix), made once for each view: an inverse and a
        determinant of the same matrices (``inv`` and ``slogdet``, ``solve`` and ``det``)
        read one factorization. Forgotten where the view's buffer is written in place and
        on either side of a loop or a branch."""
        key = (source.base, source.offset, source.shape, _normal(source))
        if key not in self.factored:
            *batch, n, _ = source.shape
            count = math.prod(batch)
            factors = (
                self._buffer("lu", count * n * n, "double"),
                self._buffer("pivots", count * n, "int64_t"),
            )
            self._matrix_calls(
                _contiguous(factors[0], source.shape),
                source,
                lambda n, a, at, lu, piv: f"dgraph_lu_of({n}L, {a}, {lu}, {piv});",
                factors,
            )
            self.factored[key] = factors
        self._read([_contiguous(f, (1,)) for f in self.factored[key]])
        return self.factored[key]

    def _triangle(self, node: Node) -> str | None:
        """``"lower"`` or ``"upper"`` where each matrix of ``node`` (square, its last two
        axes) is triangular by construction, its other entries exactly 0 where its inputs
        are finite (all NaN where the helper that made it fills NaN, which a bounded sum
        keeps: each runs over a nonempty part of a row): ``tril``/``triu`` (k on the
        diagonal's zero side), ``cholesky``, an inverse or a negation of such, a swap of
        its last two axes (the other triangle), a name bound to such."""
        if isinstance(node, ir.Name):
            return self.triangles.get(node.id)
        if isinstance(node, ir.UnaryOp) and node.op == "-":
            return self._triangle(node.operand)
        kind = _call_name(node)
        if not isinstance(node, ir.Call) or kind not in _TRIANGLES:
            return None
        shape = self._shaped(node).shape
        if len(shape) < 2 or shape[-1] != shape[-2]:
            return None
        if kind in ("tril", "triu"):
            k_node = node.keyword("k") or (node.args[1] if len(node.args) > 1 else None)
            k = 0 if k_node is None else self._integer(k_node)
            if (kind == "tril" and k <= 0) or (kind == "triu" and k >= 0):
                return "lower" if kind == "tril" else "upper"
            return None
        if kind == "cholesky":
            return "lower"
        inner = self._triangle(node.args[0])
        if kind == "inv" or inner is None:
            return inner
        axes = {_literal(a) % len(shape) for a in node.args[1:]}
        if axes != {len(shape) - 2, len(shape) - 1}:
            return None
        return "upper" if inner == "lower" else "lower"

    def _matrix_function(self, out: _View, node: ir.Call) -> None:
        """``linalg.inv`` (of a triangle: ``tril``/``triu`` or one :meth:`_triangle` finds,
        by substitution; else by LU with partial pivoting) and ``linalg.cholesky`` of a
        stack of n×n matrices."""
        kind, arg = _call_name(node), node.args[0]
        lower = None
        if kind == "inv" and _call_name(arg) in ("tril", "triu"):  # the triangle of a matrix
            if not arg.keywords and len(arg.args) == 1:  # type: ignore[attr-defined]
                lower = _call_name(arg) == "tril"
                arg = arg.args[0]  # type: ignore[attr-defined]
        elif kind == "inv" and self._triangle(arg) is not None:  # a triangular matrix
            lower = self._triangle(arg) == "lower"
        if lower is not None:
            source = self._matrix_operand(arg)
            self._matrix_calls(
                out,
                source,
                lambda n, a, at, lu, piv: f"dgraph_triangle_inv({n}L, {int(lower)}, {a}, {at});",
            )
            return
        source = self._matrix_operand(arg)
        if kind == "inv":
            self._matrix_calls(
                out,
                source,
                lambda n, a, at, lu, piv: f"dgraph_inv({n}L, {lu}, {piv}, {at});",
                self._factors(source),
            )
        else:
            self._matrix_calls(
                out, source, lambda n, a, at, lu, piv: f"dgraph_cholesky({n}L, {a}, {at});"
            )

    def _determinant(self, out: _View, node: ir.Call, which: int) -> None:
        """``linalg.det`` (``which`` 2) or ``linalg.slogdet(a)[which]`` (0: the sign, 1:
        log|det|) of a stack of matrices, from their LU."""
        if which not in (0, 1, 2):
            self._refuse("an index of slogdet other than 0 or 1")
        out_full = _View(out.base, out.offset, (*out.shape, 1, 1), (*out.strides, 0, 0))
        source = self._matrix_operand(node.args[0])
        self._matrix_calls(
            out_full,
            source,
            lambda n, a, at, lu, piv: f"*({at}) = dgraph_determinant({n}L, {lu}, {piv}, {which});",
            self._factors(source),
        )

    def _decomposition_part(self, node: ir.Index) -> _View | None:
        """``eigh(a)[k]``, ``qr(a)[k]``, ``svd(a)[k]`` or ``parts[k]``, ``parts`` a name
        bound to one of them: that result (eigh's values or vectors, qr's Q or R, svd's U,
        s or Vt) as a view of :meth:`_decomposition`'s buffers; None for any other
        index."""
        if len(node.items) != 1 or not isinstance(node.items[0], ir.Const):
            return None
        value = node.value
        if isinstance(value, ir.Name):
            parts = self.env.get(value.id)
        elif _call_name(value) in _DECOMPOSED:
            parts = self._decomposition(value)  # type: ignore[arg-type]
        else:
            return None
        if not isinstance(parts, tuple) or not parts or not isinstance(parts[0], _View):
            return None
        k = node.items[0].value
        if not isinstance(k, int) or not -len(parts) <= k < len(parts):
            self._refuse(f"an index of a decomposition other than 0 to {len(parts) - 1}")
        return parts[k]

    def _decomposition(self, node: ir.Call) -> tuple[_View, ...]:
        """``linalg.eigh``, ``linalg.qr`` or ``linalg.svd`` of a stack of matrices: its
        results, buffers filled by one :mod:`dgraph.codegen.c_linalg` call a matrix
        (``dgraph_eigh``, cyclic Jacobi, the values ascending and the vectors, each
        matrix's lower triangle read; ``dgraph_qr``, Householder, the reduced Q and R
        with LAPACK's signs; ``dgraph_svd``, one-sided Jacobi, the reduced U, s
        descending and Vt), each with a scratch block a matrix, made once for each view of
        the matrices and forgotten with the LU factors (:meth:`_factors`)."""
        kind = _call_name(node)
        source = self._matrix_operand(node.args[0]) if node.args else None
        if source is None or len(node.args) != 1 or len(source.shape) < 2:
            self._refuse(f"{kind} with arguments other than a stack of matrices")
        keywords = {k: _literal(v) for k, v in node.keywords}
        *batch, n, m = source.shape
        k = min(n, m)
        # UPLO: the operand is symmetric and the Jacobi vectors' signs are their own either way
        if kind == "eigh" and (keywords.pop("UPLO", "L") not in ("L", "U") or keywords or n != m):
            self._refuse("eigh other than of square matrices, without options")
        if kind == "qr" and keywords not in ({}, {"mode": "reduced"}):
            self._refuse("qr other than in its reduced mode")
        if kind == "svd":
            full = keywords.pop("full_matrices", True)
            if keywords or (full and n != m):
                self._refuse("svd other than the reduced one (full_matrices=False)")
        key = (source.base, source.offset, source.shape, _normal(source), kind)
        if key in self.factored:
            self._read(self.factored[key])
            return self.factored[key]
        batch = tuple(batch)
        count = math.prod(batch)
        shapes = {
            "eigh": (("eigenvalues", (n,)), ("eigenvectors", (n, n))),
            "qr": (("qr_q", (n, k)), ("qr_r", (k, m))),
            "svd": (("svd_u", (n, k)), ("svd_s", (k,)), ("svd_vt", (k, m))),
        }[kind]
        parts = tuple(
            _contiguous(self._buffer(hint, count * math.prod(shape), "double"), (*batch, *shape))
            for hint, shape in shapes
        )
        size = {"eigh": n * n, "qr": n * m + m, "svd": k * max(n, m) + k * k}[kind]
        work = self._buffer(kind, count * size, "double")
        flat = _c_strides(batch)
        views = [
            _View(source.base, source.offset, batch, _normal(source)[: len(batch)]),
            _View(work, 0, batch, tuple(s * size for s in flat)),
        ]
        for part, (_, shape) in zip(parts, shapes, strict=True):
            views.append(_View(part.base, 0, batch, tuple(s * math.prod(shape) for s in flat)))
        rows, cols = (0 if d == 1 else s for d, s in zip((n, m), source.strides[-2:], strict=True))
        sizes = f"{n}L" if kind == "eigh" else f"{n}L, {m}L"

        def text(i: list[str]) -> str:
            outs = ", ".join(f"{p.base} + ({at})" for p, at in zip(parts, i[2:], strict=True))
            return (
                f"dgraph_{kind}({sizes}, {source.base} + ({i[0]}), {rows}L, {cols}L,"
                f" {work} + ({i[1]}), {outs});"
            )

        self._loop(views, text)
        self.factored[key] = parts
        return parts

    def _matmul(self, out: _View, node: ir.Call) -> None:
        """``matmul(a, b)`` of stacks of matrices (a vector on either side, NumPy's rules;
        the stacks broadcast): in C one ``dgraph_matmul`` call per matrix of the stack
        (:mod:`dgraph.codegen.c_linalg`: rows of b and of the result innermost, restrict
        operands, so vectorized; the sums bounded to a triangular operand's triangle,
        :meth:`_triangle`, b's only where a's is not the same, so that no entry of the
        result is left out of every sum); on a GPU one loop nest over the result's
        entries and the summed axis, each product added to its place atomically."""
        code = {None: 0, "lower": 1, "upper": 2}
        ta, tb = (code[self._triangle(x)] for x in node.args)
        tb = 0 if tb == ta else tb
        a, b = (self._matrix_operand(x) for x in node.args)
        if not a.shape or not b.shape:
            self._refuse("matmul of a number")
        if len(a.shape) == 1:
            a = _View(a.base, a.offset, (1, *a.shape), (0, *a.strides))
        if len(b.shape) == 1:
            b = _View(b.base, b.offset, (*b.shape, 1), (*b.strides, 0))
        self._product(out, a, b, ta, tb)

    def _product(self, out: _View, a: _View, b: _View, ta: int, tb: int) -> None:
        """``out = a·b`` of stacks of matrices (the stacks broadcast; ``ta``, ``tb``: 1
        where the operand is lower triangular, 2 upper, 0 full): one ``dgraph_matmul``
        call per matrix in C; on a GPU one loop nest over the result's entries and the
        summed axis, each product added to its place atomically."""
        n, k = a.shape[-2:]
        m = b.shape[-1]
        if b.shape[-2] != k:
            self._refuse(f"matmul of shapes {a.shape} and {b.shape}")
        batch = tuple(np.broadcast_shapes(a.shape[:-2], b.shape[:-2]))
        if _normal(b)[-1] not in (0, 1):  # a transposed b: its rows copied in order first
            b = self._materialize(b)
        a = a.to((*batch, n, k))
        b = b.to((*batch, k, m))
        if out.size != math.prod(batch) * n * m:
            self._refuse(f"its shape {out.shape} is not matmul's")
        full = (*batch, n, k, m)  # the result's row innermost: b's and out's rows in order
        rows = _c_strides((*batch, n, m))
        into = _View(out.base, out.offset, full, (*rows[:-1], 0, rows[-1]))
        sa, sb = _normal(a), _normal(b)
        left = _View(a.base, a.offset, full, (*sa[:-2], sa[-2], sa[-1], 0))
        right = _View(b.base, b.offset, full, (*sb[:-2], 0, sb[-2], sb[-1]))
        self._fill(out, 0.0, host=False)
        self._loop(
            [into, left, right],
            lambda i: f"{out.base}[{i[0]}] += {a.base}[{i[1]}] * {b.base}[{i[2]}];",
            lambda i: f"atomicAdd(&{out.base}[{i[0]}], {a.base}[{i[1]}] * {b.base}[{i[2]}]);",
            host=False,
        )
        views = [
            _View(out.base, out.offset, batch, rows[:-2]),
            _View(a.base, a.offset, batch, sa[:-2]),
            _View(b.base, b.offset, batch, sb[:-2]),
        ]
        ar, ac = sa[-2:]
        br, bc = sb[-2:]
        self._loop(
            views,
            lambda i: (
                f"dgraph_matmul({n}L, {k}L, {m}L, {a.base} + ({i[1]}), {ar}L, {ac}L, {ta}, "
                f"{b.base} + ({i[2]}), {br}L, {bc}L, {tb}, {out.base} + ({i[0]}), "
                f"{rows[-2]}L);"
            ),
            device=False,
        )

    def _take(self, out: _View, node: ir.Call) -> None:
        """``take(a, K, axis)``, ``K`` an integer array: ``out[..., j, ...] = a[..., K[j],
        ...]`` (one loop over the result)."""
        source = self._view(node.args[0]) or self._operand(node.args[0])
        ids = self._view(node.args[1]) or self._operand(node.args[1])  # computed: a buffer
        axis_node = node.keyword("axis")
        if ids.ctype == "double" or axis_node is None:
            self._refuse("take other than of an integer array along one axis")
        axis = _literal(axis_node) % len(source.shape)
        before, after = source.shape[:axis], source.shape[axis + 1 :]
        full = (*before, *ids.shape, *after)
        strides = _normal(source)
        spread = _View(source.base, source.offset, full,
                       (*strides[:axis], *(0,) * len(ids.shape), *strides[axis + 1 :]),
                       source.ctype)  # fmt: skip
        picks = _View(ids.base, ids.offset, full,
                      (*(0,) * len(before), *_normal(ids), *(0,) * len(after)),
                      ids.ctype)  # fmt: skip
        step = strides[axis]
        self._check(out.shape, full)
        self._loop(
            [out, spread, picks],
            lambda i: (
                f"{out.base}[{i[0]}] = {source.base}[({i[1]}) + (long){ids.base}[{i[2]}]"
                f" * {step}L];"
            ),
        )

    def _triangle_mask(self, node: ir.Call) -> ir.Name:
        """The constant 0/1 mask of ``tril(x, k)`` (``triu``) over x's last two axes, a
        name bound to it (once a node: the expression's walk asks twice)."""
        key = id(node)
        if key not in self.masks:
            shape = self._shaped(node).shape
            if len(shape) < 2:
                self._refuse(f"{_call_name(node)} of fewer than two axes")
            k_node = node.keyword("k") or (node.args[1] if len(node.args) > 1 else None)
            k = 0 if k_node is None else self._integer(k_node)
            ones = np.ones(shape[-2:])
            mask = np.tril(ones, k) if _call_name(node) == "tril" else np.triu(ones, k)
            name = f"M{'l' if _call_name(node) == 'tril' else 'u'}{shape[-2]}x{shape[-1]}"
            name += f"k{k}".replace("-", "m")
            self.constants.setdefault(name, mask)
            self.env[name] = _contiguous(name, mask.shape)
            self.masks[key] = ir.Name(name)
        return self.masks[key]

    def _print_Call(self, node: ir.Call, args: list[str]) -> str:
        if _call_name(node) in ("tril", "triu"):
            return f"({args[0]} ? {args[1]} : 0.0)"
        if _call_name(node) == "clip":
            x, low, high = args
            return f"({x} < {low} ? {low} : ({x} > {high} ? {high} : {x}))"
        return super()._print_Call(node, args)

    def _pad(self, out: _View, node: ir.Call) -> None:
        widths = _literal(node.args[1])
        value = node.keyword("constant_values")
        mode_node = node.keyword("mode")
        mode = "constant" if mode_node is None else _literal(mode_node)
        if mode != "constant" or len(node.args) > 2:
            self._refuse("pad other than with a constant")
        fill: float | str = 0.0 if value is None else self._fill_value(value)
        inner = self._view(node.args[0])
        if inner is None:
            self._refuse("pad of a computed expression")
        widths = np.broadcast_to(np.asarray(widths), (len(out.shape), 2))
        self._fill(out, fill)
        offset = out.offset + sum(
            int(lo) * s for (lo, _), s in zip(widths, out.strides, strict=True)
        )
        region = _View(out.base, offset, inner.shape, out.strides, out.ctype)
        self._copy(region, node.args[0])

    def _csr(self, node: ir.SparseMatrix) -> None:
        shape = node.shape
        if node.data is None:  # no entries
            self.pattern = (np.zeros(0, np.int64), np.zeros(shape[0] + 1, np.int64), tuple(shape))
            return
        if node.indices is None or node.indptr is None:
            self._refuse("a sparse result without CSR row pointers")
        data = node.data
        indices, indptr = self._constant(node.indices), self._constant(node.indptr)
        nnz = int(indices.size)
        self.pattern = (np.asarray(indices), np.asarray(indptr), tuple(shape))
        out = _contiguous("data", (nnz,))
        whole = self._view(data) if not isinstance(data, ir.Index) else None
        sizes = {name: size for name, size, ctype in self.scratch}
        if (
            whole is not None
            and sizes.get(whole.base) == nnz  # the whole buffer, not a prefix of a longer one
            and whole.contiguous
            and not whole.offset
            and whole.size == nnz
            and whole.ctype == "double"
        ):  # the last buffer is written into data itself
            self.scratch = [b for b in self.scratch if b[0] != whole.base]
            word = re.compile(rf"\b{re.escape(whole.base)}\b")
            self.lines = [word.sub("data", line) for line in self.lines]
            self.kernels = [(n, decode, word.sub("data", body)) for n, decode, body in self.kernels]
            return
        if isinstance(data, ir.Index) and self._index_array(data.items) is not None:
            self._gather(out, data)
        elif _call_name(data) == "concatenate":  # the rows of several outputs' blocks
            self._concatenate(out, data)
        else:
            self._copy(out, data)

    def _shaped(self, node: Node) -> Shaped:
        """``node``'s shape and type (:mod:`dgraph.codegen.shapes`), from the statements
        before this one."""
        found = self._inferred(node)
        if isinstance(found, (list, dict, slice, str, np.dtype)) or found is None:
            self._refuse(f"{found!r} is not an array")
        return found if isinstance(found, Shaped) else Shaped.of(found)

    def _inferred(self, node: Node) -> Any:
        """What :mod:`dgraph.codegen.shapes` infers for ``node`` (a loop's: the tuple of its
        outputs'); a node it has no rule for (also inside a loop's body) refused here."""
        try:
            return self.inference.of(node)
        except ShapeError as error:
            self._refuse(str(error))

    def _constant(self, node: Node) -> np.ndarray:
        """The constant array of the program that ``node`` names (a sparse pattern)."""
        value = self._shaped(node).value
        if value is None:
            self._refuse("a sparse pattern that is not a constant array of the program")
        return value

    # -- elementwise expressions ------------------------------------------------------------

    def _fill_value(self, node: Node) -> float | str:
        """A fill value: a number, or the entry of a one-entry array."""
        view = self._view(node) if not isinstance(node, ir.Const) else None
        if view is not None and view.size == 1:
            return f"{view.base}[{_plus(view.offset, None)}]"
        return self._number(node)

    def _number(self, node: Node) -> float:
        value = _literal(node)
        if not isinstance(value, (int, float)):
            self._refuse("a fill value that is not a number")
        return float(value)

    def _expression(self, node: Node, leaves: list[_View], shape) -> str:
        """C text of an elementwise expression; leaf k written ``@k@`` (its index comes
        from the loop). Iterative over the tree (no recursion on its depth)."""
        done: dict[int, str] = {}
        stack: list[tuple[Node, bool]] = [(node, False)]
        while stack:
            current, ready = stack.pop()
            children = self._children(current, leaves)
            if children is None:  # a leaf or a number
                done[id(current)] = self._leaf(current, leaves)
                continue
            if not ready:
                stack.append((current, True))
                stack += [(c, False) for c in children]
                continue
            done[id(current)] = self._combine(current, [done[id(c)] for c in children])
        return done[id(node)]

    def _children(self, node: Node, leaves) -> list[Node] | None:
        if isinstance(node, ir.Const) or self._scalar(node) is not None:
            return None
        if isinstance(node, ir.BinOp):
            return [node.left, node.right]
        if isinstance(node, ir.UnaryOp):
            return [node.operand]
        if isinstance(node, ir.Formula):
            return [n for _, n in node.operands]
        if isinstance(node, ir.AsType):
            if node.dtype not in ("int", "float"):
                self._refuse("astype other than to int or float")
            return [node.operand]
        kind = _call_name(node)
        if kind in ("tril", "triu") and isinstance(node, ir.Call):  # where(mask, x, 0)
            return [self._triangle_mask(node), node.args[0]]
        if kind == "clip" and isinstance(node, ir.Call) and len(node.args) == 3:
            return list(node.args)  # a pivot's row held in its range (lu's permutation)
        if kind in _VIEWS and isinstance(node, ir.Call):
            if self._view(node) is not None:
                return None
            if kind in ("broadcast_to", "asarray"):  # the leaves broadcast to the result
                return [node.args[0]]
            self._refuse(f"{kind} of a computed expression")
        if isinstance(node, ir.Call) and (kind in C_CALLS or kind in C_FORMS):
            if node.keywords:
                self._refuse(f"{kind} with keywords")
            return list(node.args)
        return None

    def _scalar(self, node: Node) -> float | None:
        if (
            isinstance(node, ir.Const)
            and isinstance(node.value, (int, float))
            and not isinstance(node.value, bool)
        ):
            return float(node.value)
        return None

    def _one_number(self, node: Node) -> float | None:
        """The number a gather reads from ``numpy.ravel(c)`` (``asarray``, ``reshape``)
        of a number ``c``: a constant block's one value, every index 0."""
        if _call_name(node) not in ("ravel", "asarray", "reshape") or not node.args:  # type: ignore[attr-defined]
            return None
        inner = node.args[0]  # type: ignore[attr-defined]
        if isinstance(inner, ir.UnaryOp) and inner.op == "-":
            value = self._scalar(inner.operand)
            return None if value is None else -value
        return self._scalar(inner)

    def _leaf(self, node: Node, leaves: list[_View]) -> str:
        scalar = self._scalar(node)
        if scalar is not None:
            return _double(scalar)
        if _call_name(node) == "full" and len(node.args) == 2:  # type: ignore[attr-defined]
            return _double(self._number(node.args[1]))  # type: ignore[attr-defined]
        if _call_name(node) in ("zeros", "ones"):  # a sweep's zero tangent, a block's ones
            return "1.0" if _call_name(node) == "ones" else "0.0"
        if isinstance(node, ir.Index) and self._index_array(node.items) is not None:
            constant = self._one_number(node.value)
            if constant is not None:
                return _double(constant)
            source = self._view(node.value)  # a gather: source[K[i]], K the loop's leaf
            if source is None:
                self._refuse("a gather from a computed expression")
            if not source.contiguous:
                source = self._materialize(source)
            if len(source.shape) > 1:  # whole rows: into a buffer of their own first, once
                if id(node) not in self.views:
                    shaped = self._shaped(node)
                    buffer = self._buffer("rows", shaped.size, source.ctype)
                    rows = _contiguous(buffer, shaped.shape, source.ctype)
                    self._row_gather(rows, source, self._index_array(node.items))
                    self._keep(node, rows)
                self._read(self.views[id(node)])
                leaves.append(self.views[id(node)])  # type: ignore[arg-type]
                return f"@{len(leaves) - 1}@"
            leaves.append(self._index_array(node.items))  # type: ignore[arg-type]
            return f"{source.base}[{_plus(source.offset, f'@{len(leaves) - 1}@')}]"
        if isinstance(node, ir.Const) and isinstance(node.value, (bool, np.bool_)):
            return "1.0" if node.value else "0.0"  # a mask's constant, as a number
        if isinstance(node, ir.Const):
            self._refuse(f"the constant {node.value!r}")
        view = self._view(node)
        kind = _call_name(node) or type(node).__name__
        if view is None and kind in _COMPUTED:
            view = self._reduction(node)
        if view is None:
            if kind == "einsum":
                self._refuse(
                    "einsum inside an expression: a contraction or sum (a dense layer's"
                    " product) is a statement of its own in the C values vocabulary"
                )
            self._refuse(f"{kind} is not in the C values vocabulary")
        leaves.append(view)
        return f"@{len(leaves) - 1}@"

    def _reduction(self, node: ir.Call | ir.SegmentSum) -> _View:
        """A reduction read inside an expression (``x == max(x, axis, keepdims)``, a
        segment sum's ``!= 0``), into a buffer of its own first, once."""
        shaped = self._shaped(node)
        ctype = c_type(shaped.dtype)
        kind = _call_name(node) or "segments"
        out = _contiguous(self._buffer(kind, shaped.size, ctype), shaped.shape, ctype)
        if isinstance(node, ir.SegmentSum):
            self._statement_SegmentSum(out, node)
        else:
            self._statement_Call(out, node)
        self._keep(node, out)
        return out

    # -- loops ----------------------------------------------------------------------------

    def _loop_statement(self, target: str, node: ir.Loop) -> None:
        """A :class:`~dgraph.codegen.ir.Loop` as a C ``for`` loop around its body's loop
        nests (on a GPU: the launcher's loop around the body's kernel launches, the step
        an argument of the kernels that read it). The carries live in buffers of their
        own, updated after each step (through a copy where a new carry reads another's
        buffer); each step's slice of an xs is copied into a buffer; the ys are written
        into their stacked buffers at the step's offset. The body's names are its own
        (``<target>.<name>``)."""
        step = f"step{self.loops}"
        prefix = {n: f"{target}.{n}" for n in node.body.arguments}
        prefix.update({s.target: f"{target}.{s.target}" for s in node.body.statements})
        given = node.body.arguments[len(node.init) + len(node.xs) :]
        for name, value in zip(given, node.invariants, strict=True):
            if isinstance(value, ir.Name) and value.id in self.module_constants:
                prefix[name] = value.id  # a module constant: read as one (gathers need it)
        statements = [
            ArrayStatement(prefix[s.target], ir.renamed(s.value, prefix), s.at)
            for s in node.body.statements
        ]
        init = [self._shaped(c) for c in node.init]
        xs = [self._shaped(x) for x in node.xs]
        invariants = [self.inference.of(i) for i in node.invariants]
        steps = [Shaped(x.shape[1:], x.dtype) for x in xs]
        for name, shaped in zip(node.body.arguments, [*init, *steps, *invariants], strict=True):
            if prefix[name] not in self.module_constants:
                self.inference.env[prefix[name]] = shaped
        outputs = list(self.inference.of(node)[node.carries :])  # the ys, stacked
        outputs = [*init, *(Shaped(y.shape[1:], y.dtype) for y in outputs)]
        carries = self._carry_buffers(target, init, node.init)
        stacked = []
        for k, value in enumerate(outputs[node.carries :]):
            shape, ctype = (node.length, *value.shape), c_type(value.dtype)
            name = self._buffer(f"{target}_y{k}", math.prod(shape), ctype)
            stacked.append(_contiguous(name, shape, ctype))
        sources = [self._operand(x) for x in node.xs]
        bound = [self._operand(i) for i in node.invariants]
        slices = []
        for k, (source, x) in enumerate(zip(sources, xs, strict=True)):
            shape, ctype = x.shape[1:], source.ctype
            slices.append(
                _contiguous(self._buffer(f"{target}_x{k}", math.prod(shape), ctype), shape, ctype)
            )
        start = len(self.lines)
        T = node.length
        if node.reverse:
            self.lines.append(f"    for (long {step} = {T - 1}L; {step} >= 0; {step}--) {{")
        else:
            self.lines.append(f"    for (long {step} = 0; {step} < {T}L; {step}++) {{")
        self.kernels.append((-1, [step, str(T), str(node.reverse)], ""))
        for into, source in zip(slices, sources, strict=True):
            offset = _moving(source.offset, step, into.size)
            at = _View(source.base, offset, into.shape, into.strides, source.ctype)
            self._loop([into, at], lambda i, o=into, a=at: f"{o.base}[{i[0]}] = {a.base}[{i[1]}];")
        arguments = [*carries, *slices, *bound]
        for name, view in zip(node.body.arguments, arguments, strict=True):
            if prefix[name] not in self.module_constants:
                self.env[prefix[name]] = view
        self.loops += 1
        self._statements(statements)
        self.current = f"{target} = <loop>"
        names = [ir.Name(prefix[r]) for r in node.body.results]
        self.alive += [*names, *(s.value for s in statements)]
        results = [self._view(n) for n in names]
        for into, result in zip(stacked, results[node.carries :], strict=True):
            size = math.prod(into.shape[1:])
            out = _View(
                into.base, _moving(0, step, size), into.shape[1:], into.strides[1:], into.ctype
            )
            self._loop(
                [out, result.to(out.shape)],
                lambda i, o=out, r=result: f"{o.base}[{i[0]}] = {r.base}[{i[1]}];",
            )
        self._write_carries(carries, results[: node.carries])
        self.loops -= 1
        self.lines[start + 1 :] = ["    " + line for line in self.lines[start + 1 :]]
        self.lines.append("    }")
        self.kernels.append((-2, [], ""))
        self.env[target] = (*carries, *stacked)  # type: ignore[assignment]

    def _carry_buffers(self, target: str, init: list[Shaped], first: tuple[Node, ...]):
        """A loop's carries: a buffer each (``<target>_c<k>``), its initial value copied in."""
        carries = []
        for k, (value, node) in enumerate(zip(init, first, strict=True)):
            ctype = c_type(value.dtype)
            view = _contiguous(
                self._buffer(f"{target}_c{k}", value.size, ctype), value.shape, ctype
            )
            self._copy(view, node)
            carries.append(view)
        return carries

    def _statements(self, statements) -> None:
        """A body's statements, in order (``current``: the one printed, for errors)."""
        for statement in statements:
            self.current = self.printer.statement(statement).strip()
            self._statement(statement.target, statement.value)

    def _write_carries(self, carries, results) -> None:
        """A loop step's results (views, taken in order) copied into its carries; a result
        that views another carry is copied out first, so that no write reads what an
        earlier one overwrote."""
        mine = {c.base for c in carries}
        news = []
        for carry, result in zip(carries, results, strict=True):
            if result.base in mine and result != carry:
                result = self._materialize(result)
            news.append(result)
        for carry, result in zip(carries, news, strict=True):
            if result != carry:
                self._loop(
                    [carry, result.to(carry.shape)],
                    lambda i, c=carry, r=result: f"{c.base}[{i[0]}] = {r.base}[{i[1]}];",
                )

    def _cond_statement(self, target: str, node: ir.Cond) -> None:
        """A :class:`~dgraph.codegen.ir.Cond` as a C ``if`` / ``else if`` chain on the
        clamped index: each branch's statements (its names its own,
        ``<target>.b<k>.<name>``) inside its block, its results copied into the cond's
        output buffers. On a GPU the launcher reads the index back (one copy to the host)
        and launches the taken branch's kernels alone, in the same ``if`` chain."""
        outputs = list(self.inference.of(node))
        results = []
        for k, value in enumerate(outputs):
            ctype = c_type(value.dtype)
            name = self._buffer(f"{target}_r{k}", value.size, ctype)
            results.append(_contiguous(name, value.shape, ctype))
        index = self._operand(node.index)
        bound = [self._operand(o) for o in node.operands]
        chosen = f"{target}_i".replace(".", "_")
        last = len(node.branches) - 1
        self.lines.append(
            f"    long {chosen} = (long)({index.base}[{index.offset}]);"
            f" {chosen} = {chosen} < 0 ? 0 : ({chosen} > {last} ? {last} : {chosen});"
        )
        self.kernels.append(
            (
                LAUNCHER,
                [
                    f"long long {chosen} = (long long)dgraph_read({index.base} + {index.offset}LL,"
                    f" stream); {chosen} = {chosen} < 0 ? 0 : ({chosen} > {last} ? {last}"
                    f" : {chosen});"
                ],
                "",
            )
        )
        self.loops += 1  # no scatter in place into a buffer another branch reads
        for b, part in enumerate(node.branches):
            prefix = {n: f"{target}.b{b}.{n}" for n in part.arguments}
            prefix.update({s.target: f"{target}.b{b}.{s.target}" for s in part.statements})
            for name, value in zip(part.arguments, node.operands, strict=True):
                if isinstance(value, ir.Name) and value.id in self.module_constants:
                    prefix[name] = value.id
            for name, view, value in zip(part.arguments, bound, node.operands, strict=True):
                if prefix[name] not in self.module_constants:
                    self.inference.env[prefix[name]] = self.inference.of(value)
                    self.env[prefix[name]] = view
            start = len(self.lines)
            self.lines.append(f"    {'if' if b == 0 else '} else if'} ({chosen} == {b}) {{")
            opens = f"{'if' if b == 0 else '} else if'} ({chosen} == {b}) {{"
            self.kernels.append((LAUNCHER, [opens], "open" if b == 0 else "mid"))
            statements = [
                ArrayStatement(prefix[s.target], ir.renamed(s.value, prefix), s.at)
                for s in part.statements
            ]
            self._statements(statements)
            self.current = f"{target} = <cond>"
            names = [ir.Name(prefix[r]) for r in part.results]
            self.alive += [*names, *(s.value for s in statements)]
            for into, name in zip(results, names, strict=True):
                result = self._view(name)
                self._loop(
                    [into, result.to(into.shape)],
                    lambda i, o=into, r=result: f"{o.base}[{i[0]}] = {r.base}[{i[1]}];",
                )
            self.lines[start + 1 :] = ["    " + line for line in self.lines[start + 1 :]]
        self.lines.append("    }")
        self.kernels.append((LAUNCHER, ["}"], "close"))
        self.loops -= 1
        self.env[target] = tuple(results)  # type: ignore[assignment]

    def _while_statement(self, target: str, node: ir.While) -> None:
        """A :class:`~dgraph.codegen.ir.While` as a C ``for (;;)`` loop: the condition's
        statements, a ``break`` once its scalar is false, the body's statements, then the
        new carries copied into the carries' buffers (the trip count is the loop's
        counter; the tangent sweep carried alongside needs no record of it). On a GPU the
        launcher loops, reading the condition back after its kernels (one copy to the
        host a trip). The programs' names are their own (``<target>.c.<name>``,
        ``<target>.b.<name>``)."""
        init = [self._shaped(c) for c in node.init]
        bound = [self._operand(i) for i in node.invariants]
        invariants = [self.inference.of(i) for i in node.invariants]
        carries = self._carry_buffers(target, init, node.init)
        parts = []
        for tag, part in (("c", node.cond), ("b", node.body)):
            prefix = {n: f"{target}.{tag}.{n}" for n in part.arguments}
            prefix.update({s.target: f"{target}.{tag}.{s.target}" for s in part.statements})
            given = part.arguments[len(node.init) :]
            for name, value in zip(given, node.invariants, strict=True):
                if isinstance(value, ir.Name) and value.id in self.module_constants:
                    prefix[name] = value.id
            values = [*carries, *bound]
            for name, view, shaped in zip(
                part.arguments, values, [*init, *invariants], strict=True
            ):
                if prefix[name] not in self.module_constants:
                    self.inference.env[prefix[name]] = shaped
                    self.env[prefix[name]] = view
            statements = [
                ArrayStatement(prefix[s.target], ir.renamed(s.value, prefix), s.at)
                for s in part.statements
            ]
            parts.append((statements, [ir.Name(prefix[r]) for r in part.results]))
        trips = f"{target}_trips".replace(".", "_")
        start = len(self.lines)
        self.lines.append(f"    for (long {trips} = 0; ; {trips}++) {{")
        self.kernels.append((LAUNCHER, [f"for (long long {trips} = 0; ; {trips}++) {{"], "open"))
        self.loops += 1
        (tests, (flag,)), (statements, names) = parts
        self._statements(tests)
        self.current = f"{target} = <while>"
        test = self._view(flag)
        if test is None or test.size != 1:
            self._refuse("a while condition that is not one value")
        self.lines.append(f"    if (!({test.base}[{_plus(test.offset, None)}])) break;")
        self.kernels.append(
            (LAUNCHER, [f"if (!dgraph_read({test.base} + {test.offset}LL, stream)) break;"], "")
        )
        self._statements(statements)
        self.current = f"{target} = <while>"
        self.alive += [flag, *names, *(s.value for s in [*tests, *statements])]
        self._write_carries(carries, (self._view(name) for name in names))
        self.loops -= 1
        self.lines[start + 1 :] = ["    " + line for line in self.lines[start + 1 :]]
        self.lines.append("    }")
        self.kernels.append((LAUNCHER, ["}"], "close"))
        self.env[target] = tuple(carries)  # type: ignore[assignment]

    def _operand(self, node: Node) -> _View:
        """``node`` as a contiguous view (a computed one or a strided view copied into a
        buffer first)."""
        view = self._view(node)
        if view is None:
            value = self._shaped(node)
            ctype = c_type(value.dtype)
            view = _contiguous(self._buffer("operand", value.size, ctype), value.shape, ctype)
            getattr(self, f"_statement_{type(node).__name__}", self._copy)(view, node)
        return view if view.contiguous else self._materialize(view)

    # -- the file -----------------------------------------------------------------------

    def _finish(self) -> CValues:
        indices, indptr, shape = self.pattern  # type: ignore[misc]
        args = [f"const double *restrict in{k}" for k in range(len(self.args))]
        args += [f"const {c_type(a.dtype)} *restrict {n}" for n, a in self.constants.items()]
        args.append("double *restrict data")
        if self.value_size:
            args.append("double *restrict value")
        offsets, total = self._layout
        shared = self._shared(offsets)  # restrict only on entries no other buffer has
        given = [f"{c} *scratch_{c}" for c in total]  # the _with function's scratch
        what = [
            "/* The values of a sparse Jacobian for its fixed pattern (dgraph, issue 42).",
            f" * {FUNCTION}() fills data[{indices.size}]: the CSR entries of the {shape[0]} x"
            f" {shape[1]} Jacobian in row order;",
        ]
        if self.function == "jvp":  # a tangent sweep: J·t, never J
            what = [
                "/* J·t of a tensor graph by its tangent sweep, J never formed (dgraph).",
                f" * jvp() fills data[{indices.size}]: the outputs' tangents, flattened and"
                " concatenated;",
            ]
        if self.function == "vjp":  # an adjoint sweep: wᵀ·J, never J
            what = [
                "/* wᵀ·J of a tensor graph by its adjoint sweep, J never formed (dgraph).",
                f" * vjp() fills data[{indices.size}]: the inputs' cotangents, flattened and"
                " concatenated;",
            ]
        if self.made_at:  # the title's end, as the other modules' (read at n = 3, ...)
            what[0] = what[0].removesuffix(".") + self.made_at + "."
        head = [
            *what,
            " * inputs flattened in C order: "
            + ", ".join(
                f"in{k} = {x} {s}"
                for k, (x, s) in enumerate(zip(self.inputs, self.shapes, strict=True))
            )
            + ";",
            *(
                [f" * and value[{self.value_size}]: F(x), the outputs flattened in row order;"]
                if self.value_size
                else []
            ),
            " * the constant arrays, the CSR indices and indptr: the index file beside this one"
            if self.function not in SWEEPS
            else " * the constant arrays (then one dense row's pattern): the index file beside it",
            " * (dgraph.codegen.tensor.c_values.read_index_file documents its layout).",
            f" * {self.function}_with(): the same, then the scratch from the caller",
            " * (" + ", ".join(f"{size} {c}" for c, size in total.items()) + " entries). */",
            "#include <math.h>",
            "#include <stdint.h>",
            "#include <stdlib.h>",
            "",
            f"int {self.function}_nnz(void) {{ return {indices.size}; }}",
            "",
            f"void {self.function}_with({', '.join([*args, *given])})",
            "{",
        ]
        places = [
            f"    {ctype} *{'' if name in shared else 'restrict '}{name} = scratch_{ctype}"
            f" + {offsets[name]}L;"
            for name, size, ctype in self.scratch
        ]
        alloc = [
            f"    {c} *scratch_{c} = " + (f"malloc({size}L * sizeof({c}));" if size else "NULL;")
            for c, size in total.items()
        ]
        names = [a.rpartition(" ")[2] for a in args] + [f"scratch_{c}" for c in total]
        special = special_definitions("\n".join(self.lines))
        head[-2:-2] = [*special, ""] if special else []  # before the functions
        body = [*places, *self.lines]
        runs = self._parts()
        if len(runs) > 1:  # the body's statements in functions of their own, called in turn
            body = []
            for k, lines in enumerate(runs):
                words = set(re.findall(r"\w+", "\n".join(lines)))
                held = [
                    (p, c) for (n, _, c), p in zip(self.scratch, places, strict=True) if n in words
                ]
                words |= {f"scratch_{c}" for _, c in held}
                taken = [j for j, n in enumerate(names) if n in words]  # the arguments it reads
                params = ", ".join([*args, *given][j] for j in taken) or "void"
                head[-2:-2] = [f"static void {self.function}_part{k}({params})", "{",
                               *(p for p, _ in held), *lines, "}", ""]  # fmt: skip
                body.append(f"    {self.function}_part{k}({', '.join(names[j] for j in taken)});")
        wrapper = [
            "}",
            "",
            f"void {self.function}({', '.join(args)})",
            "{",
            *alloc,
            f"    {self.function}_with({', '.join(names)});",
            *(f"    free(scratch_{c});" for c, size in total.items() if size),
        ]
        loader = LOADER.replace(f"{FUNCTION}_load", f"{self.function}_load")
        text = "\n".join([*head, *body, *wrapper, "}", "", loader])
        cuda = self._cuda(head[:5], total)
        return CValues(
            text,
            cuda,
            self.constants,
            np.asarray(indices),
            np.asarray(indptr),
            (int(shape[0]), int(shape[1])),
            self.inputs,
            self.shapes,
            dict(total),
            value_size=self.value_size,
            function=self.function,
        )

    def _parts(self) -> list[list[str]]:
        """The body's lines cut between statements into runs of at most
        :data:`PART_LINES` lines (a longer statement a run of its own), the results'
        copies in the last."""
        runs, start, previous = [], 0, 0
        for end in [*self.ends, len(self.lines)]:
            if end - start > PART_LINES and previous > start:
                runs.append(self.lines[start:previous])
                start = previous
            previous = end
        runs.append(self.lines[start:])
        return runs

    def _places(self) -> list[tuple[str, tuple[str, int]]]:
        """Each scratch buffer's type and offset in the caller's scratch of that type."""
        offsets, _ = self._layout
        return [(name, (ctype, offsets[name])) for name, size, ctype in self.scratch]

    def _shared(self, offsets: dict[str, int]) -> set[str]:
        """The buffers whose entries another buffer uses too (at another time): their
        pointers may not be ``restrict`` (C99 6.7.3.1: an object modified through a
        restrict pointer is accessed through it alone while its block runs)."""
        spans = sorted((c, offsets[n], offsets[n] + size, n) for n, size, c in self.scratch if size)
        shared: set[str] = set()
        for k, (ctype, _, stop, name) in enumerate(spans):
            for j in range(k + 1, len(spans)):  # the spans that begin inside this one
                other, begins, _end, owner = spans[j]
                if other != ctype or begins >= stop:
                    break
                shared.update((name, owner))
        return shared

    @functools.cached_property
    def _layout(self) -> tuple[dict[str, int], dict[str, int]]:
        """Each scratch buffer's offset in the caller's scratch of its type, and each
        type's total. A buffer lives from the statement that makes it to the last that
        reads it (statements counted in the order translated, a loop body's included: a
        loop's own buffers and what it reads from outside live through its last
        statement, each step running them all again; the results to the end); two whose
        lives do not meet share entries, placed first fit in the order they are made (the
        live ones kept in offset order, the dead dropped as the next is placed: filtered
        and sorted again for each buffer, 2.1 of the unrolled biquad's 33 CPU-s at 160
        samples, now 0.95; benchmarks/RESULTS.md, perf45).
        Reads are recorded where a buffer is looked up: a name's view, a node's kept view
        (a gather's rows, a reduction inside an expression), a kept factorization
        (:meth:`_read`). Before, each buffer had entries of its own (a softmax scan's Hessian
        at n = 160: 132 buffers, 4.69·10⁶ doubles)."""
        end = self.tick + 1
        self._read([self.env.get(n) for n in self.program.results], end)
        last = dict(self.last)
        offsets: dict[str, int] = {}
        # a type's live buffers as (offset, size, k) in order, and as (end, k) to drop
        taken: dict[str, list[tuple[int, int, int]]] = {}
        ends: dict[str, list[tuple[int, int, int, int]]] = {}
        top = dict.fromkeys(("double", "int32_t", "int64_t"), 0)  # each type's total
        for k, (name, size, ctype) in enumerate(self.scratch):
            born = self.born[name]  # in the order made: a buffer dead now stays dead
            alive, dying = taken.setdefault(ctype, []), ends.setdefault(ctype, [])
            while dying and dying[0][0] < born:  # dead before this one: its entries free
                _, o, n, j = heapq.heappop(dying)
                del alive[bisect.bisect_left(alive, (o, n, j))]
            offset = 0
            for o, n, _ in alive:
                if offset + size <= o:
                    break
                offset = max(offset, o + n)
            offsets[name] = offset
            bisect.insort(alive, (offset, size, k))
            heapq.heappush(dying, (last[name], offset, size, k))
            top[ctype] = max(top.get(ctype, 0), offset + size)
        total = {c: top[c] for c in ("double", "int32_t", "int64_t")}
        return offsets, total

    def _cuda(self, comment: list[str], total: dict[str, int]) -> str:
        """The CUDA text: one kernel per loop nest, a thread per entry (grid-stride),
        launched in order by ``jacobian_values_launch``; scratch from the caller."""
        args = [f"const double *__restrict__ in{k}" for k in range(len(self.args))]
        args += [f"const {c_type(a.dtype)} *__restrict__ {n}" for n, a in self.constants.items()]
        args += ["double *__restrict__ data"]
        args += ["double *__restrict__ value"] if self.value_size else []
        args += [f"{c} *scratch_{c}" for c in total]
        names = [f"in{k}" for k in range(len(self.args))] + [*self.constants, "data"]
        names += ["value"] if self.value_size else []
        names += [f"scratch_{c}" for c in total]
        pointers = {
            name: f"    {ctype} *{name} = scratch_{ctype} + {offset}LL;"
            for name, (ctype, offset) in self._places()
        }
        rank = {name: k for k, name in enumerate(pointers)}
        ctype_of = {name: ctype for name, (ctype, _) in self._places()}
        lines = [
            *comment[:4],
            f" * CUDA: kernels {self.function}_k0 ... one per statement, launched in order on one",
            f" * stream by {self.function}_launch (all pointers device memory; the caller gives"
            " scratch of",
            " * " + ", ".join(f"{size} {c}" for c, size in total.items()) + " entries;"
            " atomicAdd on doubles: sm_60 or newer). */",
            "#include <stdint.h>",
            "",
            f"#define DGRAPH_THREADS {THREADS}",
            *HOST_PRELUDE,
        ]
        for kind in ("max", "min"):
            if any(f"dgraph_atomic_{kind}" in body for _, _, body in self.kernels):
                lines += ["", *_atomic_extreme(kind)]
        if any("dgraph_atomic_mul" in body for _, _, body in self.kernels):
            lines += ["", *ATOMIC_MUL]
        special = special_definitions(
            "\n".join(body for _, _, body in self.kernels), "static __device__"
        )
        lines += ["", *special] if special else []
        if any(n == LAUNCHER for n, _, _ in self.kernels):
            lines += ["", *READ_BACK]
        places = {name: f"(scratch_{ctype} + {at}LL)" for name, (ctype, at) in self._places()}
        launches = []
        steps: list[str] = []  # the loops' step variables around the launch
        depth = 0  # the launcher's own blocks (a cond's if chain, a while loop) inside them
        for k, (n, decode, body) in enumerate(self.kernels):
            if n == LAUNCHER:  # a line of the launcher's own: a branch or a while loop
                (line,) = decode
                for name in re.findall(r"\b[A-Za-z_]\w*\b", line):
                    if name in places:
                        line = re.sub(rf"\b{name}\b", places[name], line)
                depth -= body in ("close", "mid")
                launches.append(f"    {'    ' * (len(steps) + depth)}{line}")
                depth += body in ("open", "mid")
                continue
            if n == -1:  # a loop begins: the launcher loops, the step a kernel argument
                step, length, reverse = decode
                head = (
                    f"{step} = {length}LL - 1; {step} >= 0; {step}--"
                    if reverse == "True"
                    else f"{step} = 0; {step} < {length}LL; {step}++"
                )
                launches.append(f"    {'    ' * (len(steps) + depth)}for (long long {head}) {{")
                steps.append(step)
                continue
            if n == -2:
                steps.pop()
                launches.append(f"    {'    ' * (len(steps) + depth)}}}")
                continue
            if n == 0:
                continue
            name = f"{self.function}_k{k}"
            words = set(re.findall(r"\w+", body))  # once: a pattern per pointer is quadratic
            held = sorted(words & pointers.keys(), key=rank.__getitem__)
            used = [pointers[b] for b in held]
            read = [t for t in steps if t in words]
            # the arguments it reads: each kernel taking them all made the text kernels ×
            # arguments long (an unrolled filter's: 20,000 kernels × 800 index arrays)
            words |= {f"scratch_{ctype_of[b]}" for b in held}
            taken = [k for k, n in enumerate(names) if n in words]
            lines += [
                "",
                f'extern "C" __global__ void {name}'
                f"({', '.join([*(args[k] for k in taken), *(f'long long {t}' for t in read)])})",
                "{",
                *used,
                "    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;"
                f" i < {n}LL;",
                "         i += (long long)gridDim.x * blockDim.x) {",
                *(f"        {line}" for line in decode),
                f"        {body}",
                "    }",
                "}",
            ]
            blocks = min(-(-n // THREADS), 65535)
            launches.append(
                f"    {'    ' * (len(steps) + depth)}DGRAPH_LAUNCH({name}, {blocks})"
                f"({', '.join([*(names[k] for k in taken), *read])});"
            )
        lines += [
            "",
            f'extern "C" void {self.function}_launch({", ".join([*args, "cudaStream_t stream"])})',
            "{",
            *launches,
            "}",
            "",
        ]
        return "\n".join(lines)


# With DGRAPH_HOST defined the CUDA text compiles as C++ on the host: one thread runs
# each kernel's grid-stride loop over every entry, in launch order (CValues.load_cuda_host:
# the kernels' bodies and launches checked where no GPU is).
HOST_PRELUDE = [
    "#ifdef DGRAPH_HOST",
    "#include <math.h>",
    "#define __global__",
    "#define __device__",
    "typedef void *cudaStream_t;",
    "static const struct { long long x; } blockIdx = {0}, threadIdx = {0}, blockDim = {1},"
    " gridDim = {1};",
    "static inline double atomicAdd(double *at, double value)",
    "{",
    "    double old = *at;",
    "    *at += value;",
    "    return old;",
    "}",
    "#define DGRAPH_LAUNCH(kernel, blocks) kernel",
    "#else",
    "#define DGRAPH_LAUNCH(kernel, blocks) kernel<<<blocks, DGRAPH_THREADS, 0, stream>>>",
    "#endif",
]

# A kernel-list entry that is a line of the launcher's own (a cond's if chain, a while
# loop): its body says whether it opens, continues or closes a block.
LAUNCHER = -3

# A value the launcher branches on (a cond's index, a while loop's condition) read back
# from the device (one copy and a wait); on the host, read where it is.
READ_BACK = [
    "#ifdef DGRAPH_HOST",
    "template <typename T> static inline T dgraph_read(const T *at, cudaStream_t)",
    "{",
    "    return *at;",
    "}",
    "#else",
    "template <typename T> static inline T dgraph_read(const T *at, cudaStream_t stream)",
    "{",
    "    T value;",
    "    cudaMemcpyAsync(&value, at, sizeof(T), cudaMemcpyDeviceToHost, stream);",
    "    cudaStreamSynchronize(stream);",
    "    return value;",
    "}",
    "#endif",
]


def _atomic_extreme(kind: str) -> list[str]:
    """A max (min) over axes on a GPU: no atomicMax for doubles, so a compare-and-swap
    loop (NaN wins, as in NumPy's max); on the host, one thread, a plain comparison."""
    beats = ">" if kind == "max" else "<"
    return [
        "#ifdef DGRAPH_HOST",
        f"static inline void dgraph_atomic_{kind}(double *at, double value)",
        "{",
        f"    if (value {beats} *at || value != value) *at = value;",
        "}",
        "#else",
        f"static __device__ inline void dgraph_atomic_{kind}(double *at, double value)",
        "{",
        "    unsigned long long *word = (unsigned long long *)at, seen = *word, old;",
        "    do {",
        "        old = seen;",
        "        double now = __longlong_as_double(old);",
        f"        if (!(value {beats} now || value != value) || now != now) return;",
        "        seen = atomicCAS(word, old, __double_as_longlong(value));",
        "    } while (seen != old);",
        "}",
        "#endif",
    ]


# A product over axes on a GPU: no atomic multiply, so a compare-and-swap loop; on the
# host, one thread, a plain product.
ATOMIC_MUL = [
    "#ifdef DGRAPH_HOST",
    "static inline void dgraph_atomic_mul(double *at, double value)",
    "{",
    "    *at *= value;",
    "}",
    "#else",
    "static __device__ inline void dgraph_atomic_mul(double *at, double value)",
    "{",
    "    unsigned long long *word = (unsigned long long *)at, seen = *word, old;",
    "    do {",
    "        old = seen;",
    "        seen = atomicCAS(word, old, __double_as_longlong(__longlong_as_double(old) * value));",
    "    } while (seen != old);",
    "}",
    "#endif",
]

LOADER = r"""/* With DGRAPH_LOADER defined: read the index file beside this one (little-endian
 * hosts). arrays[k] (malloc'd; free them) and counts[k] get the file's arrays in order:
 * this function's constant arguments, then indices, indptr and shape (int64). Returns 0,
 * or a negative number: -1 cannot open, -2 not an index file of `count` arrays, -3 cut. */
#ifdef DGRAPH_LOADER
#include <stdio.h>
#include <string.h>

int jacobian_values_load(const char *path, void **arrays, long long *counts, int count)
{
    FILE *f = fopen(path, "rb");
    char magic[8], name[32], dtype[8];
    unsigned long long n, length;
    if (!f) return -1;
    if (fread(magic, 1, 8, f) != 8 || memcmp(magic, "DGCVALS1", 8) != 0
        || fread(&n, 8, 1, f) != 1 || n != (unsigned long long)count) {
        fclose(f);
        return -2;
    }
    for (int k = 0; k < count; k++) {
        if (fread(name, 1, 32, f) != 32 || fread(dtype, 1, 8, f) != 8
            || fread(&length, 8, 1, f) != 1) {
            fclose(f);
            return -3;
        }
        size_t bytes = (size_t)length * (size_t)(dtype[2] - '0');
        arrays[k] = malloc(bytes ? bytes : 1);
        long pad = (long)((8 - bytes % 8) % 8);
        if (fread(arrays[k], 1, bytes, f) != bytes || fseek(f, pad, SEEK_CUR) != 0) {
            fclose(f);
            return -3;
        }
        counts[k] = (long long)length;
    }
    fclose(f);
    return 0;
}
#endif
"""


def _unlooped(text: str, steps: list[str]) -> str:
    """A loop body of one entry, its loop left out: in a block that sets the ``steps``
    it names itself (an ``arange``'s entry is its step) to 0."""
    words = set(_WORD.findall(text))
    named = [step for step in steps if step in words]
    if not named:
        return text
    return f"{{ {' '.join(f'const long {step} = 0;' for step in named)} {text} }}"


def _last_reads(body: list[ArrayStatement]) -> dict[str, int]:
    """Each name's last statement that reads it (its index in ``body``): a name is read
    after statement k when its last read is past k. A set of the later reads per
    statement held every name once per statement (a 720-step filter's sparse Jacobian:
    7,000 statements, 2.4 GB)."""
    return {name: k for k, statement in enumerate(body) for name in ir.names_in(statement.value)}


def _plus(offset: int | str, index: str | None) -> str:
    if isinstance(offset, str):  # a loop's step slice: its offset moves with the step
        return offset if index is None else f"{offset} + {index}"
    if index is None:
        return f"{offset}L" if offset else "0"
    return f"{offset}L + {index}" if offset else index


def _moving(offset: int | str, step: str, size: int) -> str:
    """The offset of a loop step's slice of ``size`` entries."""
    return f"({_plus(offset, None)} + {step} * {size}L)"


def _double(value: float) -> str:
    if math.isnan(value):
        return "NAN"
    if math.isinf(value):
        return "INFINITY" if value > 0 else "(-INFINITY)"
    return repr(float(value))


def _axes_of(kind: str, params: list, ndim: int) -> tuple[int, ...]:
    """The axis order of a ``transpose`` (``params``: its axes, or none), ``moveaxis``
    (source, destination) or ``swapaxes`` (two axes) of an ``ndim``-d array."""
    if kind == "transpose":
        return tuple(params[0]) if params else tuple(reversed(range(ndim)))
    order = list(range(ndim))
    i, j = (p % ndim for p in params)
    if kind == "moveaxis":
        order.insert(j, order.pop(i))
    else:
        order[i], order[j] = order[j], order[i]
    return tuple(order)


def _matrix_pair(parts: list[str], result: str, views: list[_View]) -> tuple[_View, _View] | None:
    """The two operands of an einsum that is one matrix product (``'ab,bw->aw'``,
    ``'ab,aw->bw'``: two matrices sharing one summed letter, each holding one of the
    result's two), as views of the left factor (the result's rows × the summed letter)
    and the right one (the summed letter × the result's columns); None for any other
    einsum (or one of integers)."""
    if len(parts) != 2 or len(result) != 2 or any(len(set(p)) != 2 or len(p) != 2 for p in parts):
        return None
    if any(v.ctype != "double" for v in views):
        return None
    shared = set(parts[0]) & set(parts[1])
    row, column = result
    if len(shared) != 1 or shared & set(result) or row == column:
        return None
    (summed,) = shared
    left = next((k for k, p in enumerate(parts) if row in p), None)
    if left is None or column not in parts[1 - left]:
        return None

    def arranged(k: int, letters: str) -> _View:
        return _permuted(views[k], [parts[k].index(c) for c in letters])

    return arranged(left, row + summed), arranged(1 - left, summed + column)


def _permuted(view: _View, axes) -> _View:
    """``view`` with its axes in the order ``axes`` (a transpose: no copy)."""
    strides = _normal(view)
    return _View(
        view.base,
        view.offset,
        tuple(view.shape[a] for a in axes),
        tuple(strides[a] for a in axes),
        view.ctype,
    )


_FOLDED = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "/": lambda a, b: a / b,
}


def _literal(node: Node):
    """The Python value of a literal node (a number, a string, a shape), or of a few
    operations on numbers (``1.0 * (1)``: a fill value the sweeps print unfolded, its
    ``1`` a formula of no operands), each
    rounded as NumPy's scalar arithmetic rounds it (IEEE doubles)."""
    if isinstance(node, ir.Const):
        return node.value
    if isinstance(node, ir.UnaryOp) and node.op == "-" and isinstance(node.operand, ir.Const):
        return -node.operand.value
    value = _folded(node, 8)
    if value is not None:
        return value
    printed = NumPyArrayPrinter().doprint(node)
    raise DGraphError(f"C values: {printed} is not a literal")


def _folded(node: Node, depth: int) -> int | float | None:
    """The number an operation on numbers makes (at most ``depth`` deep), else None."""
    if isinstance(node, ir.Const):
        value = node.value
        number = isinstance(value, (int, float, np.number)) and not isinstance(value, bool)
        return value if number else None
    if isinstance(node, ir.Formula) and not node.operands and node.expr.is_Number:
        return int(node.expr) if node.expr.is_Integer else float(node.expr)
    if depth == 0:
        return None
    if isinstance(node, ir.UnaryOp) and node.op == "-":
        inner = _folded(node.operand, depth - 1)
        return None if inner is None else -inner
    if isinstance(node, ir.BinOp) and node.op in _FOLDED:
        left, right = _folded(node.left, depth - 1), _folded(node.right, depth - 1)
        if left is None or right is None or (node.op == "/" and right == 0):
            return None
        return _FOLDED[node.op](left, right)
    return None


def _literal_shape(node: Node) -> tuple[int, ...]:
    value = _literal(node)
    return (value,) if isinstance(value, int) else tuple(value)


def _call_name(node: Node) -> str | None:
    """``Call("exp")`` -> ``exp``; ``Call("special.erf")`` -> ``erf``."""
    if not isinstance(node, ir.Call):
        return None
    return node.func.rpartition(".")[2]
