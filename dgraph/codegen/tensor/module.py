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

import contextlib
import keyword
import math
import re
from collections import Counter

import numpy as np
import sympy

from ...blocks import RECENT
from ...blocks.arrays import ArrayOp, Const, operand_block
from ...core.block_costs import along_bracketing, chain_product, post_order
from ...core.block_values import program_order
from ...core.expressions import ExpressionSet
from ...errors import DGraphError
from .blockops import BlockOps, Valued, _fills, entries, values_at
from .check import offsets
from .constants import DECODER, Constants
from .dialect import DIALECTS, Dialect
from .forward import forward_expression, operand_shape
from .fuse import fold_permutations
from .leaves import leaf_values

__all__ = ["tensor_module"]


class _Writer:
    """The function body being printed: statements, fresh names, module constants."""

    def __init__(self, dialect: Dialect) -> None:
        self.d = dialect
        self.lines: list[str] = []
        self.constants = Constants()
        self.taken: set[str] = set()
        self.count = 0
        self.varying: set[str] = set()  # names whose values read an input

    def varies(self, text: str) -> bool:
        """Whether an expression reads an input, directly or through a statement."""
        return bool(self.varying & set(re.findall(r"\w+", text)))

    def name(self, hint: str) -> str:
        base = re.sub(r"\W", "_", hint)
        if not base or base[0].isdigit() or keyword.iskeyword(base):
            base = f"_{base}"
        name, k = base, 1
        while name in self.taken:
            name, k = f"{base}_{k}", k + 1
        self.taken.add(name)
        return name

    def rename(self, value: str, hint: str) -> str:
        """``value`` under a name of its own: the last statement renamed where it made
        ``value`` as a temporary, else a new assignment."""
        last = self.lines[-1] if self.lines else ""
        if not re.fullmatch(r"t\d+", value):
            return value  # already a name of its own (a leaf's, a vertex's)
        if last.startswith(f"    {value} = "):
            self.taken.discard(value)
            name = self.name(hint)
            self.lines[-1] = f"    {name} = {last[len(value) + 7 :]}"
            if value in self.varying:
                self.varying.add(name)
            return name
        return self.emit(value, hint)

    def emit(self, expression: str, hint: str | None = None) -> str:
        if hint is None:
            self.count += 1
            hint = f"t{self.count}"
        name = self.name(hint)
        self.lines.append(f"    {name} = {expression}")
        if self.varies(expression):
            self.varying.add(name)
        return name


