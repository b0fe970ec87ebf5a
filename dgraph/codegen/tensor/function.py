"""``make_function`` for tensor graphs: generate, check, load (``jacobian`` from an
expression set, :mod:`.module`; ``jvp``/``vjp`` as sweeps over the blocks, :mod:`.sweeps`;
the sparse ``jacobian`` in C: the values for its fixed pattern, and ``jvp`` in C: the
NumPy sweep's statements, both printed by :mod:`.c_values`)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse

from ...blocks import RECENT
from ...core.block_costs import expression_blocks
from ...core.expressions import ExpressionSet
from ...core.graph import DGraph
from ...elimination.kernel import priced_below
from ...errors import DGraphError, ResultTooLarge, SearchTooLarge
from ...frontends.fixed_parameters import made_at
from ...methods import accumulate
from ..array_passes import ArrayCount, count_array_ops
from ..check import CodeCheck
from ..check import checked as _checked
from ..ir import ArrayProgram
from ..own_arguments import nested_blocks
from ..points import one_point_calls
from ..python import load_python
from ..scope import codegen_call
from .c_dense import dense_values, load_dense
from .c_values import c_values
from .check import check_dense_whole, check_tensor
from .jacobian_columns import ColumnsChoice, columns_choice, columns_module
from .module import argument_name, block_entries, tensor_program
from .regions import refuse_unprinted
from .sweep_check import check_sweep
from .sweeps import SWEEP_MODES, jvp_program, jvp_sweep, sweep_module

__all__ = [
    "DEFAULT_METHODS",
    "DENSE_LIMIT",
    "SPARSE_LIMIT",
    "TENSOR_MODES",
    "TensorGenerated",
    "c_blocks",
    "c_tangents",
    "make_tensor_function",
    "sweep_arguments",
]

DEFAULT_METHODS = ("forward", "reverse", "markowitz")  # without a method: the cheapest
TENSOR_MODES = ("jacobian", "value_and_jacobian", *SWEEP_MODES)
CHECK_METHOD = {"jvp": "forward", "vjp": "reverse"}
DENSE_LIMIT = 10**8
"""The most entries a dense ``jacobian`` (a dense Hessian) may have, 800 MB of doubles: the
limit of one input array (:data:`dgraph.frontends.array_tracer.MAX_ELEMENTS`); beyond it
the one line says to give ``sparse`` (a dense Hessian of 10⁵ unknowns, 80 GB, was an
internal MemoryError after seconds of work)."""
"""A sweep's reference expression set, without a method or expression set: the mode whose
references the check applies once per vector (J·v from the right, wᵀ·J from the left)."""
SPARSE_LIMIT = 10**8
"""The most nonzeros a sparse ``jacobian`` (a sparse Hessian) may have, counted on the
blocks its expression set prices (:func:`~dgraph.core.block_costs.expression_blocks`)
before any pattern is formed: at least 1.5 GB of values and indices (the pattern of
``logsumexp``'s Hessian at 10⁵ unknowns is dense, 10¹⁰ nonzeros: an internal
MemoryError after its 75 GiB row indices were asked for)."""


@dataclass
class TensorGenerated:
    """Generated code of a tensor graph's Jacobian, its expression set and its check."""

    text: str
    lang: str
    expression_set: ExpressionSet = field(repr=False, compare=False)
    """The expression set the code was made from or checked against (a dense Jacobian by
    columns checked against the reference alone: the cheapest set, priced, unverified,
    made when first read: :class:`Later`)."""
    sparse: bool
    check: CodeCheck
    mode: str = "jacobian"
    sweep_mults: int | None = None  # a jvp's or vjp's, counted when it was generated
    values: Any = None  # C: the CValues (its index file, its CUDA text), c_values.py
    stacked: Callable[..., Any] | None = field(default=None, repr=False, compare=False)
    """Sparse: the loaded ``{mode}_stacked``, J as one matrix over all outputs and inputs."""
    tril: Callable[..., Any] | None = field(default=None, repr=False, compare=False)
    """Symmetric (``make_tensor_function(..., symmetric=True)``): ``{mode}_tril``, the
    lower triangle of J alone."""
    ops: ArrayCount | None = None
    """The array program's count, in scalar operations (not sweeps): NumPy's and JAX's
    counted when first read (:class:`Uncounted`), C's when generated."""
    loops: tuple[str, ...] = ()
    """jvp/vjp: how each loop is swept; a dense jacobian of a graph with loops: whether
    by the loops' Jacobian sweeps or by columns of its jvp, and the counts
    (:class:`~.jacobian_columns.ColumnsChoice`; each loop's sweep: its docstring)."""

    @property
    def verified(self) -> bool:
        return self.check.ok

    @property
    def graph(self) -> DGraph:
        """The tensor graph the code is of (without making a :class:`Later` set)."""
        return self.__dict__["_expression_set"].graph

    @property
    def method(self) -> str:
        """The expression set's method (``jacobian``, ``value_and_jacobian``), ``tangent`` or
        ``adjoint`` (sweeps;
        the expression set is then the one they were checked against)."""
        if self.mode not in SWEEP_MODES:
            return self.expression_set.method
        return "tangent" if self.mode == "jvp" else "adjoint"

    @property
    def mults(self) -> int:
        """Scalar multiplications of the block products: the expression set's price, or
        the sweep's block · tangent products."""
        return self.expression_set.mults if self.sweep_mults is None else self.sweep_mults

    def summary(self, file: str | None = None) -> dict[str, Any]:
        """The ``codegen --json`` object of a tensor graph's code."""
        return {
            "file": file,
            "lang": self.lang,
            "mode": self.mode,
            "method": self.method,
            "tensor": True,
            "mults": self.mults,
            "sparse": self.sparse,
            "functions": {} if self.ops is None else {self.mode: self.ops.ops.to_dict()},
            "uncounted": None if self.ops is None else len(self.ops.uncounted),
            "verified": self.verified,
            "verification": self.check.status,
            "check": self.check.to_dict(),
        }


