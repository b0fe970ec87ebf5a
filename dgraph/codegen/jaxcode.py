"""JAX module text for the programs of :mod:`dgraph.codegen.program`.

The module defines ``primal(x)``, ``jacobian(x)``, ``jvp(x, v)`` and ``vjp(x, w)`` (for
whichever programs it is given) as pure ``jax.numpy`` functions of the same verified
straight-line programs as the NumPy and C output: they take points of shape ``(n,)`` or a
batch ``(..., n)``, build their results with ``jnp.stack`` (JAX arrays are immutable), and
work under ``jax.jit``, ``jax.vmap`` and ``jax.grad``; a point program of at most
:data:`JIT_MOST` lines has its functions jitted (``@jax.jit``: one program compiled per
shape and precision, by the value check as by the caller). They compute in the precision of
their arguments: enable ``jax_enable_x64`` for doubles. Expressions are printed by sympy's
``JaxPrinter``, powers as products, numbers as doubles (:mod:`dgraph.codegen.printing`),
``erf``/``erfc``/``gamma``/``lgamma`` through ``jax.scipy.special``.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from types import ModuleType

import sympy
from sympy.printing.numpy import JaxPrinter

from ..errors import DGraphError
from .ir import Call, Entries, Program
from .lambertw_code import HELPER, helper_lines
from .lowering import body_and_stores, result_entries, statements
from .printing import (
    ArrayFunctions,
    ArrayPrinter,
    NumbersAsDoubles,
    PowersAsProducts,
    SpecialFunctions,
    printed_code,
)

__all__ = ["JIT_MOST", "LOOP_HELPERS", "JaxArrayPrinter", "jax_module", "loop_helpers"]

JIT_MOST = 100
"""The most lines a module's point program (``_jacobian``, ...) may have for its
functions to be jitted whole (``@jax.jit``): run eagerly, each ``jax.numpy`` operation is
a program of its own, lowered and compiled per shape at the value check's call and again
at the caller's first call at another shape; jitted, one program is, and later calls
take microseconds (benchmarks/element_jit.py, default XLA flags, build + first call
CPU-s eager → jitted: 17 lines 1.88 → 1.22, 58 lines 2.82 → 2.51; 298 lines 3.33 →
7.26, as XLA's compile time of scalar code grows with its lines, so a longer program
runs eagerly)."""

_DOCS = {
    "primal": "The outputs OUTPUTS at x: (n,) -> (m,), (..., n) -> (..., m).",
    "jacobian": "J[..., i, j] = d OUTPUTS[i] / d INPUTS[j]: (..., n) -> (..., m, n).",
    "jvp": "J(x) v, the directional derivative: x, v of shape (..., n) -> (..., m).",
    "vjp": "w^T J(x), the adjoint: x (..., n), w (..., m) -> (..., n).",
    "value_and_jacobian": "(primal(x), jacobian(x)) from one program: the values shared.",
}
# math functions jax.numpy lacks, in jax.scipy.special
_SPECIAL = {"erf": "erf", "erfc": "erfc", "gamma": "gamma", "lgamma": "gammaln"}
_SPECIAL["polygamma"] = "polygamma"
_SPECIAL["erfinv"] = "erfinv"
_SPECIAL |= {name: name for name in ("ndtri", "exp1", "expi", "dawsn", "spence")}


class _Printer(NumbersAsDoubles, PowersAsProducts, SpecialFunctions, ArrayFunctions, JaxPrinter):
    one = "1"
    sqrt = "jnp.sqrt"
    array_module = "jnp"

    def _print_And(self, expr: sympy.Expr) -> str:
        """Nested ``jnp.logical_and`` (broadcasting; sympy's stacks its operands, which
        also needs ``import jax`` under another name: a Piecewise of ``log_ndtr``'s
        ``ITE`` conditions was refused)."""
        return self._nested("jnp.logical_and", expr.args)

    def _print_Or(self, expr: sympy.Expr) -> str:
        return self._nested("jnp.logical_or", expr.args)


@functools.cache
def _jax_special() -> ModuleType | None:
    """``jax.scipy.special``, or None where JAX is not installed."""
    try:
        import jax.scipy.special
    except ImportError:
        return None
    return jax.scipy.special


def _print(printer: _Printer, expr: sympy.Expr, function: str) -> str:
    where = f"the generated {function}() for JAX"
    text = printed_code(printer, expr, where, {"jax.numpy", "math"})
    text = text.replace("jax.numpy.", "jnp.")
    for name in printer.module_imports.get("math", ()):
        if name == "lambertw":  # none in JAX: the module's own (..lambertw_code)
            text = text.replace(f"math.{name}(", f"{HELPER}(")
            continue
        if name not in _SPECIAL:
            raise DGraphError(f"{where}: cannot print math.{name} (no jax.numpy function)")
        text = text.replace(f"math.{name}(", f"jax.scipy.special.{_SPECIAL[name]}(")
    return text


class JaxArrayPrinter(ArrayPrinter):
    """Array statements as ``jax.numpy``: scatters as ``.at[].set`` / ``.add``, segment
    sums as ``jax.ops.segment_sum``, the sparse result a BCOO array."""

    xp = "jnp"
    special = "jax.scipy.special"

    def __init__(
        self, function: str = "jacobian", module: bool = False, scalar: _Printer | None = None
    ) -> None:
        super().__init__(function, module)
        self.scalar = _Printer() if scalar is None else scalar  # its imports: the specials

    def formula(self, expr: sympy.Expr) -> str:
        return _print(self.scalar, expr, self.function)

    def special_function(self, name: str) -> str:
        """``jax.scipy.special.<name>``, refused in one line where JAX has none (the
        Bessel functions j0 ... k1e, ellipk and ellipe: the module would fail at its first
        call). Without JAX the text is printed unchecked, as JAX would be needed to run it."""
        special = _jax_special()
        if special is not None and not hasattr(special, name):
            raise DGraphError(
                f"the generated {self.function}() for JAX: cannot print scipy.special.{name}"
                " (no jax.scipy.special function)"
            )
        return f"{self.special}.{name}"

    def _print_Call(self, node) -> tuple[str, int]:
        """``lax.<f>`` (``dynamic_slice``, ``dynamic_update_slice``): ``jax.lax.<f>``;
        ``scipy.linalg.<f>`` (``solve_triangular``): ``jax.scipy.linalg.<f>``."""
        if node.func.startswith(("lax.", "scipy.linalg.")):
            return f"jax.{node.func}({self._arguments(node.args, node.keywords)})", 9
        return super()._print_Call(node)

    def _print_Entries(self, node) -> tuple[str, int]:
        """Inside a module, the helper ``_stack`` (entries broadcast, the batch last)."""
        if not self.module:
            return super()._print_Entries(node)
        return f"_stack([{self._arguments(node.items)}], {node.shape!r})", 9

    def loop(self, target: str, node) -> list[str]:
        """``jax.lax.scan`` over the body's nested function (``fori_loop`` when the loop
        has neither xs nor ys) through the module's ``_jit_scan`` (:data:`LOOP_HELPERS`:
        one jitted runner per loop, so an eager call compiles nothing again); the carries
        enter with their own dtypes (not weakly typed) and keep them, as both require."""
        body, lines = self._loop_body(target, node)
        c = node.carries
        init = f"tuple(jnp.asarray(v, jnp.result_type(v)) for v in ({self._tuple(node.init)}))"
        if not node.xs and not node.ys:
            lines.append(
                f"    {target} = _jit_fori({body}, {node.length}, {init}, _{target}_invariants)"
            )
            return lines
        lines.append(
            f"    {target} = _jit_scan({body}, {c}, {node.length}, {node.reverse}, {init},"
            f" _{target}_xs, _{target}_invariants)"
        )
        return lines

    def _invariants(self, target: str, nodes) -> str:
        """The line binding a loop's invariants, each a JAX array made in the precision
        JAX computes in now: the body is given them, and a NumPy array it closed over
        keeps, in every later trace, the type a trace with ``jax_enable_x64`` on gave it
        (a float64 constant met a float32 operand: every loop's function failed, and
        the check traces with x64 on); an operation's result is one already."""
        items = [
            self.doprint(n) if isinstance(n, Call) else f"jnp.asarray({self.doprint(n)})"
            for n in nodes
        ]
        return f"    _{target}_invariants = ({', '.join(items)}{',' * (len(items) == 1)})"

    def while_loop(self, target: str, node) -> list[str]:
        """``jax.lax.while_loop`` over the condition's and the body's nested functions
        through the module's ``_jit_while`` (the carries keep their dtypes, as it requires)."""
        lines = self._function(f"_{target}_cond", node.cond)
        lines += self._function(f"_{target}_body", node.body)
        init = f"tuple(jnp.asarray(v, jnp.result_type(v)) for v in ({self._tuple(node.init)}))"
        lines += [
            self._invariants(target, node.invariants),
            f"    {target} = _jit_while(_{target}_cond, _{target}_body, {init},"
            f" _{target}_invariants)",
        ]
        return lines

    def cond(self, target: str, node) -> list[str]:
        """``jax.lax.switch`` over the branches' nested functions (it clamps the index)
        through the module's ``_jit_switch``; each branch's results as arrays of one type
        whichever branch runs."""
        lines: list[str] = []
        for b, part in enumerate(node.branches):
            lines += self._function(f"_{target}_branch{b}", part)
        names = ", ".join(f"_{target}_branch{b}" for b in range(len(node.branches)))
        lines += [
            f"    {target} = _jit_switch(({names},), jnp.reshape({self.doprint(node.index)},"
            f" (-1,))[0].astype(jnp.int32), ({self._tuple(node.operands)}))",
        ]
        return lines

    def _print_Scatter(self, node) -> tuple[str, int]:
        flat, data = self.doprint(node.flat), self.doprint(node.data)
        return f"jnp.zeros({node.size}).at[{flat}].set({data})", 9

    def _print_ScatterAdd(self, node) -> tuple[str, int]:
        adds = "".join(f".at[{self.doprint(f)}].add({self.doprint(d)})" for f, d in node.parts)
        return f"jnp.asarray({self.doprint(node.base)}){adds}", 9

    def _print_SegmentSum(self, node) -> tuple[str, int]:
        data, ids = self.doprint(node.data), self.doprint(node.ids)
        return f"jax.ops.segment_sum({data}, {ids}, num_segments={node.n})", 9

    def _print_SparseMatrix(self, node) -> tuple[str, int]:
        if node.data is None:
            return (
                f"jsparse.BCOO((jnp.zeros(0), jnp.zeros((0, 2), jnp.int32)), shape={node.shape})",
                9,
            )
        parts = self._arguments((node.data, node.indices))
        return (
            f"jsparse.BCOO(({parts}), shape={node.shape}, indices_sorted=True,"
            " unique_indices=True)",
            9,
        )


