"""NumPy module text for the programs of :mod:`dgraph.codegen.program`.

The module defines ``primal(x)``, ``jacobian(x)`` (and ``jacobian_values(x)`` with the
pattern ``JACOBIAN_ROWS``, ``JACOBIAN_COLS`` when sparse), ``jvp(x, v)`` and ``vjp(x, w)``
for whichever programs it is given. Every function takes points of shape ``(n,)`` or a
batch ``(B, n)`` and is vectorized over the batch: ``jacobian`` returns ``(m, n)`` or
``(B, m, n)``. Expressions are printed by sympy's ``NumPyPrinter``, numbers as doubles once
they do not fit a 32-bit int (:mod:`dgraph.codegen.printing`: NumPy cannot take a Python
int beyond 2**63), ``Max``/``Min`` as ``numpy.maximum``/``numpy.minimum``, ``Heaviside``
as ``numpy.heaviside`` with sympy's H(0).
"""

from __future__ import annotations

import functools
import types
from collections.abc import Mapping

import sympy
from sympy.printing.numpy import NumPyPrinter

from ..blocks.array_extra import SCIPY_NAMED
from ..errors import DGraphError
from .ir import Program, live_ranges
from .lambertw_code import HELPER, NUMPY_HELPER
from .loop_in_place import in_place
from .lowering import batched, statements
from .printing import (
    SCIPY_ONLY,
    ArrayFunctions,
    ArrayPrinter,
    NumbersAsDoubles,
    PowersAsProducts,
    SpecialFunctions,
    printed_code,
)

__all__ = ["NumPyArrayPrinter", "load_python", "python_module"]

_DOCS = {
    "primal": "The outputs OUTPUTS at x: (n,) -> (m,), (B, n) -> (B, m).",
    "jacobian": "J[..., i, j] = d OUTPUTS[i] / d INPUTS[j]: (n,) -> (m, n), (B, n) -> (B, m, n).",
    "jacobian_values": "J[..., JACOBIAN_ROWS[k], JACOBIAN_COLS[k]]: (..., n) -> (..., nnz).",
    "jvp": "J(x) v, the directional derivative: x, v of shape (..., n) -> (..., m).",
    "vjp": "w^T J(x), the adjoint: x (..., n), w (..., m) -> (..., n).",
    "value_and_jacobian": "(primal(x), jacobian(x)) from one program: the values shared.",
}


class _Printer(NumbersAsDoubles, PowersAsProducts, SpecialFunctions, ArrayFunctions, NumPyPrinter):
    one = "1"
    sqrt = "numpy.sqrt"


def _print(printer: _Printer, expr: sympy.Expr, function: str) -> str:
    """One expression of the generated ``function``; functions NumPy lacks (``math.erf``,
    ``math.gamma``) are called through element-wise wrappers ``_math_<name>`` that the
    module defines (SciPy's ufuncs when SciPy is installed, else ``numpy.vectorize`` of
    :mod:`math`)."""
    where = f"the generated {function}() for NumPy"
    text = printed_code(printer, expr, where, {"numpy", "math"})
    for name in printer.module_imports.get("math", ()):
        text = text.replace(f"math.{name}(", f"_math_{name}(")
    return text