@dataclass(frozen=True)
class Later:
    """An expression set made when first read (``make()``), of ``graph``: what a dense
    Jacobian by columns records (:func:`_columns_first`), whose code reads none."""

    graph: DGraph
    make: Callable[[], ExpressionSet]


@dataclass(frozen=True)
class Uncounted:
    """An array program whose :func:`~dgraph.codegen.array_passes.count_array_ops` is
    taken when :attr:`TensorGenerated.ops` is first read (the summary, ``codegen``'s
    report), not by every build: most callers never read it. A NumPy or JAX module's
    program, its constants' arrays not kept (the statements alone)."""

    program: ArrayProgram


def _ops(self: TensorGenerated) -> ArrayCount | None:
    found = self.__dict__["_ops"]
    if isinstance(found, Uncounted):
        found = self.__dict__["_ops"] = count_array_ops(found.program)
    return found


def _set_ops(self: TensorGenerated, value: ArrayCount | Uncounted | None) -> None:
    self.__dict__["_ops"] = value


TensorGenerated.ops = property(  # type: ignore[assignment]
    _ops,
    _set_ops,
    doc="The array program's count (an :class:`Uncounted` one counted here, when first read).",
)


def _expression_set(self: TensorGenerated) -> ExpressionSet:
    found = self.__dict__["_expression_set"]
    if isinstance(found, Later):
        found = self.__dict__["_expression_set"] = found.make()
    return found


def _set_expression_set(self: TensorGenerated, value: ExpressionSet | Later) -> None:
    self.__dict__["_expression_set"] = value


TensorGenerated.expression_set = property(  # type: ignore[assignment]
    _expression_set,
    _set_expression_set,
    doc="The expression set (a :class:`Later` one made here, when first read).",
)


def make_tensor_function(
    source: DGraph | ExpressionSet,
    mode: str,
    lang: str,
    method: str | None,
    budget: float | None,
    sparse: bool,
    tape: int | None = None,
    symmetric: bool = False,
    counted: Sequence[str] | None = None,
    mirrored: bool = False,
) -> tuple[TensorGenerated, Any]:
    """:func:`_make` (below), then the block products and sums it remembered forgotten
    (:mod:`dgraph.codegen.scope`: what pricing and code generation shared, some
    hundreds of MB at 10⁶ unknowns, not kept past the call). The function refuses in one
    line a batch of points or a wrong-shaped array (:mod:`dgraph.codegen.points`)."""
    graph = source.graph if isinstance(source, ExpressionSet) else source
    refuse_unprinted(graph, (lang,))
    with codegen_call():
        made, function = _make(
            source, mode, lang, method, budget, sparse, tape, symmetric, counted, mirrored
        )
    shapes = [graph.shape(x) for x in graph.inputs]  # one point per call (points.py)
    if mode not in SWEEP_MODES:
        return made, one_point_calls(function, graph.inputs, shapes, "Jacobian", sparse)
    names, roles, shapes = sweep_arguments(graph, mode)
    return made, one_point_calls(function, names, shapes, mode, False, roles)