def jax_module(
    programs: Mapping[str, Program],
    *,
    title: str,
    inputs: list[str],
    outputs: list[str],
    sparse: bool = False,
    parameters: tuple[str, ...] = (),
) -> str:
    """The text of a JAX module computing ``programs`` (keyed by function name); with
    ``parameters``, every function takes their values as its last argument ``p``.

    >>> from dgraph.frontends import bundled
    >>> from dgraph.methods import accumulate
    >>> from dgraph.codegen.program import jacobian_program
    >>> g = bundled("naumann_sin.trace")
    >>> text = jax_module({"jacobian": jacobian_program(accumulate(g, "reverse"))},
    ...                   title="demo", inputs=g.inputs, outputs=g.outputs)
    >>> point = text.split("def _jacobian")[1].split("def jacobian")[0]
    >>> print([line.strip() for line in point.splitlines() if "return" in line][-1])
    return _stack([(v_v1*v_v1), 2*v_v1*v_x0*jnp.cos(v_x1)], (1, 2))
    """
    if sparse:
        raise DGraphError("--sparse is for python and c; JAX code returns the dense Jacobian")
    printer = _Printer()
    body: list[str] = []
    for name, program in programs.items():
        body += ["", "", *_function(printer, program, name)]
    title = title.replace("\\", "/").replace('"', "'")
    lines = [f'"""{title}', "", "Generated by dgraph; do not edit. Functions (pure jax.numpy:"]
    lines += ["jit, vmap and grad apply; enable jax_enable_x64 for doubles; each also as"]
    lines += ["<name>_batch_last, the batch on the last axis: the layout GPUs read fastest):", ""]
    for name, program in programs.items():
        ops = program.ops
        lines.append(f"- {name}: {ops}" + (f" (method {program.method})" if program.method else ""))
    special = any(set(printer.module_imports.get("math", ())) - {"lambertw"})
    lines += ['"""', "", "import jax", "import jax.numpy as jnp"]
    lines += ["import jax.scipy.special" if special else "", ""]
    lines += helper_lines("jax", "\n".join(body))
    lines += [f"INPUTS = {tuple(inputs)!r}", f"OUTPUTS = {tuple(outputs)!r}"]
    if parameters:
        lines.append(f"PARAMETERS = {tuple(parameters)!r}")
    lines.append(_BATCHED)
    lines += loop_helpers("\n".join(body))
    return "\n".join(lines + body) + "\n"


