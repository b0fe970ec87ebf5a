"""Tensor graphs from JAX functions: one vertex per jaxpr equation, arrays kept whole.

``from_jax(f, *args, level="array")`` reads ``jax.make_jaxpr``'s equations as array
operations (:class:`~dgraph.blocks.arrays.ArrayOp`, jax.lax's vocabulary): an equation on
a value that a derivative flows from is one tensor vertex of the equation's shape, its
edges the Jacobian blocks of :mod:`dgraph.blocks`, so the graph's size is the
program's, not the data's (a stencil on any grid has the same vertices). The rest of the
program becomes operands of those vertices:

* an equation on constants only (literals, captured arrays, ``iota``, the ``-inf`` a
  max reduction starts from) is evaluated once, by JAX itself, and is a constant operand
  downstream (constant folding);
* a comparison, an integer or boolean computation, a rounding, or a value under
  ``stop_gradient`` is a *nested* operation: a non-differentiable operand (the predicate
  of ``select_n``, softmax's shift), with no edge. Vertices only such operands read are
  inlined into them;
* calls (``pjit``, ``closed_call``) are inlined; a ``custom_jvp_call`` or
  ``custom_vjp_call`` on a value a derivative flows from keeps its primal's value and
  takes its derivative from the custom rule, as ``jax.jacfwd``/``jax.jacrev`` do
  (:meth:`_Reader.custom`);
* PRNG keys (``jax.random.PRNGKey``) and what is made from them fold as constants;
* dtype conversions between floats and copies make no vertex.

Vertices are named after their primitive and the equation's place in the inlined list
(``exp4``, ``dot1``: long names shortened), inputs after the function's parameters, outputs as the
scalar builder names them (``y``, ``y0, y1, ...``, a dict's keys). An output that is an
input, or that another vertex reads, is a ``copy`` vertex of it. Gathers and scatters at
constant indices are maps between flat positions (:mod:`.jaxpr_scatter`); inside a scan
body, a read at the loop counter is a per-step slice of a new ``xs`` (:mod:`.jaxpr_steps`).
An index that depends on the inputs (``dynamic_slice``, ``gather``, ``scatter``) or a
primitive with no array operation is one error line naming it.

References: Graphax reads jaxprs as one vertex per equation in the same way (Lohoff and
Neftci, "Optimizing automatic differentiation with deep reinforcement learning", 2024).
"""

from __future__ import annotations

import functools
import inspect
import math
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..blocks import convolution
from ..blocks.arrays import NONDIFFERENTIABLE, PRIMITIVES, ArrayOp, Const, with_leaves
from ..core.activity import dead_note
from ..core.constant_entries import known_entries
from ..core.graph import DGraph
from ..core.parse import vertex_names
from ..core.untaken import guard_untaken_branches
from ..errors import InputError
from .integer_casts import float_index_hint, structural_hint, toward_zero
from .jax_precision import x64
from .jaxpr_branches import read_clamp, read_cond
from .jaxpr_compat import bind_equation
from .jaxpr_complex import complex_pairs
from .jaxpr_constants import ConstantFrontier, signature
from .jaxpr_dynamic import read_dynamic
from .jaxpr_dynamic_scatter import read_dynamic_write
from .jaxpr_eig import reads_eig, repeated_eigenvalue
from .jaxpr_exact import exact_fold
from .jaxpr_extra import (
    REWRITTEN,
    called_name,
    called_primal,
    empty_values,
    read_exponential_integral,
)
from .jaxpr_key import PREFOLDS, equations_key, kept_reference, lifted_literals, program_key
from .jaxpr_linalg import read_determinant
from .jaxpr_loops import LOOPS, live_records, loop_notes, read_loop
from .jaxpr_nan import read_constant_nan
from .jaxpr_numpy import (
    INLINED_CALLS,
    called_programs,
    linear_solve_call,
    numpy_equation,
    numpy_loop,
    numpy_program,
    numpy_while_trips,
)
from .jaxpr_prefix_sums import prefix_differences
from .jaxpr_reductions import reduction_loops
from .jaxpr_rewrites import read_linear_solve
from .jaxpr_scatter import INDEX_OPERANDS, read_indexed
from .jaxpr_stacks import read_stacked
from .jaxpr_values import Opaque, jax_module, resolved
from .point_values import refuse_unread_roots

__all__ = [
    "CALLS",
    "JaxJvp",
    "NotJax",
    "called_jaxpr",
    "conversion_errors",
    "first_line",
    "from_jax_arrays",
    "jax_module",
    "numpy_cheaper",
    "output_keys",
    "parameter_names",
    "x64",
]


class NotJax(InputError):
    """JAX could not trace the function because it turns a JAX value into a NumPy array or
    a Python number (``np.sin(x)``, ``float(x)``, ``if x > 0``): it is no JAX function,
    though its module may hold some; :func:`dgraph.frontends.load` traces it as NumPy
    instead."""


def conversion_errors(jax) -> tuple[type, ...]:
    errors = jax.errors
    names = (
        "TracerArrayConversionError",
        "ConcretizationTypeError",
        "TracerBoolConversionError",
        "TracerIntegerConversionError",
    )
    return tuple(getattr(errors, n) for n in names if hasattr(errors, n))


def first_line(exc: Exception, limit: int = 200) -> str:
    """An exception's message, first line only and at most ``limit`` characters (JAX's
    run to paragraphs)."""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return text if len(text) <= limit else text[: limit - 1] + "…"


PREFOLD_MOST = 512
"""The most equations on constants evaluated together in one jitted program (XLA's
compile time grows with the program: VANDANMSLS's 9,000 scalar operations on constants
did not compile in five minutes; one by one, each kind of operation compiles once)."""

PREFOLD_REPEATS = 4
"""Equations on constants are folded one by one, each kind of operation (a primitive on
operands of given shapes) compiled once and then only dispatched, where a batch has more
than this many equations per kind not yet compiled: a B-spline on constants unrolled 220
times is thousands of scalar operations of a few dozen kinds, which one program compiles
operation by operation (minutes), and one by one in seconds."""

# -- what each primitive computes, over sympy operands --------------------------------------


CALLS = {
    "pjit": "jaxpr",
    "jit": "jaxpr",
    "closed_call": "call_jaxpr",
    "core_call": "call_jaxpr",
    "custom_jvp_call": "call_jaxpr",
    "custom_vjp_call": "call_jaxpr",
    "custom_vjp_call_jaxpr": "fun_jaxpr",
    "remat": "jaxpr",
    "checkpoint": "jaxpr",
    "remat2": "jaxpr",  # jax.checkpoint's primitive in recent JAX
}


def called_jaxpr(eqn, where: str) -> tuple[Any, Any]:
    """The jaxpr a call equation (``pjit``, ``custom_jvp_call``, ...) runs, and its
    constants: calls are inlined, the primal computation is what is differentiated."""
    params = eqn.params
    inner = params.get(CALLS[eqn.primitive.name]) or params.get("jaxpr") or params.get("call_jaxpr")
    if inner is None:
        raise InputError(f"{where}: cannot inline {eqn.primitive.name}: no jaxpr in its params")
    closed = getattr(inner, "jaxpr", inner)
    return closed, getattr(inner, "consts", getattr(inner, "literals", ()))


def parameter_names(f: Callable[..., Any], count: int) -> list[str]:
    try:
        params = list(inspect.signature(f).parameters)
    except (TypeError, ValueError):
        params = []
    return params[:count] if len(params) >= count else [f"x{k}" for k in range(count)]