def _sweep_made(
    es: ExpressionSet | Later,
    against: ExpressionSet | DGraph,
    mode: str,
    lang: str,
    tape: int | None,
) -> tuple[TensorGenerated, Any]:
    """The generated ``jvp``/``vjp`` (C: the NumPy sweep's program in C,
    :mod:`.c_values`), checked against ``against``: the expression set ``es``, or the
    graph itself (:func:`~.sweep_check.check_sweep`: its own tangent sweep) where the
    reference set cannot be priced (:class:`~dgraph.errors.SearchTooLarge`: a product of
    blocks too large to form, which the sweep never forms; ``es`` is then made when read,
    a :class:`Later`, and refuses then as it did here)."""
    graph = against if isinstance(against, DGraph) else against.graph
    if lang == "c":
        built = jvp_sweep(graph, mode, tape)
        program, mults = jvp_program(graph, built, mode)
        values = c_values(program, made_at(graph))
        function = c_tangents(values.load(), graph, mode)
        check = _checked(check_sweep(function, mode, against, lang))
        generated = TensorGenerated(values.text, lang, es, False, check, mode, mults, values)  # type: ignore[arg-type]
        generated.ops = count_array_ops(program)
        generated.loops = tuple(built.loops)
        return generated, function
    sweep = sweep_module(graph, mode, lang, tape)
    function = getattr(load_python(sweep.text), mode)
    check = _checked(check_sweep(function, mode, against, lang))
    generated = TensorGenerated(sweep.text, lang, es, False, check, mode, sweep.mults)  # type: ignore[arg-type]
    generated.loops = sweep.loops
    return generated, function


def sweep_arguments(
    graph: DGraph, mode: str, prefix: str | None = None
) -> tuple[list[str], list[str], list[tuple]]:
    """The arguments a ``jvp`` (``vjp``) of ``graph`` checks per call, in its order:
    the inputs, then a tangent per input (a cotangent per output), named as the
    generated function names them (:mod:`.sweeps`; ``prefix``: another letter, an
    ``hvp``'s ``t``), each role and shape."""
    seeds = graph.inputs if mode == "jvp" else graph.outputs
    letter, role = ("v", "tangent") if mode == "jvp" else ("w", "cotangent")
    prefix = letter if prefix is None else prefix
    names = [*graph.inputs, *(f"{prefix}_{argument_name(s)}" for s in seeds)]
    roles = ["input"] * len(graph.inputs) + [role] * len(seeds)
    shapes = [graph.shape(v) for v in (*graph.inputs, *seeds)]
    return names, roles, shapes


