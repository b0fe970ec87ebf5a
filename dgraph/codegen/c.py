"""C99 text for the programs of :mod:`dgraph.codegen.program`, and a loader.

Layout of the generated file (also written in its header comment):

- ``void jacobian(const double *x, double *J)``: ``x`` holds the n inputs, ``J`` the m×n
  Jacobian in row-major order, ``J[i*n + j] = d y_i / d x_j``;
- ``void primal(const double *x, double *y)``, ``void jvp(const double *x, const double
  *v, double *Jv)`` (m values), ``void vjp(const double *x, const double *w, double *wJ)``
  (n values), for whichever programs are given;
- with ``sparse``, ``jacobian_values(x, values)`` writes the nonzero entries at
  ``jacobian_rows[k]``, ``jacobian_cols[k]`` and ``jacobian`` scatters them;
- every function ``f`` has ``f_batch(long count, ...)`` over ``count`` points stored one
  after another; ``dgraph_n``, ``dgraph_m``, ``dgraph_nnz`` give the sizes.

Expressions are printed by sympy's ``C99CodePrinter``, numbers as doubles once they do not
fit a 32-bit int (:mod:`dgraph.codegen.printing`), ``sign``, ``Heaviside`` and ``Piecewise``
as comparisons and conditional expressions on one line. :func:`load_c` compiles the text
with the system compiler and loads it with ctypes.
"""

from __future__ import annotations

import ctypes
import os
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import sympy
from sympy.printing.c import C99CodePrinter

from ..blocks.array_extra import SCIPY_NAMED
from ..errors import DGraphError
from . import ir
from .c_special import MAX_ORDER, special_definitions
from .ir import ArrayStatement, Node, Program
from .lowering import body_and_stores, statements
from .native_build import shared_library
from .printing import (
    CALLS,
    IEEE_TESTS,
    NumbersAsDoubles,
    PolygammaOrders,
    PowersAsProducts,
    call_operands,
    printed_code,
)

__all__ = [
    "C_CALLS",
    "C_FORMS",
    "CElementPrinter",
    "CModule",
    "c_source",
    "load_c",
]

_PARAMETERS = {  # function -> (argument names, output name)
    "primal": ("x", "y"),
    "jacobian": ("x", "J"),
    "jacobian_values": ("x", "values"),
    "jvp": ("x, v", "Jv"),
    "vjp": ("x, w", "wJ"),
    "value_and_jacobian": ("x", "y, J"),
}