def _function(printer: _Printer, program: Program, name: str) -> list[str]:
    """The program for one point (``_<name>``: its array statements of shape (),
    :func:`~dgraph.codegen.lowering.statements`) and ``name`` itself, which checks its
    arguments and maps that over their batch dimensions with ``jax.vmap``: XLA runs the
    mapped point program about twice as fast as the same operations written on batches."""
    args = [a for a, _ in program.arguments]
    arrays = statements(program)
    show = JaxArrayPrinter(name, module=True, scalar=printer)
    body, _ = body_and_stores(arrays)
    point = [f"def _{name}({', '.join(args)}):", *map(show.statement, body)]
    entries = result_entries(arrays, program.shape)
    if name == "value_and_jacobian":  # flat results: the m values, then J row-major
        n = len(program.arguments[0][1])
        m = program.shape[0] // (1 + n)
        value = show.doprint(Entries(entries.items[:m], (m,)))
        point.append(f"    return {value}, {show.doprint(Entries(entries.items[m:], (m, n)))}")
    else:
        point.append(f"    return {show.doprint(entries)}")
    jit = ["@jax.jit"] if len(point) <= JIT_MOST else []
    lines = [*point, "", "", *jit, f"def {name}({', '.join(args)}):", f'    """{_DOCS[name]}"""']
    lines += _checked_arguments(program, last=False)
    lines.append(f"    return _batched(_{name}, {', '.join(args)})")
    # batch last: the same point program on columns, no vmap and no transposes
    lines += ["", "", *jit, f"def {name}_batch_last({', '.join(args)}):"]
    lines.append(f'    """{name} with the batch last: {_LAST[name]}"""')
    lines += _checked_arguments(program, last=True)
    lines.append(f"    return _{name}(*_columns({', '.join(args)}))")
    return lines


