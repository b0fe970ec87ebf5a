"""A dense Jacobian (and ``value_and_jacobian``) with loops by columns of its tangent
program, where the loops' own Jacobian sweeps count more.

A loop region's block is built by a sweep over its steps (:mod:`.regions`): the tangent
sweep carries a column per entry of the region's active operands (or per colour of
them, :mod:`.loop_columns`), the adjoint sweep a row per entry of its carries
(:func:`~.loop_blocks.chain_choice`). In the gradient graph of a time loop the reverse
loop's operands are the residuals JAX stacks, T·n·n entries once an inner sum loop is a
map, so the region's sweep carries far more columns than the n entries of the input:
``forces`` at n = 30, 10 steps, counts 1.4·10⁹ fma there. The whole Jacobian is also
the tangent program (:func:`~.sweeps.jvp_program`, the graph's ``jvp``, whose loops run
the body's own tangent program each step, no Jacobian formed) applied to the n columns
of the identity: forward-over-reverse for a Hessian (Griewank and Walther, *Evaluating
Derivatives*, 2nd ed., SIAM 2008, ch. 5). :func:`columns_choice` prices both by counts,
never by timing: the loops' sweeps' fma (the sweep each region's code runs, the tangent
one at its colours' count) against n times the tangent program's multiplications
(:func:`~dgraph.codegen.array_passes.count_array_ops`, each loop's body once per step);
the Jacobian is built by columns where the first is larger. The rest of the graph's
block products are not counted on the region side (the choice leans to the loops'
sweeps).

Why columns of the whole program and not the region seeded with its operands' Jacobian
(``D ← J_c·D + J_k·S_k + J_x·S_x`` with ``S_k = ∂k/∂x``, n columns: the same chain
product bracketed from the right, seed 002): the region's code computes its own blocks,
``∂(output)/∂(operand)``, which the elimination of the graph then multiplies with the
rest (:mod:`dgraph.codegen.tensor.module` reads each edge's block from the loop); its
seeds ``S`` are constant identity columns passed in. Seeding with ``∂k/∂x`` would make
the region's block ``∂(output)/∂x``, a different edge of a different graph (the operands'
edges eliminated first, forward, in the code rather than the expression set), and the
residuals' Jacobian ``∂k/∂x`` (T·n·n × n) would be formed in the forward loop's code
first. The tangent program already is that bracketing, matrix-free: each residual's
tangent is made where it is used. So the existing ``jvp`` program is applied to the
identity's columns, and the result is checked by the one check of a dense ``jacobian``
(:func:`~.check.check_tensor`), as the region's code is.

In NumPy the module's ``jacobian`` calls ``jvp`` once per column; in JAX it maps ``jvp``
over all the columns at once (``jax.vmap``: one sweep carrying n tangents, jitted). The
NumPy tangent program has no trailing column axis (a tangent is a block of its vertex's
shape, :mod:`.sweeps`), so its columns are its calls. ``value_and_jacobian`` (a
Hessian's ``value_gradient_hessian``) reads the outputs' values from the same sweeps.
Not by columns: a sparse Jacobian (its pattern is the walk of the expression set the
loops' code is), C and CUDA (their dense products), graphs whose loops are all
``while_loop``s or ``cond``s (not priced).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from ...core.graph import DGraph
from ...core.regions import regions_of
from ..array_passes import ArrayCount, count_array_ops
from ..counting import Ops
from .jit_arguments import BOUND
from .loop_blocks import chain_choice
from .loop_columns import loop_colours, operand_columns
from .regions import read_outputs
from .sweeps import jvp_module, jvp_program, jvp_sweep, sweep_module

__all__ = ["ColumnsChoice", "columns_choice", "columns_module", "region_fma"]


@dataclass(frozen=True)
class ColumnsChoice:
    """The dense Jacobian's two prices: ``region_fma``, the loops' Jacobian sweeps;
    ``columns`` times ``jvp``, the tangent program's count (its ``mults`` priced)."""

    region_fma: int
    columns: int
    jvp: ArrayCount
    sweep: Any = field(default=None, compare=False, repr=False)
    """The NumPy ``jvp`` sweep the count was taken of (:func:`~.sweeps.jvp_sweep`):
    :func:`columns_module` prints it rather than building it again (None: built there)."""

    @property
    def mults(self) -> int:
        """The columns' multiplications: ``columns`` tangent programs."""
        return self.columns * self.jvp.ops.mults

    @property
    def chosen(self) -> bool:
        """Whether the Jacobian is built by columns: the loops' sweeps count more."""
        return self.region_fma > self.mults

    @property
    def ops(self) -> ArrayCount:
        """The columns' operations, all kinds (``columns`` times the tangent program's)."""
        k, o = self.columns, self.jvp.ops
        return ArrayCount(Ops(o.mults * k, o.adds * k, o.divs * k, o.calls * k, o.compares * k))

    def note(self) -> str:
        """The choice in one sentence (the generated function's docstring)."""
        columns = (
            f"{self.columns} columns of the tangent program"
            f" ({self.columns} × {self.jvp.ops.mults:,} = {self.mults:,} mults)"
        )
        sweeps = f"the loops' Jacobian sweeps ({self.region_fma:,} fma)"
        if self.chosen:
            return f"Jacobian by {columns}, fewer than {sweeps}"
        return f"Jacobian by {sweeps}, fewer than {columns}"