class JaxJvp:
    """``J·v`` of a JAX function by JAX's own ``jvp``, in float64 as the builders trace:
    ``(inputs, tangents) -> {output: J·v}``, arguments and results by the graph's names
    (``inputs`` its parameters in order, ``outputs`` its returned leaves in order). The
    reference a tensor graph's values are checked against
    (:attr:`dgraph.core.graph.DGraph.jvp_reference`); picklable where ``f`` is. None in a
    forked child (JAX's threads do not survive a fork: the check then uses differences);
    unpickled in another process, it works there.

    A program of at most :data:`REFERENCE_JIT_MOST` equations (``J·v``'s, sub-programs
    included) is compiled once, with :func:`reference_options` (:attr:`jitted`); a longer
    one runs operation by operation (:func:`run_eagerly`): XLA's compile time grows
    faster than the program (a Python loop of 100 steps differentiated twice, 5,500
    equations, compiled in 21 CPU s and ran eagerly in 1.9 s; 400 steps did not compile
    in ten minutes), and each operation's kernel is compiled once and then dispatched. A
    program NumPy runs whole (elementwise arithmetic and moves, :func:`numpy_cheaper`)
    and small enough runs so too, compiling nothing.

    :attr:`gradient`: ``f`` is JAX's gradient program of another function (the
    Hessian's graph, :func:`~dgraph.frontends.jax_hessian.gradient_graph`), whose slope
    may jump where its piecewise operations break: the value check confirms such a point
    by differences (:func:`~dgraph.core.value_check.check_values`)."""

    gradient = False

    def __init__(
        self,
        f: Callable[..., Any],
        inputs: list[str],
        outputs: list[str],
        traced: Any = None,
        fixed: Sequence[str] = (),
        decline: Callable[..., str] | None = None,
    ) -> None:
        self.f, self.inputs, self.outputs = f, list(inputs), list(outputs)
        self.decline = decline  # (jax, f, args) -> why JAX's jvp is no derivative there, or ""
        self.fixed = tuple(fixed)  # the graph's parameters: constants to the jvp
        self.pid = os.getpid()
        if traced is not None:  # f's program at its example arguments' shapes (in float64)
            self._traced = traced

    def __getstate__(self) -> dict:
        drop = ("_jitted", "_program", "equations", "_traced")
        return {k: v for k, v in self.__dict__.items() if k not in drop}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self.pid = os.getpid()  # unpickled: JAX starts afresh in this process

    def __call__(self, inputs: dict, tangents: dict) -> dict[str, np.ndarray] | str | None:
        """``J·v``; the line :attr:`decline` gives where it says JAX's is no derivative
        at ``inputs`` (a repeated eigenvalue of a nonsymmetric matrix)."""
        if getattr(self, "decline", None) is not None and os.getpid() == self.pid:
            jax = jax_module()
            with x64(jax):
                why = self.decline(
                    jax, self.f, [np.asarray(inputs[x], dtype=float) for x in self.inputs]
                )
            if why:
                return why
        return self._run(inputs, tangents, 1)

    def primal(self, inputs: dict) -> dict[str, np.ndarray] | None:
        """The function's own values at ``inputs`` (its outputs by name): the primal
        half of the same ``jvp`` program (zero tangents), the user's function where the
        graph is only its reading; None where that program does not run here."""
        return self._run(inputs, {}, 0)

    def _run(self, inputs: dict, tangents: dict, half: int) -> dict[str, np.ndarray] | None:
        """``jvp``'s primal (``half`` 0) or tangent (1) outputs by name."""
        if os.getpid() != self.pid:
            return None
        jax = jax_module()
        with x64(jax):  # NumPy arguments: a jitted program takes them without a dispatch each
            primals = tuple(np.asarray(inputs[x], dtype=float) for x in self.inputs)
            moves = tuple(  # an array parameter: no tangent
                np.asarray(tangents[x], dtype=float) if x in tangents else np.zeros_like(p)
                for x, p in zip(self.inputs, primals, strict=True)
            )
            try:
                if "_jitted" not in self.__dict__:
                    self._jitted = self._compiled(jax, primals, moves)
                if self._jitted is None:
                    out = self._eager(jax, primals, moves)[half]
                else:
                    out = self._jitted(primals, moves)[half]
            except TypeError as exc:  # a custom_vjp inside: JAX has no forward mode for it
                if isinstance(exc, _untraceable(jax)):  # a custom rule JAX cannot trace
                    return None  # (exp1's, differentiated again): checked by differences
                if "ad_util.Zero" in str(exc):  # JAX's rule fails on a zero tangent (lax.
                    return None  # reduce of floats and integers, _reduce_jvp): differences
                if "custom_vjp" not in str(exc):
                    raise
                if half == 0:  # the values alone: the function itself
                    out = self.f(*primals)
                else:
                    out = _transposed_pullback(jax, self.f, primals, moves)
            except NotImplementedError:  # JAX has no rule for one of its primitives
                return None  # (lax.zeta's exponent): checked by differences
            leaves = [  # an integer output's tangent (float0): zero
                np.zeros(np.shape(leaf))
                if getattr(leaf, "dtype", None) == jax.dtypes.float0
                else np.asarray(leaf, dtype=float)
                for leaf in jax.tree_util.tree_leaves(out)
            ]
        return dict(zip(self.outputs, leaves, strict=True))

    @property
    def jitted(self) -> bool | None:
        """Whether ``J·v`` runs as one compiled program (False: operation by operation);
        None before the first call."""
        found = self.__dict__.get("_jitted", False)
        return None if found is False else found is not None

    def _compiled(self, jax, primals: tuple, moves: tuple) -> Callable[..., Any] | None:
        """``jax.jit`` of ``jvp(f)``'s traced program with :func:`reference_options`
        (for arguments of its shapes; others trace and compile again), the one compiled
        for the same program in an earlier build where :func:`~.jaxpr_key.kept_reference`
        kept it (its floating-point literals passed as arguments,
        :func:`~.jaxpr_key.lifted_literals`: a program differing only in them shares it);
        or None where the program has more than :data:`REFERENCE_JIT_MOST` equations
        (:attr:`equations`) or NumPy runs it quicker (:func:`numpy_cheaper`); the
        program is then kept for :meth:`_eager`."""
        jvp = self._jvp(jax, self._function(jax, primals))
        closed, shapes = jax.make_jaxpr(jvp, return_shape=True)(primals, moves)
        self.equations = equation_count(closed.jaxpr)
        if self.equations > REFERENCE_JIT_MOST or numpy_cheaper(closed, primals, self.equations):
            self._program = (_signature(primals, moves), closed, shapes)
            return None
        options = reference_options(primals, self.equations)
        from jax.extend.core import jaxpr_as_fun

        lifted, literals = lifted_literals(closed)  # its numbers are arguments

        def compile() -> Callable[..., Any]:
            program = jaxpr_as_fun(lifted)

            def jvp(*flat: Any) -> Any:  # XLA's module named jit_jvp, as before
                return program(*flat)

            return quick_jit(jax, jvp, options)

        program = kept_reference(program_key(lifted, options), lifted, compile)
        signature, tree = _signature(primals, moves), jax.tree_util.tree_structure(shapes)

        def run(primals: tuple, moves: tuple) -> Any:
            if _signature(primals, moves) != signature:  # other shapes: traced again
                self._jitted = self._compiled(jax, primals, moves)
                if self._jitted is None:  # longer there: operation by operation
                    return self._eager(jax, primals, moves)
                return self._jitted(primals, moves)
            flat = jax.tree_util.tree_leaves((primals, moves))
            return jax.tree_util.tree_unflatten(tree, program(*literals, *flat))

        return run

    def _jvp(self, jax, function: Callable[..., Any]) -> Callable[..., Any]:
        """``(primals, moves) -> jax.jvp(function, ...)`` over the inputs that move, the
        graph's parameters (:attr:`fixed`) closed over as constants: JAX's rules then see
        no tangent of theirs, not a zero one (``xlogy(y, y)`` of labels ``y`` with
        zeros: its rule's ``0 · log 0`` is NaN, though nothing depends on the inputs)."""
        fixed = {k for k, x in enumerate(self.inputs) if x in self.fixed}
        if not fixed or len(fixed) == len(self.inputs):
            return functools.partial(jax.jvp, function)
        moving = [k for k in range(len(self.inputs)) if k not in fixed]

        def jvp(primals: tuple, moves: tuple) -> Any:
            def moved(*values: Any) -> Any:
                full = list(primals)
                for k, value in zip(moving, values, strict=True):
                    full[k] = value
                return function(*full)

            return jax.jvp(moved, [primals[k] for k in moving], [moves[k] for k in moving])

        return jvp

    def _function(self, jax, primals: tuple) -> Callable[..., Any]:
        """What JAX's ``jvp`` differentiates: ``f``'s own program as the builder traced it
        (``traced``: ``jax.make_jaxpr(f)`` at arguments of these shapes), run by
        :func:`jax.core.eval_jaxpr` with its outputs' structure, so that the ``jvp``
        traces its equations (JAX's rules on JAX's primitives, as ``jvp(f)`` binds them)
        without running ``f``'s Python again (a gradient's reverse sweep traced anew
        under ``jvp``: most of a Hessian reference's tracing); ``f`` itself for
        arguments of other shapes, or where no program was kept."""
        traced = self.__dict__.get("_traced")
        if traced is None or _signature(primals) != traced[0]:
            return self.f
        _, closed, tree = traced

        def program(*args: Any) -> Any:
            return jax.tree_util.tree_unflatten(
                tree, jax.core.eval_jaxpr(closed.jaxpr, closed.consts, *args)
            )

        return program

    def _eager(self, jax, primals: tuple, moves: tuple) -> Any:
        """``(F(x), J·v)`` by :func:`run_eagerly` over ``jvp(f)``'s program (traced again for
        arguments of other shapes)."""
        signature, closed, shapes = self._program
        if signature != _signature(primals, moves):
            jvp = self._jvp(jax, self._function(jax, primals))
            closed, shapes = jax.make_jaxpr(jvp, return_shape=True)(primals, moves)
            self._program = (_signature(primals, moves), closed, shapes)
        flat = jax.tree_util.tree_leaves((primals, moves))
        values = run_eagerly(closed.jaxpr, closed.consts, flat)
        return jax.tree_util.tree_unflatten(jax.tree_util.tree_structure(shapes), values)


def numpy_cheaper(closed, primals: tuple, equations: int) -> bool:
    """Whether :func:`run_eagerly` runs ``closed`` (``J·v``'s program, or a generated
    primal: :mod:`dgraph.codegen.tensor.primal`) by NumPy alone
    (:func:`~.jaxpr_numpy.numpy_program`: no equation bound to JAX, nothing compiled)
    with its arguments' entries times its equations at most
    :data:`REFERENCE_NUMPY_MOST`."""
    entries = sum(int(np.size(p)) for p in primals)
    return entries * equations <= REFERENCE_NUMPY_MOST and numpy_program(closed.jaxpr)


REFERENCE_NUMPY_MOST = 10**7
"""The most entries times equations of a reference run by NumPy where NumPy takes all its
equations (:func:`numpy_cheaper`) rather than compiled. Compiled, a small reference
spends its CPU lowering and compiling (most of the reference's cost in the test suite's
profile: 776 of its 1,239 samples lowering); by NumPy it compiles nothing. ``J·v`` of
Rosenbrock's gradient (55 equations), traced and run at two points, CPU s, compiled
against NumPy: 0.13–0.15 against 0.06–0.07 at 10² and 10⁴ unknowns, 0.17 against 0.10 at
10⁵ (5.5·10⁶), 0.30 against 1.08 at 10⁶ (benchmarks/RESULTS.md, refcheck30). The
values are the same operations in doubles (an elementary function may round
differently in the last bits, :mod:`.jaxpr_numpy`)."""