def _make(
    source: DGraph | ExpressionSet,
    mode: str,
    lang: str,
    method: str | None,
    budget: float | None,
    sparse: bool,
    tape: int | None = None,
    symmetric: bool = False,
    counted: Sequence[str] | None = None,
    mirrored: bool = False,
) -> tuple[TensorGenerated, Any]:
    """The checked ``mode`` function of a tensor graph and what was generated:
    ``jacobian`` from an expression set (without ``method``, the cheapest of
    :data:`DEFAULT_METHODS` by their block prices), ``jvp``/``vjp`` as tangent and adjoint
    sweeps over the graph's blocks (:mod:`.sweeps`), checked against the blocks of the
    expression set given, or of ``method`` (default :data:`CHECK_METHOD`'s for the mode).
    ``symmetric``: a sparse ``jacobian`` in NumPy or JAX known to be symmetric, computed
    on and below the diagonal only (:func:`~.module.tensor_program`; C ignores it).
    ``mirrored``: a Hessian's sparse pattern, only the entries whose mirror images are in
    it (of its square part: ``value_and_jacobian``'s gradient row kept).
    ``counted``: the outputs whose rows the size limits count (None: all)."""
    if mode not in TENSOR_MODES:
        raise DGraphError(
            f"tensor graphs: mode {mode!r} is not generated; use {', '.join(TENSOR_MODES)}"
        )
    if lang not in ("python", "jax", "c"):
        raise DGraphError(f"tensor graphs: code in python, jax or c, not {lang!r}")
    if mode in SWEEP_MODES and sparse:
        raise DGraphError(f"--sparse is for the jacobian; {mode} returns arrays")
    graph = source.graph if isinstance(source, ExpressionSet) else source
    if not sparse and mode not in SWEEP_MODES:
        _refuse_dense(graph, counted)
    choice = _dense_choice(graph, mode, lang, sparse)  # by columns or by the loops' sweeps
    if isinstance(source, ExpressionSet):
        if method is not None:
            raise DGraphError("give a method or an expression set, not both")
        es = source
        if not es.verified and _wrong(es.verify()):
            raise DGraphError(f"the expression set ({es.method}) does not verify; no code")
    elif mode in SWEEP_MODES and (method is not None or budget is not None):
        es = accumulate(source, method or CHECK_METHOD[mode], budget=budget)
    elif mode in SWEEP_MODES:  # the reference set, made once per graph
        name = CHECK_METHOD[mode]
        try:
            es = _kept(source, name, lambda: accumulate(source, name))
        except SearchTooLarge:
            if mode != "jvp":
                raise
            later = Later(source, lambda: accumulate(source, name))
            return _sweep_made(later, source, mode, lang, tape)
    elif method is not None:
        es = accumulate(source, method, budget=budget)
    else:  # priced first, the cheapest verified alone (the first in order among equals)
        if choice is not None and choice.chosen:  # by columns: no expression set read
            check, text, function = _columns_first(source, lang, choice, mode)
            if check.ok:  # against the reference alone; the set made when read, not verified
                cheapest = lambda: _kept(source, "cheapest", lambda: _cheapest(source), False)  # noqa: E731
                later = Later(source, cheapest)
                return _columns_made(later, lang, choice, mode, text, check), function
            es = _kept(source, "cheapest", lambda: _cheapest(source))
            return _by_columns(es, lang, choice, mode, (text, function))  # checked by es
        es = _kept(source, "cheapest", lambda: _cheapest(source))
    if es.verification is None or _wrong(es.verification):
        why = (es.verification.detail or "").split("\n")[0] if es.verification is not None else ""
        raise DGraphError(
            f"method {es.method!r} gave an expression set that did not verify"
            + (f": {why}" if why else "")
        )
    if sparse and mode not in SWEEP_MODES:
        _refuse_sparse(es, counted)
    if mode in SWEEP_MODES:
        return _sweep_made(es, es, mode, lang, tape)
    if lang == "c":  # the NumPy module's value program in C, for its fixed pattern
        program = tensor_program(
            es, "python", True, mode, keep_arrays=True, sparse_products=True, mirrored=mirrored
        )
        values = c_values(program, made_at(es.graph))
        stacked = None  # the CSR function, where the made function reads it
        if sparse or mode != "jacobian":
            stacked = values.load()
            function = c_blocks(stacked, es.graph, values.indices, values.indptr, mode, not sparse)
        else:  # J itself: the values spread over it in C (.c_dense), in the file written
            values = dense_values(values)
            function = dense_blocks(load_dense(values), es.graph)
        check = _checked(check_tensor(function, es, lang, mode=mode))
        generated = TensorGenerated(values.text, lang, es, sparse, check, mode, None, values)
        generated.stacked = stacked
        generated.ops = count_array_ops(program)
        return generated, function
    if choice is not None and choice.chosen:  # the loops' sweeps count more: by columns
        return _by_columns(es, lang, choice, mode)
    program = tensor_program(es, lang, sparse, mode, symmetric=symmetric, mirrored=mirrored)
    text = program.text
    checked = load_python(text)
    module = checked
    function = getattr(module, mode)
    tril = getattr(module, f"{mode}_tril", None)
    own = hasattr(module, f"_{mode}_tril_values")  # else the matrix's values, or a gather of them
    run = _tril_checked(function, tril) if own and lang == "python" else function
    check = _checked(check_tensor(run, es, lang, mode=mode))
    generated = TensorGenerated(text, lang, es, sparse, check, mode)
    generated.ops = Uncounted(program)  # counted when read
    generated.stacked = getattr(module, f"{mode}_stacked", None)
    generated.tril = getattr(module, f"{mode}_tril", None)
    generated.loops = () if choice is None else (choice.note(),)
    return generated, function