def region_fma(graph: DGraph) -> int | None:
    """The fma of the Jacobian sweeps the code of ``graph``'s loop regions runs (each
    ``scan`` region's, priced as :mod:`.regions` sweeps it: the adjoint where
    :func:`~.loop_blocks.chain_choice` takes it, else the tangent sweep over its columns'
    colours, :func:`~.loop_columns.loop_colours`, the outputs the graph reads and every
    carry); None where the graph has no such region."""
    reads = read_outputs(graph)
    total, seen = None, set()
    for _, r in regions_of(graph):
        if id(r) in seen or r.kind != "scan":
            continue
        seen.add(id(r))
        columns = operand_columns(r)
        width = columns[-1][1] if columns else 0
        if not width:
            continue
        choice = chain_choice(r, width)
        if choice["sweep"] == "adjoint":
            fma = choice["adjoint fma"]
        else:
            read = reads.get(id(r), set())
            needed = [j < r.n_carry or j in read for j in range(len(r.out_shapes))]
            found = loop_colours(r, columns, needed)
            held = int(found[0].max()) + 1 if found is not None else width
            fma = choice["tangent fma"] // width * held
        total = (total or 0) + fma
    return total


def columns_choice(graph: DGraph) -> ColumnsChoice | None:
    """The two prices of ``graph``'s dense Jacobian (:class:`ColumnsChoice`), or None
    where it has no ``scan`` region or the tangent program's count is not complete (a
    ``while_loop``'s trips are known only when it runs): then the loops' sweeps."""
    fma = region_fma(graph)
    if fma is None:
        return None
    columns = sum(math.prod(graph.shape(x)) for x in graph.inputs)
    sweep = jvp_sweep(graph)
    count = count_array_ops(jvp_program(graph, sweep)[0])
    if not columns or not count.complete:
        return None
    return ColumnsChoice(fma, columns, count, sweep)