REFERENCE_JIT_MOST = 1_000
"""The most equations (sub-programs' included) of a :class:`JaxJvp` reference compiled as
one program; beyond, it runs operation by operation. XLA's CPU compile of ``jvp`` of a
twice-differentiated Python loop, CPU seconds (equations): 0.3 (275), 0.6 (550), 2.0
(1,375), 6.3 (2,750), 21 (5,500), over 600 (22,000); operation by operation 0.3 to 1.9 s.
The survey's Hessian references (benchmarks/real_programs_hessian.py) have 39 to 390."""

ONE_MODULE = {"xla_cpu_parallel_codegen_split_count": 1}
"""XLA's CPU backend emits a program as one LLVM module instead of splitting it for
parallel code generation: a small reference compiles in about three quarters of the CPU
(a ``jvp`` of 20 operations on vectors of 50: 81–90 ms a compile, traced and lowered,
against 112–120 ms); its values are JAX's to the last bit or two (the elementary
functions' vectorized loops split otherwise)."""

OLDER_EMITTERS = {"xla_cpu_use_fusion_emitters": False}
"""XLA's CPU backend emits fused loops by its older emitters (LLVM IR directly, not
through MLIR): a reference compiles in about half the CPU and runs as fast. ``J·v`` of
the minimal surface's gradient (198 equations), compile CPU s: 0.46–0.49 → 0.22–0.23 at
10⁴ unknowns and 0.52–0.55 → 0.25–0.26 at 10⁵ (:data:`REFERENCE_COMPILE`), 0.69–0.72 →
0.44–0.51 at 10⁶ (:data:`REFERENCE_OPTIMIZED`), its runs unchanged (10⁶: 0.11–0.13 s),
its values there equal to the last bit (benchmarks/RESULTS.md, ms19). The test suite
compiles every program so (tests/xla_compile.py). A reference only: the reader's
folds keep XLA's default emitters, whose values the module's constants are."""

REFERENCE_COMPILE = {
    "xla_backend_optimization_level": 0,
    "xla_llvm_disable_expensive_passes": True,
    **ONE_MODULE,
    **OLDER_EMITTERS,
}
"""XLA options of a reference's compile: it runs a few times per check, so LLVM's
optimizations cost more than they save (the survey's Hessian references compile in a
median 0.18 CPU s instead of 0.30; values equal to 6e-15 relative), one module
(:data:`ONE_MODULE`) and the older emitters (:data:`OLDER_EMITTERS`). An option this XLA
does not know is left out (:func:`quick_jit`)."""

REFERENCE_OPTIMIZED = dict(OLDER_EMITTERS)
"""XLA options of a reference compiled with XLA's own optimizations
(:func:`reference_options`): only the older emitters (:data:`OLDER_EMITTERS`)."""

_UNKNOWN_OPTIONS: set[str] = set()  # compile options this process's XLA refused


def known_options(options: dict | None) -> dict | None:
    """``options`` less those this process's XLA refused (``options`` itself where none)."""
    if options is None or not _UNKNOWN_OPTIONS & options.keys():
        return options
    return {k: v for k, v in options.items() if k not in _UNKNOWN_OPTIONS}


def quick_jit(jax, function: Callable[..., Any], options: dict | None) -> Callable[..., Any]:
    """``jax.jit(function, compiler_options=options)``, compiled on the first call; where
    this XLA refuses an option there ("No such compile option", an XLA older than
    :data:`ONE_MODULE`'s), compiled without it, as every later one in the process."""
    jitted = jax.jit(function, compiler_options=known_options(options))

    def call(*args: Any) -> Any:
        nonlocal jitted
        try:
            return jitted(*args)
        except Exception as exc:
            refused = {k for k in options or () if k in str(exc)}
            if "No such compile option" not in str(exc) or not refused:
                raise
            _UNKNOWN_OPTIONS.update(refused)
            jitted = jax.jit(function, compiler_options=known_options(options))
            return call(*args)

    return call


REFERENCE_OPTIMIZED_FROM = 10**8
"""The arguments' entries times the program's equations (what one run costs, roughly) from
which the reference is compiled with XLA's own options (its LLVM optimizations): each run
then costs more than they do. ``J·v`` of the minimal surface's gradient (198 equations;
``benchmarks/hessian_functions.py``), compile and first run, then one more run, CPU
seconds: at 10⁶ unknowns (2·10⁸) 0.80–0.87 and 0.37–0.48 with :data:`REFERENCE_COMPILE`
against 0.54–0.56 and 0.08–0.09 optimized (a check runs it at two points: 1.2–1.35 s
against 0.63); at 10⁵ (2·10⁷) 0.50 + 0.05 against 0.56 + 0.01 (even); at 10⁴ 0.47
against 0.65. Rosenbrock's at 10⁶ (55 equations) stays below it: optimized, its check
was no quicker (0.13–0.18 s against 0.16–0.25); the Lagrangian's (86 equations, x and
the weights: 2·10⁶ entries) is above it."""

REFERENCE_OPTIMIZED_MOST = 300
"""The most equations of a reference compiled with XLA's own options (:func:`reference_options`):
their compile time grows faster than the program (0.30 CPU s at 275 equations, 2.0 at 1,375;
``benchmarks/RESULTS.md``), so a longer one keeps :data:`REFERENCE_COMPILE`."""


def reference_options(primals: Sequence[Any], equations: int) -> dict:
    """The compile options of a reference's ``J·v`` of ``equations`` equations at arguments
    ``primals``: :data:`REFERENCE_COMPILE` (a quick compile), or :data:`REFERENCE_OPTIMIZED`
    (XLA's optimizations) where the arguments' entries times the equations reach
    :data:`REFERENCE_OPTIMIZED_FROM` and the program has at most
    :data:`REFERENCE_OPTIMIZED_MOST` equations. The values are
    JAX's ``jvp`` either way (XLA's optimizations may round differently, some 10⁻¹⁵
    relative)."""
    entries = sum(int(np.size(p)) for p in primals)
    large = entries * equations >= REFERENCE_OPTIMIZED_FROM
    optimized = large and equations <= REFERENCE_OPTIMIZED_MOST
    return REFERENCE_OPTIMIZED if optimized else REFERENCE_COMPILE


def _signature(*trees: Any) -> tuple:
    return tuple((np.shape(a), str(getattr(a, "dtype", ""))) for t in trees for a in t)


def run_eagerly(jaxpr, consts: Sequence[Any], args: Sequence[Any]) -> list[Any]:
    """``jaxpr``'s outputs at ``args``, each equation run on its own (JAX compiles each
    kind of operation once and then dispatches it), calls (a ``jax.jit`` inside the
    user's function) inlined, a loop run as one operation (its body compiled once) but a
    small ``scan`` or ``cond`` of NumPy's equations stepped through
    (:func:`~.jaxpr_numpy.numpy_loop`, :func:`_stepped`); a
    slice or a pad of an array in host memory moved by NumPy (:func:`_moved`), and the
    elementwise and array-moving equations of arrays there run by NumPy
    (:func:`~.jaxpr_numpy.numpy_equation`: no kernel compiled per shape)."""
    from jax.extend.core import Literal

    env: dict[Any, Any] = {}

    def read(v: Any) -> Any:
        return v.val if isinstance(v, Literal) else env[v]

    env.update(zip(jaxpr.constvars, consts, strict=True))
    env.update(zip(jaxpr.invars, args, strict=True))
    for eqn in jaxpr.eqns:
        ins = [read(v) for v in eqn.invars]
        if eqn.primitive.name in INLINED_CALLS:
            inner, inner_consts = called_jaxpr(eqn, "JAX's jvp")
            outs = run_eagerly(inner, inner_consts, ins)
        elif eqn.primitive.name in ("scan", "cond", "while") and numpy_loop(eqn, ins):
            outs = _stepped(eqn, ins)
        elif eqn.primitive.name == "custom_linear_solve":  # as JAX runs it: its solve
            solve, solve_args = linear_solve_call(eqn, ins)
            outs = run_eagerly(solve.jaxpr, solve.consts, solve_args)
        else:
            outs = _moved(eqn, ins) or numpy_equation(eqn, ins) or bind_equation(eqn, ins)
        env.update(zip(eqn.outvars, outs, strict=True))
    return [read(v) for v in jaxpr.outvars]


def _stepped(eqn, ins: list[Any]) -> list[Any]:
    """A small ``scan`` or ``cond`` of NumPy's equations (:func:`~.jaxpr_numpy.numpy_loop`)
    run by :func:`run_eagerly`: a ``cond``'s chosen branch (XLA's: the last where the
    index is out of range), a ``scan``'s body at each step, its ``ys`` stacked."""
    p = eqn.params
    if eqn.primitive.name == "while":
        return _while_stepped(eqn, ins)
    if eqn.primitive.name == "cond":
        branches = p["branches"]
        index = int(np.asarray(ins[0]))
        branch = branches[index if 0 <= index < len(branches) else len(branches) - 1]
        return run_eagerly(branch.jaxpr, branch.consts, ins[1:])
    body, n_consts, n_carry = p["jaxpr"], int(p["num_consts"]), int(p["num_carry"])
    length = int(p["length"])
    consts, carry = ins[:n_consts], list(ins[n_consts : n_consts + n_carry])
    xs = [np.asarray(x) for x in ins[n_consts + n_carry :]]
    rows: list[Any] = [None] * length
    for i in reversed(range(length)) if p["reverse"] else range(length):
        outs = run_eagerly(body.jaxpr, body.consts, [*consts, *carry, *(x[i] for x in xs)])
        carry, rows[i] = outs[:n_carry], outs[n_carry:]
    avals = [v.aval for v in eqn.outvars]
    carry = [np.asarray(c, dtype=a.dtype) for c, a in zip(carry, avals, strict=False)]
    ys = [
        np.stack([np.asarray(r[j]) for r in rows]).astype(a.dtype, copy=False)
        if length
        else np.zeros(a.shape, dtype=a.dtype)
        for j, a in enumerate(avals[n_carry:])
    ]
    return [*carry, *ys]