def _dense_choice(graph: DGraph, mode: str, lang: str, sparse: bool) -> ColumnsChoice | None:
    """:func:`~.jacobian_columns.columns_choice` of a dense ``jacobian`` or
    ``value_and_jacobian`` in NumPy or JAX (None for the rest: a sparse Jacobian, C,
    sweeps)."""
    if sparse or lang == "c" or mode in SWEEP_MODES:
        return None
    return columns_choice(graph)


def _columns_first(
    graph: DGraph, lang: str, choice: ColumnsChoice, mode: str
) -> tuple[CodeCheck, str, Any]:
    """The dense Jacobian by columns (:mod:`.jacobian_columns`), made before any
    expression set is verified and checked against the reference alone
    (:func:`~.check.check_dense_whole`): its check, its text and its loaded function. The
    expression set's ``J·v`` forms each loop's block by a sweep over all its operands'
    entries (``forces`` at n = 30, 10 steps: 4.9 of the 6.6 CPU-s its verification took,
    growing as n⁴), which the code by columns never reads. Where this check does not
    pass (rounding read against the code's own magnitudes, or no point checked), the
    caller checks the same code against the verified expression set
    (:func:`_by_columns`): a result is never passed unchecked."""
    text = columns_module(graph, lang, choice, mode)
    function = getattr(load_python(text), mode)
    return check_dense_whole(function, graph, lang, mode=mode), text, function


def _by_columns(
    es: ExpressionSet,
    lang: str,
    choice: ColumnsChoice,
    mode: str,
    made: tuple[str, Any] | None = None,
) -> tuple[TensorGenerated, Any]:
    """The dense ``jacobian`` or ``value_and_jacobian`` (NumPy or JAX) of a graph with
    loops by columns of its tangent program (:mod:`.jacobian_columns`), checked as the
    loops' code would be (:func:`~.check.check_tensor` against the expression set ``es``);
    ``made``: its code already made (text, loaded function)."""
    if made is None:
        text = columns_module(es.graph, lang, choice, mode)
        function = getattr(load_python(text), mode)
    else:
        text, function = made
    check = _checked(check_tensor(function, es, lang, mode=mode))
    return _columns_made(es, lang, choice, mode, text, check), function


def _columns_made(
    es: ExpressionSet | Later,
    lang: str,
    choice: ColumnsChoice,
    mode: str,
    text: str,
    check: CodeCheck,
) -> TensorGenerated:
    """What was generated by columns: ``es`` the expression set it was checked against
    (:func:`_by_columns`) or, checked against the reference alone
    (:func:`_columns_first`), the cheapest set, priced and not verified when first
    read (:class:`Later`)."""
    generated = TensorGenerated(text, lang, es, False, check, mode, choice.mults)
    generated.ops = choice.ops
    generated.loops = (choice.note(),)
    return generated


def _tril_checked(full: Callable[..., Any], tril: Callable[..., Any]) -> Callable[..., Any]:
    """``full`` (a symmetric NumPy module's sparse ``jacobian``) that also runs ``tril``,
    the module's lower triangle where it has a program of its own, at each point the
    check calls it, and raises unless that is the matrix's lower triangle bit for bit
    (pattern and values)."""

    def both(*inputs: Any) -> Any:
        J = full(*inputs)
        low = tril(*inputs)
        rows = np.repeat(np.arange(J.shape[0]), np.diff(J.indptr))
        keep = rows >= J.indices
        same = (
            low.shape == J.shape
            and np.array_equal(low.indices, J.indices[keep])
            and np.array_equal(
                low.indptr[1:], np.cumsum(np.bincount(rows[keep], minlength=J.shape[0]))
            )
            and np.array_equal(low.data, J.data[keep], equal_nan=True)
        )
        if not same:
            raise DGraphError(
                "the generated lower triangle is not the matrix's: a bug, please report it"
            )
        return J

    return both