class CPrinter(NumbersAsDoubles, PowersAsProducts, PolygammaOrders, C99CodePrinter):
    """C99 with step functions and Piecewise as conditional expressions; the literals
    they write are attributes, so that the CUDA printer changes only those. The special
    functions C99 lacks call :mod:`dgraph.codegen.c_special`'s."""

    _kf: ClassVar[dict[str, str]] = {
        **C99CodePrinter._kf,
        **{
            name: f"dgraph_{name}"
            for name in ("erfinv", "i0e", "i1e", "ndtri", "exp1", "expi", "dawsn")
        },
        **{f.__name__: f"dgraph_{f.__name__}" for f in SCIPY_NAMED},
        "hurwitz_zeta": "dgraph_zeta",
        "expn": "dgraph_expn",
    }

    one = "1.0"
    sqrt = "sqrt"
    zero = "0.0"  # a result
    compared_with = "0"  # what an argument is compared with
    half = "0.5"
    nan = "NAN"
    true, false = "1", "0"

    def _cast(self, text: str) -> str:
        return f"((double)({text}))"

    def _print_sign(self, expr: sympy.Expr) -> str:
        arg, z = self._print(expr.args[0]), self.compared_with
        return self._cast(f"({arg} > {z}) - ({arg} < {z})")

    def _print_Heaviside(self, expr: sympy.Expr) -> str:
        """H(0) is sympy's second argument (1/2 unless given)."""
        arg, z = self._print(expr.args[0]), self.compared_with
        at_zero = self._print(expr.args[1]) if len(expr.args) > 1 else self.half
        return f"(({arg}) < {z} ? {self.zero} : (({arg}) > {z} ? {self.one} : {at_zero}))"

    def _print_Piecewise(self, expr: sympy.Piecewise) -> str:
        """Nested conditional expressions; NaN where no condition holds (as sympy)."""
        text = self.nan
        for value, condition in reversed(expr.args):
            if condition == sympy.true:
                text = self._print(value)
            else:
                text = f"(({self._print(condition)}) ? ({self._print(value)}) : ({text}))"
        return text

    def _print_BooleanTrue(self, expr: sympy.Basic) -> str:
        return self.true

    def _print_Function(self, expr: sympy.Expr) -> str:
        """C99's ``isfinite``, ``isnan`` and ``isinf`` macros (undefined functions to
        sympy)."""
        name = expr.func.__name__
        if name in IEEE_TESTS and len(expr.args) == 1:
            return self._cast(f"{name}({self._print(expr.args[0])})")
        return super()._print_Function(expr)

    def _print_BooleanFalse(self, expr: sympy.Basic) -> str:
        return self.false

    def _print_polygamma(self, expr: sympy.Expr) -> str:
        """``dgraph_polygamma(n, x)`` (:mod:`dgraph.codegen.c_special`, defined in the
        file) for an integer order up to its ``MAX_ORDER``; an order computed at run time
        (a tensor program's operand, ``polygamma``'s derivative at order ``n + 1``) is
        the C function's to check: NaN unless an integer in that range."""
        order = expr.args[0]
        if order.is_number and not (order.is_Integer and 0 <= order <= MAX_ORDER):
            raise DGraphError(f"cannot print polygamma of order {order}")
        text = str(int(order)) if order.is_Integer else self._print(order)
        return f"dgraph_polygamma({text}, {self._print(expr.args[1])})"


# array function (without its module): (C99 function, operands) of the functions C calls
C_CALLS = {
    f.rpartition(".")[2]: (c, call_operands(lax)) for lax, (f, c) in CALLS.items() if c is not None
}
# the functions C writes out, their operands {0}, {1}, {2}
C_FORMS = {
    "square": "({0} * {0})",
    "sign": "(double)(({0} > 0) - ({0} < 0))",
    "heaviside": "({0} > 0 ? 1.0 : ({0} < 0 ? 0.0 : {1}))",
    "where": "({0} ? {1} : {2})",
    "logical_and": "(double)({0} && {1})",
    "logical_or": "(double)({0} || {1})",
    "logical_not": "(double)(!{0})",
    "isfinite": "(double)isfinite({0})",
}
_OPS = {"+", "-", "*", "/"}
_COMPARE = {"<", "<=", ">", ">=", "==", "!="}


def _power(a: str, b: str, exponent: Node) -> str:
    value = ir.number(exponent)
    if value is not None and value == int(value) and 1 <= value <= 4:
        return "(" + " * ".join([a] * int(value)) + ")"
    if value is not None and value == int(value) and -4 <= value <= -1:
        return "(1.0 / (" + " * ".join([a] * -int(value)) + "))"
    return f"pow({a}, {b})"