class NumPyArrayPrinter(ArrayPrinter):
    """Array statements as NumPy (SciPy for special functions and the sparse result);
    ``_scatter`` and ``_scatter_add`` are helpers the module defines."""

    xp = "numpy"
    special = "scipy.special"

    def __init__(
        self, function: str = "jacobian", module: bool = False, scalar: _Printer | None = None
    ) -> None:
        super().__init__(function, module)
        self.scalar = _Printer() if scalar is None else scalar  # its imports: the wrappers

    def formula(self, expr: sympy.Expr) -> str:
        """``expr`` by sympy's NumPy printer; inside a module, the functions NumPy lacks
        through the module's wrappers ``_math_<name>``."""
        text = _print(self.scalar, expr, self.function)
        if "_math_" in text and not self.module:
            raise DGraphError(
                f"the generated {self.function}() for python: cannot print {expr} on arrays"
            )
        return text

    def loop(self, target: str, node) -> list[str]:
        """A Python ``for`` loop over the steps calling the body's nested function; the
        ys collected in lists and stacked after it."""
        node, owned = in_place(node)
        body, lines = self._loop_body(target, node)
        c, t = node.carries, f"_{target}_t"
        steps = f"range({node.length - 1}, -1, -1)" if node.reverse else f"range({node.length})"
        init = [self.doprint(x) for x in node.init]
        init = [f"numpy.array({x}, dtype=float)" if k in owned else x for k, x in enumerate(init)]
        lines += [
            f"    _{target}_carry = ({', '.join(init)}{',' if len(init) == 1 else ''})",
            f"    _{target}_ys = tuple([] for _ in range({node.ys}))",
            f"    for {t} in {steps}:",
            f"        _{target}_out = {body}(*_{target}_carry, *(x[{t}] for x in _{target}_xs),"
            f" *_{target}_invariants)",
            f"        _{target}_carry = _{target}_out[:{c}]",
            f"        for _y, _v in zip(_{target}_ys, _{target}_out[{c}:]):",
            "            _y.append(_v)",
            f"    {target} = (*_{target}_carry, *(numpy.stack(_y{'[::-1]' if node.reverse else ''})"
            f" for _y in _{target}_ys))",
        ]
        return lines

    def while_loop(self, target: str, node) -> list[str]:
        """A Python ``while`` loop over the condition's and the body's nested functions."""
        lines = self._function(f"_{target}_cond", node.cond)
        lines += self._function(f"_{target}_body", node.body)
        lines += [
            f"    _{target}_invariants = ({self._tuple(node.invariants)})",
            f"    _{target}_carry = ({self._tuple(node.init)})",
            f"    while _{target}_cond(*_{target}_carry, *_{target}_invariants)[0]:",
            f"        _{target}_carry = _{target}_body(*_{target}_carry, *_{target}_invariants)",
            f"    {target} = _{target}_carry",
        ]
        return lines

    def _print_Call(self, node) -> tuple[str, int]:
        """JAX's ``lax.dynamic_slice`` / ``lax.dynamic_update_slice`` of a vector at one
        start (a Name): a slice, and a copy with the slice replaced by a Name."""
        if node.func.startswith("scipy.linalg."):  # sqrtm: SciPy's, as the values take it
            return f"{node.func}({self._arguments(node.args, node.keywords)})", 9
        if node.func == "lax.dynamic_slice":
            x, start, size = self._wrapped(node.args[0], 9), node.args[1].items[0], node.args[2]
            at = f"int({self.doprint(start)})"
            return f"{x}[{at}:{at} + {size.value[0]}]", 9
        if node.func == "lax.dynamic_update_slice":
            x = self._wrapped(node.args[0], 9)
            v, start = self.doprint(node.args[1]), self.doprint(node.args[2].items[0])
            at = f"int({start})"
            return f"numpy.concatenate([{x}[:{at}], {v}, {x}[{at} + numpy.size({v}):]])", 9
        return super()._print_Call(node)

    def _print_Scatter(self, node) -> tuple[str, int]:
        return f"_scatter({node.size}, {self._arguments((node.flat, node.data))})", 9

    def _print_ScatterAdd(self, node) -> tuple[str, int]:
        parts = [n for part in node.parts for n in part]
        return f"_scatter_add({self._arguments((node.base, *parts))})", 9

    def _print_SegmentSum(self, node) -> tuple[str, int]:
        ids, data = self.doprint(node.ids), self.doprint(node.data)
        return f"numpy.bincount({ids}, weights={data}, minlength={node.n})", 9

    def _print_SparseMatrix(self, node) -> tuple[str, int]:
        if node.data is None:
            return f"scipy.sparse.csr_array({node.shape})", 9
        parts = self._arguments((node.data, node.indices, node.indptr))
        return f"scipy.sparse.csr_array(({parts}), shape={node.shape})", 9