def _refuse_dense(graph: DGraph, counted: Sequence[str] | None = None) -> None:
    """One line where a dense Jacobian of ``graph`` (its rows of ``counted`` outputs,
    None: all) would have more than :data:`DENSE_LIMIT` entries (before anything is
    accumulated or allocated)."""
    rows = graph.outputs if counted is None else counted
    size = {v: math.prod(graph.shape(v)) for v in (*graph.inputs, *rows)}
    entries = sum(size[y] for y in rows) * sum(size[x] for x in graph.inputs)
    if entries > DENSE_LIMIT:
        raise ResultTooLarge(
            f"a dense result of {entries:,} entries ({8 * entries / 2**30:.1f} GiB a call),"
            f" more than {DENSE_LIMIT:,}: give sparse=True (--sparse)",
            entries=entries,
            limit=DENSE_LIMIT,
            sparse=False,
        )


def _refuse_sparse(es: ExpressionSet, counted: Sequence[str] | None = None) -> None:
    """One line where the sparse Jacobian of ``es`` (its rows of ``counted`` outputs,
    None: all) would have more than
    :data:`SPARSE_LIMIT` nonzeros: its entries' blocks as pricing forms them (structured
    blocks count their nonzeros without listing them; the cheapest set's products and
    sums are found again, :meth:`~dgraph.blocks._Recent.pin`), before the code
    generator asks for any pattern."""
    priced, _ = expression_blocks(es.as_computed or es)
    entries = 0
    for key in (es.as_computed or es).jacobian:
        if counted is not None and key[0] not in counted:
            continue
        block = priced[key].block
        if block is not None:
            entries += block.nnz if hasattr(block, "nnz") else block.structural().nnz
    if entries > SPARSE_LIMIT:
        raise ResultTooLarge(
            f"a sparse result of {entries:,} nonzeros (at least {16 * entries / 2**30:.1f} GiB"
            f" a call, 16 bytes each), more than {SPARSE_LIMIT:,}: use a jvp or vjp"
            " (--mode jvp, vjp), which never forms it",
            entries=entries,
            limit=SPARSE_LIMIT,
            sparse=True,
        )


def c_blocks(
    stacked: Callable[..., Any],
    graph: DGraph,
    indices,
    indptr,
    mode: str = "jacobian",
    dense: bool = False,
) -> Callable[..., Any]:
    """The C values' ``jacobian`` in ``jax.jacobian``'s form: ``stacked`` (one CSR matrix
    over all outputs and inputs, whose pattern is ``indices`` and ``indptr``) itself for
    one output and one input, else its (output, input) blocks, CSR arrays of shape
    (y.size, x.size), nested as the NumPy module's ``jacobian`` nests them (``dense``:
    each an array of shape ``y.shape + x.shape``, as the dense module's);
    ``value_and_jacobian``: ``(F, J)``, F cut per output and shaped as the NumPy
    module's."""
    if mode == "value_and_jacobian":
        split = c_blocks(lambda J: J, graph, indices, indptr, dense=dense)  # a given J's
        return _with_values(split, stacked, graph)
    if len(graph.outputs) == len(graph.inputs) == 1 and not dense:
        return stacked
    indptr = np.asarray(indptr)
    rows = np.repeat(np.arange(indptr.size - 1), np.diff(indptr))
    out_sizes = [math.prod(graph.shape(y)) for y in graph.outputs]
    in_sizes = [math.prod(graph.shape(x)) for x in graph.inputs]
    shapes = [[(*graph.shape(y), *graph.shape(x)) for x in graph.inputs] for y in graph.outputs]
    cuts = block_entries(rows, np.asarray(indices), out_sizes, in_sizes)
    patterns = [
        [
            (at, c, np.concatenate([[0], np.cumsum(np.bincount(r, minlength=m))]), (m, n), s)
            for (at, r, c), n, s in zip(row, in_sizes, block_shapes, strict=True)
        ]
        for row, m, block_shapes in zip(cuts, out_sizes, shapes, strict=True)
    ]

    def block(data: np.ndarray, at, c, p, shape, dense_shape) -> Any:
        made = scipy.sparse.csr_array((data[at], c, p), shape=shape)
        return made.toarray().reshape(dense_shape) if dense else made

    def one_or_tuple(items: list) -> Any:
        return items[0] if len(items) == 1 else tuple(items)

    def jacobian(*inputs: Any) -> Any:
        data = stacked(*inputs).data
        return one_or_tuple(
            [one_or_tuple([block(data, *entry) for entry in row]) for row in patterns]
        )

    jacobian.__doc__ = (
        f"J of the inputs {tuple(graph.inputs)!r} (compiled C values):"
        f" {'dense' if dense else 'CSR'} blocks as jax.jacobian nests them."
    )
    return jacobian


