"""A JAX module's jitted functions with their large arrays as arguments where large.

An array a jitted function closes over is embedded in the program XLA compiles: each
compilation copies it into the program, hashes it and analyses it, at the check and
again at the first call (the minimal surface's Hessian at 10⁶ unknowns: some 80 million
indices, 1.5 s of CPU a compilation). Its index arrays are passed as arguments instead
(device arrays, made once per precision) where they hold :data:`ARGUMENTS_FROM` entries
or more: gathers at indices given at run time compute the same values. Its float and
boolean arrays of more than one value go with them (there, 30 million floats: compiling
0.88 → 0.41 s of CPU, per call unchanged). A constant array of one value stays embedded:
XLA makes it a broadcast scalar and folds operations on it, which makes the program
faster (the minimal surface's: 291 ms of CPU a call with its float constants embedded,
372 ms with them all passed)."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from typing import NamedTuple

import numpy as np

from ..ir import ArrayStatement, gather_paths, names_in, straight_line
from .constants import LITERAL_LIMIT, Constants

__all__ = [
    "BOUND",
    "GATHER_PATHS_MOST",
    "JIT_MOST",
    "PIECE",
    "QUICK",
    "index_constants",
    "jitted",
    "jitted_whole",
    "varied_constants",
]

_CONSTANT = re.compile(r"\b_K\d+\b")
ARGUMENTS_FROM = 1 << 24
"""Index entries a jitted function reads from which they are its arguments: XLA makes a
gather at constant indices faster (the Lagrangian's Hessian at 10⁶ unknowns, 9·10⁶
indices: 8.3 ms a call embedded, 10.1 ms as arguments), and the minimal surface's
8·10⁷ cost 1.5 s of CPU a compilation embedded (per call 252 ms embedded, 291 ms as
arguments)."""

JIT_MOST = 1_000
"""The most lines a dense JAX function's body (a ``jacobian``, ``value_and_jacobian``,
``jvp`` or ``vjp``) may have to be jitted whole (:func:`jitted_whole`); a longer one is
jitted in pieces of :data:`PIECE` lines, as XLA's compile time grows faster than the program
(:data:`dgraph.frontends.jaxpr_arrays.REFERENCE_JIT_MOST`: a program of 5,500 equations
compiled in 21 CPU s and ran eagerly in 1.9)."""

BOUND = '''_DEVICE = {}
_NARROW = {}


def _on_device(name, array, x64):
    """The module's array ``name`` as a device array, made once per precision (with x64
    off JAX keeps an int64 array in 32 bits)."""
    key = (name, x64)
    if key not in _DEVICE:
        _DEVICE[key] = jax.device_put(array)
    return _DEVICE[key]


def _narrowed(function):
    """``function`` reading the module's arrays of 64 bits as copies in the 32 bits JAX
    gives them with x64 off: JAX remembers a NumPy array's type per array for as long as a
    trace that read it lives, whatever the precision, so a trace made with x64 on would
    lend its types to one made with it off. The module's functions it calls read the
    copies too (a ``jvp`` called by columns)."""
    if not _NARROW:
        module = globals()
        for name, value in module.items():
            if isinstance(value, numpy.ndarray):
                narrow = jax.dtypes.canonicalize_dtype(value.dtype)
                value = value if narrow == value.dtype else value.astype(narrow)
            elif type(value) is type(function) and value.__globals__ is module:
                if not value.__closure__:  # a function of the module (a jitted one: its own)
                    value = _rebound(value)
            _NARROW[name] = value
    return _rebound(function)


def _rebound(function):
    """``function`` reading its globals from :func:`_narrowed`'s copies."""
    made = type(function)(
        function.__code__, _NARROW, function.__name__, function.__defaults__, function.__closure__
    )
    made.__kwdefaults__ = function.__kwdefaults__
    return made