def python_module(
    programs: Mapping[str, Program],
    *,
    title: str,
    inputs: list[str],
    outputs: list[str],
    sparse: bool = False,
    parameters: tuple[str, ...] = (),
) -> str:
    """The text of a NumPy module computing ``programs`` (keyed by function name); with
    ``parameters``, every function takes their values as its last argument ``p``.

    >>> from dgraph.frontends import bundled
    >>> from dgraph.methods import accumulate
    >>> from dgraph.codegen.program import jacobian_program
    >>> g = bundled("naumann_sin.trace")
    >>> text = python_module({"jacobian": jacobian_program(accumulate(g, "reverse"))},
    ...                      title="demo", inputs=g.inputs, outputs=g.outputs)
    >>> load_python(text).jacobian([1.0, 0.5]).round(6).tolist()
    [[0.229849, 0.841471]]
    """
    printer = _Printer()
    n, m = len(inputs), len(outputs)
    jac = programs.get("jacobian")
    rows = [k[0] for k, _ in jac.results] if jac is not None else []
    cols = [k[1] for k, _ in jac.results] if jac is not None else []
    body: list[str] = []  # printed first: it decides which wrappers the module needs
    live = 1  # the most temporaries any kernel holds at once
    for name, program in programs.items():
        if name == "jacobian" and sparse:
            text, peak = _function(printer, program, "jacobian_values", (len(rows),), True)
            args = ", ".join(a for a, _ in program.arguments)
            dense = _DENSE_FROM_VALUES.replace("(x)", f"({args})")
            body += ["", "", *text, "", "", *dense.format(m=m, n=n).splitlines()]
        else:
            text, peak = _function(printer, program, name, program.shape, False, (m, n))
            body += ["", "", *text]
        live = max(live, peak)
    title = title.replace("\\", "/").replace('"', "'")
    lines = [f'"""{title}', "", "Generated by dgraph; do not edit. Functions:", ""]
    for name, program in programs.items():
        ops = program.ops
        lines.append(f"- {name}: {ops}" + (f" (method {program.method})" if program.method else ""))
    wrapped = sorted(printer.module_imports.get("math", ()))
    lines += ['"""', "", *(["import math", ""] if wrapped else []), "import numpy", ""]
    lines += [f"INPUTS = {tuple(inputs)!r}", f"OUTPUTS = {tuple(outputs)!r}"]
    if parameters:
        lines.append(f"PARAMETERS = {tuple(parameters)!r}")
    if sparse and jac is not None:
        lines += [f"JACOBIAN_ROWS = numpy.array({rows!r}, dtype=int)"]
        lines += [f"JACOBIAN_COLS = numpy.array({cols!r}, dtype=int)"]
    for f in wrapped:
        fallback = f"_math_{f} = numpy.vectorize(math.{f}, otypes=[float])"
        if f == "lambertw":  # SciPy's is complex: its real part (..lambertw_code)
            lines += ["import scipy.special", "", "", *NUMPY_HELPER, f"_math_{f} = {HELPER}", ""]
        elif f in _SCIPY:  # SciPy's ufunc when installed: 10-50x faster than a Python loop
            lines += ["try:", f"    from scipy.special import {_SCIPY[f]} as _math_{f}"]
            lines += ["except ImportError:", f"    {fallback}"]
        else:
            lines.append(fallback)
    block = f"BLOCK = {block_size(live)}  # points per block: {live} live temporaries at most"
    lines += ["", "", *_ARRAY_HELPER, "", "", block, "", "", *_BLOCKS_HELPER, *body]
    return "\n".join(lines) + "\n"


_PARAMETERS_DOC = " p: the PARAMETERS, (k,) or (B, k), broadcast against x."

# math functions NumPy lacks and their scipy.special ufuncs
_SCIPY = {"erf": "erf", "erfc": "erfc", "gamma": "gamma", "lgamma": "gammaln"}
_SCIPY["polygamma"] = "polygamma"  # math has none: SciPy (a dependency) or a NameError
_SCIPY["erfinv"] = "erfinv"
_SCIPY |= {name: name for name in ("ndtri", "exp1", "expi", "dawsn")}
_SCIPY |= {f.__name__: f.__name__ for f in SCIPY_NAMED}
_SCIPY.update({name: scipy for name, (scipy, _) in SCIPY_ONLY.items()})

_ARRAY_HELPER = [
    "def _array(a, size, name):",
    "    a = numpy.asarray(a, dtype=float)",
    "    if a.ndim == 0 and size == 1:  # one scalar (a cotangent of one output, as JAX's)",
    "        a = a.reshape(1)",
    "    if a.ndim == 0 or a.shape[-1] != size:",
    '        raise ValueError(f"{name} needs shape ({size},) or (B, {size}), not {a.shape}")',
    "    return a",
]

# Large batches run in blocks: with every temporary a whole batch long and alive to the end,
# the live arrays outgrow the cache and each new one is fresh memory; in blocks of 4096
# points, temporaries deleted after their last use, the benchmark functions ran 1.2-3.7x
# faster from 10^5 points (benchmarks/RESULTS.md, "NumPy in blocks"). Small programs take
# larger blocks: each block costs a Python call per statement.
CACHE_BYTES = 2**20  # what a block's live temporaries may fill


def block_size(live: int) -> int:
    """Points per block: the largest power of two from 4096 to 65536 whose ``live``
    temporaries (8 bytes a point) fit in :data:`CACHE_BYTES`.

    >>> block_size(40), block_size(3), block_size(1)
    (4096, 32768, 65536)
    """
    size = 4096
    while size < 65536 and 2 * size * 8 * max(live, 1) <= CACHE_BYTES:
        size *= 2
    return size