def _while_stepped(eqn, ins: list[Any]) -> list[Any]:
    """A ``while`` of NumPy's equations (:func:`~.jaxpr_numpy.numpy_loop`) run by
    :func:`run_eagerly` trip by trip, its state of the loop's dtypes; a loop still running
    after :data:`~.jaxpr_numpy.NUMPY_WHILE_MOST` equations bound in JAX from its state
    there (the same loop, continued)."""
    p = eqn.params
    cond, body = p["cond_jaxpr"], p["body_jaxpr"]
    n_cond, n_body = int(p["cond_nconsts"]), int(p["body_nconsts"])
    cond_consts, body_consts = ins[:n_cond], ins[n_cond : n_cond + n_body]
    carry = list(ins[n_cond + n_body :])
    avals = [v.aval for v in eqn.outvars]
    for _ in range(numpy_while_trips(eqn)):
        (going,) = run_eagerly(cond.jaxpr, cond.consts, [*cond_consts, *carry])
        if not bool(np.asarray(going)):
            return [np.asarray(c, dtype=a.dtype) for c, a in zip(carry, avals, strict=True)]
        carry = run_eagerly(body.jaxpr, body.consts, [*body_consts, *carry])
        carry = [np.asarray(c, dtype=a.dtype) for c, a in zip(carry, avals, strict=True)]
    return bind_equation(eqn, [*cond_consts, *body_consts, *carry])


def equation_count(jaxpr) -> int:
    """Equations of ``jaxpr`` and of every program its equations call (a loop's body once,
    as XLA compiles it once)."""
    return sum(1 + sum(map(equation_count, called_programs(eqn))) for eqn in jaxpr.eqns)


def _transposed_pullback(jax, f: Callable[..., Any], primals: tuple, moves: tuple) -> Any:
    """``J·v`` where only reverse mode applies: the transpose of JAX's pullback
    ``w -> Jᵀw`` (linear in ``w``) applied to the tangents, as ``jax.jacrev`` reads J."""
    y, pullback = jax.vjp(f, *primals)
    (out,) = jax.linear_transpose(pullback, y)(moves)
    return out


def output_keys(tree, count: int, inputs: set[str], jax) -> list[str]:
    """One name per returned array: ``y``, ``y0, y1, ...`` or a dict's keys."""
    keys = None
    try:
        paths = [
            p
            for p, _ in jax.tree_util.tree_flatten_with_path(
                jax.tree_util.tree_unflatten(tree, [0] * tree.num_leaves)
            )[0]
        ]
        if paths and all(len(p) == 1 and hasattr(p[0], "key") for p in paths):
            keys = [str(p[0].key) for p in paths]
    except Exception:
        keys = None
    base = "y" if "y" not in inputs else "f"
    if keys is None:
        keys = [base] if count == 1 else [f"{base}{k}" for k in range(count)]
    return keys


# vertex names: the primitive, shortened where jax.lax's name is long, and the equation
_SHORT = {
    "dot_general": "dot",
    "broadcast_in_dim": "broadcast",
    "reduce_sum": "sum",
    "reduce_max": "max",
    "reduce_min": "min",
    "integer_pow": "pow",
    "concatenate": "concat",
    "convert_element_type": "convert",
    "expand_dims": "expand",
}

# the params each array operation keeps, in this order (the others are layout, precision)
_PARAMS: dict[str, tuple[str, ...]] = {
    "integer_pow": ("y",),
    "dot_general": ("dimension_numbers",),
    "reduce_sum": ("axes",),
    "reduce_max": ("axes",),
    "reduce_min": ("axes",),
    "cumsum": ("axis", "reverse"),
    "cumprod": ("axis", "reverse"),
    "cumlogsumexp": ("axis", "reverse"),
    "broadcast_in_dim": ("broadcast_dimensions",),
    "squeeze": ("dimensions",),
    "expand_dims": ("dimensions",),
    "transpose": ("permutation",),
    "slice": ("start_indices", "limit_indices", "strides"),
    "pad": ("padding_config",),
    "concatenate": ("dimension",),
    "rev": ("dimensions",),
    "stack": ("axis",),
    convolution.CONV: convolution.PARAMS,
    "reduce_prod": ("axes",),
    "argmax": ("axes",),
    "argmin": ("axes",),
    "sort": ("dimension",),
}
_RENAMES = {"add_any": "add", "regularized_incomplete_beta": "betainc"}
# the value passes through unchanged (``name``: ``jax.ad_checkpoint.checkpoint_name``'s tag;
# ``device_put``: ``jnp.asarray`` in ``jax.scipy.sparse.linalg.cg``'s gradient)
_ALIASES = {"copy", "copy_p", "reduce_precision", "optimization_barrier", "name", "device_put"}
_CALLBACKS = {"pure_callback", "io_callback", "callback"}  # into Python: refused by name
# primitives whose operands after the first are indices
# calls with a custom derivative rule, honoured as JAX's autodiff honours it
_CUSTOM = {"custom_jvp_call", "custom_vjp_call", "custom_vjp_call_jaxpr"}
_MAX_DEPTH = 16


def _untraceable(jax) -> tuple[type, ...]:
    """JAX's errors of a function that needs a traced value concrete."""
    return (jax.errors.ConcretizationTypeError, jax.errors.TracerArrayConversionError)


Value = Any  # a vertex name, a NumPy constant, a nested ArrayOp, or an Opaque


def _plain(value: Any) -> Any:
    """A param as hashable plain Python: tuples of ints, bools and None."""
    if isinstance(value, (list, tuple)):
        return tuple(_plain(v) for v in value)
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    return value


def _constant(value: Any) -> Const:
    """A constant operand: floats as float64, integers as int64, booleans as they are."""
    array = np.asarray(value)
    if array.dtype.kind in "iu":
        array = array.astype(np.int64)
    return Const.of(array)


def _held(value: Any) -> np.ndarray:
    """A constant as NumPy; a PRNG key array (``jax.random.key``, ``PRNGKey``: no NumPy
    dtype) boxed whole in a 0-d object array, so that the equations that make and use
    keys fold like any on constants."""
    dtype = getattr(value, "dtype", None)
    if dtype is not None and jax_module().dtypes.issubdtype(dtype, jax_module().dtypes.prng_key):
        box = np.empty((), dtype=object)
        box[()] = value
        return box
    return np.asarray(value)


def _unheld(value: np.ndarray) -> Any:
    """What :func:`_held` boxed, unboxed for JAX."""
    return value.item() if value.dtype == object and value.shape == () else value


def _is_float(aval) -> bool:
    return isinstance(aval.dtype, np.dtype) and np.issubdtype(aval.dtype, np.floating)


def narrow_float(jaxpr) -> str:
    """The first float dtype narrower than float64 that ``jaxpr`` (its nested jaxprs too:
    loop bodies, branches) computes in, or ''."""
    for eqn in jaxpr.eqns:
        for v in eqn.outvars:
            dtype = getattr(getattr(v, "aval", None), "dtype", None)
            if dtype is not None and "float" in dtype.name and dtype.itemsize < 8:
                return str(dtype)
        for param in eqn.params.values():
            for inner in param if isinstance(param, tuple | list) else (param,):
                inner = getattr(inner, "jaxpr", inner)  # a ClosedJaxpr's Jaxpr
                found = narrow_float(inner) if hasattr(inner, "eqns") else ""
                if found:
                    return found
    return ""


@dataclass
class _Record:
    name: str
    op: ArrayOp


