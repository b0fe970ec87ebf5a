"""The generated module: ``jacobian(*inputs)`` of a tensor graph as one statement per
array operation and per block operation.

The expression set is walked exactly as :func:`~dgraph.core.block_values.jacobian_blocks`
evaluates it — each reference once, sums left to right, products bracketed by
:func:`~dgraph.core.block_costs.chain_product` — but instead of computing values, each
step prints the statement that computes them. Only the vertex values the used blocks read
are computed. Index arrays (patterns, scatters, sparse pairs) are computed here once and
embedded (:mod:`.constants`); per call only values are computed.
"""

from __future__ import annotations

import dataclasses
import functools
import keyword
import math
import re
from collections import Counter
from collections.abc import Sequence

import numpy as np
import sympy

from ...blocks import RECENT, Applied, RunTime
from ...blocks.arrays import ArrayOp, Const, operand_block, rule_parts
from ...blocks.permutation import Permutation
from ...core.block_costs import along_bracketing, chain_product, post_order
from ...core.block_values import program_order
from ...core.expressions import ExpressionSet
from ...core.regions import is_region
from ...errors import DGraphError, InputError
from ...frontends.fixed_parameters import made_at
from ...frontends.jaxpr_arrays import REFERENCE_COMPILE, quick_jit
from ...methods.registry import accumulate
from .. import ir
from ..array_passes import array_shapes, optimize_statements
from ..evaluate import ArrayEvaluator
from ..ir import (
    ArrayProgram,
    ArrayStatement,
    BinOp,
    Call,
    Index,
    Name,
    Node,
    Scatter,
    ScatterAdd,
    SegmentSum,
    SparseMatrix,
)
from ..jaxcode import loop_helpers
from ..lambertw_code import HELPER, helper_lines
from ..scope import made_once
from .blockops import BlockOps, Terms, Valued, values_at
from .cancel import asked_later, drop_cancelled, needed_statements, none_cancel
from .check import offsets
from .constants import Constants, decoder
from .convolution import JAX_HELPERS
from .delta_form import DeltaPattern, delta_form
from .dialect import DIALECTS, Dialect
from .dynamic_gathers import swept
from .entries import entries, fills
from .exact_fold import numpy_exact
from .footprint import PEAK_MOST, Total, entries_at_most, refuse_large_program
from .formula_reuse import reused_calls
from .forward import forward_expression, operand_shape
from .fuse import fold_permutations
from .gather_chains import gathers_of_gathers
from .gather_scale import folded_scalings
from .gathers import (
    GATHER_FROM,
    PUSH_COMPACT,
    gathered,
    scatters_as_gathers,
    scatters_as_pads,
    takes_as_broadcasts,
)
from .grid_jax import grid_gathers
from .jax_moves import composed_gathers
from .jax_pair import merged, split
from .jax_spreads import spread_gathers
from .jit_arguments import BOUND, jitted, jitted_whole
from .leaves import leaf_values
from .numpy_assembly import Mirror
from .numpy_form import numpy_body, strided_runs, text
from .numpy_strips import STRIPS_HELPER
from .permutation_code import structural_of, structural_valued
from .regions import read_outputs, refuse_unprinted, region_block, region_value
from .scatter_chains import merged_scatter_adds
from .slice_loops import chunked
from .triangle import mirror_positions, mirrored_entries, narrowed

__all__ = ["block_entries", "extra_values", "tensor_module", "tensor_program"]


class Writer:
    """The function body being built: statements, fresh names, module constants."""

    def __init__(
        self, dialect: Dialect, keep_arrays: bool = False, sparse_products: bool | None = None
    ) -> None:
        self.d = dialect
        self.statements: list[ArrayStatement] = []
        self.constants = Constants(keep_arrays)
        # whether a loop's tangent sweep multiplies a sparse body block by its entries
        # (NumPy, JAX and C's value program, a loop nested in a body too) or dense; by
        # default, where the constants' arrays are not kept (a C program and a body
        # program keep them: a body program is given its loop's, C's value program asks)
        self.sparse_products = not keep_arrays if sparse_products is None else sparse_products
        self.taken: set[str] = set()
        self.count = 0
        self.varying: set[str] = set()  # names whose values read an input
        # values of statements that read no input, computed before the constant folding
        # (the cancellation pass's first point), by the statement's identity
        self.evaluated: dict[int, tuple[ArrayStatement, object]] = {}
        # per loop region (by identity), the outputs whose derivatives the graph reads
        # (:func:`~.regions.read_outputs`); None: all of them
        self.region_reads: dict[int, set[int]] | None = None
        # the cancellation pass's decisions at a point, by the tier of bound that made
        # them (:func:`~.cancel._decided`: "scalar", "entries", "whole")
        self.cancel_tiers: Counter[str] = Counter()
        # the cancellation pass's polynomial values, shared by the blocks
        # (:func:`~.cancel._poly_values`)
        self.poly_values = None
        # its values at the drawn points, shared too (:func:`~.cancel._point_values`)
        self.point_values: dict = {}
        self.point_entries = 0
        # the arguments at the user's point (the graph's), by argument name: the
        # cancellation pass's first point (:data:`~.cancel.USER`)
        self.user_point: dict[str, np.ndarray] | None = None
        # what the count of entries held at once found of each statement, kept for the
        # blocks after the first (:func:`~.footprint.peak_entries`'s ``memo``)
        self.footprint: dict = {}
        # the entries every statement so far makes, summed once (footprint.Total)
        self.total = Total()
        # a custom rule's output printed as the primal's value alone (code that computes
        # values); False where the program is differentiated again (jax_primal: the
        # rule's t + stop_gradient(f - t), its derivative the rule's)
        self.rule_values = True
        # the delta forms output_node made (by the node's identity: the node and its
        # pattern), and the patterns of those emitted as blocks, by name (the program's)
        self.deltas: dict[int, tuple[Node, DeltaPattern]] = {}
        self.patterns: dict[str, DeltaPattern] = {}

    def varies(self, node: Node) -> bool:
        """Whether an expression reads an input, directly or through a statement."""
        return bool(self.varying & ir.names_in(node))

    def name(self, hint: str) -> str:
        base = re.sub(r"\W", "_", hint)
        if not base or base[0].isdigit() or keyword.iskeyword(base):
            base = f"_{base}"
        name, k = base, 1
        while name in self.taken:
            name, k = f"{base}_{k}", k + 1
        self.taken.add(name)
        return name

    def rename(self, value: Node, hint: str) -> Node:
        """``value`` under a name of its own: the last statement renamed where it made
        ``value`` as a temporary, else a new assignment."""
        if not (isinstance(value, Name) and re.fullmatch(r"t\d+", value.id)):
            return value  # already a name of its own (a leaf's, a vertex's)
        last = self.statements[-1] if self.statements else None
        if last is not None and last.target == value.id:
            self.taken.discard(value.id)
            name = self.name(hint)
            self.statements[-1] = ArrayStatement(name, last.value)
            if value.id in self.varying:
                self.varying.add(name)
            return Name(name)
        return self.emit(value, hint)

    def emit(self, node: Node, hint: str | None = None) -> Name:
        if hint is None:
            self.count += 1
            hint = f"t{self.count}"
        name = self.name(hint)
        self.statements.append(ArrayStatement(name, node))
        if self.varies(node):
            self.varying.add(name)
        return Name(name)

    def block(self, node: Node, hint: str) -> str:
        """The name of a dense Jacobian block ``node`` emitted (:func:`output_node`'s),
        and where it is a delta form, its pattern kept under that name."""
        name = self.emit(node, hint).id
        found = self.deltas.pop(id(node), None)
        if found is not None and found[0] is node:
            self.patterns[name] = found[1]
        return name

    def printed(self, statements: list[ArrayStatement]) -> list[str]:
        printer = self.d.printer
        return [printer.statement(s) for s in statements]


def tensor_module(
    es: ExpressionSet, lang: str = "python", sparse: bool = False, mode: str = "jacobian"
) -> str:
    """The module text of :func:`tensor_program` (its docstring says what it computes).

    >>> from dgraph.blocks.arrays import ArrayOp
    >>> from dgraph.core.graph import DGraph
    >>> from dgraph.methods import accumulate
    >>> g = DGraph("chain")
    >>> g.add_array_vertex("x", "input", (4,))
    >>> g.add_array_vertex("y", "output", (4,), ArrayOp("exp", ("x",), (), (4,)))
    >>> text = tensor_module(accumulate(g.validate(), "forward"))
    >>> print(text[text.index("def jacobian"):].strip())  # doctest: +NORMALIZE_WHITESPACE
    def jacobian(x):
        \"\"\"J: d y / d x for the inputs ('x',) (NumPy; dense blocks).\"\"\"
        x_ = numpy.reshape(numpy.asarray(x, dtype=float), (4,))
        d_y_x = 1.0 * (numpy.exp(x_))
        J_y_x = numpy.reshape(_scatter(16, _K0, numpy.ravel(d_y_x)), (4, 4))
        return J_y_x
    """
    return tensor_program(es, lang, sparse, mode).text


def _user_point(graph, arguments: dict[str, str]) -> dict[str, np.ndarray] | None:
    """The graph's point (its inputs' values the user gave, and its parameters') by
    argument name, as doubles; None where it has none."""
    point = graph.point
    if point is None:
        return None
    out = {}
    for x, value in {**point, **graph.parameter_point}.items():
        if x in arguments:
            try:
                out[arguments[x]] = np.asarray(value, dtype=float)
            except (TypeError, ValueError):
                continue
    return out