def dense_blocks(dense: Callable[..., Any], graph: DGraph) -> Callable[..., Any]:
    """The dense C ``jacobian`` (:mod:`.c_dense`: one m × n matrix over all outputs and
    inputs) in ``jax.jacobian``'s form (:func:`~..own_arguments.nested_blocks`): blocks
    of shape ``y.shape + x.shape``, nested as the NumPy module's dense ``jacobian``."""
    rows = [graph.shape(y) for y in graph.outputs]
    columns = [graph.shape(x) for x in graph.inputs]

    def jacobian(*inputs: Any) -> Any:
        return nested_blocks(dense(*inputs), rows, columns)

    jacobian.__doc__ = (
        f"J of the inputs {tuple(graph.inputs)!r} (compiled C, dense): blocks as"
        " jax.jacobian nests them."
    )
    return jacobian


def c_tangents(flat: Callable[..., Any], graph: DGraph, mode: str = "jvp") -> Callable[..., Any]:
    """The C ``jvp``'s (J·t, flat: :func:`~.c_values.c_values` of a
    :func:`~.sweeps.jvp_program`) in the NumPy sweep's form: ``jvp(*x, *t, *p)``, the
    output's array of its shape, or a tuple over the outputs; a ``vjp``'s (wᵀ·J):
    ``vjp(*x, *w, *p)``, the input's array, or a tuple over the inputs."""
    seeded = graph.outputs if mode == "jvp" else graph.inputs
    shapes = [graph.shape(v) for v in seeded]
    cuts = np.cumsum([math.prod(s) for s in shapes])[:-1]

    def sweep(*arrays: Any) -> Any:
        parts = np.split(flat(*arrays), cuts)
        tangents = [p.reshape(s) for p, s in zip(parts, shapes, strict=True)]
        return tangents[0] if len(tangents) == 1 else tuple(tangents)

    sweep.__name__ = sweep.__qualname__ = mode
    sweep.__doc__ = (
        f"J·t for the inputs {tuple(graph.inputs)!r} (compiled C tangent sweep): jvp(*x, *t,"
        " *p), J never formed."
        if mode == "jvp"
        else f"wᵀ·J for the inputs {tuple(graph.inputs)!r} (compiled C adjoint sweep):"
        " vjp(*x, *w, *p), J never formed."
    )
    return sweep


def _with_values(
    split: Callable[..., Any], stacked: Callable[..., Any], graph: DGraph
) -> Callable[..., Any]:
    """``value_and_jacobian`` from the stacked ``(F, J)``: F (flat) cut per output and
    shaped, a tuple over several outputs; J's blocks as ``split`` nests them (one call
    of C)."""
    shapes = [graph.shape(y) for y in graph.outputs]
    cuts = np.cumsum([math.prod(s) for s in shapes])[:-1]

    def value_and_jacobian(*inputs: Any) -> Any:
        flat, J = stacked(*inputs)
        values = [p.reshape(s) for p, s in zip(np.split(flat, cuts), shapes, strict=True)]
        return (values[0] if len(values) == 1 else tuple(values)), split(J)

    return value_and_jacobian


def _wrong(check) -> bool:
    """A verification that failed, as opposed to one that could not check the values
    (``not verified``: code is still made, and says so)."""
    return check.status == "wrong"


CHOICE = "tensor_codegen_choice"
"""The default choices' entry in ``graph.derived`` (:func:`_kept`)."""