class CElementPrinter:
    """Elementwise nodes and statements of shape () as C text, one ``_print_<Kind>(node,
    args)`` per node kind from its children's text (the tensor path's C values print
    their loop bodies with it, :mod:`dgraph.codegen.tensor.c_values`); ``stride``: entry k
    of an argument or a result at ``k*stride`` (CUDA's batch-last points)."""

    ctype = "double"
    language = "in C"

    def __init__(
        self, function: str, scalar: CPrinter | None = None, stride: str | None = None
    ) -> None:
        self.function = function  # the generated function, named in errors
        self.scalar = CPrinter() if scalar is None else scalar
        self.stride = stride

    def _refuse(self, why: str) -> None:
        raise DGraphError(f"the generated {self.function}() {self.language}: cannot print {why}")

    def _scalar_text(self, expr: sympy.Expr) -> str:
        return printed_code(self.scalar, expr, f"the generated {self.function}() {self.language}")

    def doprint(self, node: Node) -> str:
        """``node``'s text, its children's first (without recursion)."""
        return ir.fold(node, self._combine)

    def statement(self, s: ArrayStatement) -> str:
        """``const T target = value;`` or the store ``target[k] = value;``."""
        value = self.value(s.value)
        if s.at:
            return f"    {s.target}[{self._entry(s.at)}] = {value};"
        return f"    const {self.ctype} {s.target} = {value};"

    def value(self, node: Node) -> str:
        """The text of a statement's value (a formula without parentheses around it)."""
        kids = [self.doprint(c) for c in node.children()]
        if isinstance(node, ir.Formula):
            return self._formula(node, kids)
        return self._combine(node, kids)

    def _entry(self, at: tuple[Node, ...]) -> str:
        (k,) = (int(c.value) for c in at)  # type: ignore[attr-defined]
        if self.stride is None:
            return str(k)
        return "0" if k == 0 else self.stride if k == 1 else f"{k}*{self.stride}"

    def _combine(self, node: Node, args: list[str]) -> str:
        """C text of one node from its children's: ``_print_<Kind>``."""
        return getattr(self, f"_print_{type(node).__name__}")(node, args)

    def _print_Name(self, node: ir.Name, args: list[str]) -> str:
        return node.id

    def _print_Const(self, node: ir.Const, args: list[str]) -> str:
        return repr(node.value)

    def _print_Index(self, node: ir.Index, args: list[str]) -> str:
        return f"{args[0]}[{self._entry(node.items)}]"

    def _print_BinOp(self, node: ir.BinOp, args: list[str]) -> str:
        a, b = args
        if node.op == "**":
            return _power(a, b, node.right)
        if node.op in _COMPARE:
            return f"(double)({a} {node.op} {b})"
        if node.op not in _OPS:
            self._refuse(f"the operator {node.op}")
        return f"({a} {node.op} {b})"

    def _print_UnaryOp(self, node: ir.UnaryOp, args: list[str]) -> str:
        if node.op != "-":
            self._refuse(f"the operator {node.op}")
        return f"(-{args[0]})"

    def _print_Formula(self, node: ir.Formula, args: list[str]) -> str:
        """The formula by the target's scalar printer, each symbol its operand's text."""
        return f"({self._formula(node, args)})"

    def _formula(self, node: ir.Formula, args: list[str]) -> str:
        if all(a == s.name for a, (s, _) in zip(args, node.operands, strict=True)):
            return self._scalar_text(node.expr)  # a statement of shape (): names as they are
        stand_ins = {
            s: sympy.Symbol(f"dgraph_operand_{k}_") for k, (s, _) in enumerate(node.operands)
        }
        text = self._scalar_text(node.expr.xreplace(stand_ins))
        for k, arg in enumerate(args):
            text = text.replace(f"dgraph_operand_{k}_", f"({arg})")  # -x of -1.0: -(-1.0)
        return text

    def _print_AsType(self, node: ir.AsType, args: list[str]) -> str:
        """To int: truncated, as NumPy's cast of a float."""
        return f"(double)(long long)({args[0]})" if node.dtype == "int" else args[0]

    def _print_Call(self, node: ir.Call, args: list[str]) -> str:
        kind = node.func.rpartition(".")[2]
        if kind in ("broadcast_to", "asarray"):
            return args[0]
        if kind in C_CALLS:
            function, operands = C_CALLS[kind]
            return f"{function}({', '.join(args[:operands])})"
        return C_FORMS[kind].format(*args)  # type: ignore[index]