def tensor_program(
    es: ExpressionSet,
    lang: str = "python",
    sparse: bool = False,
    mode: str = "jacobian",
    keep_arrays: bool = False,
    symmetric: bool = False,
    extra: Sequence[ArrayOp] = (),
    cancel_later: bool = True,
    sparse_products: bool | None = None,
    mirrored: bool = False,
    body: bool = False,
) -> ArrayProgram:
    """The text of a NumPy (``lang="python"``) or JAX module defining ``mode(*inputs)``
    (``jacobian`` or ``value_and_jacobian``) for the tensor graph of ``es``.

    The Jacobian is what ``jax.jacobian(f, argnums=(0, 1, ...))`` returns: for one
    output and one input the block ∂y/∂x, for one output a tuple over the inputs, for one
    input a tuple over the outputs, else a tuple over the outputs of tuples over the
    inputs (``graph.outputs`` and ``graph.inputs`` order; None where the expression set
    does not compute a pair). Dense, a block is an array of shape ``y.shape + x.shape``
    (and the value the output's array, or a tuple over the outputs). With ``sparse`` a
    block is a SciPy CSR array (NumPy) or BCOO array (JAX) of shape (y.size, x.size), and
    the module also defines ``{mode}_stacked``: the one matrix of shape (Σ size(y), Σ
    size(x)), rows the outputs in order, columns the inputs, each flattened in C order
    (and the value the outputs flattened and concatenated in the same order, what a
    Newton step solves against); ``mode`` reads its blocks from it (for one output and
    one input ``jacobian`` is it). Its pattern is computed here once; per call only
    values are. Statements that read no input (the values of constant blocks and their
    products and sums) are run here, once, and their values become module constants
    (:func:`_fold`; JAX's computed in doubles). The program is the stacked function's
    (the C printer's input).

    ``keep_arrays``: the constants' arrays kept on the program (the C printer reads them).
    ``sparse_products``: whether a loop's tangent sweep multiplies a sparse body block by
    its entries (:attr:`Writer.sparse_products`; None: where the arrays are not kept). A
    loop body's program takes its loop's: a loop nested in a NumPy, JAX or C body sweeps
    its tangents as a top-level one does (before, dense: n² entries a step for n carried).
    C's value program asks for it (its printer gathers the tangents' rows,
    ``c_values._row_gather``).

    ``body``: a loop body's program (:func:`_body_program`), whose sweep reads its blocks'
    scatters into zeros by their shape (a diagonal, the identity): in JAX those stay
    scatters (:func:`~.gathers.scatters_as_pads`).

    ``extra``: values no derivative reaches (nested operations over the graph's inputs and
    vertices: a branch's outputs of that kind, :mod:`.branches`), computed after the
    vertices and returned after the program's other results.

    ``symmetric``: J is one square block known to be symmetric (a Hessian: the Jacobian
    of a gradient, sparse): only its entries on and below the diagonal are computed
    (:func:`~.triangle.narrowed`), those above copied from their mirror images, and the
    module also defines ``{mode}_tril``, the lower triangle alone (:func:`_symmetric`).
    In NumPy and JAX the cancellation pass's first point is then the narrowed program's
    (:func:`~.cancel.none_cancel`); ``cancel_later`` False, or where an entry is still
    asked there, the pass runs before the narrowing, on the whole program
    (:func:`~.cancel.drop_cancelled`). ``mirrored`` (C's program of a Hessian, every
    entry computed): only the pattern's entries whose mirror images are in it
    (:func:`_sparse_parts`), as with ``symmetric``.
    """
    graph = es.graph
    if not graph.is_tensor:
        raise DGraphError("tensor_module takes an expression set of a tensor graph")
    refuse_unprinted(graph, (lang,))
    if lang not in DIALECTS:
        raise DGraphError(f"tensor graphs: code in python or jax, not {lang!r}")
    if mode not in MODULE_MODES:
        raise DGraphError(f"tensor_module: mode {mode!r}; use {', '.join(MODULE_MODES)}")
    square = _single(graph) and math.prod(graph.shape(graph.outputs[0])) == math.prod(
        graph.shape(graph.inputs[0])
    )
    if symmetric and not (sparse and mode == "jacobian" and square):
        raise DGraphError("symmetric= is for the sparse jacobian of one square block")
    computed = es.as_computed or es
    # whether the runs of large stacked arrays are written as loops over slices of rows
    # (_chunked): NumPy's symmetric code, and every program whose arrays are not kept (a
    # C program's and a loop body's are)
    looped = (symmetric and lang == "python") or not keep_arrays
    w = Writer(DIALECTS[lang], keep_arrays, sparse_products)
    w.region_reads = read_outputs(graph)
    shapes = {v: graph.shape(v) for v in graph.nx} | graph.parameter_shapes
    edges = graph.edge_symbols
    # which edges and so which vertex values the entries read
    used_edges = []
    for expr in (*computed.references.values(), *computed.jacobian.values()):
        used_edges += [edges[s] for s in expr.free_symbols if s in edges]
    order = program_order(graph)
    needed = {v for _, v in used_edges for v in graph.op(v).vertices()}
    if mode == "value_and_jacobian":
        needed.update(y for y in graph.outputs if graph.op(y) is not None)
    needed.update(v for op in extra for v in op.vertices())
    for v in reversed(order):
        if v in needed and graph.op(v) is not None:
            needed.update(graph.op(v).vertices())
    taken = [*graph.inputs, *graph.parameter_shapes]  # array parameters: arguments last
    arguments = {x: w.name(argument_name(x)) for x in taken}
    w.user_point = _user_point(graph, arguments)
    names = {x: w.name(f"{arguments[x]}_") for x in taken}
    for x in taken:
        w.statements.append(read_input(w.d, names[x], arguments[x], shapes[x]))
    w.varying.update([*arguments.values(), *names.values()])
    nodes: dict[str, Node] = {v: Name(n) for v, n in names.items()}
    for v in order:
        if v in needed and graph.op(v) is not None:
            nodes[v] = w.emit(forward_node(w, graph.op(v), nodes, shapes, top=True), f"v_{v}")
    extras = extra_values(w, extra, nodes, shapes)
    ops = BlockOps(lang, w.constants, w.emit, w.varies, distribute=symmetric)
    leaves: dict[tuple[str, str], Valued] = {}

    def leaf(edge: tuple[str, str]) -> Valued:
        if edge not in leaves:
            leaves[edge] = leaf_value(w, ops, graph, edge, nodes, shapes)
        return leaves[edge]

    known: dict[sympy.Basic, Valued] = {}
    later = symmetric and cancel_later  # the pass after the narrowing
    deferred = None  # the block whose entries are asked after the narrowing: its reads
    RECENT.hand_over()  # pricing's products and sums, each let go after the walk's use
    keys = jacobian_keys(es)
    readers = _readers(computed, keys)
    for ref, definition in computed.references.items():
        known[ref] = _walk(definition, known, edges, leaf, ops, w, str(ref))
        _forget_read(definition, readers, known)
        if not readers[ref]:  # read by none
            known.pop(ref)
    entries_of = {}
    for k, (y, x) in enumerate(keys):
        entry = computed.jacobian.get((y, x))
        valued = None if entry is None else _walk(entry, known, edges, leaf, ops, w, None)
        if entry is not None:
            _forget_read(entry, readers, known)
        if k == len(keys) - 1:  # the last walk done: what the walks made and the entries
            known.clear()  # do not hold (10⁷ indices a block) goes before the cancellation
            leaves.clear()  # pass evaluates the block's values (its memory reused there)
            RECENT.clear()
        # counted from shapes before the pass evaluates any (a NumPy Hessian's runs of
        # large arrays as its code computes them, a slice of rows at a time)
        _refuse_large(w, valued, looped)
        reads = asked_later(w, valued) if sparse and later else None
        if reads is not None:
            deferred = reads  # its entries asked at the narrowed program (one block)
        elif sparse:
            valued = drop_cancelled(w, valued, symmetric)
        entries_of[(y, x)] = _over_its_shapes(ops, ops.materialize(valued))
    known.clear()
    leaves.clear()
    RECENT.clear()
    outside = None  # JAX's sparse pattern: a device array made once, outside the values
    coordinates = None  # a sparse J's pattern: its rows and columns, row-major
    if sparse:
        found, pattern, shape, coordinates = _sparse_parts(
            w, graph, entries_of, shapes, symmetric or mirrored
        )
        if symmetric:  # its values alone (none: an empty vector, not the empty matrix)
            found = found if pattern is not None else Call("zeros", (ir.Const(0),))
            results = [w.emit(found, "J_data").id]
        elif lang == "jax" and pattern is not None:
            outside = pattern
            results = [w.emit(found, "J_data").id]
        elif pattern is not None:
            results = [w.emit(SparseMatrix(found, *pattern, shape), "J").id]
        else:
            results = [w.emit(found, "J").id]
        blocks: dict[tuple[str, str], str] = {}
    else:
        results = [
            w.block(output_node(w, entries_of[(y, x)], shapes[y], shapes[x]), f"J_{y}_{x}")
            for y, x in keys
        ]
        blocks = dict(zip(keys, results, strict=True))
    values: list[str] = []
    if mode == MODULE_MODES[1]:
        values = [n.id for n in _value_output(w, graph, nodes, shapes, sparse)]
    value = values[0] if sparse and values else None

    def returned_line(once: set[str]) -> str:
        """The return statement; a result computed at import is copied per call (the
        caller may change it). Dense: J as ``jax.jacobian`` nests it, F an array or a
        tuple over the outputs; sparse: the stacked J (and F flattened)."""

        def fresh(r: str | None) -> str:
            return "None" if r is None else f"{r}.copy()" if r in once else r

        if sparse:
            j = fresh(results[0])
            f = None if value is None else fresh(value)
        else:
            j = nested(graph.outputs, graph.inputs, lambda y, x: fresh(blocks.get((y, x))))
            f = one_or_tuple([fresh(v) for v in values]) if values else None
        return f"    return {j}" if f is None else f"    return {f}, {j}"

    args = ", ".join(arguments.values())
    language = "NumPy" if lang == "python" else "JAX"
    stacked = sparse and not (mode == "jacobian" and _single(graph))
    kind = "one sparse matrix" if sparse else "dense blocks"
    what = "F(x), J" if values else "J"
    loops = "".join(f" {n}." for n in w.__dict__.get("loop_notes", []))  # loop_blocks.note
    doc = (
        f'    """{what}: d y / d x for the inputs {tuple(graph.inputs)!r} ({language}; {kind}).'
        f'{loops}"""'
    )
    ends = [*results, *values, *extras]
    live = live_statements(w.statements, ends)
    hoisted, statements = _hoist(live, w.varying, set(ends))
    statements = _fold(w, hoisted, statements)
    w.evaluated.clear()
    if lang == "python":
        statements = _fold_gathers(w, statements)
    statements = gathers_of_gathers(statements, w.constants.arrays, w.constants.add)
    statements = merged_scatter_adds(statements)
    statements = optimize_statements(statements, ends, _known(w))  # CSE, dead statements
    if symmetric:
        keep = coordinates[0] >= coordinates[1]
        stub = _stub(w, mode, arguments, shapes, statements, ends)
        if lang == "python" and not keep_arrays:  # what folding read and nothing else
            _park(w, stub, [statements], [*ends, *(pattern or ())])
        statements, compact = narrowed(stub, results[0], keep, w.constants)
        low = None  # NumPy: the lower triangle's own program, where it differs
        if lang == "python" and not compact and results[0] in w.varying:
            low, low_compact = narrowed(stub, results[0], keep, w.constants, True, join=False)
            if low_compact:  # two programs from one: the same doubles, no parts joined inside
                statements, _ = narrowed(stub, results[0], keep, w.constants, join=False)
            else:
                low = None
        statements = _tidied(w, stub, statements, ends)
        tril_statements = None if low is None else _tidied(w, stub, low, ends)
        if lang == "python" and not keep_arrays:  # what the narrowed programs no longer
            _park(w, stub, [statements, tril_statements or []], [*ends, *(pattern or ())])
        if deferred is not None:
            lower = statements if tril_statements is None else tril_statements
            if not none_cancel(w, deferred, lower, results[0], keep):
                return tensor_program(es, lang, sparse, mode, keep_arrays, symmetric, extra,
                                      cancel_later=False, sparse_products=sparse_products,
                                      body=body)  # fmt: skip
        if looped:  # the runs of n³ arrays a slice of rows at a time
            statements = _chunked(w, stub, statements, ends)
            if tril_statements is not None:
                tril_statements = _chunked(w, stub, tril_statements, ends)
        if lang == "jax":
            stub.statements = statements
            statements = scatters_as_gathers(stub, w.constants)
    elif looped:  # dense blocks, a sparse J not symmetric: the same loops
        stub = _stub(w, mode, arguments, shapes, statements, ends)
        statements = _chunked(w, stub, statements, ends)
    if lang == "jax" and outside is not None:  # one jitted function, given its constants
        statements = _constants_folded(w, statements, set(ends))
    if lang == "jax" and not sparse:  # dense JAX output: products built in the order read
        statements = fold_permutations(statements, ends)
    if lang == "jax" and not symmetric:  # scatters at runs, takes of one place: XLA fuses them
        blocks_read = frozenset(results if body else ())  # read by the loop's sweep
        statements = scatters_as_pads(
            _stub(w, mode, arguments, shapes, statements, ends), w.constants, blocks_read
        )
        statements = takes_as_broadcasts(
            _stub(w, mode, arguments, shapes, statements, ends), w.constants
        )
    once = {r for r in ends if r not in w.varying}  # results that read no input
    returned = returned_line(once if lang == "python" else set())
    mirror = None  # NumPy: where the values above the diagonal come from
    tril_body = None  # NumPy: the lower triangle's own body (tril_statements printed)
    if symmetric and lang == "python":  # a Hessian's values: views, in place, freed early
        stub.statements = statements
        stub.constant_shapes = dict(w.constants.shapes)
        later = {} if compact else {_root(statements, results[0]): np.flatnonzero(~keep)}
        mirror = None if compact else _mirror(w, coordinates, shape, keep)
        body = numpy_body(statements, w.constants, array_shapes(stub), set(ends), later, mirror)
        if tril_statements is not None:
            stub.statements = tril_statements
            tril_body = numpy_body(tril_statements, w.constants, array_shapes(stub), set(ends))
            stub.statements = statements
    else:
        body = w.printed(statements)
    name = f"{mode}_stacked" if stacked else mode
    if symmetric:
        fresh = compact or _fresh_values(statements, results[0], w.varying)
        stub.statements = statements  # JAX: the values' statements, the mirror pushed in
        lines = _symmetric(w, mode, args, doc, body, results[0], coordinates, shape, fresh, compact,
                           stub, mirrored=mirror is not None and mirror.done,
                           tril_body=tril_body)  # fmt: skip
    elif outside is None and lang == "jax":  # dense JAX: one jitted program
        lines = jitted_whole(name, args, doc, body, returned, w.constants, statements, ends)
    elif outside is None:
        lines = [f"def {name}({args}):", doc, *body, returned]
    else:
        pattern = w.d.printer.doprint(outside[0])
        lines = _outside_pattern(name, args, doc, body, returned, pattern, shape, value,
                                 w.constants)  # fmt: skip
    if stacked:
        lines += ["", "", *_split(w, graph, mode, args, coordinates, shapes)]
    elif sparse:
        lines += ["", "", f"{mode}_stacked = {mode}  # one output, one input: the one block"]
    used = set(re.findall(r"\w+", "\n".join(lines)))
    read = set().union(*(ir.names_in(s.value) for s in statements))  # what the program reads
    read_shapes = {k: v for k, v in w.constants.shapes.items() if k in read}  # (counts)
    w.constants.keep(used | read if keep_arrays else used)  # a number printed, not its array
    header = _header(w, es, lang, sparse, shapes, mode, "\n".join([*body, *(tril_body or ())]))
    return ArrayProgram(
        mode,
        tuple(arguments.values()),
        tuple(shapes[x] for x in arguments),
        tuple(arguments),
        statements,
        ends,
        dict(w.constants.arrays) if keep_arrays else {},
        header + "\n".join(lines) + "\n",
        dict(w.constants.shapes) | read_shapes,
        {name: p for name, p in w.patterns.items() if name in ends},
    )