def _kept(
    graph: DGraph, name: str, make: Callable[[], ExpressionSet], verify: bool = True
) -> ExpressionSet:
    """``make()``, verified, kept with ``graph`` under ``name``: what ``make_function``
    builds without a method or a budget (``cheapest``: :func:`_cheapest`; a sweep's
    reference set: :data:`CHECK_METHOD`'s) depends on the graph alone (its blocks, and the
    reference it is checked against), so it is made once per graph and kept with it
    (``graph.derived``, cleared when the graph changes; an entry used only while the
    graph's version and ``jvp_reference`` are the ones it was checked with, and never
    pickled): the languages, modes and sparse or dense code of one graph price,
    accumulate and verify once. Each function made from it is still checked on its own
    (:func:`~.check.check_tensor`, :func:`~.sweep_check.check_sweep`)."""
    kept: dict[str, tuple] = graph.derived.setdefault(CHOICE, {})  # type: ignore[assignment]
    reference, version = graph.jvp_reference, graph.version
    if name in kept:
        es, checked_reference, checked_version = kept[name]
        if checked_reference is reference and checked_version == version:
            if verify and es.verification is None:  # kept unverified (``verify`` False)
                es.verify()
            return es
    es = make()
    if verify and es.verification is None:
        es.verify()
    kept[name] = (es, reference, version)
    return es


def _cheapest(graph: DGraph) -> ExpressionSet:
    """The cheapest of :data:`DEFAULT_METHODS` by :func:`_price` (the first in that order
    among equals), unverified. Reverse is priced first where the outputs have at most
    half as many entries as the inputs (a gradient), and each later candidate stops as soon as its
    steps cost more than the cheapest so far (:func:`priced_below`): forward mode on a
    scalar loss would otherwise form its blocks of every intermediate by every
    parameter only to lose. Elsewhere forward is first built only while it costs no
    block multiplication (then none is cheaper and it is the first among equals: a
    linear stencil's, none other built), then Markowitz priced first, whose greedy
    order is the cheapest of the three on large Hessians (the minimal surface and
    Rosenbrock at 10⁵-10⁶ unknowns), so that forward and reverse stop at its count (the
    minimal surface at 10⁶: forward's 58.0 M cut at Markowitz's 57.1 M, pricing about
    0.3 CPU-s less); where forward is cheaper (the same surface at 12 × 12) Markowitz is
    built whole instead. The candidate kept is the one the order of
    :data:`DEFAULT_METHODS` keeps: a stopped one costs more than one priced. The block
    products and sums the cheapest one formed are kept (:meth:`~dgraph.blocks._Recent.pin`)
    for its code, whose walk then forms none again (:func:`~.module.tensor_program`)."""
    size = {x: math.prod(graph.shape(x)) for x in (*graph.inputs, *graph.outputs)}
    wide = 2 * sum(size[y] for y in graph.outputs) <= sum(size[x] for x in graph.inputs)
    first = "reverse" if wide else "markowitz"
    order = sorted(DEFAULT_METHODS, key=lambda m: m != first)
    if not wide:  # DEFAULT_METHODS[0], free: what the loop below would keep
        try:
            with priced_below(0):
                return accumulate(graph, DEFAULT_METHODS[0], verify=False)
        except SearchTooLarge:
            pass  # it costs something: priced again below, stopped at the cheapest's count
    best: tuple[int, int, ExpressionSet] | None = None
    why = ""
    for m in order:
        try:
            with (
                RECENT.recorded() as formed,
                priced_below(None if best is None else best[0]),
            ):
                candidate = accumulate(graph, m, verify=False)
        except SearchTooLarge as e:
            why = why or str(e).splitlines()[0]
            continue  # dearer than the cheapest so far, or a block too large
        key = (_price(candidate), DEFAULT_METHODS.index(m))
        if best is None or key < best[:2]:
            best = (*key, candidate)
            RECENT.pin(formed)  # its products and sums, for its code (tensor_program)
        tried = order[: order.index(m) + 1]
        if best[0] == 0 and all(n in tried for n in DEFAULT_METHODS[: best[1]]):
            break  # none is cheaper than no multiplication (a stencil's: 0.8 s at 10⁶)
    if best is None:
        raise DGraphError(f"none of {', '.join(DEFAULT_METHODS)} could be built: {why}")
    return best[2]


def _price(es: ExpressionSet) -> int:
    """The block multiplications the elimination's steps counted (what ``es.mults``
    counts again from the built set, without building its computed form)."""
    return sum(step.mults for step in es.steps)