@dataclass
class _Reader:
    where: str
    taken: set[str]
    records: list[_Record] = field(default_factory=list)
    counter: int = 0
    folded: int = 0
    depth: int = 0  # custom rules being read inside one another
    prefix: str = ""  # every vertex named prefix<k> (else <primitive><k>)
    # the parameters' names (``params=``) and the vertices computed from them alone
    fixed: set[str] = field(default_factory=set)

    def __post_init__(self) -> None:
        self.index: dict[str, int] = {}
        self.prefolded: dict[int, list[np.ndarray]] = {}  # by id(eqn): prefold's values
        # prefold's jitted programs by their equations (a nested call's body read again)
        self.prefold_programs: dict[tuple[int, ...], tuple[list, Callable[..., Any]]] = {}
        self.bound: set = set()  # signatures of the equations fold bound on their own
        self.looked = 0  # operands ConstantFrontier looked at
        # vertices that may hold an infinity: they read an infinite constant, directly or
        # through one another (``jnp.where(mask, x, -inf)``, a masked softmax)
        self.unbounded: set[str] = set()
        # vertices with entries NaN whatever the inputs (.jaxpr_nan): where, by vertex
        self.nan_entries: dict[str, np.ndarray] = {}

    # a program's values at given NumPy arrays, for the rules that probe what a call
    # computes (jaxpr_linalg's determinant, jaxpr_rewrites' search side and solve's
    # matvec): by NumPy where it takes the equations, as eval_jaxpr would compile a
    # kernel per operation; given them here, as their modules are below this one
    eagerly = staticmethod(run_eagerly)

    def run(self, jaxpr, consts, args: list[Value], needed_only: bool = False) -> list[Value]:
        """The values of ``jaxpr``'s outputs (with ``needed_only``, equations no output
        reads are skipped)."""
        from jax.extend.core import Literal

        env: dict[Any, Value] = {}
        for var, value in zip(jaxpr.constvars, consts, strict=True):
            env[var] = _held(value)
        for var, value in zip(jaxpr.invars, args, strict=True):
            env[var] = value

        def read(atom) -> Value:
            return _held(atom.val) if isinstance(atom, Literal) else env[atom]

        eqns = _needed(jaxpr) if needed_only else jaxpr.eqns
        frontier = ConstantFrontier(
            eqns,
            lambda var: isinstance(env.get(var), np.ndarray),
            lambda eqn: eqn.primitive.name in CALLS,
        )
        self.prefold(frontier.start(), env)
        for k, eqn in enumerate(eqns):
            outs = self.equation(eqn, [read(a) for a in eqn.invars])
            for var, value in zip(eqn.outvars, outs, strict=True):
                env[var] = value
            if not frontier.chosen[k] and all(isinstance(o, np.ndarray) for o in outs):
                self.prefold(frontier.constant(eqn.outvars), env)  # what reads them
        self.looked += frontier.looked
        return [read(v) for v in jaxpr.outvars]

    def equation(self, eqn, ins: list[Value]) -> list[Value]:
        name = eqn.primitive.name
        params = eqn.params
        if name in CALLS:
            # slogdet, det: not their lu; exp1, expi: not JAX's expn(1, x), composite
            whole = read_determinant(self, eqn, ins) or read_exponential_integral(self, eqn, ins)
            if whole is not None:
                return whole
            closed, consts = called_jaxpr(eqn, self.where)
            primal = called_primal(self, eqn, ins)  # frexp: its bit-level body as one op
            if primal is None:
                primal = self.run(closed, consts, ins[: len(closed.invars)])
            if name in _CUSTOM and any(isinstance(x, str) for x in ins):
                return self.custom(eqn, ins, primal)
            return primal
        self.counter += 1
        if name != "custom_linear_solve":  # it reads lu's results for a solve it skips
            ins = [resolved(x) for x in ins]
        if all(isinstance(x, np.ndarray) for x in ins):
            return self.fold(eqn, ins)
        empty = empty_values(eqn)  # no entries: nothing to differentiate, a constant
        if empty is not None:
            return empty
        indices = ins[INDEX_OPERANDS[name]] if name in INDEX_OPERANDS else []
        if not all(isinstance(x, np.ndarray) for x in indices):
            steps = getattr(self, "steps", None)  # a scan body's reads at its loop counter
            found = None if steps is None else steps.read(self, eqn, ins)
            if found is not None:
                return found
            found = read_dynamic(self, eqn, ins)  # positions computed at run time
            if found is None:  # their transposes: scatter-add, dynamic_update_slice
                found = read_dynamic_write(self, eqn, ins)
            if found is not None:
                return found
            what = "a sparse matrix" if name == "bcoo_dot_general" else "an index"
            raise InputError(
                f"{self.where}: {name} with {what} that depends on the inputs is not"
                " supported (only its data may): make it a constant"
            )
        if name == "custom_linear_solve":  # before its opaque LU factors are seen
            return read_linear_solve(self, eqn, ins)
        avals = [v.aval for v in eqn.outvars]
        if not avals:  # an effect without values (jax.debug.print): nothing to differentiate
            return []
        opaque = next((x for x in ins if isinstance(x, Opaque)), None)
        if opaque is not None:
            if any(_is_float(a) for a in avals):
                raise InputError(
                    f"{self.where}: jaxpr primitive {opaque.primitive!r} is not supported at"
                    " the array level"
                )
            return [Opaque(opaque.primitive, tuple(a.shape)) for a in avals]
        if name in _ALIASES:
            return list(ins)
        if name in LOOPS:  # a region: the body read by this reader, once
            return read_loop(self, eqn, ins)
        if name == "cond":  # a region: each branch read by this reader, once
            return read_cond(self, eqn, ins)
        if name == "clamp" and not _is_float(avals[0]):  # lax.switch's index
            return [read_clamp(self, ins, tuple(avals[0].shape))]
        if name == "split":
            return self.split(eqn, ins[0])
        shape = tuple(avals[0].shape)
        if name == "convert_element_type":
            return [self.convert(ins[0], eqn.invars[0].aval, avals[0])]
        if name == "stop_gradient":
            x = ins[0]
            return [ArrayOp("stop_gradient", (x,), (), shape) if isinstance(x, str) else x]
        if name == "dynamic_slice":
            return [self.dynamic_slice(eqn, ins)]
        if name == "gather":
            return [self.gather(eqn, ins, shape)]
        stacked = read_stacked(self, eqn, ins)  # eigh, svd, ... of a stack: per matrix
        if stacked is not None:
            return stacked
        found = read_indexed(eqn, ins, self.where)
        if found is not None:
            found = found if isinstance(found, list) else [found]
            return [self.result(op, a) for op, a in zip(found, avals, strict=True)]
        if name == "select_n" and isinstance(ins[0], np.ndarray) and np.unique(ins[0]).size == 1:
            chosen = ins[1 + int(np.asarray(ins[0]).reshape(-1)[0])]  # a constant choice
            if not isinstance(chosen, np.ndarray) or chosen.shape == shape:
                return [chosen]
        rewritten = REWRITTEN[name](self, eqn, ins) if name in REWRITTEN else None
        if rewritten is not None:  # reshape with an order, tile, argsort, polygamma
            return rewritten
        primitive = _RENAMES.get(name, name)
        if primitive not in PRIMITIVES or len(avals) != 1:
            if not any(_is_float(a) for a in avals):  # argmax: refused once read as data
                return [Opaque(name, tuple(a.shape)) for a in avals]
            if name in _CALLBACKS:
                raise InputError(
                    f"{self.where}: {name} calls Python code, which has no derivative rule"
                    " dgraph can read or print: write it with jax.numpy"
                )
            raise InputError(
                f"{self.where}: jaxpr primitive {name!r} is not supported at the array level"
            )
        kept = tuple((p, _plain(params.get(p))) for p in _PARAMS.get(primitive, ()))
        if primitive == "slice" and kept[2][1] is not None and all(s == 1 for s in kept[2][1]):
            kept = (*kept[:2], ("strides", None))
        guarded = read_constant_nan(self, primitive, ins, kept, shape, avals[0])
        if guarded is not None:  # NaN entries of a constant: no derivative through them
            return [guarded]
        op = ArrayOp(primitive, tuple(self.operand(x) for x in ins), kept, shape)
        if primitive == "div" and not _is_float(avals[0]):  # lax.div of integers: C's
            op = toward_zero(op, shape)  # quotient
        return [self.result(op, avals[0])]

    def custom(self, eqn, ins: list[Value], primal: list[Value]) -> list[Value]:
        """A ``custom_jvp``/``custom_vjp`` call read as ``t + sg(f(x) - t)`` with
        ``t = L(sg(x))[x]`` (``sg``: stop_gradient): the primal's value, the custom rule's
        derivative ``L`` (:func:`_rule_tangents`), as ``jax.jacfwd``/``jax.jacrev`` use
        it. One vertex more than the rule's own: the sum."""
        if self.depth >= _MAX_DEPTH:
            raise InputError(
                f"{self.where}: the custom derivative rule of {eqn.primitive.name}"
                f" {str(eqn.params.get('name', ''))!r} calls custom rules {_MAX_DEPTH} deep"
            )
        fixed = tuple(k for k, x in enumerate(ins) if not isinstance(x, str))
        guarded = tuple(k for k, x in enumerate(ins) if isinstance(x, str) and x in self.unbounded)
        closed = _rule_tangents(eqn, self.where, fixed, guarded)
        self.depth += 1
        try:
            tangents = self.run(closed.jaxpr, closed.consts, ins, needed_only=True)
        finally:
            self.depth -= 1
        floats = [v for v in eqn.outvars if _is_float(v.aval)]
        by_var = dict(zip(floats, tangents, strict=True))
        outs: list[Value] = []
        for var, value in zip(eqn.outvars, primal, strict=True):
            tangent = by_var.get(var)
            shape = tuple(var.aval.shape)
            if tangent is None or isinstance(value, Opaque):
                outs.append(value)
            elif not isinstance(tangent, str):  # no derivative flows through the rule
                frozen = ArrayOp("stop_gradient", (self.operand(value),), (), shape)
                outs.append(value if isinstance(value, np.ndarray) else frozen)
            else:
                rest = ArrayOp("sub", (self.operand(value), tangent), (), shape)
                self.counter += 1
                frozen = ArrayOp("stop_gradient", (rest,), (), shape)
                outs.append(self.result(ArrayOp("add", (tangent, frozen), (), shape), var.aval))
        return outs

    def operand(self, x: Value) -> Any:
        return _constant(x) if isinstance(x, np.ndarray) else x

    def substituted(self, op: ArrayOp, leaf: Callable[[str], Any]) -> ArrayOp:
        """``op`` with every vertex name replaced by ``leaf`` (the loop reader's inlining)."""
        return _substitute(op, leaf)

    def result(self, op: ArrayOp, aval) -> Value:
        """A vertex where a derivative flows through ``op``, else a nested operation."""
        if op.primitive in NONDIFFERENTIABLE or not _is_float(aval) or not op.differentiable():
            return op
        base = self.prefix or _SHORT.get(op.primitive, op.primitive)
        base += "_" if base[-1].isdigit() else ""
        name = f"{base}{self.counter}"
        while name in self.taken or name in self.index:
            name += "_"
        self.index[name] = len(self.records)
        self.records.append(_Record(name, op))
        if self.fixed and set(op.vertices()) <= self.fixed:
            self.fixed.add(name)
        if _reads_infinity(op, self.unbounded):
            self.unbounded.add(name)
        return name

    def prefold(self, chosen: list, env: dict) -> None:
        """Equations that read only constants (directly or through one another; found by
        :class:`~.jaxpr_constants.ConstantFrontier`): those NumPy folds as JAX binds them
        by NumPy (:meth:`exact`: a loop's counters, indices, masks, moves and correctly
        rounded arithmetic compile nothing), the rest evaluated together in one jitted
        program: one compilation, not one per operation (and none for equations a build
        compiled before: :data:`~.jaxpr_key.PREFOLDS`); :meth:`fold` takes their values.
        Not where most of them repeat an operation :meth:`fold` compiles once and then
        only dispatches (see :data:`PREFOLD_REPEATS`), nor past :data:`PREFOLD_MOST`; where
        the program fails, each is folded on its own."""
        from jax.extend.core import Literal

        chosen = self.exact(chosen, env)  # NumPy's where they are JAX's bit for bit
        if not chosen:  # no program
            return
        key = tuple(map(id, chosen))  # the same body read again: compiled once
        if key not in self.prefold_programs and (
            not 2 <= len(chosen) <= PREFOLD_MOST  # none, one, or too many together
            or len({signature(e) for e in chosen} - self.bound) * PREFOLD_REPEATS < len(chosen)
        ):
            return  # folded one by one
        inner = (a for e in chosen for a in e.invars if not isinstance(a, Literal))
        leaves = list(dict.fromkeys(a for a in inner if a in env))

        def evaluate(*values):
            local = dict(zip(leaves, values, strict=True))
            for e in chosen:
                args = [a.val if isinstance(a, Literal) else local[a] for a in e.invars]
                out = e.primitive.bind(*args, **e.params)
                outs = out if e.primitive.multiple_results else [out]
                local.update(zip(e.outvars, outs, strict=True))
            return [local[v] for e in chosen for v in e.outvars]

        if key not in self.prefold_programs:  # the same equations in an earlier build too
            jit = jax_module().jit
            program = PREFOLDS.get(equations_key(leaves, chosen), 0, lambda: jit(evaluate))
            self.prefold_programs[key] = (chosen, program)
        _, program = self.prefold_programs[key]
        try:
            values = iter(program(*(_unheld(env[v]) for v in leaves)))
        except Exception:  # folded one by one below, each failure named there
            return
        for e in chosen:
            self.prefolded[id(e)] = [_held(next(values)) for _ in e.outvars]
            env.update(zip(e.outvars, self.prefolded[id(e)], strict=True))  # a later batch's

    def exact(self, chosen: list, env: dict) -> list:
        """The equations of ``chosen`` NumPy folds bit for bit as JAX binds them
        (:func:`~.jaxpr_exact.exact_fold`: moves, integer arithmetic, correctly rounded
        float arithmetic), folded in order, their values :meth:`fold`'s; returned, in
        order: the others (a transcendental function, a float sum) and every one that
        reads them, left to JAX."""
        from jax.extend.core import Literal

        left: list = []
        waiting: set = set()  # results of the equations left
        for e in chosen:
            outs = None
            if not any(not isinstance(a, Literal) and a in waiting for a in e.invars):
                args = [a.val if isinstance(a, Literal) else env.get(a) for a in e.invars]
                outs = exact_fold(e, args)
            if outs is None:
                left.append(e)
                waiting.update(e.outvars)
                continue
            self.prefolded[id(e)] = outs
            env.update(zip(e.outvars, outs, strict=True))
        return left

    def fold(self, eqn, ins: list[np.ndarray]) -> list[np.ndarray]:
        """An equation on constants, evaluated once by JAX (:meth:`prefold`'s value where
        it computed one, NumPy's where it is XLA's bit for bit: :func:`.exact_fold`)."""
        found = self.prefolded.pop(id(eqn), None)
        if found is None:
            found = exact_fold(eqn, ins)
        if found is not None:
            self.folded += 1
            return found
        self.bound.add(signature(eqn))
        try:
            out = eqn.primitive.bind(*(_unheld(x) for x in ins), **eqn.params)
        except Exception as exc:
            raise InputError(
                f"{self.where}: evaluating {eqn.primitive.name} on constants failed:"
                f" {type(exc).__name__}: {first_line(exc)}"
            ) from None
        self.folded += 1
        outs = out if eqn.primitive.multiple_results else [out]
        return [_held(o) for o in outs]

    def convert(self, x: Value, source, target) -> Value:
        """A dtype conversion: no vertex between floats; a nested operation otherwise."""
        shape = tuple(target.shape)
        if isinstance(x, str) and _is_float(target):
            return x
        if _is_float(target) or np.issubdtype(source.dtype, np.bool_):  # as a number
            return ArrayOp("convert_element_type", (x,), (), shape)  # (True + True is 2)
        if np.issubdtype(target.dtype, np.bool_):
            return ArrayOp("ne", (x, Const.of(0.0)), (), shape)
        if _is_float(source):  # to an integer: toward zero
            return toward_zero(x, shape)
        return x

    def gather(self, eqn, ins: list[Value], shape: tuple[int, ...]) -> Value:
        """A gather of constant indices in bounds along one axis (``x[idx]``, ``x[:, idx]``,
        ``jnp.take``): a ``take``; any other (an index out of bounds, clamped or filled as
        the gather's mode says: ``jnp.take(..., mode="clip")``): a ``gather`` of flat
        positions (:func:`.read_indexed`)."""
        x, idx = ins[0], np.asarray(ins[1])
        numbers = eqn.params["dimension_numbers"]
        axes = tuple(numbers.start_index_map)
        ndim = len(eqn.invars[0].aval.shape)
        whole = tuple(eqn.invars[0].aval.shape)
        if (
            len(axes) == 1
            and tuple(numbers.collapsed_slice_dims) == axes
            and not tuple(getattr(numbers, "operand_batching_dims", ()))
            and idx.ndim == 2
            and idx.shape[1] == 1
            and tuple(numbers.offset_dims) == tuple(k for k in range(ndim) if k != axes[0])
            and tuple(eqn.params["slice_sizes"])
            == tuple(1 if k == axes[0] else n for k, n in enumerate(whole))
        ):
            a, flat = axes[0], idx.reshape(-1).astype(np.int64)
            if ((flat < 0) | (flat >= whole[a])).any():
                return self.result(read_indexed(eqn, ins, self.where), eqn.outvars[0].aval)
            params = (("indices", tuple(int(i) for i in flat)), ("axis", a))
            return self.result(
                ArrayOp("take", (self.operand(x),), params, shape), eqn.outvars[0].aval
            )
        return self.result(read_indexed(eqn, ins, self.where), eqn.outvars[0].aval)

    def dynamic_slice(self, eqn, ins: list[Value]) -> Value:
        """A window at constant offsets: a slice (JAX clamps the offsets into range)."""
        x, starts = ins[0], [int(s) for s in ins[1:]]
        in_shape = tuple(eqn.invars[0].aval.shape)
        sizes = tuple(int(n) for n in eqn.params["slice_sizes"])
        begin = tuple(
            min(max(s, 0), n - m) for s, n, m in zip(starts, in_shape, sizes, strict=True)
        )
        end = tuple(b + m for b, m in zip(begin, sizes, strict=True))
        params = (("start_indices", begin), ("limit_indices", end), ("strides", None))
        return self.result(ArrayOp("slice", (x,), params, sizes), eqn.outvars[0].aval)

    def split(self, eqn, x: Value) -> list[Value]:
        """``split``: one slice per part; a part with no entries (``associative_scan``'s
        at some lengths) a constant, as :func:`~.jaxpr_extra.empty_values` makes one (a
        graph has no vertex of size 0)."""
        axis = int(eqn.params["axis"])
        shape = tuple(eqn.invars[0].aval.shape)
        outs, at = [], 0
        for size, var in zip(eqn.params["sizes"], eqn.outvars, strict=True):
            if not math.prod(var.aval.shape):
                outs.append(np.zeros(var.aval.shape, dtype=np.dtype(var.aval.dtype)))
                continue
            begin = tuple(at if j == axis else 0 for j in range(len(shape)))
            end = tuple(at + int(size) if j == axis else n for j, n in enumerate(shape))
            params = (("start_indices", begin), ("limit_indices", end), ("strides", None))
            op = ArrayOp("slice", (self.operand(x),), params, tuple(var.aval.shape))
            outs.append(self.result(op, var.aval))
            at += int(size)
        return outs