def _known(w: Writer) -> dict[str, tuple[int, ...]]:
    """The shapes of the constants ``w`` holds, by name."""
    return {k: np.shape(a) for k, a in w.constants.arrays.items()} | w.constants.shapes


def _stub(w: Writer, mode: str, arguments: dict, shapes, statements, ends) -> ArrayProgram:
    """The program so far (its statements, not yet printed): what the passes after the
    optimization read (the narrowing, the loops over slices)."""
    names = tuple(arguments.values())
    given = tuple(shapes[x] for x in arguments)
    return ArrayProgram(mode, names, given, tuple(arguments), statements, ends,
                        dict(w.constants.arrays), "", dict(w.constants.shapes))  # fmt: skip


def _park(w: Writer, stub: ArrayProgram, programs: list, names: list) -> None:
    """Let go of the constants none of ``programs`` (statement lists) nor ``names``
    (names or constants' :class:`~.ir.Name` nodes) reads (:meth:`Constants.park`), here
    and in ``stub``'s copy of them: a symmetric J's full-size index arrays, read only
    before its lower triangle was narrowed (the peak memory of the code that follows)."""
    read = {n if isinstance(n, str) else n.id for n in names if n is not None}
    for statements in programs:
        read |= set().union(*(_reads(s) for s in statements)) if statements else set()
    w.constants.park(read)
    stub.constants = {k: v for k, v in stub.constants.items() if k in w.constants.arrays}


def _tidied(
    w: Writer, stub: ArrayProgram, statements: list[ArrayStatement], ends: list[str]
) -> list[ArrayStatement]:
    """A symmetric J's narrowed statements after the passes that follow narrowing:
    common subexpressions and dead statements, scalings folded, calls reused."""
    known = _known(w)
    statements = optimize_statements(statements, ends, known)
    stub.statements = statements
    shaped = array_shapes(stub, known)
    statements = folded_scalings(statements, ends, shaped, w.constants.arrays)
    return reused_calls(statements)


def _chunked(
    w: Writer, stub: ArrayProgram, statements: list[ArrayStatement], ends: list[str]
) -> list[ArrayStatement]:
    """``statements`` with their runs of large stacked arrays a loop over slices of rows
    (:func:`~.slice_loops.chunked`), where it finds one; refused in one line where they
    would still hold more than :data:`~.footprint.PEAK_MOST` entries at once (a run
    counted sliced before the narrowing, not found sliced after it), before the code
    check runs them."""
    stub.statements = statements
    known = {k: np.shape(a) for k, a in w.constants.arrays.items()} | w.constants.shapes
    shapes = array_shapes(stub, known)
    found = chunked(statements, stub.arguments, shapes, set(ends), w.constants)
    statements = statements if found is None else found
    given = known | dict(zip(stub.arguments, stub.shapes, strict=True))
    # w.footprint: the values the counts before the narrowing found kept (most of
    # these statements' values are the same nodes)
    refuse_large_program(statements, given, "the derivative's code", w.footprint)
    return statements


def _outside_pattern(
    mode: str,
    args: str,
    doc: str,
    body,
    returned: str,
    pattern: str,
    shape,
    value,
    constants: Constants,
) -> list[str]:
    """A JAX sparse module's lines: the values (and F) one jitted function, the BCOO
    made around them with the pattern's indices, a device array made once at import —
    returned from a jitted function they would be copied out on every call (as much
    memory traffic as the values themselves)."""
    inner = f"_{mode}_arrays"
    called = f"{inner}({args})"
    doc_line = f'    """The values of J{" and F" if value else ""} (jitted once: {mode})."""'
    definition, jit = jitted(inner, args, [doc_line, *body, returned], constants)
    return [
        BOUND,
        "",
        "",
        *definition,
        "",
        "",
        jit,
        f"_INDICES = jax.device_put({pattern})",
        "",
        "",
        f"def {mode}({args}):",
        doc,
        f"    {'F, J_data' if value else 'J_data'} = {called}",
        f"    J = jsparse.BCOO((J_data, _INDICES), shape={shape!r}, indices_sorted=True,"
        " unique_indices=True)",
        "    return F, J" if value else "    return J",
    ]