def _checked_arguments(program: Program, last: bool) -> list[str]:
    """Lines that make each argument an array and refuse one of the wrong size, the
    point's axis first (``last``: the batch last) or last."""
    lines = []
    for a, symbols in program.arguments:
        n = len(symbols)
        axis, shapes = ("0", f"({n},) or ({n}, ...)") if last else ("-1", f"({n},) or (..., {n})")
        lines.append(f"    {a} = jnp.asarray({a})")
        lines.append(f"    if {a}.ndim == 0 or {a}.shape[{axis}] != {n}:")
        lines.append(f'        raise ValueError(f"{a} needs shape {shapes}, not {{{a}.shape}}")')
    return lines


_LAST = {
    "primal": "(n, ...) -> (m, ...).",
    "jacobian": "J[i, j, ...]: (n, ...) -> (m, n, ...), the layout GPUs read fastest.",
    "jvp": "x, v of shape (n, ...) -> (m, ...).",
    "vjp": "x (n, ...), w (m, ...) -> (n, ...).",
    "value_and_jacobian": "(n, ...) -> ((m, ...), (m, n, ...)).",
}


_BATCHED = '''

def _batched(point, *args):
    """``point`` (a function of 1-D arguments) over the arguments' broadcast batch dimensions."""
    shape = jnp.broadcast_shapes(*(a.shape[:-1] for a in args))
    args = [jnp.broadcast_to(a, shape + a.shape[-1:]) for a in args]
    for _ in shape:
        point = jax.vmap(point)
    return point(*args)


def _columns(*args):
    """Arguments with the batch last, broadcast over their batch dimensions."""
    shape = jnp.broadcast_shapes(*(a.shape[1:] for a in args))
    return [jnp.broadcast_to(a, a.shape[:1] + shape) for a in args]


def _stack(items, shape):
    """A point's entries (or a batch-last block's) as an array of shape (+ the batch's)."""
    items = jnp.broadcast_arrays(*items)
    return jnp.stack(items).reshape(shape + items[0].shape)'''