def c_source(
    programs: Mapping[str, Program],
    *,
    title: str,
    inputs: list[str],
    outputs: list[str],
    sparse: bool = False,
    parameters: tuple[str, ...] = (),
) -> str:
    """The text of a C99 file computing ``programs`` (keyed by function name); with
    ``parameters``, every function takes ``const double *p`` after its inputs.

    >>> from dgraph.frontends import bundled
    >>> from dgraph.methods import accumulate
    >>> from dgraph.codegen.program import jacobian_program
    >>> g = bundled("naumann_sin.trace")
    >>> text = c_source({"jacobian": jacobian_program(accumulate(g, "reverse"))},
    ...                 title="demo", inputs=g.inputs, outputs=g.outputs)
    >>> print(text[text.index("void jacobian(const double *x, double *J) {"):].split("}")[0])
    void jacobian(const double *x, double *J) {
        const double v_x0 = x[0];
        const double v_x1 = x[1];
        const double v_v1 = sin(v_x1);
        J[0] = (v_v1*v_v1);
        J[1] = 2*v_v1*v_x0*cos(v_x1);
    <BLANKLINE>
    """
    printer = CPrinter()
    n, m = len(inputs), len(outputs)
    jac = programs.get("jacobian")
    nnz = len(jac.results) if jac is not None else 0
    title = title.replace("*/", "* /")
    lines = ["/* " + title, " *", " * Generated by dgraph; do not edit.", " *"]
    lines.append(f" * Inputs x[0..{n - 1}]: {', '.join(inputs)}.")
    lines.append(f" * Outputs y[0..{m - 1}]: {', '.join(outputs)}.")
    k = len(parameters)
    if k:
        lines.append(
            f" * Parameters p[0..{k - 1}]: {', '.join(parameters)} (after x in every call)."
        )
    described = {
        "primal": [" * void primal(const double *x, double *y): the m outputs."],
        "jacobian": [
            " * void jacobian(const double *x, double *J): the m x n Jacobian, row-major,",
            f" *     J[i*{n} + j] = d y_i / d x_j (m = {m}, n = {n}).",
        ],
        "jvp": [" * void jvp(const double *x, const double *v, double *Jv): J v, m values."],
        "vjp": [" * void vjp(const double *x, const double *w, double *wJ): w^T J, n values."],
        "value_and_jacobian": [
            " * void value_and_jacobian(const double *x, double *y, double *J): primal and",
            " *     jacobian from one program (the values shared).",
        ],
    }
    for name in programs:
        lines += described[name]
    lines.append(" * Each f also as f_batch(long count, ...) over points stored one after another.")
    if sparse and jac is not None:
        lines += [
            f" * jacobian_values(x, values): the {nnz} nonzero entries, values[k] =",
            " *     J[jacobian_rows[k]*n + jacobian_cols[k]].",
        ]
    lines.append(" *")
    for name, program in programs.items():
        ops = program.ops
        lines.append(
            f" * {name}: {ops}" + (f" (method {program.method})" if program.method else "")
        )
    lines += [" */", "#include <math.h>", "#include <string.h>", ""]
    head = len(lines)
    lines += [f"const int dgraph_n = {n};", f"const int dgraph_m = {m};"]
    lines.append(f"const int dgraph_nnz = {nnz};")
    lines.append(f"const int dgraph_k = {k};")
    if sparse and jac is not None:
        rows = ", ".join(str(k[0]) for k, _ in jac.results) or "0"
        cols = ", ".join(str(k[1]) for k, _ in jac.results) or "0"
        lines += [f"const int jacobian_rows[] = {{{rows}}};"]
        lines += [f"const int jacobian_cols[] = {{{cols}}};"]
    sizes = {"n": n, "m": m, "nnz": nnz, "k": k}
    for name, program in programs.items():
        if name == "jacobian" and sparse:
            lines += ["", *_function(printer, program, "jacobian_values", n, True)]
            lines += ["", *_batch("jacobian_values", sizes)]
            lines += ["", *_scatter(m, n, nnz, k > 0)]
        else:
            lines += ["", *_function(printer, program, name, n, False)]
        lines += ["", *_batch(name, sizes)]
    lines[head:head] = special_definitions("\n".join(lines[head:]))
    return "\n".join(lines) + "\n"