MODULE_MODES = ("jacobian", "value_and_jacobian")


def _fresh_values(statements: list[ArrayStatement], values: str, varying: set[str]) -> bool:
    """Whether the vector ``values`` is an array its statements made anew (a scatter,
    an arithmetic operation: one the mirror may write into), not a view of an input or
    of a constant."""
    made = {s.target: s.value for s in statements}
    value = made.get(values)
    while isinstance(value, Call) and value.func in ("ravel", "reshape") and value.args:
        inner = value.args[0]
        value = made.get(inner.id) if isinstance(inner, Name) else None
    fresh = (ScatterAdd, Scatter, SegmentSum, BinOp, ir.UnaryOp, ir.Formula)
    return values in varying and isinstance(value, fresh)


def _root(statements: list[ArrayStatement], values: str) -> str:
    """The statement whose vector ``values`` is, through ``ravel`` and ``reshape``."""
    made = {s.target: s.value for s in statements}
    value = made.get(values)
    while isinstance(value, Call) and value.func in ("ravel", "reshape") and value.args:
        inner = value.args[0]
        if not (isinstance(inner, Name) and inner.id in made):
            break
        values, value = inner.id, made[inner.id]
    return values


CSR_HELPERS = (
    "def _csr_pattern(indices, indptr, shape):",
    '    """An all-zero SciPy CSR array of this pattern, checked once (here); its index',
    '    arrays read-only: every matrix _csr makes shares them."""',
    "    J = scipy.sparse.csr_array((numpy.zeros(indices.size), indices, indptr), shape=shape)",
    "    J.sum_duplicates()  # finds the pattern canonical (sorted, unique) and says so",
    "    J.indices.flags.writeable = False",
    "    J.indptr.flags.writeable = False",
    "    return J",
    "",
    "",
    "def _csr(pattern, data):",
    '    """A new CSR array of ``pattern``\'s pattern (its index arrays shared, read-only)',
    '    and the values ``data`` (its own), without SciPy\'s checks of the pattern."""',
    "    J = object.__new__(pattern.__class__)",
    "    J.__dict__.update(pattern.__dict__)",
    "    J.data = data",
    "    return J",
)
"""A symmetric NumPy module's CSR arrays: the pattern checked once, when the module is
loaded, and shared read-only (each call's matrix a new object with its own values; an
in-place change of its pattern, such as ``eliminate_zeros``, raises instead of changing
the next call's): SciPy's constructor checks and converts the index arrays on every call."""


def _mirror_lines(w: Writer, upper: np.ndarray, source: np.ndarray) -> list[str]:
    """``data[upper] = data[source]`` (the entries above the diagonal from their mirror
    images), as slices where both step evenly in a few runs."""
    if not upper.size:
        return []
    cuts = strided_runs(upper, source)
    if cuts is None:
        index = w.constants.index
        return [f"    data[{index(upper).id}] = data[{index(source).id}]"]
    return [f"    data[{text(a)}] = data[{text(b)}]" for _, a, b in cuts]


def _mirror(w: Writer, coordinates, shape, keep: np.ndarray) -> Mirror:
    """The entries above the diagonal of a symmetric sparse J and where each takes its
    value (for :func:`~.numpy_form.numpy_body`)."""
    take, _ = _mirror_positions(w, coordinates[0], coordinates[1], shape[0])
    upper = np.flatnonzero(~keep)
    return Mirror(upper, take[upper])


def _mirror_positions(w: Writer, rows: np.ndarray, cols: np.ndarray, n: int) -> tuple:
    """:func:`~.triangle.mirror_positions` of the whole J (``tril`` False), found once
    for these arrays (NumPy's mirror and its symmetric functions both read it: one
    transposition of 7·10⁶ entries at 10⁶ unknowns, not two)."""
    made = w.__dict__.setdefault("mirrors", {})
    found = made.get((id(rows), id(cols), n))
    if found is None or found[0] is not rows or found[1] is not cols:
        found = (rows, cols, mirror_positions(rows, cols, n, tril=False))  # ids stay theirs
        made[(id(rows), id(cols), n)] = found
    return found[2]


def _symmetric(
    w: Writer,
    mode: str,
    args: str,
    doc: str,
    body,
    values: str,
    coordinates,
    shape,
    fresh: bool,
    compact: bool,
    program: ArrayProgram | None = None,
    mirrored: bool = False,
    tril_body: list[str] | None = None,
) -> list[str]:
    """A symmetric J's functions: ``_{mode}_lower`` computes the values vector (its
    entries on and below the diagonal: ``compact``, those alone in order; else a vector
    of every entry's place whose entries above the diagonal are not computed),
    ``{mode}`` fills each entry above the diagonal from its mirror image (in place in
    NumPy where the vector is ``fresh``) and ``{mode}_tril`` returns the lower entries
    alone, each a CSR of the pattern computed here; JAX's: :func:`_symmetric_jax`, from
    ``program``'s statements. ``mirrored``: the NumPy body fills the entries above the
    diagonal itself. ``tril_body``: NumPy, the body of a function that computes the
    lower entries alone, in order (``{mode}_tril`` calls it rather than taking them from
    ``_{mode}_lower``'s vector)."""
    rows, cols = coordinates
    n = shape[0]
    take, keep = _mirror_positions(w, rows, cols, n)
    lower = np.flatnonzero(keep)
    upper = np.flatnonzero(~keep)

    def index(positions: np.ndarray) -> Name:
        """Positions among the entries (below 2³¹: int32, as ``Constants.index`` stores
        them, without its pass for their least and greatest)."""
        narrow = rows.size <= 2**31 and positions.dtype != np.int32
        return w.constants.index(positions.astype(np.int32) if narrow else positions)

    named: dict[str, Name] = {}  # the index constants read twice, made once
    if compact:  # every entry read from its place among the lower ones
        ranked = (np.cumsum(keep) - 1)[take]
        named["ranked"] = index(ranked)  # the constants numbered first, in this order
    elif tril_body is None:
        named["lower"] = index(lower)
    if w.d.lang == "jax" and upper.size:  # its constants numbered in this order
        index(upper), index(take[upper])
    inner = f"_{mode}_lower"
    once, returned = "" if values in w.varying else ".copy()", values
    if values not in w.varying and w.d.lang == "python":  # a constant may be folded smaller
        returned = f"numpy.broadcast_to({values}, ({lower.size if compact else rows.size},))"
    lines = [
        f"def {inner}({args}):",
        '    """J\'s values: its entries on and below the diagonal (the others are not'
        ' computed)."""',
        *body,
        f"    return {returned}{once}",
        "",
        "",
    ]
    tril_doc = doc.replace(": d y / d x", ", lower triangle: d y / d x", 1)
    if w.d.lang == "python":
        full, pointers = _pattern(w, rows, cols, n, n)
        low, low_pointers = _pattern(w, rows[lower], cols[lower], n, n)
        if compact:
            filled = [f"    data = numpy.take(data, {named['ranked'].id})"]
        else:
            filled = [] if fresh else ["    data = numpy.array(data)"]
            filled += [] if mirrored else _mirror_lines(w, upper, take[upper])
        pattern = f"_{mode.upper()}_PATTERN"
        tril_lines = [f"    data = {inner}({args})"]
        if compact or tril_body is not None:
            tril_python = "data"
        else:
            tril_python = f"numpy.take(data, {named['lower'].id})"
        if tril_body is not None:
            tril_lines = [f"    data = _{mode}_tril_values({args})"]
            lines += [
                f"def _{mode}_tril_values({args}):",
                '    """J\'s entries on and below the diagonal alone, in order."""',
                *tril_body,
                f"    return {values}",
                "",
                "",
            ]
        return [
            *CSR_HELPERS,
            "",
            "",
            f"{pattern} = _csr_pattern({full.id}, {pointers.id}, {shape!r})",
            f"{pattern}_TRIL = _csr_pattern({low.id}, {low_pointers.id}, {shape!r})",
            "",
            "",
            *lines,
            f"def {mode}({args}):",
            doc,
            f"    data = {inner}({args})",
            *filled,
            f"    return _csr({pattern}, data)",
            "",
            "",
            f"def {mode}_tril({args}):",
            tril_doc,
            *tril_lines,
            f"    return _csr({pattern}_TRIL, {tril_python})",
        ]
    if program is None:
        raise DGraphError("a symmetric JAX module is printed from its statements: a bug")
    full_at = ranked if compact else take
    return _symmetric_jax(w, mode, args, doc, tril_doc, program, values, coordinates, shape,
                          (full_at, None if compact else lower))  # fmt: skip