LOOP_HELPERS = '''

_LOOP_RUNS = {}


def _loop_run(functions, key, make):
    """The jitted runner of one loop or switch, made once: its nested functions are new
    objects at each call (the same code), and lax.scan, while_loop and switch called
    eagerly trace and compile again for each new function object. Keyed by the
    functions' code (this module's globals, no closure); a closure is run as it is."""
    if any(f.__closure__ is not None for f in functions):
        return make()
    key = (tuple(f.__code__ for f in functions), key)
    run = _LOOP_RUNS.get(key)
    if run is None:
        run = _LOOP_RUNS[key] = jax.jit(make())
    return run


def _jit_scan(body, carries, length, reverse, init, xs, invariants):
    """lax.scan of body(*carries, *x, *invariants): the carries, then the ys."""

    def make():
        def run(init, xs, invariants):
            def step(c, x):
                r = body(*c, *x, *invariants)
                return tuple(jnp.asarray(a, b.dtype) for a, b in zip(r[:carries], c)), r[carries:]

            carry, ys = jax.lax.scan(step, init, xs, length=length, reverse=reverse)
            return (*carry, *ys)

        return run

    return _loop_run((body,), ("scan", carries, length, reverse), make)(init, xs, invariants)


def _jit_fori(body, length, init, invariants):
    """lax.fori_loop of body(*carries, *invariants) (a loop without xs or ys)."""

    def make():
        def run(init, invariants):
            def step(t, c):
                r = body(*c, *invariants)
                return tuple(jnp.asarray(a, b.dtype) for a, b in zip(r[: len(c)], c))

            return jax.lax.fori_loop(0, length, step, init)

        return run

    return _loop_run((body,), ("fori", length), make)(init, invariants)


def _jit_while(cond, body, init, invariants):
    """lax.while_loop of cond(*carries, *invariants)[0], body(*carries, *invariants)."""

    def make():
        def run(init, invariants):
            def step(c):
                r = body(*c, *invariants)
                return tuple(jnp.asarray(a, b.dtype) for a, b in zip(r, c))

            test = lambda c: jnp.reshape(cond(*c, *invariants)[0], ())  # noqa: E731
            return jax.lax.while_loop(test, step, init)

        return run

    return _loop_run((cond, body), ("while",), make)(init, invariants)


def _jit_switch(branches, index, operands):
    """lax.switch(index, branches, *operands) (the index clamped), each result in the type
    its branches' results promote to: lax.switch requires one, and a branch may pass on a
    constant of integers (zeros) where another computes floats."""

    def make():
        def run(index, operands):
            outs = [jax.eval_shape(b, *operands) for b in branches]
            types = [jnp.result_type(*(o[k].dtype for o in outs)) for k in range(len(outs[0]))]

            def typed(b):
                return lambda *a: tuple(jnp.asarray(r, t) for r, t in zip(b(*a), types))

            return jax.lax.switch(index, [typed(b) for b in branches], *operands)

        return run

    return _loop_run(branches, ("switch",), make)(index, operands)'''


def loop_helpers(body: str) -> list[str]:
    """:data:`LOOP_HELPERS`' lines where a module's ``body`` runs a loop or a switch."""
    if any(f"_jit_{k}(" in body for k in ("scan", "fori", "while", "switch")):
        return LOOP_HELPERS.split("\n")
    return []