def tensor_module(
    es: ExpressionSet, lang: str = "python", sparse: bool = False, mode: str = "jacobian"
) -> str:
    """The text of a NumPy (``lang="python"``) or JAX module defining ``mode(*inputs)``
    (``jacobian`` or ``value_and_jacobian``) for the tensor graph of ``es``.

    Dense, the Jacobian is a dict of every (output, input) block, arrays of shape
    ``y.shape + x.shape`` (and the value a dict ``{y: array}``). With ``sparse`` it is one
    SciPy CSR array (NumPy) or BCOO array (JAX) of shape (Σ size(y), Σ size(x)): rows the
    outputs in ``graph.outputs`` order, columns the inputs in ``graph.inputs`` order, each
    flattened in C order (and the value the outputs flattened and concatenated in the same
    order, what a Newton step solves against). Its pattern is computed here once; per
    call only values are. Statements that read no input (the values of constant blocks
    and their products and sums) are run here, once, and their values become module
    constants (:func:`_fold`; JAX's computed in doubles).

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
        d_y_x = (1.0 * (numpy.exp(x_)))
        J_y_x = _scatter(16, _K0, numpy.ravel(d_y_x)).reshape((4, 4))
        return {('y', 'x'): J_y_x}
    """
    graph = es.graph
    if not graph.is_tensor:
        raise DGraphError("tensor_module takes an expression set of a tensor graph")
    if lang not in DIALECTS:
        raise DGraphError(f"tensor graphs: code in python or jax, not {lang!r}")
    if mode not in MODULE_MODES:
        raise DGraphError(f"tensor_module: mode {mode!r}; use {', '.join(MODULE_MODES)}")
    computed = es.as_computed or es
    w = _Writer(DIALECTS[lang])
    shapes = {v: graph.shape(v) for v in graph.nx}
    edges = graph.edge_symbols
    # which edges and so which vertex values the entries read
    used_edges = []
    for expr in (*computed.references.values(), *computed.jacobian.values()):
        used_edges += [edges[s] for s in expr.free_symbols if s in edges]
    order = program_order(graph)
    needed = {v for _, v in used_edges for v in graph.op(v).vertices()}
    if mode == "value_and_jacobian":
        needed.update(y for y in graph.outputs if graph.op(y) is not None)
    for v in reversed(order):
        if v in needed and graph.op(v) is not None:
            needed.update(graph.op(v).vertices())
    arguments = {x: w.name(_arg(x)) for x in graph.inputs}
    names = {x: w.name(f"{arguments[x]}_") for x in graph.inputs}
    for x in graph.inputs:
        w.lines.append(f"    {names[x]} = {_read_input(w.d, arguments[x], shapes[x])}")
    w.varying.update([*arguments.values(), *(names[x] for x in graph.inputs)])
    for v in order:
        if v in needed and graph.op(v) is not None:
            names[v] = w.emit(_forward(w, graph.op(v), names, shapes, top=True), f"v_{v}")
    ops = BlockOps(w.d, w.constants, w.emit, w.varies)
    leaves: dict[tuple[str, str], Valued] = {}

    def leaf(edge: tuple[str, str]) -> Valued:
        if edge not in leaves:
            leaves[edge] = _leaf(w, ops, graph, edge, names, shapes)
        return leaves[edge]

    known: dict[sympy.Basic, Valued] = {}
    for ref, definition in computed.references.items():
        known[ref] = _walk(definition, known, edges, leaf, ops, w, str(ref))
    keys = list(computed.jacobian)
    if es.pairs is None:
        keys += [(y, x) for y in graph.outputs for x in graph.inputs if (y, x) not in keys]
    entries_of = {}
    for y, x in keys:
        entry = computed.jacobian.get((y, x))
        entries_of[(y, x)] = ops.materialize(
            None if entry is None else _walk(entry, known, edges, leaf, ops, w, None)
        )
    known.clear()  # what the walks made and the entries do not hold (10⁷ indices a block)
    leaves.clear()
    RECENT.clear()
    outside = None  # JAX's sparse pattern: a device array made once, outside the values
    if sparse and lang == "jax":
        found = _sparse_parts(w, graph, entries_of, shapes)
        if isinstance(found, str):
            results = [w.emit(found, "J")]
        else:
            data, outside, shape = found
            results = [w.emit(data, "J_data")]
    elif sparse:
        results = [w.emit(_sparse_output(w, graph, entries_of, shapes), "J")]
    else:
        results = [
            w.emit(_output(w, entries_of[(y, x)], shapes[y], shapes[x]), f"J_{y}_{x}")
            for y, x in keys
        ]
    value = _value_output(w, graph, names, shapes, sparse) if mode == MODULE_MODES[1] else None

    def returned_line(once: set[str]) -> str:
        """The return statement; a result computed at import is copied per call (the
        caller may change it)."""

        def fresh(r: str) -> str:
            return f"{r}.copy()" if r in once else r

        j = (
            fresh(results[0])
            if sparse
            else "{"
            + ", ".join(f"{k!r}: {fresh(r)}" for k, r in zip(keys, results, strict=True))
            + "}"
        )
        return f"    return {j}" if value is None else f"    return {fresh(value)}, {j}"

    args = ", ".join(arguments.values())
    kind = "one sparse matrix" if sparse else "dense blocks"
    language = "NumPy" if lang == "python" else "JAX"
    what = "F(x), J" if value is not None else "J"
    doc = (
        f'    """{what}: d y / d x for the inputs {tuple(graph.inputs)!r} ({language}; {kind})."""'
    )
    ends = [*results, *([value] if value else [])]
    live = _live(w.lines, ends)
    hoisted, body = _hoist(live, w.varying, set(ends))
    body = _fold(w, hoisted, body, special=any("special." in line for line in live))
    body = _common(body, set(ends))
    if lang == "jax" and not sparse:  # dense JAX output: products built in the order read
        body = fold_permutations(body, " ".join(ends))
    once = {r for r in ends if r not in w.varying}  # results that read no input
    returned = returned_line(once if lang == "python" else set())
    if outside is None:
        lines = [f"def {mode}({args}):", doc, *body, returned]
    else:
        lines = _outside_pattern(mode, args, doc, body, returned, outside[0], shape, value)
    used = set(re.findall(r"\w+", "\n".join(lines)))
    w.constants.keep(used)
    header = _header(w, es, lang, sparse, keys, shapes, mode)
    return header + "\n".join(lines) + "\n"