def _symmetric_jax(
    w: Writer,
    mode: str,
    args: str,
    doc: str,
    tril_doc: str,
    program: ArrayProgram,
    values: str,
    coordinates,
    shape,
    positions: tuple[np.ndarray, np.ndarray | None],
) -> list[str]:
    """A symmetric J's JAX functions: ``{mode}`` (every entry) and ``{mode}_tril`` (the
    lower ones), each one jitted function whose values vector is the program's at
    ``positions`` (None: all of it) — from :data:`~.gathers.GATHER_FROM` entries on with
    the gather pushed into the statements that assemble a whole vector
    (:func:`~.gathers.gathered`: an entry above the diagonal is computed as its mirror
    image is, bit for bit; a compact vector's gathered as it is, unless
    :data:`~.gathers.PUSH_COMPACT`), below it the entries that move scattered —, and a
    BCOO made from its tree structure around them (no check per call: the pattern was
    checked here)."""
    rows, cols = coordinates
    n = shape[0]
    lower = rows >= cols
    full = _pattern(w, rows, cols, n, n)[0].id
    low = _pattern(w, rows[lower], cols[lower], n, n)[0].id
    programs = []
    for at in positions:
        statements, result = program.statements, values
        if at is None or np.array_equal(at, np.arange(at.size)):
            pass
        elif rows.size >= GATHER_FROM and (positions[1] is not None or PUSH_COMPACT):
            statements, result = gathered(program, values, at, w.constants)
        else:  # XLA's scatter of the few entries that move (a compact vector: one gather)
            whole = positions[1] is not None and at.size == rows.size  # else a compact vector
            moved = np.flatnonzero(at != np.arange(at.size)) if whole else at
            result = f"{values}[{w.constants.index(at).id}]"
            if moved.size < at.size:
                index = w.constants.index
                result = f"{values}.at[{index(moved).id}].set({values}[{index(at[moved]).id}])"
        programs.append((statements, result))
    functions: list[str] = []
    jits: list[str] = []
    for name, (statements, result) in zip((mode, f"{mode}_tril"), _passes(w, program, programs),
                                          strict=True):  # fmt: skip
        definition, jit = jitted(
            f"_{name}_arrays", args, [*w.printed(statements), f"    return {result}"], w.constants
        )
        functions += [*definition, "", ""]
        jits.append(jit)
    # a BCOO's tree structure holds its shape and flags, not its entries: made from one
    made = (
        "jax.tree_util.tree_structure(jsparse.BCOO(_ONE_ENTRY, shape={s!r},"
        " indices_sorted=True, unique_indices=True))"
    )
    return [
        BOUND,
        "",
        "",
        *functions,
        *jits,
        f"_INDICES = jax.device_put({full})",
        f"_TRIL_INDICES = jax.device_put({low})",
        "_ONE_ENTRY = jax.device_put((numpy.zeros(1), numpy.zeros((1, 2), numpy.int32)))",
        "_BCOO = " + made.format(s=shape),
        "_TRIL_BCOO = " + made.format(s=shape),
        "",
        "",
        f"def {mode}({args}):",
        doc,
        f"    return jax.tree_util.tree_unflatten(_BCOO, (_{mode}_arrays({args}), _INDICES))",
        "",
        "",
        f"def {mode}_tril({args}):",
        tril_doc,
        f"    data = _{mode}_tril_arrays({args})",
        "    return jax.tree_util.tree_unflatten(_TRIL_BCOO, (data, _TRIL_INDICES))",
    ]


def _passes(
    w: Writer, program: ArrayProgram, made: list[tuple[list[ArrayStatement], str]]
) -> list[tuple[list[ArrayStatement], str]]:
    """The JAX functions ``made`` (each its statements and its result's expression) after
    the gather composition, the grid search and the constant folding, run once on their
    statements merged (:mod:`.jax_pair`: the functions of a symmetric J share all but a
    few), or on each alone where they cannot be merged."""
    joined = merged(made)
    if joined is None:
        return [_passed(w, program, statements, result) for statements, result in made]
    statements, results, renames = joined
    statements, _ = _passed(w, program, statements, " ".join(results))
    return split(statements, results, renames)


def _passed(
    w: Writer, program: ArrayProgram, statements: list[ArrayStatement], result: str
) -> tuple[list[ArrayStatement], str]:
    """``statements`` after the JAX passes, the names in ``result`` kept: gathers
    composed with the moves they read (:mod:`.jax_moves`, :mod:`.jax_spreads`), then
    grids as slices (:mod:`.grid_jax`), then constants folded."""
    ends = set(re.findall(r"\w+", result))
    statements = composed_gathers(dataclasses.replace(program, statements=statements),
                                  w.constants, ends)  # fmt: skip
    statements = spread_gathers(dataclasses.replace(program, statements=statements), w.constants)
    statements = grid_gathers(dataclasses.replace(program, statements=statements), w.constants)
    return _constants_folded(w, statements, ends), result


def _hoist(
    statements: list[ArrayStatement], varying: set[str], ends: set[str]
) -> tuple[list[ArrayStatement], list[ArrayStatement]]:
    """The statements whose targets are not ``varying`` (read no input, directly or
    through another statement; :meth:`Writer.varies`) but not those of the results
    ``ends``, and the rest, each in program order."""
    kept = varying | ends
    hoisted = [s for s in statements if s.target not in kept]
    return hoisted, [s for s in statements if s.target in kept]


def _fold(
    w: Writer, hoisted: list[ArrayStatement], body: list[ArrayStatement]
) -> list[ArrayStatement]:
    """Constant folding: the statements that read no input are evaluated here, once
    (:class:`~dgraph.codegen.evaluate.ArrayEvaluator`, with the module's own array
    module), and the values the rest reads become module constants (the index arrays only
    they read are dropped). JAX's are computed in doubles, in one jitted program whose
    arguments are the constants (not op by op), and kept as NumPy arrays."""
    if not hoisted:
        return body
    read = set().union(*(_reads(s) for s in body)) if body else set()
    wanted = [h.target for h in hoisted if h.target in read]
    if not wanted:
        return body
    computed = _evaluated(w, hoisted, wanted)
    folded_names = {t: w.constants.add(v).id for t, v in zip(wanted, computed, strict=True)}
    return [
        ArrayStatement(
            s.target,
            ir.renamed(s.value, folded_names),
            tuple(ir.renamed(a, folded_names) for a in s.at),
        )
        for s in body
    ]


def _reads(s: ArrayStatement) -> set[str]:
    """The names a statement reads: its value's and a store's places'."""
    return set(ir.names_in(s.value)).union(*(ir.names_in(a) for a in s.at))


def _evaluated(w: Writer, statements: list[ArrayStatement], wanted: list[str]) -> list:
    """The values of ``wanted`` after ``statements``, which read only module constants,
    as NumPy arrays, computed with the module's own array module (JAX's in doubles, in
    one jitted program whose arguments are the constants, not op by op; by NumPy where it
    gives XLA's bits, :func:`~.exact_fold.numpy_exact`)."""
    targets = {s.target for s in statements}
    names = sorted(set().union(*(_reads(s) for s in statements)) - targets)
    arrays = [w.constants.arrays[n] for n in names]
    if w.d.lang != "jax" or numpy_exact(statements):
        try:
            env = dict(zip(names, arrays, strict=True))
            env.update(_evaluated_before(w, statements))
            rest = [s for s in statements if s.target not in env]
            env = ArrayEvaluator().run(rest, env)
            return [np.asarray(env[t]) for t in wanted]
        except IndexError:  # JAX clamps an index out of range, NumPy raises
            if w.d.lang != "jax":
                raise
    import jax
    import jax.numpy as jnp
    import jax.scipy.special

    evaluator = ArrayEvaluator(jnp, jax.scipy.special)

    def folded(*values):
        env = evaluator.run(statements, dict(zip(names, values, strict=True)))
        return tuple(env[t] for t in wanted)

    with jax.enable_x64(True):  # compiled once and run once: a quick compile
        return [np.asarray(v) for v in quick_jit(jax, folded, REFERENCE_COMPILE)(*arrays)]


def _evaluated_before(w: Writer, statements: list[ArrayStatement]) -> dict[str, object]:
    """The values of ``statements`` computed before (:attr:`Writer.evaluated`, by the same
    evaluator on the same constants: the same bits) while each target is assigned once,
    each by the very statement evaluated; none where a target is assigned twice."""
    targets = [s.target for s in statements]
    if len(set(targets)) < len(targets):
        return {}
    found = {}
    for s in statements:
        known = w.evaluated.get(id(s))
        if known is not None and known[0] is s:
            found[s.target] = known[1]
    return found


def _constants_folded(
    w: Writer, statements: list[ArrayStatement], ends: set[str]
) -> list[ArrayStatement]:
    """A JAX function's statements with those that read no input (the scatters and
    gathers of constants its assembly was rewritten into, :mod:`.gathers`) computed here
    once (:func:`_fold`) and the operations on constants inside the rest too
    (:func:`_fold_gathers`): as the function's arguments (:mod:`.jit_arguments`) XLA
    would compute them on every call; embedded, it folds them at every compilation."""
    targets = {s.target for s in statements}
    varying: set[str] = set()
    for s in statements:
        read = _reads(s)
        if any(n in varying or (n not in targets and n not in w.constants.arrays) for n in read):
            varying.add(s.target)
    hoisted, rest = _hoist(statements, varying, ends)
    return _fold_gathers(w, _fold(w, hoisted, rest), gathers_only=False)


_PURE = (ir.Name, ir.Const, Index, Call, BinOp, ir.UnaryOp, ir.AsType, ir.Slice)


def _fold_gathers(
    w: Writer, body: list[ArrayStatement], gathers_only: bool = True
) -> list[ArrayStatement]:
    """The gathers inside a statement that read only constants (``K1[K2] * v``: a
    constant block's values at a product's pairs; without ``gathers_only`` any
    operation on constants alone), evaluated here once and made module constants,
    instead of gathered again on every call."""
    constant = set(w.constants.arrays)
    found: dict[Node, Node] = {}
    holding: set[int] = set()  # the statements a node was found in
    for k, s in enumerate(body):
        stack = list(s.value.children())
        while stack:
            n = stack.pop()
            names = ir.names_in(n)
            if (
                names
                and names <= constant
                and (whole := list(ir.walk(n)))  # walked only where it reads constants
                and (not gathers_only or any(isinstance(k, Index) for k in whole))
                and all(isinstance(k, _PURE) for k in whole)
            ):
                found[n] = n
                holding.add(k)
            else:
                stack.extend(n.children())
    if not found:
        return body
    values: dict[Node, np.ndarray] = {}
    rest = []  # JAX: the nodes that compute (not only move entries), in one program
    for n in found:
        statement = [ArrayStatement("_g", n)]
        if w.d.lang == "jax" and not numpy_exact(statement):
            rest.append(n)
        else:
            values[n] = _evaluated(w, statement, ["_g"])[0]
    if rest:
        wanted = [f"_g{k}" for k in range(len(rest))]
        statements = [ArrayStatement(t, n) for t, n in zip(wanted, rest, strict=True)]
        values.update(zip(rest, _evaluated(w, statements, wanted), strict=True))
    made = {n: w.constants.add(values[n]) for n in found}
    # a statement whose walk found nothing holds no such node below its value (each
    # node there was asked), so only its value itself may be one: not rebuilt (its
    # walk and hashing, node by node, was a fifth of a long unrolled program's build)
    return [
        dataclasses.replace(
            s,
            value=ir.substituted(s.value, made) if k in holding else made.get(s.value, s.value),
        )
        for k, s in enumerate(body)
    ]