def _arguments(name: str, parameters: bool) -> list[str]:
    """The input arguments of a generated function: its own, then ``p``."""
    return [a.strip() for a in _PARAMETERS[name][0].split(",")] + (["p"] if parameters else [])


def _outputs(name: str) -> list[str]:
    return [a.strip() for a in _PARAMETERS[name][1].split(",")]


def _signature(name: str, parameters: bool) -> str:
    params = ", ".join(f"const double *{a}" for a in _arguments(name, parameters))
    outs = ", ".join(f"double *{a}" for a in _outputs(name))
    return f"void {name}({params}, {outs})"


def _function(printer: CPrinter, program: Program, name: str, n: int, flat: bool) -> list[str]:
    """``name``'s C function: the program's array statements of shape ()
    (:func:`~dgraph.codegen.lowering.statements`), every entry of the output written."""
    _, out = _PARAMETERS[name]
    lines = [_signature(name, any(a == "p" for a, _ in program.arguments)) + " {"]
    show = CElementPrinter(name, printer)
    body, stores = body_and_stores(statements(program))
    lines += [show.statement(s) for s in body]
    size = 1
    for d in program.shape:
        size *= d
    written = {}
    for k, ((index, _), store) in enumerate(zip(program.results, stores, strict=True)):
        flat_index = k if flat else (index[0] * n + index[1] if len(index) == 2 else index[0])
        written[flat_index] = show.value(store.value)
    zeros = [] if flat else [k for k in range(size) if k not in written]
    if name == "value_and_jacobian":  # flat results: the m values, then J row-major
        m = size // (1 + n)
        lines += [f"    y[{k}] = 0.0;" for k in zeros if k < m]
        lines += [f"    J[{k - m}] = 0.0;" for k in zeros if k >= m]
        lines += [
            f"    y[{k}] = {text};" if k < m else f"    J[{k - m}] = {text};"
            for k, text in written.items()
        ]
    elif len(zeros) > len(written):  # mostly zeros: clear all, then write the nonzeros
        lines.append(f"    memset({out}, 0, {size}*sizeof(double));")
        lines += [f"    {out}[{k}] = {text};" for k, text in written.items()]
    else:  # write each element once (the output is memory traffic too)
        lines += [f"    {out}[{k}] = 0.0;" for k in zeros]
        lines += [f"    {out}[{k}] = {text};" for k, text in written.items()]
    lines.append("}")
    return lines


def _scatter(m: int, n: int, nnz: int, parameters: bool) -> list[str]:
    p = ", p" if parameters else ""
    return [
        _signature("jacobian", parameters) + " {",
        f"    double values[{max(nnz, 1)}];",
        f"    jacobian_values(x{p}, values);",
        f"    memset(J, 0, {m * n}*sizeof(double));",
        f"    for (int k = 0; k < {nnz}; ++k)",
        f"        J[jacobian_rows[k]*{n} + jacobian_cols[k]] = values[k];",
        "}",
    ]


def _batch(name: str, sizes: dict[str, int]) -> list[str]:
    names = _arguments(name, sizes["k"] > 0)
    n, m, nnz = sizes["n"], sizes["m"], sizes["nnz"]
    strides = {"x": n, "v": n, "w": m, "p": sizes["k"]}
    params = ", ".join(f"const double *{a}" for a in names)
    calls = ", ".join(f"{a} + k*{strides[a]}" for a in names)
    steps = {"primal": [m], "jacobian": [m * n], "jacobian_values": [nnz], "jvp": [m]}
    steps.update(vjp=[n], value_and_jacobian=[m, m * n])
    outs = list(zip(_outputs(name), steps[name], strict=True))
    results = ", ".join(f"double *{a}" for a, _ in outs)
    written = ", ".join(f"{a} + k*{step}" for a, step in outs)
    return [
        f"void {name}_batch(long count, {params}, {results}) {{",
        f"    for (long k = 0; k < count; ++k) {name}({calls}, {written});",
        "}",
    ]