def _needed(jaxpr) -> list:
    """The equations of ``jaxpr`` its outputs read, in order (a traced rule also computes
    the primal, which the tangents do not read)."""
    from jax.extend.core import Var

    wanted = {v for v in jaxpr.outvars if isinstance(v, Var)}
    kept = []
    for eqn in reversed(jaxpr.eqns):
        if any(v in wanted for v in eqn.outvars):
            kept.append(eqn)
            wanted.update(v for v in eqn.invars if isinstance(v, Var))
    return kept[::-1]


def _moved(eqn, args) -> list | None:
    """``slice`` or ``pad`` (no negative or interior padding) of an array in host memory
    by NumPy: the same entries moved, where XLA compiles a kernel for each start and
    padding (the same shapes at K offsets: K compiles of some 30 ms each, most of a
    long program's reference); None for any other equation."""
    name, x = eqn.primitive.name, args[0] if args else None
    if name not in ("slice", "pad") or not _on_host(x):
        return None
    x = np.asarray(x)
    if name == "slice":
        p = eqn.params
        steps = p["strides"] or (1,) * x.ndim
        at = zip(p["start_indices"], p["limit_indices"], steps, strict=True)
        return [x[tuple(slice(a, b, step) for a, b, step in at)]]
    config = eqn.params["padding_config"]
    if any(lo < 0 or hi < 0 or inner != 0 for lo, hi, inner in config):
        return None
    out = np.full(eqn.outvars[0].aval.shape, np.asarray(args[1]), dtype=x.dtype)
    out[tuple(slice(lo, lo + n) for (lo, _, _), n in zip(config, x.shape, strict=True))] = x
    return [out]