def live_statements(statements: list[ArrayStatement], results: list[str]) -> list[ArrayStatement]:
    """The statements whose names the ``results`` read (vertex values no block reads
    go)."""
    used = set(results)
    kept: list[ArrayStatement] = []
    for s in reversed(statements):
        if s.target in used:
            kept.append(s)
            used.update(ir.names_in(s.value))
    return kept[::-1]


def argument_name(x: str) -> str:
    base = re.sub(r"\W", "_", x)
    return base if base.isidentifier() and not keyword.iskeyword(base) else f"arg_{base}"


def _refuse_large(w: Writer, valued: Valued, looped: bool = False) -> None:
    """One line where the statements ``valued``'s values read would hold more array
    entries at once than :data:`~.footprint.PEAK_MOST` (:mod:`.footprint`), before the
    cancellation pass, the code check or a call evaluates them; ``looped``: counted with
    their runs of large stacked arrays a slice at a time (:mod:`.slice_loops`), as the
    pass (:mod:`.slices`) and the code (:func:`_chunked`: all but C's and a loop body's)
    compute them. Not counted where the entries every statement so far makes, summed
    once (:func:`~.footprint.entries_at_most`), are within the bound already."""
    if valued is None or isinstance(valued[0], RunTime):
        return
    at_most = entries_at_most(w.statements, functools.partial(_constant_shape, w), w.total)
    if at_most is not None and at_most <= PEAK_MOST:  # no part of the program holds more
        return
    values = valued[1]
    parts = values.parts if isinstance(values, Terms) else ((None, values),)
    found = needed_statements(w, [data for _, data in parts])
    if found is None:
        return
    order, arguments, argument_shapes = found
    shapes = dict(w.constants.shapes)
    shapes.update((n, np.shape(a)) for n, a in w.constants.arrays.items())
    shapes.update((a, tuple(argument_shapes[a])) for a in arguments)
    statements = [w.statements[k] for k in order]
    reads = set().union(*(ir.names_in(data) for _, data in parts if isinstance(data, Node)))
    found = chunked(statements, tuple(arguments), shapes, reads, w.constants) if looped else None
    refuse_large_program(found or statements, shapes, "the derivative's code", w.footprint)


def _constant_shape(w: Writer, name: str) -> tuple | None:
    """The shape of the module constant ``name`` (None: not a constant)."""
    if name in w.constants.arrays:
        return np.shape(w.constants.arrays[name])
    return w.constants.shapes.get(name)


def read_input(d: Dialect, target: str, argument: str, shape: tuple[int, ...]) -> ArrayStatement:
    """``target``: the argument as an array of ``shape`` (doubles, for NumPy)."""
    keywords = (("dtype", ir.Const(float)),) if d.lang == "python" else ()
    read = Call("asarray", (Name(argument),), keywords)
    return ArrayStatement(target, Call("reshape", (read, ir.Const(tuple(shape)))))


def extra_values(
    w: Writer, extra: Sequence[ArrayOp], names: dict[str, Node], shapes, loop=None
) -> list[str]:
    """The names of the values of ``extra``, operations no derivative reaches over the
    graph's inputs and vertices (a body's outputs of that kind: a counter, a mask, a
    branch's index, a nested loop's or cond's value), each assigned after the vertices.
    A nested region is emitted as a vertex's is (:func:`~.regions.region_value`, a
    cond by :func:`~.branches.emit_cond`); ``loop(op, args)``: how a loop's value is
    emitted instead (a matrix-free sweep's own loops, :mod:`.loop_sweeps`)."""
    return [_operand_text(w, op, names, shapes, loop).id for op in extra]  # each a Name


def _operand_text(w: Writer, x: object, names: dict[str, Node], shapes, loop=None) -> Node:
    """A vertex's name, a constant's, or a nested operation's value (iteratively: each
    nested operation assigned first, innermost first; ``loop``: :func:`extra_values`)."""
    if isinstance(x, str):
        return names[x]
    if isinstance(x, Const):
        return w.constants.add(x.value)
    pending: list[tuple[ArrayOp, bool]] = [(x, False)]  # type: ignore[list-item]
    done: dict[int, Node] = {}
    while pending:
        op, ready = pending.pop()
        if id(op) in done:
            continue
        rule = rule_parts(op) if w.rule_values else None  # a custom rule's: f alone
        if not ready:
            pending.append((op, True))
            pending += [(y, False) for y in (rule[:1] if rule else op.operands)
                        if isinstance(y, ArrayOp)]  # fmt: skip
            continue
        if rule is not None:
            f = rule[0]
            done[id(op)] = (
                done[id(f)] if isinstance(f, ArrayOp) else _operand_text(w, f, names, shapes)
            )
            continue
        args = [
            done[id(y)] if isinstance(y, ArrayOp) else _operand_text(w, y, names, shapes)
            for y in op.operands
        ]
        if loop is not None and op.primitive == "loop":
            node = loop(op, args)
        elif is_region(op):  # a loop's result no derivative reaches (a mask it stacks)
            node = region_value(w, op, args, _body_program(w))
        else:
            arg_shapes = [operand_shape(y, shapes) for y in op.operands]
            node = forward_expression(
                op, args, arg_shapes, False, w.constants.index, w.emit, w.d.lang
            )
        done[id(op)] = w.emit(node)
    return done[id(x)]


def forward_node(w: Writer, op: ArrayOp, names, shapes, top: bool) -> Node:
    rule = rule_parts(op) if w.rule_values else None
    if rule is not None:  # a custom rule's output: the primal's value, never t + (f - t)
        return _operand_text(w, rule[0], names, shapes)
    args = [_operand_text(w, x, names, shapes) for x in op.operands]
    if is_region(op):  # a loop: its statement once, each output an item of it
        return region_value(w, op, args, _body_program(w))
    arg_shapes = [operand_shape(x, shapes) for x in op.operands]
    return forward_expression(op, args, arg_shapes, top, w.constants.index, w.emit, w.d.lang)


def jacobian_keys(es: ExpressionSet) -> list[tuple[str, str]]:
    """The (output, input) pairs of the dense blocks :func:`tensor_program` returns, in
    its order: those ``es`` computes, then (every pair asked) the rest."""
    graph = es.graph
    keys = list((es.as_computed or es).jacobian)
    if es.pairs is None:
        keys += [(y, x) for y in graph.outputs for x in graph.inputs if (y, x) not in keys]
    return keys


def _body_program(w: Writer):
    """A loop body's dense value-and-Jacobian program (the body graph accumulated
    forward), and its blocks' (output, input) pairs in result order."""

    def made(graph, extra: Sequence[ArrayOp]) -> tuple[ArrayProgram, list]:
        es = accumulate(graph, "forward")
        program = tensor_program(
            es,
            w.d.lang,
            False,
            "value_and_jacobian",
            keep_arrays=True,
            extra=extra,
            sparse_products=w.sparse_products,
            body=True,
        )
        return program, jacobian_keys(es)

    def program_of(graph, extra: Sequence[ArrayOp] = ()) -> tuple[ArrayProgram, list]:
        """Made once per code generation call (:func:`~..scope.made_once`): each writer
        of a loop or a branch (the module's, a sweep's, a check's, an enclosing body's
        built again) reads the same body's program, never changed by its readers."""
        extra = tuple(extra)
        key = ("body", id(graph), graph.version, w.d.lang, w.sparse_products, *map(id, extra))
        program, keys = made_once(key, (graph, extra), lambda: made(graph, extra))
        return program, list(keys)

    return program_of


def leaf_value(w: Writer, ops: BlockOps, graph, edge, names, shapes) -> Valued:
    """The edge's block and values: its operand positions' blocks summed (edge_values)."""
    u, v = edge
    op = graph.op(v)
    arg_shapes = [operand_shape(x, shapes) for x in op.operands]
    args = [_operand_text(w, x, names, shapes) for x in op.operands]
    total: Valued = None
    positions = [k for k in op.differentiable() if op.operands[k] == u]
    for k in positions:  # one position: the graph's own block, the object pricing read
        block = graph.block(u, v) if len(positions) == 1 else operand_block(op, k, arg_shapes)
        if is_region(op):
            node = region_block(w, op, k, block, args, _body_program(w))
            if node is None:
                continue
        else:
            node = leaf_values(op, k, block, args, arg_shapes, w.emit, w.constants.index, w.d.lang)
        ones = isinstance(node, ir.Call) and node.func == "ones"  # a move's values
        if ir.number(node) is None:
            node = w.emit(node, f"d_{v}_{u}")
        if ones and isinstance(node, Name):
            ops.ones.add(node.id)
        if isinstance(node, Name) and len(positions) == 1 and _one_hot(op, k, arg_shapes):
            ops.onehots[node.id] = (op, args[1], True)  # multiplied as a gather (dynamic_gathers)
        if isinstance(block, Applied) and isinstance(node, Name):  # applied by its rules
            result = names[v] if v in names else w.emit(forward_node(w, op, names, shapes, True))
            ops.rules[node.id] = (op, k, args, result)
        total = (block, node) if total is None else ops.add(total, (block, node))
    if len(positions) > 1 and total is not None and isinstance(total[1], Node):
        # the sum under a name of its own: a walk renames a temporary it returns
        # (Writer.rename), and this one stays cached in the leaves, read by later walks
        total = (total[0], w.rename(total[1], f"d_{v}_{u}"))
    return total


def _one_hot(op, k: int, shapes) -> bool:
    """Whether the values of ∂op/∂(operand k) are a take's or a scatter-add's union
    one-hot over (input position, output position) along its axis, which a product
    multiplies as a gather or a segment sum (:mod:`.dynamic_gathers`)."""
    return swept(op, k, shapes) and not op.param.get("along")