def _outside_pattern(
    mode: str, args: str, doc: str, body, returned: str, pattern: str, shape, value
) -> list[str]:
    """A JAX sparse module's lines: the values (and F) one jitted function, the BCOO
    made around them with the pattern's indices, a device array made once at import —
    returned from a jitted function they would be copied out on every call (as much
    memory traffic as the values themselves)."""
    inner = f"_{mode}_arrays"
    called = f"{inner}({args})"
    return [
        f"def {inner}({args}):",
        f'    """The values of J{" and F" if value else ""} (jitted once: {mode})."""',
        *body,
        returned,
        "",
        "",
        f"{inner} = jax.jit({inner})",
        f"_INDICES = jnp.asarray({pattern})",
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


def _hoist(lines: list[str], varying: set[str], ends: set[str]) -> tuple[list[str], list[str]]:
    """The statements whose targets are not ``varying`` (read no input, directly or
    through another statement; :meth:`_Writer.varies`) but not those of the results
    ``ends``, and the rest, each in program order."""
    kept = varying | ends
    hoisted = [line for line in lines if _target(line) not in kept]
    return hoisted, [line for line in lines if _target(line) in kept]


def _target(line: str) -> str:
    return line.strip().partition(" = ")[0]


def _fold(w: _Writer, hoisted: list[str], body: list[str], special: bool) -> list[str]:
    """Constant folding: the statements that read no input are run here, once, and the
    values the rest reads become module constants (the index arrays only they read are
    dropped). JAX's are computed in doubles and kept as NumPy arrays."""
    if not hoisted:
        return body
    read = set(re.findall(r"\w+", "\n".join(body)))
    wanted = [_target(h) for h in hoisted if _target(h) in read]
    if not wanted:
        return body
    mentioned = set(re.findall(r"\w+", "\n".join(hoisted)))
    constants = [c for c in w.constants.lines if c.partition(" = ")[0] in mentioned]
    jax_code = w.d.lang == "jax"
    if jax_code:  # one compiled program, the constants its arguments (not op by op)
        names = [c.partition(" = ")[0] for c in constants]
        statements = [
            f"def _folded({', '.join(names)}):",
            *(f"    {h.strip()}" for h in hoisted),
            f"    return ({', '.join(wanted)},)",
        ]
    else:
        statements = [h.strip() for h in hoisted]
    text = "\n".join(
        [
            *DIALECTS["python"].imports(True, special),
            *w.d.imports(True, special),
            DECODER,
            *w.d.helpers(),
            *constants,
            *statements,
        ]
    )
    namespace: dict = {}
    context = contextlib.nullcontext()
    if jax_code:
        import jax

        context = jax.enable_x64(True)
    with context:
        exec(compile(text, "<dgraph constant folding>", "exec"), namespace)
        if jax_code:
            values = jax.jit(namespace["_folded"])(*(namespace[n] for n in names))
            namespace.update(zip(wanted, values, strict=True))
        folded = {t: w.constants.add(np.asarray(namespace[t])) for t in wanted}
    namespace.clear()  # its functions' globals are itself: a cycle the collector frees late
    return [_renamed(line, folded) for line in body]


def _common(lines: list[str], ends: set[str]) -> list[str]:
    """Common subexpressions: a statement computing what an earlier one did (up to a
    factor 1.0 and parentheses: an elementwise derivative that is the operation's value,
    exp's) reads the earlier name instead."""
    seen: dict[str, str] = {}
    alias: dict[str, str] = {}
    out = []
    for line in lines:
        line = _renamed(line, alias)
        target, _, expression = line.strip().partition(" = ")
        key = _bare(expression)
        if key in seen and target not in ends:
            alias[target] = seen[key]
            continue
        seen.setdefault(key, target)
        out.append(line)
    return out


def _bare(expression: str) -> str:
    """An expression without the outer parentheses and factors 1.0 the printers add."""
    while True:
        before = expression
        if expression.startswith("1.0 * "):
            expression = expression[6:]
        if expression.startswith("(") and expression.endswith(")") and _balanced(expression[1:-1]):
            expression = expression[1:-1]
        if expression == before:
            return expression


def _balanced(text: str) -> bool:
    depth = 0
    for c in text:
        depth += (c == "(") - (c == ")")
        if depth < 0:
            return False
    return depth == 0


def _renamed(line: str, names: dict[str, str]) -> str:
    """``line`` with the names in ``names`` replaced, outside string literals."""
    parts = re.split(r"('[^']*')", line)
    for i in range(0, len(parts), 2):
        parts[i] = re.sub(r"\b\w+\b", lambda m: names.get(m.group(0), m.group(0)), parts[i])
    return "".join(parts)


def _live(lines: list[str], results: list[str]) -> list[str]:
    """The statements whose names the ``results`` read (vertex values no block reads
    go)."""
    used = set(results)
    kept: list[str] = []
    for line in reversed(lines):
        target, _, expression = line.strip().partition(" = ")
        if target in used:
            kept.append(line)
            used.update(re.findall(r"\w+", expression))
    return kept[::-1]


def _arg(x: str) -> str:
    base = re.sub(r"\W", "_", x)
    return base if base.isidentifier() and not keyword.iskeyword(base) else f"arg_{base}"


def _read_input(d: Dialect, argument: str, shape: tuple[int, ...]) -> str:
    if d.lang == "python":
        return f"numpy.reshape(numpy.asarray({argument}, dtype=float), {shape!r})"
    return f"jnp.reshape(jnp.asarray({argument}), {shape!r})"


def _operand_text(w: _Writer, x: object, names: dict[str, str], shapes) -> str:
    """A vertex's name, a constant's, or a nested operation's value (iteratively: each
    nested operation assigned first, innermost first)."""
    if isinstance(x, str):
        return names[x]
    if isinstance(x, Const):
        return w.constants.add(x.value)
    pending: list[tuple[ArrayOp, bool]] = [(x, False)]  # type: ignore[list-item]
    done: dict[int, str] = {}
    while pending:
        op, ready = pending.pop()
        if id(op) in done:
            continue
        if not ready:
            pending.append((op, True))
            pending += [(y, False) for y in op.operands if isinstance(y, ArrayOp)]
            continue
        args = [
            done[id(y)] if isinstance(y, ArrayOp) else _operand_text(w, y, names, shapes)
            for y in op.operands
        ]
        arg_shapes = [operand_shape(y, shapes) for y in op.operands]
        done[id(op)] = w.emit(forward_expression(op, args, arg_shapes, w.d, top=False))
    return done[id(x)]


def _forward(w: _Writer, op: ArrayOp, names, shapes, top: bool) -> str:
    args = [_operand_text(w, x, names, shapes) for x in op.operands]
    arg_shapes = [operand_shape(x, shapes) for x in op.operands]
    return forward_expression(op, args, arg_shapes, w.d, top)


def _leaf(w: _Writer, ops: BlockOps, graph, edge, names, shapes) -> Valued:
    """The edge's block and values: its operand positions' blocks summed (edge_values)."""
    u, v = edge
    op = graph.op(v)
    arg_shapes = [operand_shape(x, shapes) for x in op.operands]
    args = [_operand_text(w, x, names, shapes) for x in op.operands]
    total: Valued = None
    for k in op.differentiable():
        if op.operands[k] != u:
            continue
        block = operand_block(op, k, arg_shapes)
        text = leaf_values(op, k, block, args, arg_shapes, w.d, w.emit, w.constants.index)
        if not _is_number(text):
            text = w.emit(text, f"d_{v}_{u}")
        total = (block, text) if total is None else ops.add(total, (block, text))
    return total


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _walk(expr, known, edges, leaf, ops: BlockOps, w: _Writer, name: str | None) -> Valued:
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
        and isinstance(result[1], str)  # parts not yet summed stay parts
        and not _is_number(result[1])
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


def _output(w: _Writer, valued: Valued, y_shape, x_shape) -> str:
    """One dense Jacobian entry, of shape ``y.shape + x.shape``, from its block."""
    m, n = math.prod(y_shape), math.prod(x_shape)
    shape = (*y_shape, *x_shape)
    xp = w.d.xp
    if valued is None:
        return f"{xp}.zeros({shape!r})"
    block, values = valued
    rows, cols, at = entries(block)
    deltas = _delta_form(w, block, values, shape)
    if deltas is not None:
        return deltas
    flat = rows * n + cols
    if np.unique(flat).size != flat.size:
        raise DGraphError("a block's pattern lists an entry twice")  # not by construction
    if _fills(flat, m * n):
        return f"{xp}.reshape({values_at(w.d, w.constants, block, values, at)}, {shape!r})"
    data = values_at(w.d, w.constants, block, values, at)
    return f"{w.d.scatter(m * n, w.constants.index(flat), data)}.reshape({shape!r})"


def _sparse_output(w: _Writer, graph, entries_of: dict, shapes) -> str:
    """The whole Jacobian as one sparse matrix: every entry's pattern placed at its
    output's rows and input's columns, sorted row-major once here; per call the values
    are read in that order (no gather where a single block is already in it)."""
    found = _sparse_parts(w, graph, entries_of, shapes)
    return found if isinstance(found, str) else w.d.sparse(*found)


def _sparse_parts(
    w: _Writer, graph, entries_of: dict, shapes
) -> str | tuple[str, tuple[str, str], tuple[int, int]]:
    """:func:`_sparse_output`'s values, pattern (constants' names) and shape; the empty
    matrix's text where no entry has a block."""
    size = {v: math.prod(shapes[v]) for v in (*graph.outputs, *graph.inputs)}
    (row_at, m), (col_at, n) = offsets(graph.outputs, size), offsets(graph.inputs, size)
    rows, cols, parts = [], [], []
    for (y, x), valued in entries_of.items():
        if valued is None:
            continue
        block, values = valued
        r, c, at = entries(block)
        rows.append(r + row_at[y])
        cols.append(c + col_at[x])
        parts.append((block, values, at))
    if not parts:
        return w.d.empty_sparse((m, n))
    rows_all, cols_all = np.concatenate(rows), np.concatenate(cols)
    keys = rows_all * max(n, 1) + cols_all
    ordered = keys.size < 2 or bool(np.all(keys[1:] > keys[:-1]))  # a sparse block's is
    order = np.arange(keys.size) if ordered else np.argsort(keys, kind="stable")
    if len(parts) == 1:
        block, values, at = parts[0]
        data = values_at(w.d, w.constants, block, values, at[order])
    else:
        pieces = [values_at(w.d, w.constants, b, v, at) for b, v, at in parts]
        data = f"{w.d.xp}.concatenate([{', '.join(pieces)}])"
        if not _fills(order, order.size):
            data = f"{w.emit(data)}[{w.constants.index(order)}]"
    rows_all, cols_all = rows_all[order], cols_all[order]
    if w.d.lang == "python":
        indptr = np.concatenate([[0], np.cumsum(np.bincount(rows_all, minlength=m))])
        pattern = (w.constants.index(cols_all), w.constants.index(indptr))
    else:
        pattern = (w.constants.index(np.stack([rows_all, cols_all], axis=1)), "")
    return data, pattern, (m, n)


def _value_output(w: _Writer, graph, names, shapes, sparse: bool) -> str:
    """F(x): the outputs' values, a dict ``{y: array}``, or (sparse) flattened and
    concatenated in the Jacobian's row order."""
    xp = w.d.xp
    values = {}
    for y in graph.outputs:
        text = names[y]
        values[y] = f"{xp}.array({text}, dtype=float).reshape({shapes[y]!r})"  # a copy
        if w.d.lang == "jax":
            values[y] = f"{xp}.reshape({xp}.asarray({text}), {shapes[y]!r})"
    if not sparse:
        return w.emit("{" + ", ".join(f"{y!r}: {t}" for y, t in values.items()) + "}", "F")
    flat = [f"{xp}.ravel({t})" for t in values.values()]
    joined = flat[0] if len(flat) == 1 else f"{xp}.concatenate([{', '.join(flat)}])"
    return w.emit(joined, "F")


def _delta_form(w: _Writer, block, values: str, shape: tuple[int, ...]) -> str | None:
    """A labelled block whose axes each read one label without offset, no label on more
    than two axes, as its values broadcast times an identity per label shared by two axes
    (a batch's block diagonal: ``eye(512)[:, :, None] * v[None]``). A scatter into zeros
    of the same size is several times slower under XLA on a CPU; None where the form does
    not fit (the scatter then). JAX only: NumPy's broadcast would be read-only."""
    from ...blocks import Labelled

    if w.d.lang != "jax" or not isinstance(block, Labelled):  # NumPy: a writable array
        return None
    axes = (*block.out_axes, *block.in_axes)
    labels = [a[0][0] if len(a[0]) == 1 and a[1] == 0 else None for a in axes]
    if any(k is None or block.sizes[k] != n for k, n in zip(labels, shape, strict=True)):
        return None
    where: dict[int, list[int]] = {}
    for p, k in enumerate(labels):
        where.setdefault(k, []).append(p)
    if any(len(ps) > 2 for ps in where.values()) or any(k not in where for k in block.value):
        return None
    xp = w.d.xp
    first = [where[k][0] for k in block.value]
    order = sorted(range(len(first)), key=lambda i: first[i])
    text = values
    if order != list(range(len(order))):
        text = f"{xp}.transpose({text}, {tuple(order)!r})"
    kept = {where[k][0]: block.sizes[k] for k in block.value}
    spread = tuple(kept.get(p, 1) for p in range(len(shape)))  # one value: all ones, or ()
    text = f"{xp}.reshape({text}, {spread!r})"
    for ps in where.values():
        if len(ps) == 2:
            n = shape[ps[0]]
            at = tuple(n if p in ps else 1 for p in range(len(shape)))
            text = f"{text} * {xp}.reshape({xp}.eye({n}, dtype={xp}.result_type({values})), {at!r})"
    return f"{xp}.broadcast_to({text}, {shape!r})"


def _header(w: _Writer, es: ExpressionSet, lang: str, sparse: bool, keys, shapes, mode: str) -> str:
    graph = es.graph
    ends = {v: shapes[v] for v in (*graph.inputs, *graph.outputs)}
    special = any("special." in line for line in w.lines)
    title = f"{graph.name or 'graph'}: {mode} (dgraph codegen, tensor graph, method {es.method})"
    title = title.replace("\\", "/").replace('"', "'")
    value = "F(x), J" if mode == "value_and_jacobian" else "J"
    returns = (
        f"{mode}(*INPUTS) returns {value} with J one sparse matrix (Σ size(y), Σ size(x)):"
        " rows OUTPUTS, columns INPUTS, each flattened."
        if sparse
        else f"{mode}(*INPUTS) returns {value} with J = {{(y, x): d y / d x}}, arrays of"
        " shape y.shape + x.shape."
    )
    lines = [
        f'"""{title}',
        "",
        f"Generated by dgraph; do not edit. {returns}",
        "One statement per array operation and per block operation; index arrays are",
        "computed once, when the code was generated.",
        '"""',
        "",
        *w.d.imports(sparse, special),
        "",
        f"INPUTS = {tuple(graph.inputs)!r}",
        f"OUTPUTS = {tuple(graph.outputs)!r}",
        f"SHAPES = {ends!r}",
        f"KEYS = {tuple(keys)!r}",
        "",
    ]
    return "\n".join(lines + module_tail(w)) + "\n"


def module_tail(w: _Writer) -> list[str]:
    """What a module needs after its header: the decoder of its index constants, the
    scatter helper where a statement calls it, and the constants themselves."""
    lines: list[str] = []
    if w.constants.needs_decoder:
        lines += ["", DECODER, ""]
    helpers = w.d.helpers()
    if helpers and any("_scatter" in line for line in w.lines):
        lines += ["", *helpers, ""]
    return [*lines, "", *w.constants.lines, "", ""]