_BLOCKS_HELPER = [
    "def _blocks(kernel, out, shape, *args):",
    '    """kernel(out, *args) over blocks of BLOCK points of the batch shape."""',
    "    count = 1",
    "    for d in shape:",
    "        count *= d",
    "    if count <= BLOCK:",
    "        kernel(out, *args)",
    "        return",
    "    rows = out.reshape((count,) + out.shape[len(shape):])",
    "    args = [numpy.broadcast_to(a, shape + a.shape[-1:]).reshape(count, -1) for a in args]",
    "    for start in range(0, count, BLOCK):",
    "        block = slice(start, start + BLOCK)",
    "        kernel(rows[block], *(a[block] for a in args))",
]

_DENSE_FROM_VALUES = '''def jacobian(x):
    """{doc}"""
    values = jacobian_values(x)
    out = numpy.zeros(values.shape[:-1] + ({m}, {n}))
    out[..., JACOBIAN_ROWS, JACOBIAN_COLS] = values
    return out'''.replace("{doc}", _DOCS["jacobian"])


def _function(
    printer: _Printer,
    program: Program,
    name: str,
    shape: tuple[int, ...],
    flat: bool,
    sizes: tuple[int, int] = (0, 0),
) -> tuple[list[str], int]:
    """The public ``name``: checks its arguments, allocates the result and runs the
    kernel ``_name`` over blocks of points (:data:`_BLOCKS_HELPER`); and the most
    temporaries the kernel holds at once."""
    args = [a for a, _ in program.arguments]
    doc = _DOCS[name] + (_PARAMETERS_DOC if "p" in args else "")
    lines = [f"def {name}({', '.join(args)}):", f'    """{doc}"""']
    for a, symbols in program.arguments:
        lines.append(f"    {a} = _array({a}, {len(symbols)}, {a!r})")
    batch = " , ".join(f"{a}.shape[:-1]" for a in args).replace(" , ", ", ")
    lines.append(
        f"    shape = {args[0]}.shape[:-1]"
        if len(args) == 1
        else f"    shape = numpy.broadcast_shapes({batch})"
    )
    size = 1
    for d in shape:
        size *= d
    alloc = "empty" if len(program.results) == size else "zeros"  # every element written
    lines.append(f"    out = numpy.{alloc}(shape + {tuple(shape)!r})")
    lines.append(f"    _blocks(_{name}, out, shape, {', '.join(args)})")
    if name == "value_and_jacobian":
        m, n = sizes
        lines.append(f"    return out[..., :{m}], out[..., {m}:].reshape(shape + ({m}, {n}))")
    else:
        lines.append("    return out")
    kernel, peak = _kernel(printer, program, name, flat)
    return [*lines, "", "", *kernel], peak


def _kernel(printer: _Printer, program: Program, name: str, flat: bool) -> tuple[list[str], int]:
    """``_name(out, args...)``: the straight-line program on one block (its array
    statements of shape (), :func:`~dgraph.codegen.lowering.batched`, every entry a
    batch), each temporary deleted after its last use, so that a block's live arrays stay
    few and in cache; and the most temporaries alive at once."""
    arrays = statements(program)
    found = batched(arrays, "out", flat)
    lines = [f"def _{name}(out, {', '.join(arrays.arguments)}):"]
    show = NumPyArrayPrinter(name, module=True, scalar=printer)
    dead, peak = live_ranges(program)
    reads = len(found) - len(program.assignments) - len(program.results)
    for k, statement in enumerate(found):
        lines.append(show.statement(statement))
        if k - reads in dead:
            lines.append(f"    del {', '.join(sorted(map(str, dead[k - reads])))}")
    if len(lines) == 1:  # nothing to compute: a Jacobian of zeros (out is zeroed)
        lines.append("    pass")
    return lines, peak


def load_python(text: str, name: str = "dgraph_generated") -> types.ModuleType:
    """Execute generated module text and return it as a module object (a new one each
    call: only the compiled code, which never changes, is shared)."""
    module = types.ModuleType(name)
    code = _compiled(text, name) if len(text) <= REMEMBERED_MOST else _compile(text, name)
    exec(code, module.__dict__)
    return module


REMEMBERED_MOST = 100_000  # characters: a longer text is compiled each load, not kept


def _compile(text: str, name: str) -> types.CodeType:
    return compile(text, f"<{name}>", "exec")


@functools.lru_cache(maxsize=64)
def _compiled(text: str, name: str) -> types.CodeType:
    """``text`` compiled, remembered for the last 64 texts of at most
    :data:`REMEMBERED_MOST` characters (the cache stays within tens of MB, however large
    the programs a session makes): the same text is loaded again (in
    tests/test_codegen.py and test_hessian_numpy.py 43 of 142 loads were of a text
    loaded before)."""
    return _compile(text, name)