def _readers(computed: ExpressionSet, keys) -> Counter:
    """How many definitions (of references, then of the entries ``keys``) read each
    reference."""
    expressions = [*computed.references.values()]
    expressions += [e for k in keys if (e := computed.jacobian.get(k)) is not None]
    refs = computed.references.keys()
    return Counter(s for e in expressions for s in e.free_symbols if s in refs)


def _forget_read(expr, readers: Counter, known: dict) -> None:
    """``expr`` walked: each reference it read let go after its last reader (a block
    and its values' positions, 10⁷ indices each at 10⁶ unknowns, held no longer than
    needed: the walks' peak memory, each GB of it first touched at some second of
    system time)."""
    for s in expr.free_symbols:
        if s in readers:
            readers[s] -= 1
            if readers[s] == 0:
                known.pop(s, None)


def _walk(expr, known, edges, leaf, ops: BlockOps, w: Writer, name: str | None) -> Valued:
    """``expr`` over blocks, bottom up without recursion (``block_values._evaluate``)."""
    done: dict[sympy.Basic, Valued] = {}
    order = post_order(expr)
    uses = Counter(a for e in order if not e.is_Symbol for a in e.args if not a.is_Number)
    for e in order:
        if e.is_Symbol:
            done[e] = known[e] if e in known else leaf(edges[e])
        elif e.is_Add:
            total: Valued = None
            for term in e.args:
                total = ops.add(total, done[term])
            done[e] = total
        else:
            done[e] = _product(e, done, ops)
        if not e.is_Symbol:  # a block read for the last time is let go (10⁷ indices each)
            for a in e.args:
                uses[a] -= 1
                if uses[a] == 0 and a is not expr:
                    done.pop(a, None)
    result = done[expr]
    if (
        name is not None
        and result is not None
        and isinstance(result[1], Node)  # parts not yet summed stay parts
        and ir.number(result[1]) is None
        and not (isinstance(result[1], Name) and result[1].id in ops.held)  # read again
    ):
        result = (result[0], w.rename(result[1], name))  # the reference by its own name
    return result


def _product(e: sympy.Expr, done, ops: BlockOps) -> Valued:
    coefficient = 1.0
    factors: list[Valued] = []
    for f in e.args:
        if f.is_Number:
            coefficient *= float(f)
        else:
            factors.append(done[f])
    if coefficient == 0 or any(f is None for f in factors):
        return None
    _, _, tree = chain_product([f[0] for f in factors])  # type: ignore[index]
    return ops.scale(along_bracketing(tree, factors, ops.multiply), coefficient)


def _over_its_shapes(ops: BlockOps, valued: Valued) -> Valued:
    """A run-time permutation with a reshape taken in as its union between the reshapes
    (the output and the input's shapes: what the entry's assembly reads); any other
    entry as it is."""
    if valued is None or not isinstance(valued[0], Permutation) or valued[0].plain:
        return valued
    return ops.materialize(structural_of(ops, *valued))


DENSE_ENTRY = 10**8  # entries of one dense Jacobian entry (800 MB of doubles)


def output_node(w: Writer, valued: Valued, y_shape, x_shape) -> Node:
    """One dense Jacobian entry, of shape ``y.shape + x.shape``, from its block; refused
    in one line past :data:`DENSE_ENTRY` entries (a loop body's block over a carry of
    n² entries, n⁴ dense, was a MemoryError)."""
    m, n = math.prod(y_shape), math.prod(x_shape)
    if m * n > DENSE_ENTRY:
        raise InputError(
            f"a dense Jacobian entry of {m:,} × {n:,} = {m * n:,} entries, over"
            f" {DENSE_ENTRY:,} (a loop body's block over what it carries: the loop's"
            " blocks are held dense there): ask for jvp or vjp, or make the arrays smaller"
        )
    shape = ir.Const((*y_shape, *x_shape))
    if valued is None:
        return Call("zeros", (shape,))
    block, values = structural_valued(*valued)  # a permutation: its union pattern
    rows, cols, at = entries(block)
    found = delta_form(w.d.lang, block, values, shape.value)
    if found is not None:
        w.deltas[id(found[0])] = found  # its pattern, kept by the program (Writer.block)
        return found[0]
    flat = rows * n + cols
    if _repeats(flat, m * n):
        raise DGraphError("a block's pattern lists an entry twice")  # not by construction
    data = values_at(w.constants, block, values, at)
    if fills(flat, m * n):
        return Call("reshape", (data, shape))
    return Call("reshape", (Scatter(m * n, w.constants.index(flat), data), shape))


def _repeats(flat: np.ndarray, size: int) -> bool:
    """Whether ``flat`` (positions below ``size``, at most :data:`DENSE_ENTRY`) holds one
    twice: a mask of the dense entry, O(size) (NumPy 2.4's hashed ``np.unique`` took 4.0
    CPU-s for the 4·10⁶ entries of a dense 2,000 × 2,000 entry, the mask 0.01)."""
    seen = np.zeros(size, dtype=bool)
    seen[flat] = True
    return int(np.count_nonzero(seen)) != flat.size


def _sparse_parts(
    w: Writer, graph, entries_of: dict, shapes, symmetric: bool = False
) -> tuple[Node, tuple[Name, Name | None] | None, tuple[int, int], tuple[np.ndarray, np.ndarray]]:
    """The whole Jacobian as one sparse matrix: every entry's pattern placed at its
    output's rows and input's columns, sorted row-major once here; per call the values
    are read in that order (no gather where a single block is already in it). Its values,
    pattern (constants' names: NumPy's column indices and row pointers, JAX's (row,
    column) pairs), shape, and the pattern's rows and columns; where no entry has a
    block, the empty matrix and no pattern. ``symmetric`` (a Hessian): an entry whose
    mirror image has no block is dropped (:func:`~.triangle.mirrored_entries`; an implicit
    Euler step's solve gave the gradient's entry of an unknown the solve never reads a
    dense row of the others)."""
    size = {v: math.prod(shapes[v]) for v in (*graph.outputs, *graph.inputs)}
    (row_at, m), (col_at, n) = offsets(graph.outputs, size), offsets(graph.inputs, size)
    rows, cols, parts = [], [], []
    for (y, x), valued in entries_of.items():
        if valued is None:
            continue
        block, values = structural_valued(*valued)  # a permutation: its union pattern
        r, c, at = entries(block)
        rows.append(r + row_at[y])
        cols.append(np.add(c, col_at[x], dtype=np.int64))  # a block's may be int32
        parts.append((block, values, at))
    if not parts:
        empty = np.zeros(0, dtype=np.int64)
        return SparseMatrix(None, None, None, (m, n)), None, (m, n), (empty, empty)
    rows_all, cols_all = (rows[0], cols[0]) if len(rows) == 1 else map(np.concatenate, (rows, cols))
    keys = rows_all * max(n, 1) + cols_all
    ordered = keys.size < 2 or bool(np.all(keys[1:] > keys[:-1]))  # a sparse block's is
    order = None if ordered else np.argsort(keys, kind="stable")  # None: as they are
    del keys
    if len(parts) == 1:
        block, values, at = parts[0]
        data = values_at(w.constants, block, values, at if order is None else at[order])
    else:
        pieces = tuple(values_at(w.constants, b, v, at) for b, v, at in parts)
        data = Call("concatenate", (ir.Seq(pieces),))
        if order is not None and not fills(order, order.size):
            data = Index(w.emit(data), (w.constants.index(order),))
    if order is not None:
        rows_all, cols_all = rows_all[order], cols_all[order]
    mirrored = mirrored_entries(rows_all, cols_all, n, m - n) if symmetric and m >= n else None
    if mirrored is not None:
        data = Index(w.emit(data), (w.constants.index(mirrored),))
        rows_all, cols_all = rows_all[mirrored], cols_all[mirrored]
    pattern = _pattern(w, rows_all, cols_all, m, n)
    return data, pattern, (m, n), (rows_all, cols_all)


def _pattern(
    w: Writer, rows: np.ndarray, cols: np.ndarray, m: int, n: int | None = None
) -> tuple[Name, Name | None]:
    """A row-major sparse pattern as module constants: NumPy's column indices and row
    pointers (CSR), JAX's (row, column) pairs (BCOO). ``n``, where known: the number of
    columns, so that indices below 2³¹ are made int32 here, as
    :meth:`~.constants.Constants.index` would store them, without its pass for their
    least and greatest (10⁷ entries at 10⁶ unknowns)."""
    made = w.__dict__.setdefault("patterns", {})  # by the arrays: the whole J's made twice
    found = made.get((id(rows), id(cols), m, n))  # (its values' pattern, then its mirror's)
    if found is not None and found[0] is rows and found[1] is cols:
        return found[2]  # the constants' names the same arrays would be given again
    narrow = n is not None and max(m, n) <= 2**31
    if w.d.lang == "python":
        indptr = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=m))])
        named = (
            w.constants.index(cols.astype(np.int32) if narrow else cols),
            w.constants.index(indptr),
        )
    elif not narrow:
        named = w.constants.index(np.stack([rows, cols], axis=1)), None
    else:
        pairs = np.empty((rows.size, 2), dtype=np.int32)
        pairs[:, 0], pairs[:, 1] = rows, cols
        named = w.constants.index(pairs), None
    made[(id(rows), id(cols), m, n)] = (rows, cols, named)  # the arrays held: ids stay theirs
    return named


def _single(graph) -> bool:
    """Whether the graph has one output and one input (its Jacobian is one block)."""
    return len(graph.outputs) == len(graph.inputs) == 1


def one_or_tuple(items: list[str]) -> str:
    """One item's text alone, several as a tuple's (``jax.jacobian``'s rule for
    ``argnums``)."""
    return items[0] if len(items) == 1 else f"({', '.join(items)})"


def nested(outputs, inputs, item) -> str:
    """The text of the pytree ``jax.jacobian(f, argnums=(0, 1, ...))`` returns, each
    (output, input) position ``item(y, x)``: one item alone, a tuple over the inputs (one
    output) or the outputs (one input), else a tuple over the outputs of tuples over the
    inputs."""
    return one_or_tuple([one_or_tuple([item(y, x) for x in inputs]) for y in outputs])