def _on_host(x: Any) -> bool:
    """Whether ``x`` is a NumPy array, or a JAX array on the CPU, of numbers."""
    devices = getattr(x, "devices", None)
    if not isinstance(x, np.ndarray) and not (
        callable(devices) and all(d.platform == "cpu" for d in devices())
    ):
        return False
    return np.dtype(x.dtype).kind in "biufc"


def _reads_infinity(op: ArrayOp, unbounded: set[str]) -> bool:
    """Whether ``op`` reads an infinite constant or a vertex of ``unbounded``; not the
    ``-inf`` of a ``max`` (``+inf`` of a ``min``), the initial value a reduction's
    maximum starts from (``logsumexp``'s and softmax's shift), which the other operand
    replaces."""
    stack: list[Any] = [op]
    seen: set[int] = set()  # a nested operation shares its operands (x + x, built k times)
    while stack:
        x = stack.pop()
        if not isinstance(x, ArrayOp) or id(x) in seen:
            continue
        seen.add(id(x))
        for operand in x.operands:
            if isinstance(operand, ArrayOp):
                stack.append(operand)
            elif isinstance(operand, str):
                if operand in unbounded:
                    return True
            elif _infinite(operand) and not _identity(x.primitive, operand):
                return True
    return False


def _infinite(x: Any) -> bool:
    """Whether ``x`` is a constant with an infinite entry."""
    return isinstance(x, Const) and x.value.dtype.kind == "f" and bool(np.isinf(x.value).any())


def _identity(primitive: str, constant: Const) -> bool:
    """Whether ``constant`` is ``primitive``'s identity: ``-inf`` of ``max``, ``+inf`` of
    ``min``."""
    bound = {"max": -np.inf, "min": np.inf}.get(primitive)
    return bound is not None and bool(np.all(constant.value == bound))


def _rule_tangents(eqn, where: str, fixed: tuple[int, ...] = (), guarded: tuple[int, ...] = ()):
    """The jaxpr of ``x -> L(sg(x))[x]``: the custom call's output tangents at the primal
    ``sg(x)`` for the tangent ``x`` (linear in ``x``: its derivative is ``L``), one per
    float output. The operands at ``fixed`` (constants, values no derivative reaches) have
    the tangent zero, as JAX gives them: ``x`` itself there would add ``L`` applied to
    the constant, which is never needed and not finite for an infinite constant
    (``jnp.logaddexp(x, -inf)``: ``-inf · 0``). Those at ``guarded`` (vertices that may
    hold an infinity: ``jnp.where(mask, x, -inf)``) have the tangent ``x`` where their
    value is finite, else 0: the same derivative where that infinity is a constant's (no
    derivative reaches it), and a finite ``L(sg(x))[x]``, so that the call's value is.
    ``L`` is the ``custom_jvp`` rule (``jax.jvp``), or
    the transpose of the ``custom_vjp`` backward rule (``jax.linear_transpose`` of
    ``jax.vjp``'s function), as ``jax.jacfwd`` and ``jax.jacrev`` read them."""
    jax = jax_module()
    sg = jax.lax.stop_gradient
    avals = [v.aval for v in eqn.invars]
    which = [k for k, a in enumerate(avals) if _is_float(a)]
    outs = [k for k, v in enumerate(eqn.outvars) if _is_float(v.aval)]
    vjp = eqn.primitive.name != "custom_jvp_call"

    def _direction(x, k: int):
        if k in fixed:
            return jax.numpy.zeros_like(x)
        if k in guarded:
            return jax.numpy.where(jax.numpy.isfinite(sg(x)), x, jax.numpy.zeros_like(x))
        return x

    def tangents(*xs):
        def call(*floats):
            args = list(xs)
            for k, x in zip(which, floats, strict=True):
                args[k] = x
            results = bind_equation(eqn, args)
            return [results[k] for k in outs]

        primals = [sg(xs[k]) for k in which]
        directions = [_direction(xs[k], k) for k in which]
        if not vjp:
            return jax.jvp(call, primals, directions)[1]
        values, pullback = jax.vjp(call, *primals)
        return jax.linear_transpose(pullback, values)(tuple(directions))[0]

    shapes = [jax.ShapeDtypeStruct(a.shape, a.dtype) for a in avals]
    rule = "custom_vjp backward rule" if vjp else "custom_jvp rule"
    name = called_name(eqn)
    try:
        return jax.make_jaxpr(tangents)(*shapes)
    except Exception as exc:
        raise InputError(
            f"{where}: the {rule} of {str(name)!r} could not be read as a linear map:"
            f" {type(exc).__name__}: {first_line(exc)}"
        ) from None


def _substitute(op: ArrayOp, leaf: Callable[[str], Any]) -> ArrayOp:
    """``op`` with every vertex name ``s`` replaced by ``leaf(s)`` (a name or an
    operation), nested operations rebuilt bottom-up without recursion."""
    return with_leaves(op, lambda x: leaf(x) if isinstance(x, str) else x)


def _constant_outputs(outputs, where: str) -> dict[str, ArrayOp]:
    """The outputs no derivative reaches (a constant, or a value read only through
    comparisons, rounding, ``stop_gradient`` or a constant zero factor), each as the
    operation that computes it: an output vertex with no edge, its Jacobian zero (as
    JAX's)."""
    found = {}
    for key, value in outputs:
        if isinstance(value, np.ndarray) and value.size == 0:
            raise InputError(
                f"{where}: output {key!r} has an empty axis (shape {value.shape}): its"
                " Jacobian has no entries"
            )
        if isinstance(value, np.ndarray):
            array = np.asarray(value, dtype=float)
            found[key] = ArrayOp("copy", (Const.of(array),), (), array.shape)
        elif isinstance(value, ArrayOp):
            found[key] = value
        elif not isinstance(value, str):
            raise InputError(
                f"{where}: output {key!r} is computed by {value.primitive!r}, which the array"
                " level does not support"
            )
    return found


def _graph(
    reader: _Reader, inputs, outputs, label: str, where: str, parameters: dict | None = None
) -> DGraph:
    """The tensor graph: vertices an output reaches through derivatives from an input,
    in equation order; the others (those that read only ``parameters``, arrays that are
    not differentiated) inlined where an operation reads them, else dropped; an output no
    derivative reaches an output vertex with no edge."""
    records = reader.records
    parameters = parameters or {}
    varies = _varying(reader, {n for n, _ in inputs})
    constant = _constant_outputs(outputs, where)
    for key, value in outputs:  # of the parameters only: computed from them, no edge
        if isinstance(value, str) and value not in varies:
            shape = parameters.get(value) or records[reader.index[value]].op.shape
            constant[key] = ArrayOp("copy", (value,), (), tuple(shape))
    returned_order = [key for key, _ in outputs]  # the outputs' order: the function's
    outputs = [(key, value) for key, value in outputs if key not in constant]
    live = live_records(reader, [v for _, v in outputs], varies)
    for k in live:
        _still_operands(records[k].op, varies)
    read: set[str] = set()  # vertices a live one reads, through inlined operations too
    stack = [u for k in live for u in records[k].op.vertices()]
    while stack:
        u = stack.pop()
        if u not in read:
            read.add(u)
            k = reader.index.get(u)
            if k is not None and k not in live:
                stack += records[k].op.vertices()
    names = {n: n for n, _ in inputs} | {r.name: r.name for r in records}
    names |= {p: p for p in parameters}
    roles: dict[int, str] = {}
    copies: list[tuple[str, str]] = []
    for key, value in outputs:  # one that another vertex reads, or returned twice: a copy
        k = reader.index.get(value)
        if k is not None and k not in roles and value not in read:
            roles[k] = "output"
            names[value] = key
        else:
            copies.append((key, value))
    fixed = set(n for n, _ in inputs) | {key for key, _ in outputs} | set(parameters)
    for k, r in enumerate(records):
        while roles.get(k) is None and names[r.name] in fixed:
            names[r.name] += "_"
    inlined: dict[str, ArrayOp] = {}
    used: set[str] = set()

    def leaf(s: str) -> Any:
        if s in inlined:
            used.add(s)
            return inlined[s]
        return names[s]

    g = DGraph(label)
    for p, shape in parameters.items():
        g.add_parameter(p, shape)
    for n, shape in inputs:
        g.add_array_vertex(n, "input", shape)
    returned: dict[str, ArrayOp] = {}
    for k, r in enumerate(records):
        op = _substitute(r.op, leaf)
        if k in roles:  # added with the copies, in return order: no vertex reads it
            returned[r.name] = op
        elif k in live:
            g.add_array_vertex(names[r.name], "intermediate", op.shape, op)
        else:
            inlined[r.name] = op
    computed = dict(outputs)
    for key in returned_order:  # in return order, a constant one too (value_and_grad's
        # (f, ∇f) of a linear f, whose gradient is constant, kept f first)
        if key in constant:  # no edge: a zero Jacobian
            value = constant[key]
            op = _substitute(value, leaf) if isinstance(value, ArrayOp) else value
        else:
            value = computed[key]
            op = returned.pop(value, None)
            if op is None:
                shape = g.shape(names[value])
                op = ArrayOp("copy", (names[value],), (), shape)
        g.add_array_vertex(key, "output", op.shape, op)
    notes = [f"{where}: output {key!r} does not depend on the inputs" for key in constant]
    dead = [r.name for k, r in enumerate(records) if k not in live and r.name not in used]
    if dead:
        notes.append(f"{where}: {dead_note(dead)}")
    if reader.folded:
        notes.append(f"{where}: {reader.folded} operations on constants were folded")
    g.notes = notes
    g.traced_with = "jax"
    return known_entries(guard_untaken_branches(g.validate()))