def columns_module(graph: DGraph, lang: str, choice: ColumnsChoice, mode: str = "jacobian") -> str:
    """The ``jvp`` module of ``graph`` (:func:`~.sweeps.sweep_module`, NumPy or JAX)
    ending with ``jacobian(*inputs, *parameters)`` (``mode="value_and_jacobian"``:
    ``value_and_jacobian``, the outputs' values too, from the same sweeps): J in
    ``jax.jacobian``'s layout, its columns ``jvp`` along each column of the identity
    (NumPy: one call per column; JAX: ``jax.vmap`` over all of them, jitted). The NumPy
    ``jvp`` of a ``jacobian`` is the sweep ``choice`` priced, not built again."""
    values = mode == "value_and_jacobian"
    if lang == "python" and not values and choice.sweep is not None:  # the one priced
        text = jvp_module(graph, choice.sweep).text
    else:
        text = sweep_module(graph, "jvp", lang, values=values, jit=False).text  # jitted below
    inputs = [f"x{k}" for k in range(len(graph.inputs))]
    params = [f"p{k}" for k in range(len(graph.parameter_shapes))]
    splits, at = [], 0
    for x in graph.inputs:
        shape = tuple(graph.shape(x))
        splits.append((at, at + math.prod(shape), shape))
        at += math.prod(shape)
    outputs = tuple(tuple(graph.shape(y)) for y in graph.outputs)
    n_in, m = len(graph.inputs), len(graph.outputs)
    if m == 1 and n_in == 1:
        layout = "rows[0][0]"
    elif m == 1:
        layout = "rows[0]"
    elif n_in == 1:
        layout = "tuple(row[0] for row in rows)"
    else:
        layout = "tuple(rows)"
    xp = "numpy" if lang == "python" else "jnp"
    name = mode if lang == "python" else f"_{mode}"
    what = "F(x), J" if values else "J"
    lines = [
        "",
        "",
        f"_COLUMN_SPLITS = {tuple(splits)!r}  # per input: its columns of the identity, shape",
        f"_COLUMN_OUTPUTS = {outputs!r}  # per output: its shape",
        "",
        "",
        f"def {name}({', '.join([*inputs, *params])}):",
        f'    """{what}: d y / d x for the inputs {tuple(graph.inputs)!r} by columns, jvp'
        f' along each of the {at} columns of the identity. {choice.note()}."""',
        f"    inputs, params = ({''.join(f'{a}, ' for a in inputs)}), "
        f"({''.join(f'{p}, ' for p in params)})",
        f"    seeds = {xp}.eye({at})",
    ]
    if lang == "python":
        lines += [
            "    found = []",
            f"    for j in range({at}):  # one tangent sweep per column",
            "        tangents = [",
            "            numpy.reshape(seeds[j, lo:hi], s) for lo, hi, s in _COLUMN_SPLITS",
            "        ]",
            "        found.append(jvp(*inputs, *tangents, *params))",
        ]
        if values:  # each call: the m values, then the m tangents
            lines += [
                f"    vals = found[0][:{m}]",
                f"    parts = [[f[{m} + i] for f in found] for i in range({m})]",
            ]
        else:
            lines.append(f"    parts = [found] if {m} == 1 else list(zip(*found))")
        lines.append(
            "    stacked = [numpy.stack([numpy.ravel(c) for c in p], axis=1) for p in parts]"
        )
    else:
        lines += [
            f"    tangents = [jnp.reshape(seeds[:, lo:hi], ({at}, *s)) for lo, hi, s in"
            " _COLUMN_SPLITS]",
            "    found = jax.vmap(lambda *t: jvp(*inputs, *t, *params))(*tangents)",
        ]
        if values:  # the values the same in every column: the first's
            lines += [
                f"    vals = [v[0] for v in found[:{m}]]",
                f"    parts = list(found[{m}:])",
            ]
        else:
            lines.append(f"    parts = [found] if {m} == 1 else list(found)")
        lines.append(f"    stacked = [jnp.reshape(p, ({at}, -1)).T for p in parts]")
    lines += [
        "    rows = [",
        f"        tuple({xp}.reshape(m[:, lo:hi], (*y, *s)) for lo, hi, s in _COLUMN_SPLITS)",
        "        for m, y in zip(stacked, _COLUMN_OUTPUTS)",
        "    ]",
    ]
    if values:
        lines += [
            f"    vals = [{xp}.reshape(v, y) for v, y in zip(vals, _COLUMN_OUTPUTS)]",
            f"    return {'vals[0]' if m == 1 else 'tuple(vals)'}, {layout}",
        ]
    else:
        lines.append(f"    return {layout}")
    lines.append("")
    if lang != "python":  # jitted once per precision, reading narrowed arrays with x64 off
        lines += ["", f"{mode} = _bound(_{mode})", ""]
        if "def _bound(" not in text:
            lines[:0] = ["", "", *BOUND.split("\n")]
    lines += ["", f"MODE = {mode!r}", ""]
    return text.rstrip("\n") + "\n" + "\n".join(lines)