_FLOAT = np.dtype(float)


def _pointer(a: np.ndarray) -> int:
    return a.ctypes.data


def _data_offset() -> int | None:
    """Where an ndarray object holds its data pointer: right after the object header in
    NumPy's ``PyArrayObject_fields`` (ndarraytypes.h), found on a probe array rather than
    assumed; None when no offset holds it (then addresses are read per call)."""
    probe = np.arange(3.0)
    for offset in range(8, 49, 8):
        if ctypes.c_void_p.from_address(id(probe) + offset).value == probe.ctypes.data:
            return offset
    return None


def _trampolines(text: str, offset: int) -> str:
    """C functions ``dgraph_py_<f>`` taking the ndarray objects' addresses (``id``) and
    passing their data pointers to ``<f>`` (and ``<f>_batch``), for the functions
    ``text`` defines: a call from Python then converts nothing."""
    out = ["", "/* appended by dgraph.codegen.c.load_c: ndarray objects in, data out */"]
    parameters = "const double *p, " in text

    def data(name: str, const: bool) -> str:
        kind = "const double *" if const else "double *"
        return f"*({kind}*)((const char *){name} + {offset})"

    for name in _PARAMETERS:
        names, outs = _arguments(name, parameters), _outputs(name)
        for suffix, head in (("", []), ("_batch", ["count"])):
            if f"void {name}{suffix}(" not in text:
                continue
            params = ", ".join(
                ["long count"] * bool(head)
                + [f"const void *{a}" for a in names]
                + [f"void *{a}" for a in outs]
            )
            call = ", ".join(head + [data(a, True) for a in names] + [data(a, False) for a in outs])
            out.append(f"void dgraph_py_{name}{suffix}({params}) {{ {name}{suffix}({call}); }}")
    return "\n".join(out) + "\n"