def _still_operands(op: Any, varies: set[str]) -> None:
    """A loop's or cond's operands that no derivative reaches (a parameter, an array
    computed from parameters alone) made inactive in its region: no tangent columns
    for them (a particle filter's 25 × 40 noise draws, a scan's xs passed as data: 1,027
    columns a step for the 2 of its inputs)."""
    region = op.param.get("region") if op.primitive in ("loop", "cond") else None
    if region is None:
        return
    region.active = [
        a and (not isinstance(x, str) or x in varies)
        for a, x in zip(region.active, op.operands, strict=True)
    ]


def _varying(reader: _Reader, inputs: set[str]) -> set[str]:
    """The names a derivative reaches from ``inputs``: the inputs and the records with a
    differentiable operand among them. One that reads an input only through a predicate
    (``where(x > 0, 1.0, p)``, ``p`` a parameter) does not vary: it is inlined where it is
    read, never a vertex that no input reaches."""
    found = set(inputs)
    for r in reader.records:
        if any(r.op.operands[k] in found for k in r.op.differentiable()):
            found.add(r.name)
    return found


def _scalar_params(
    jax: Any, exc: Exception, f: Callable[..., Any], args: Sequence[Any], params: Sequence[str]
) -> list[str]:
    """The scalar parameters of ``f`` where JAX's refusal ``exc`` is of a traced value
    where it needs a concrete one (a ``fori_loop`` bound, a shape, a slice, an index):
    one of them may fix the structure, which a parameter read as a number cannot."""
    concrete = (TypeError, IndexError, jax.errors.ConcretizationTypeError)
    if not params or not isinstance(exc, concrete):
        return []
    try:
        names = parameter_names(f, len(args))
    except Exception:  # the reading names the failure itself
        return []
    return [n for n, a in zip(names, args, strict=False) if n in params and np.ndim(a) == 0]


def from_jax_arrays(
    f: Callable[..., Any],
    *example_args: Any,
    name: str = "",
    prefix: str = "",
    params: Sequence[str] = (),
    held: Sequence[str] = (),
) -> DGraph:
    """The tensor graph of a JAX function at arguments shaped like ``example_args``: one
    vertex per jaxpr equation (module docstring); ``from_jax(..., level="array")``. With
    ``prefix``, vertices are named ``<prefix><k>`` instead (the element level's ``v<k>``).
    ``params``: arguments that are not differentiated, the graph's array
    :attr:`~dgraph.core.graph.DGraph.parameters` (no Jacobian column; the operations
    that read only them are inlined where they are read). ``held``: arguments read as
    inputs that the element level will make parameters (an operand no derivative may
    reach, an incomplete gamma's shape, may be computed from them alone).

    >>> import jax.numpy as jnp
    >>> g = from_jax_arrays(lambda x, w: jnp.tanh(x @ w), np.ones((2, 3)), np.ones((3, 4)))
    >>> [(v, g.shape(v)) for v in g.nx]
    [('x', (2, 3)), ('w', (3, 4)), ('dot1', (2, 4)), ('y', (2, 4))]
    >>> g.block("x", "dot1").type_name
    'kronecker'
    """
    jax = jax_module()
    label = name or getattr(f, "__name__", "function")
    label = "" if label == "<lambda>" else label
    where = label or "the function"
    undifferentiated = list(params)
    args = [_real_argument(a, k, where) for k, a in enumerate(example_args)]
    if not args:
        raise InputError(f"{where}: give example arguments (their shapes make the inputs)")
    with x64(jax):  # literals as written, constants folded in float64
        try:
            closed, out_shape = jax.make_jaxpr(f, return_shape=True)(*args)
            own = closed  # f's program as JAX traced it: its reference's jvp traced from it
            programs = [*_windowed(jax, f, args, closed), *_mapped(jax, f, args, closed), closed]
            programs = [complex_pairs(jax, p, where) for p in programs]  # complex: pairs
        except InputError:
            raise
        except Exception as exc:
            kind = NotJax if isinstance(exc, conversion_errors(jax)) else InputError
            raise kind(
                f"{where}: tracing it with JAX failed: {type(exc).__name__}: {first_line(exc)}"
                + float_index_hint(str(exc))
                + structural_hint(_scalar_params(jax, exc, f, args, [*undifferentiated, *held]))
            ) from None
        names = parameter_names(f, len(args))
        for p in names:
            if not p.isidentifier():
                raise InputError(f"{p!r} cannot name a vertex: names must be identifiers")
        renamed = vertex_names(names)  # a parameter E or pi: vertex E_, pi_
        params = [renamed[p] for p in names]
        fixed = {renamed[p] for p in _checked_params(names, undifferentiated, where)}
        inputs = [(p, a.shape) for p, a in zip(params, args, strict=True) if p not in fixed]
        for k, closed in enumerate(programs):  # a map the reader refuses: its loops
            reader = _Reader(
                where, set(params), prefix=prefix, fixed=fixed | {renamed.get(p, p) for p in held}
            )
            try:
                values = [
                    resolved(v) for v in reader.run(closed.jaxpr, closed.consts, list(params))
                ]
                break
            except InputError:
                if k == len(programs) - 1:
                    raise
    _, tree = jax.tree_util.tree_flatten(out_shape)
    keys = output_keys(tree, len(values), set(params), jax)
    shapes = {p: a.shape for p, a in zip(params, args, strict=True) if p in fixed}
    outputs = list(zip(keys, values, strict=True))
    graph = _graph(reader, inputs, outputs, label, where, shapes)
    given = dict(zip(params, args, strict=True))
    graph.set_point({x: given[x] for x, _ in inputs})
    graph.set_parameter_point({p: given[p] for p in shapes})
    refuse_unread_roots(graph, where)
    narrow = narrow_float(closed.jaxpr)
    if narrow:  # JAX's jvp rounds to it; the graph computes in float64: differences check it
        graph.notes.append(
            f"{where} computes in {narrow}: read and differentiated in float64, checked by"
            f" differences of its float64 program (JAX's jvp rounds to {narrow})"
        )
    else:
        traced = (_signature(args), own, tree)
        decline = repeated_eigenvalue if reads_eig(own.jaxpr) else None
        graph.set_jvp_reference(JaxJvp(f, params, keys, traced, sorted(fixed), decline))
    graph.notes += loop_notes(graph)
    return graph


def _real_argument(value: Any, k: int, where: str) -> np.ndarray:
    """An example argument as doubles; complex numbers refused in one line (their
    imaginary part was dropped with a ComplexWarning)."""
    if np.iscomplexobj(value):
        raise InputError(
            f"{where}: argument {k + 1} is complex: the derivatives are of real arguments"
            " (give its real and imaginary parts as arrays of their own)"
        )
    return np.asarray(value, dtype=np.float64)


def _mapped(jax, f: Callable[..., Any], args: list[np.ndarray], closed) -> list[Any]:
    """The jaxpr of ``f`` with its loops that only sum run as maps
    (:mod:`.jaxpr_reductions`; checked against ``f``'s own jvp), where it has such loops
    and JAX batches them."""
    mapped = reduction_loops(jax, f, args, closed)
    if mapped is None:
        return []
    try:
        return [jax.make_jaxpr(mapped)(*args)]
    except Exception:  # a body JAX cannot batch (an effect): the loops as they are
        return []


def _windowed(jax, f: Callable[..., Any], args: list[np.ndarray], closed) -> list[Any]:
    """The jaxpr of ``f`` with its differences of one running sum's selections computed
    as window sums (:mod:`.jaxpr_prefix_sums`: exact patterns; checked against ``f``'s
    own jvp), where it has such differences."""
    windowed = prefix_differences(jax, f, args, closed)
    return [] if windowed is None else [jax.make_jaxpr(windowed)(*args)]


def _checked_params(names: list[str], params: list[str], where: str) -> set[str]:
    """``params`` as a set, each one of the function's parameter ``names``, not all of
    them (a line naming the first that is not)."""
    for p in params:
        if p not in names:
            shown = ", ".join(names)
            raise InputError(
                f"{where}: the function has no parameter {p!r} to take as a"
                f" parameter (it has {shown})"
            )
    if len(set(params)) != len(params):
        raise InputError(f"{where}: a parameter is given twice in params")
    if params and set(params) >= set(names):
        raise InputError(f"{where}: every parameter is in params: nothing to differentiate")
    return set(params)