def _bound(function, **arrays):
    """``function`` jitted once per precision (:func:`_narrowed` with x64 off), called
    with the module's ``arrays`` as device arrays."""
    jitted = {}

    def call(*args, **named):
        x64 = bool(jax.config.jax_enable_x64)
        if x64 not in jitted:
            jitted[x64] = jax.jit(function if x64 else _narrowed(function))
        return jitted[x64](*args, **named, **{k: _on_device(k, v, x64) for k, v in arrays.items()})

    call.__name__, call.__doc__, call.__wrapped__ = function.__name__, function.__doc__, function
    return call'''


def index_constants(constants: Constants, lines: list[str]) -> list[str]:
    """The module's integer constants of more than :data:`~.constants.LITERAL_LIMIT`
    entries that ``lines`` read, in the order they were made."""
    used = set(_CONSTANT.findall("\n".join(lines)))
    taken = [
        n
        for n in used
        if n in constants.arrays
        and constants.arrays[n].dtype.kind in "iu"
        and math.prod(constants.shapes[n]) > LITERAL_LIMIT
    ]
    return sorted(taken, key=lambda n: int(n[2:]))


def varied_constants(constants: Constants, lines: list[str]) -> list[str]:
    """The module's other constants of more than :data:`~.constants.LITERAL_LIMIT`
    entries that ``lines`` read and that hold more than one value, in the order they
    were made."""
    used = set(_CONSTANT.findall("\n".join(lines)))
    taken = []
    for n in used:
        a = constants.arrays.get(n)
        if a is None or a.dtype.kind in "iu" or math.prod(constants.shapes[n]) <= LITERAL_LIMIT:
            continue
        if not np.all(a == a.flat[0]):
            taken.append(n)
    return sorted(taken, key=lambda n: int(n[2:]))


def jitted(name: str, args: str, body: list[str], constants: Constants) -> tuple[list[str], str]:
    """The definition of ``name(args)`` (``body``: its docstring, statements and return)
    taking the index arrays it reads (:func:`index_constants`) as keyword arguments, with
    them its arrays of several values (:func:`varied_constants`), and the line that
    rebinds ``name`` to its jitted form called with them (:data:`BOUND`'s ``_bound``), so
    that ``name(args)`` is called as before."""
    taken = index_constants(constants, body)
    if sum(math.prod(constants.shapes[k]) for k in taken) < ARGUMENTS_FROM:
        taken = []  # embedded: quick enough to compile, and faster per call
    else:
        taken = sorted([*taken, *varied_constants(constants, body)], key=lambda n: int(n[2:]))
    keywords = f", *, {', '.join(taken)}" if taken else ""
    bound = "".join(f", {k}={k}" for k in taken)
    return [f"def {name}({args}{keywords}):", *body], f"{name} = _bound({name}{bound})"


def jitted_whole(
    name: str,
    args: str,
    doc: str,
    body: list[str],
    returned: str,
    constants: Constants,
    program: Sequence[ArrayStatement] = (),
    results: Iterable[str] = (),
) -> list[str]:
    """A dense JAX function ``name(args)`` (``doc``, ``body`` printed statements,
    ``returned`` its return line) as one jitted program, as a sparse module's values are
    (:func:`jitted`, :data:`BOUND`: once per precision, its 64-bit arrays narrowed with
    x64 off), where its body has at most :data:`JIT_MOST` lines; else in jitted pieces
    (:func:`_in_pieces`) where ``program`` (the body's statements, one printed entry
    each) is straight-line and ``results`` names what ``returned`` reads, or as it is.

    Run eagerly, each ``jax.numpy`` operation is a program of its own, traced, lowered
    and compiled for its shape and dtype at the first call, by the value check and
    again at a caller's first call in another precision: a Hessian by a loop's sweeps
    (~350 lines) compiled 148 programs in 3.1 CPU-s at its first call, jitted one in 1.1,
    and each later call took 0.06-0.08 s eagerly, 0.003 jitted (benchmarks/RESULTS.md,
    jaxcheck32). The value check runs this function, the one the caller gets: its
    first call in the check's precision is the check's program, compiled once. The same
    operations run as one program give the eager values up to XLA's rounding, far below
    the check's tolerance; the module runs under ``jax.jit``, ``jax.vmap`` and
    ``jax.grad`` as before (a jitted function nests)."""
    if len(body) > JIT_MOST:
        pieces = _pieces(args, body, returned, program, results)
        if pieces is None or _bound_apart(constants, body):
            return [f"def {name}({args}):", doc, *body, returned]
        return _in_pieces(name, args, doc, pieces)
    definition, jit = jitted(name, args, [doc, *body, returned], constants)
    return [BOUND, "", "", *definition, "", "", jit]


PIECE = 250
"""The most lines of one jitted piece of a body longer than :data:`JIT_MOST`
(:func:`_in_pieces`). XLA's compile time per equation grows with the program (1.1 ms at
275 equations, 3.8 at 5,500: :data:`JIT_MOST`), and run eagerly each operation compiles
a program of its own for each shape it meets. 40 unrolled steps of a reactor (a Jacobian
body of 2,200 lines, 3,882 equations, whose arrays grow a step at a time), first call,
CPU-s: eagerly 23-25 (724 programs), jitted whole 13.6, in pieces of 250 lines 7.7 with
XLA's options and 3.5 with :data:`QUICK`'s (of 100 or 500 lines: no quicker); later calls
0.5 s eagerly, 0.005 in pieces (benchmarks/RESULTS.md, left43)."""


GATHER_PATHS_MOST = 1_000
"""The most places a chain of gathers in a piece may read a value at
(:func:`~dgraph.codegen.ir.gather_paths`) for it to compile with XLA's older emitters
(``_QUICK``); beyond, with XLA's own (``_QUICK_GATHERS``). The older ones compile a fused
chain of gathers in time growing with those places: ``t = Σ_j take(t, K_j)·c_j`` (5
gathers a link), CPU-s at 2, 4, 6 and 8 links (25 to 390,625 places): 0.08, 0.06, 1.35,
47.7; XLA's own 0.07-0.10 at each. ebm's Jacobian at 20 energy-balance steps: three
pieces of 15,625 places, 6.0-10.8 CPU-s each (0.6 with XLA's emitters); a rigid body's
(20 RK4 steps): 36 pieces with gathers, each of 1 place, quicker with the older ones
(benchmarks/RESULTS.md, perf47)."""


class _Piece(NamedTuple):
    """Consecutive statements of a body: the names they read from before them, the
    names they assign that later statements (or the return line) read, and their lines."""

    reads: list[str]
    gives: list[str]
    lines: list[str]
    gathers: bool


def _pieces(
    args: str,
    body: list[str],
    returned: str,
    program: Sequence[ArrayStatement],
    results: Iterable[str],
) -> list[_Piece] | None:
    """``body`` cut into runs of whole statements of at most :data:`PIECE` lines, the
    return line the last run's; which names each reads and gives from the statements
    themselves (``program``, one printed entry of ``body`` each; ``results``: the names
    ``returned`` reads), not from their text. None where there is no such program, it is
    not straight-line (a loop, a store into an array: run eagerly as before) or an
    argument is not a plain name."""
    given = [a.strip() for a in args.split(",")]
    if (
        len(program) != len(body)
        or not program
        or not straight_line(program)
        or not all(a.isidentifier() for a in given)
    ):
        return None
    runs: list[list[int]] = [[]]
    size = 0
    for k, entry in enumerate(body):
        lines = entry.count("\n") + 1
        if runs[-1] and size + lines > PIECE:
            runs.append([])
            size = 0
        runs[-1].append(k)
        size += lines
    loads = [set().union(*(names_in(program[k].value) for k in run)) for run in runs]
    loads[-1] |= set(results)
    later = [set().union(*loads[k + 1 :]) for k in range(len(runs))]
    defined, pieces = set(given), []
    for k, run in enumerate(runs):
        stored = [program[i].target for i in run]
        lines = [body[i] for i in run]
        if k == len(runs) - 1:
            lines.append(returned)
        reads = sorted(loads[k] & defined, key=_order)
        gives = sorted(dict.fromkeys(n for n in stored if n in later[k]), key=_order)
        gathers = gather_paths([program[i] for i in run]) > GATHER_PATHS_MOST
        pieces.append(_Piece(reads, gives, lines, gathers))
        defined |= set(stored)
    return pieces


def _order(name: str) -> tuple[int, str]:
    digits = re.search(r"\d+$", name)
    return (int(digits.group()) if digits else -1, name)


def _bound_apart(constants: Constants, body: list[str]) -> bool:
    """Whether :func:`jitted` would pass ``body``'s index arrays as arguments (at least
    :data:`ARGUMENTS_FROM` entries): its pieces would embed them each (run eagerly)."""
    taken = index_constants(constants, body)
    return sum(math.prod(constants.shapes[k]) for k in taken) >= ARGUMENTS_FROM


QUICK = """_QUICK = {
    "xla_backend_optimization_level": 0,
    "xla_llvm_disable_expensive_passes": True,
    "xla_cpu_parallel_codegen_split_count": 1,
    "xla_cpu_use_fusion_emitters": False,
}
_QUICK_GATHERS = {k: v for k, v in _QUICK.items() if k != "xla_cpu_use_fusion_emitters"}


def _quick(function, options=_QUICK):
    \"\"\"``function`` jitted once per precision (as ``_bound``), compiled with ``options``:
    ``_QUICK`` (LLVM's optimizations off, one module, XLA's older emitters: about half the
    compile time), or ``_QUICK_GATHERS`` (XLA's own emitters) for a piece with a long chain of
    gathers, which the older emitters compile in time exponential in its length; with XLA's
    own options where this XLA does not know one of them.\"\"\"
    jitted = {}

    def call(*args):
        x64 = bool(jax.config.jax_enable_x64)
        made = function if x64 else _narrowed(function)
        if x64 not in jitted:
            jitted[x64] = jax.jit(made, compiler_options=options)
        try:
            return jitted[x64](*args)
        except Exception as exc:
            if "No such compile option" not in str(exc):
                raise
            jitted[x64] = jax.jit(made)
            return jitted[x64](*args)

    call.__name__, call.__doc__, call.__wrapped__ = function.__name__, function.__doc__, function
    return call"""
"""The binder of a long body's pieces (:func:`_in_pieces`): :data:`BOUND`'s ``_bound``
with the compile options of a reference's quick compile
(:data:`dgraph.frontends.jaxpr_arrays.REFERENCE_COMPILE`, written out: the module imports
nothing of dgraph). The reactor's 2,200 lines in pieces: 7.7 CPU-s at the first call with
XLA's own options, 3.5 with these; later calls 0.005 s either way. A piece with a long
chain of gathers is compiled with ``_QUICK_GATHERS``, XLA's own emitters
(:data:`GATHER_PATHS_MOST`)."""


def _in_pieces(name: str, args: str, doc: str, pieces: list[_Piece]) -> list[str]:
    """``name(args)`` calling :func:`_pieces`'s runs in turn, each jitted once per
    precision and compiled quickly (:data:`QUICK`), its inputs the names it reads from before it
    and its results the names later runs read: each run is one program XLA compiles (of
    at most :data:`PIECE` lines), not one per operation and shape; the last returns."""
    out = [BOUND, "", "", QUICK]
    calls = []
    for k, piece in enumerate(pieces):
        part = f"_{name}_piece{k}"
        lines = list(piece.lines)
        if k < len(pieces) - 1:
            lines.append(f"    return ({''.join(f'{n}, ' for n in piece.gives)})")
        out += [
            "",
            "",
            f"def {part}({', '.join(piece.reads)}):",
            *lines,
            f"{part} = _quick({part}{', _QUICK_GATHERS' if piece.gathers else ''})",
        ]
        call = f"{part}({', '.join(piece.reads)})"
        if k == len(pieces) - 1:
            calls.append(f"    return {call}")
        elif piece.gives:
            calls.append(f"    {''.join(f'{n}, ' for n in piece.gives)}= {call}")
    return [*out, "", "", f"def {name}({args}):", doc, *calls]