class CModule:
    """A compiled generated file: NumPy-facing ``jacobian``, ``primal``, ``jvp``, ``vjp``,
    ``value_and_jacobian`` (those it defines), each taking (n,) or (B, n) like the Python
    module, the parameters ``p``, (k,) or (B, k), last when the file has any, and an
    optional preallocated ``out=`` (C-contiguous float64 of the result's shape; a pair for
    ``value_and_jacobian``).

    The C functions' argument types are set once. Arrays that are already C-contiguous
    float64 of one batch shape are passed as they are, checked and nothing else: to the
    functions :func:`load_c` appends (:func:`_trampolines`) as the objects' addresses, the C
    side reading each data pointer, so a call at batch 1 costs little more than calling
    the C function through ctypes directly (benchmarks/RESULTS.md). Any other input is
    converted and broadcast first."""

    def __init__(self, library: ctypes.CDLL) -> None:
        self.library = library
        self.n = ctypes.c_int.in_dll(library, "dgraph_n").value
        self.m = ctypes.c_int.in_dll(library, "dgraph_m").value
        self.nnz = ctypes.c_int.in_dll(library, "dgraph_nnz").value
        try:
            self.k = ctypes.c_int.in_dll(library, "dgraph_k").value
        except ValueError:  # a file generated before parameters existed
            self.k = 0
        self._functions: dict[str, tuple[Any, Any, bool]] = {}
        for name in _PARAMETERS:
            count = len(_arguments(name, self.k > 0)) + len(_outputs(name))
            for prefix, objects in (("", False), ("dgraph_py_", True)):  # the latter wins
                try:
                    single = getattr(library, prefix + name)
                    batch = getattr(library, f"{prefix}{name}_batch")
                except AttributeError:
                    continue
                single.argtypes = [ctypes.c_void_p] * count
                batch.argtypes = [ctypes.c_long] + [ctypes.c_void_p] * count
                single.restype = batch.restype = None
                self._functions[name] = (single, batch, objects)
        for name, shape in self._shapes().items():
            fast = self.k == 0 and name in self._functions and self._functions[name][2]
            if fast:  # no parameters: the one-point call checks x (and v or w) alone
                setattr(self, name, self._at_one_point(name, shape))

    def _shapes(self) -> dict[str, tuple[int, ...]]:
        return {"jacobian": (self.m, self.n), "primal": (self.m,), "jvp": (self.m,)} | {
            "vjp": (self.n,)
        }

    def _sizes(self, name: str) -> tuple[int, ...]:
        """The length of each input argument of ``name`` (x, then v or w, then p)."""
        size = {"x": self.n, "v": self.n, "w": self.m, "p": self.k}
        return tuple(size[a] for a in _arguments(name, self.k > 0))

    def _at_one_point(self, name: str, shape: tuple[int, ...]):
        """``name`` as a closure whose one-point call checks its arrays and calls C, and
        hands anything else to :meth:`_call`."""
        single = self._functions[name][0]
        general, empty, ndarray, double = self._call, np.empty, np.ndarray, _FLOAT
        x_shape = (self.n,)
        second = {"jvp": (self.n,), "vjp": (self.m,)}.get(name)

        def ready(a, a_shape) -> bool:
            return (
                type(a) is ndarray
                and a.shape == a_shape
                and a.dtype is double
                and a.flags.c_contiguous
            )

        def output(out):
            if out is None:
                return empty(shape)
            if ready(out, shape) and out.flags.writeable:
                return out
            raise ValueError(
                f"{name}: out must be a writeable C-contiguous float64 array of shape {shape}"
            )

        if second is None:

            def one(x, out=None):
                if ready(x, x_shape):
                    out = output(out)
                    single(id(x), id(out))
                    return out
                return general(name, shape, out, x)

        else:

            def one(x, v, out=None):  # type: ignore[misc]
                if ready(x, x_shape) and ready(v, second):
                    out = output(out)
                    single(id(x), id(v), id(out))
                    return out
                return general(name, shape, out, x, v)

        one.__doc__ = getattr(type(self), name).__doc__
        return one

    def _call(self, name: str, shape, out, *arrays):
        """``name`` over ``arrays`` (x, then v or w, then p where the file has parameters);
        ``shape`` per point, or a list of them for a function with several outputs (then
        ``out`` and the result are tuples)."""
        try:
            single, batch, objects = self._functions[name]
        except KeyError:
            raise DGraphError(f"the generated file defines no {name}()") from None
        sizes = self._sizes(name)
        if len(arrays) != len(sizes):
            wanted = ", ".join(_arguments(name, self.k > 0))
            raise ValueError(f"{name}: takes ({wanted}), not {len(arrays)} arrays")
        first = arrays[0]
        if not all(
            type(a) is np.ndarray
            and a.dtype is _FLOAT
            and a.flags.c_contiguous
            and a.ndim
            and a.shape[:-1] == first.shape[:-1]
            and a.shape[-1] == size
            for a, size in zip(arrays, sizes, strict=True)
        ):
            arrays = self._converted(name, arrays, sizes)
            first = arrays[0]
        shapes = shape if isinstance(shape, list) else [shape]
        results = [(*first.shape[:-1], *s) for s in shapes]
        outs = out if isinstance(shape, list) else [out]
        if out is None:
            outs = [np.empty(r) for r in results]
        elif len(outs) != len(results) or not all(
            type(o) is np.ndarray
            and o.dtype is _FLOAT
            and o.flags.c_contiguous
            and o.flags.writeable
            and o.shape == r
            for o, r in zip(outs, results, strict=True)
        ):
            raise ValueError(
                f"{name}: out must be writeable C-contiguous float64 arrays of shapes"
                f" {', '.join(map(str, results))}"
            )
        address = id if objects else _pointer
        if first.ndim == 1:
            single(*map(address, arrays), *map(address, outs))
        else:
            batch(first.size // first.shape[-1], *map(address, arrays), *map(address, outs))
        return tuple(outs) if isinstance(shape, list) else outs[0]

    @staticmethod
    def _converted(name: str, arrays, sizes) -> list[np.ndarray]:
        arrays = [np.asarray(a, dtype=float) for a in arrays]
        for a, size in zip(arrays, sizes, strict=False):
            if a.ndim == 0 or a.shape[-1] != size:
                raise ValueError(f"{name}: expected shape ({size},) or (B, {size}), not {a.shape}")
        batch = np.broadcast_shapes(*(a.shape[:-1] for a in arrays))
        return [np.ascontiguousarray(np.broadcast_to(a, (*batch, a.shape[-1]))) for a in arrays]

    def _with_parameters(self, name: str, arrays: tuple, p) -> tuple:
        if (p is None) != (self.k == 0):
            raise ValueError(
                f"{name}: the file has {self.k} parameters; give p"
                if self.k
                else f"{name}: the file has no parameters; p is not taken"
            )
        return arrays if p is None else (*arrays, p)

    def jacobian(self, x, p=None, out: np.ndarray | None = None) -> np.ndarray:
        shape = (self.m, self.n)
        return self._call("jacobian", shape, out, *self._with_parameters("jacobian", (x,), p))

    def primal(self, x, p=None, out: np.ndarray | None = None) -> np.ndarray:
        return self._call("primal", (self.m,), out, *self._with_parameters("primal", (x,), p))

    def jvp(self, x, v, p=None, out: np.ndarray | None = None) -> np.ndarray:
        return self._call("jvp", (self.m,), out, *self._with_parameters("jvp", (x, v), p))

    def vjp(self, x, w, p=None, out: np.ndarray | None = None) -> np.ndarray:
        return self._call("vjp", (self.n,), out, *self._with_parameters("vjp", (x, w), p))

    def value_and_jacobian(
        self, x, p=None, out: tuple[np.ndarray, np.ndarray] | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        arrays = self._with_parameters("value_and_jacobian", (x,), p)
        return self._call("value_and_jacobian", [(self.m,), (self.m, self.n)], out, *arrays)


def compiler() -> str | None:
    """The C compiler to use: ``$CC`` or ``cc``, if it is on the PATH."""
    return shutil.which(os.environ.get("CC", "cc"))


def load_c(source: str | Path, flags: tuple[str, ...] = ("-O2",)) -> CModule:
    """Compile a generated C file into a temporary directory with the system compiler and
    load it with ctypes (:class:`CModule`).

    ``source`` is a path or the C text, told apart without guessing: a
    :class:`~pathlib.Path`, or a ``str`` of one line, is a path, which must name an
    existing ``.c`` or ``.h`` file; a ``str`` of several lines (every generated file) is
    the text. Anything else is refused with a DGraphError naming it.
    """
    text = _c_text(source)
    cc = compiler()
    if cc is None:
        raise DGraphError("no C compiler found (set CC or install cc); use --lang python")
    offset = _data_offset()
    text = text if offset is None else text + _trampolines(text, offset)
    return CModule(shared_library(cc, tuple(flags), text, ".c", ("-lm",)))


def _c_text(source: str | Path) -> str:
    """The C text :func:`load_c` compiles: ``source`` itself, or the file it names."""
    if isinstance(source, str) and "\n" in source:
        return source
    if not isinstance(source, (str, Path)):
        raise DGraphError(f"load_c takes C text or a path, not {type(source).__name__}")
    path = Path(source)
    if path.suffix.lower() not in (".c", ".h"):
        raise DGraphError(
            f"load_c: {str(source)[:80]!r} is neither C text (several lines) nor a .c or .h path"
        )
    try:
        return path.read_text()
    except FileNotFoundError:
        raise DGraphError(f"load_c: {path}: file not found") from None
    except IsADirectoryError:
        raise DGraphError(f"load_c: {path}: is a directory") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise DGraphError(f"load_c: {path}: cannot be read ({type(exc).__name__})") from None