def block_entries(
    rows: np.ndarray, cols: np.ndarray, row_sizes: list[int], col_sizes: list[int]
) -> list[list[tuple[np.ndarray, np.ndarray, np.ndarray]]]:
    """A stacked sparse pattern (``rows``, ``cols``: its entries' coordinates, row-major)
    cut into blocks, the rows in parts of ``row_sizes``, the columns of ``col_sizes``: per
    row part and column part, the positions of its entries in the stacked pattern and
    their rows and columns within the block (row-major still)."""
    row_part = np.searchsorted(np.cumsum(row_sizes), rows, side="right")
    col_part = np.searchsorted(np.cumsum(col_sizes), cols, side="right")
    row_at = np.concatenate([[0], np.cumsum(row_sizes)])
    col_at = np.concatenate([[0], np.cumsum(col_sizes)])
    cuts = []
    for i in range(len(row_sizes)):
        in_rows = row_part == i
        cut = []
        for j in range(len(col_sizes)):
            at = np.flatnonzero(in_rows & (col_part == j))
            cut.append((at, rows[at] - row_at[i], cols[at] - col_at[j]))
        cuts.append(cut)
    return cuts


def _split(w: Writer, graph, mode: str, args: str, coordinates: tuple, shapes) -> list[str]:
    """The lines of ``mode(*inputs)`` on a sparse module's ``{mode}_stacked``: its values
    read per (output, input) block (a slice where they lie together, else one gather),
    each block a matrix of shape (y.size, x.size) with its own pattern, computed here;
    F the stacked F cut per output and shaped. JAX's reads are one jitted function and
    its patterns device arrays made once (run op by op, each call would copy every index
    array to the device: ten times the stacked matrix's time)."""
    rows, cols = coordinates
    size = {v: math.prod(shapes[v]) for v in (*graph.outputs, *graph.inputs)}
    row_at, _ = offsets(graph.outputs, size)
    printer = w.d.printer
    value = mode == MODULE_MODES[1]
    jax_code = w.d.lang == "jax"
    language, kind = ("JAX", "BCOO") if jax_code else ("NumPy", "SciPy CSR")
    what = "F(x), J" if value else "J"
    sizes = ([size[y] for y in graph.outputs], [size[x] for x in graph.inputs])
    cuts = block_entries(rows, cols, *sizes)
    reads: list[Node] = []  # the nonempty blocks' values, read from the stacked ones
    blocks: dict[tuple[str, str], tuple[int, tuple[Name, Name | None]] | None] = {}
    for y, row in zip(graph.outputs, cuts, strict=True):
        for x, (at, r, c) in zip(graph.inputs, row, strict=True):
            if at.size == 0:
                blocks[(y, x)] = None
                continue
            if at[-1] - at[0] + 1 == at.size:  # together: a view, no gather
                reads.append(Index(Name("data"), (ir.Slice(int(at[0]), int(at[-1]) + 1),)))
            else:
                reads.append(Index(Name("data"), (w.constants.index(at),)))
            blocks[(y, x)] = (len(reads) - 1, _pattern(w, r, c, size[y]))
    before: list[str] = []
    read_name = f"_{mode}_blocks"
    if jax_code and reads:
        devices: dict[str, str] = {}
        for entry in blocks.values():
            if entry is not None and entry[1][0].id not in devices:
                devices[entry[1][0].id] = f"{entry[1][0].id}_device"
        before = [
            f"def {read_name}(data):",
            '    """The blocks\' values, read from the stacked ones (jitted once)."""',
            f"    return ({', '.join(printer.doprint(r) for r in reads)},)",
            "",
            "",
            f"{read_name} = jax.jit({read_name})",
            *(f"{d} = jax.device_put({k})" for k, d in devices.items()),
            "",
            "",
        ]
        blocks = {
            key: None if e is None else (e[0], (Name(devices[e[1][0].id]), None))
            for key, e in blocks.items()
        }
    lines = [
        f"def {mode}({args}):",
        f'    """{what}: d y / d x for the inputs {tuple(graph.inputs)!r} ({language}; {kind}'
        ' blocks)."""',
        f"    {'F, J' if value else 'J'} = {mode}_stacked({args})",
    ]
    if jax_code and reads:
        lines.append(f"    data = {read_name}(J.data)")
    elif reads:
        lines.append("    data = J.data")
    names: dict[tuple[str, str], str] = {}
    for (y, x), entry in blocks.items():
        shape = (size[y], size[x])
        name = w.name(f"J_{argument_name(y)}_{argument_name(x)}")
        if entry is None:
            matrix = SparseMatrix(None, None, None, shape)
        else:
            k, pattern = entry
            part = Index(Name("data"), (ir.Const(k),)) if jax_code else reads[k]
            matrix = SparseMatrix(part, *pattern, shape)
        lines.append(printer.statement(ArrayStatement(name, matrix)))
        names[(y, x)] = name
    jacobian = nested(graph.outputs, graph.inputs, lambda y, x: names[(y, x)])
    if not value:
        return [*before, *lines, f"    return {jacobian}"]
    parts = []
    for y in graph.outputs:
        cut = ir.Slice(row_at[y], row_at[y] + size[y])
        shaped = Call("reshape", (Index(Name("F"), (cut,)), ir.Const(tuple(shapes[y]))))
        parts.append(printer.doprint(shaped))
    return [*before, *lines, f"    return {one_or_tuple(parts)}, {jacobian}"]


def _value_output(w: Writer, graph, names: dict[str, Node], shapes, sparse: bool) -> list[Name]:
    """F(x): each output's value (a copy, NumPy's) in ``graph.outputs`` order, or (sparse)
    one vector, the outputs flattened and concatenated in the Jacobian's row order."""
    values = {}
    for y in graph.outputs:
        node, shape = names[y], ir.Const(tuple(shapes[y]))
        if w.d.lang == "jax":
            values[y] = Call("reshape", (Call("asarray", (node,)), shape))
        else:  # a copy
            copy = Call("array", (node,), (("dtype", ir.Const(float)),))
            values[y] = Call("reshape", (copy, shape))
    if not sparse:
        one = len(values) == 1
        return [w.emit(v, "F" if one else f"F_{argument_name(y)}") for y, v in values.items()]
    flat = tuple(Call("ravel", (v,)) for v in values.values())
    joined = flat[0] if len(flat) == 1 else Call("concatenate", (ir.Seq(flat),))
    return [w.emit(joined, "F")]


def _header(
    w: Writer, es: ExpressionSet, lang: str, sparse: bool, shapes, mode: str, body: str
) -> str:
    graph = es.graph
    ends = {v: shapes[v] for v in (*graph.inputs, *graph.outputs)}
    special = "special." in body or (lang == "python" and f"{HELPER}(" in body)
    title = f"{graph.name or 'graph'}: {mode} (dgraph codegen, tensor graph, method {es.method})"
    title += made_at(graph)
    title = title.replace("\\", "/").replace('"', "'")
    value = "F(x), J" if mode == "value_and_jacobian" else "J"
    block = (
        "a SciPy CSR array of shape (y.size, x.size)"
        if sparse and lang == "python"
        else "a BCOO array of shape (y.size, x.size)"
        if sparse
        else "an array of shape y.shape + x.shape"
    )
    returns = [
        f"{mode}(*INPUTS) returns {value} as jax.jacobian(f, argnums=(0, 1, ...)) does:",
        "for one output and one input the block d y / d x, for one output a tuple over",
        "the inputs, for one input a tuple over the outputs, else a tuple over OUTPUTS of",
        f"tuples over INPUTS; each block {block}.",
    ]
    if mode == "value_and_jacobian":
        returns.append("F is the output's array, or a tuple over OUTPUTS.")
    if sparse:
        returns += [
            f"{mode}_stacked(*INPUTS) returns {value} with J one sparse matrix (Σ size(y),",
            "Σ size(x)): rows OUTPUTS, columns INPUTS, each flattened in C order"
            + ("; F the outputs" if value != "J" else "."),
            *(["flattened and concatenated in its row order."] if value != "J" else []),
        ]
    lines = [
        f'"""{title}',
        "",
        "Generated by dgraph; do not edit.",
        *returns,
        "One statement per array operation and per block operation; index arrays are",
        "computed once, when the code was generated.",
        '"""',
        "",
        *w.d.imports(sparse or w.constants.needs_scipy_sparse, special, "scipy.linalg." in body),
        "",
        f"INPUTS = {tuple(graph.inputs)!r}",
        f"OUTPUTS = {tuple(graph.outputs)!r}",
        f"SHAPES = {ends!r}",
        "",
    ]
    return "\n".join(lines + module_tail(w, body)) + "\n"


def module_tail(w: Writer, body: str) -> list[str]:
    """What a module needs after its header: the decoder of its index constants, the
    scatter helper where a statement calls it, and the constants themselves."""
    lines: list[str] = []
    if start := w.d.at_import():
        lines += ["", *start]
    if w.constants.needs_decoder:
        lines += ["", decoder(w.d.lang), ""]
    helpers = w.d.helpers()
    if helpers and ("_scatter" in body or "_grid(" in body):
        lines += ["", *helpers, ""]
    if w.d.lang == "python" and "_strips(" in body:
        lines += ["", *STRIPS_HELPER, ""]  # a run done block by block (.numpy_strips)
    if w.d.lang == "jax" and ("_conv(" in body or "_conv_adjoint(" in body):
        lines += ["", *JAX_HELPERS, ""]  # a convolution's sweep (.convolution.ConvSweep)
    if w.d.lang == "jax" and (runners := loop_helpers(body)):
        lines += [*runners, ""]  # each loop and switch jitted once (..jaxcode.LOOP_HELPERS)
    if found := helper_lines(w.d.lang, body):  # Lambert's W (..lambertw_code)
        lines += ["", *found]
    return [*lines, "", *w.constants.lines, "", ""]
