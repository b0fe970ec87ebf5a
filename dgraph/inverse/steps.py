"""LumpStep Jacobians ((A, B), (0, I)) and their inverses ((A⁻¹, −A⁻¹B), (0, I)), same sparsity.

Pearlmutter & Siskind (2.5)–(2.6): a step that overwrites the slot of one of
its arguments has a Jacobian that is the identity but for the written row (a on the
diagonal, b where it reads another slot); its inverse has the same sparsity (1/a and
−b/a). A lump that consumes l values and reads k − l others has blocks A (l×l) and B
(l×(k−l)), inverted with one small dense solve (2.6h). The Jacobian's determinant is the
product of the det A, so a singular block means a singular Jacobian: reported with the
step that has it.

A :class:`Linearization` holds the blocks at a point (numbers, from the graph's vertex
expressions and local partials compiled with ``sympy.lambdify``) or as sympy expressions;
the sweeps in :mod:`dgraph.inverse.sweeps` read nothing else.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import sympy

from ..core.graph import DGraph, vertex_symbol
from ..core.numeric import edge_values, vertex_values
from ..errors import DGraphError, GraphError
from .lumps import Lump, lump_cost, lumps, output_slots, resolve_order
from .width import SingularJacobian, check_square, width_profile

__all__ = [
    "Linearization",
    "LumpStep",
    "linearize",
    "linearize_partials",
    "linearize_symbolic",
    "local_partials",
    "step_matrices",
]


@dataclass(frozen=True, eq=False)
class LumpStep:
    """One macro step with its blocks: A = ∂produced/∂consumed, B = ∂produced/∂read."""

    lump: Lump
    A: np.ndarray
    B: np.ndarray
    A_inv: np.ndarray
    A_inv_B: np.ndarray
    setup_mults: int  # to form A, B from the local partials and invert: inner + l²k
    rows: np.ndarray = field(init=False)  # the written slots
    cols: np.ndarray = field(init=False)  # the read-only slots

    def __post_init__(self) -> None:
        """Index arrays for the sweeps' fancy indexing."""
        object.__setattr__(self, "rows", np.array(self.lump.slots, dtype=np.intp))
        object.__setattr__(self, "cols", np.array(self.lump.read_slots, dtype=np.intp))


@dataclass(frozen=True, eq=False)
class Linearization:
    """The macro steps of a square graph along one order, numerically or symbolically."""

    graph: DGraph
    order: tuple[str, ...]
    steps: tuple[LumpStep, ...]
    output_slots: tuple[int, ...]  # slot of each output, outputs in declared order
    values: dict[str, Any]  # vertex values: numbers at the point, or sympy expressions
    symbolic: bool

    @property
    def n(self) -> int:
        """The number of inputs, outputs and slots."""
        return len(self.graph.inputs)

    @property
    def lumps(self) -> list[Lump]:
        """The lumps of the order, one per step."""
        return [step.lump for step in self.steps]

    @property
    def mults(self) -> int:
        """Multiplications of one inverse sweep (or one tangent/adjoint sweep): Σ l·k."""
        return lump_cost(self.lumps).mults

    @property
    def max_l(self) -> int:
        """The largest block A (l×l)."""
        return lump_cost(self.lumps).max_l

    @property
    def setup_mults(self) -> int:
        """Multiplications to form and invert the blocks at the point, once per point."""
        return sum(step.setup_mults for step in self.steps)

    @property
    def width(self) -> list[int]:
        """The live counts along the order."""
        return width_profile(self.graph, list(self.order))


def _blocks(
    graph: DGraph, lump: Lump, partial: Callable[[str, str], Any], dtype: type
) -> tuple[np.ndarray, np.ndarray, int]:
    """A and B of a lump by forward accumulation inside it (dense rows over C ∪ S)."""
    cols = {u: j for j, u in enumerate(lump.consumed + lump.read)}
    k, rows, inner = len(cols), {}, 0
    for v in lump.vertices:
        row = np.zeros(k, dtype=dtype)
        for u in graph.nx.predecessors(v):
            c = partial(u, v)
            if u in cols:
                row[cols[u]] += c
            else:
                row = row + rows[u] * c
                inner += k
        rows[v] = row
    m = np.array([rows[p] for p in lump.produced], dtype=dtype).reshape(lump.l, k)
    return m[:, : lump.l], m[:, lump.l :], inner


def _few(names: tuple[str, ...] | list[str], most: int = 6) -> str:
    """Names for a one-line error: all of a few, else the first ``most`` and the count."""
    if len(names) <= most:
        return ", ".join(names)
    return f"{', '.join(names[:most])}, … {len(names)} in all"


def _where(t: int, lump: Lump) -> str:
    """How an error names a macro step: by its vertex, or by its lump's vertices."""
    if len(lump.vertices) == 1:
        return f"step {t} ({lump.vertices[0]})"
    return f"lump {t} ({_few(lump.vertices)})"


def _singular_scalar(t: int, lump: Lump, a: object) -> SingularJacobian:
    """The error for a 1×1 block a that is 0 (or not finite)."""
    v = lump.produced[0]
    return SingularJacobian(
        f"{_where(t, lump)} is singular: a = ∂{v}/∂{lump.consumed[0]} = {a} at this point,"
        " so the Jacobian is singular"
    )


def _numeric_inverse(t: int, lump: Lump, A: np.ndarray, B: np.ndarray):
    """A⁻¹ and A⁻¹B by one small dense solve (1/a for l = 1); singular blocks are named."""
    l = lump.l  # noqa: E741 - the paper's name
    if l == 1:
        a = A[0, 0]
        if a == 0 or not np.isfinite(a):
            raise _singular_scalar(t, lump, a)
        return np.array([[1 / a]]), B / a
    if not np.all(np.isfinite(A)) or np.linalg.matrix_rank(A) < l:
        raise SingularJacobian(
            f"{_where(t, lump)} is singular: its {l}×{l} block A = ∂({_few(lump.produced)})"
            f"/∂({_few(lump.consumed)}) has rank {np.linalg.matrix_rank(A)} at this point,"
            " so the Jacobian is singular"
        )
    solved = np.linalg.solve(A, np.hstack([np.eye(l), B]))
    return solved[:, :l], solved[:, l:]


def _symbolic_inverse(t: int, lump: Lump, A: np.ndarray, B: np.ndarray):
    """A⁻¹ and A⁻¹B as sympy expressions; a block whose determinant simplifies to 0 is named."""
    l = lump.l  # noqa: E741 - the paper's name
    if l == 1:
        a = sympy.sympify(A[0, 0])
        if a.is_zero or sympy.simplify(a) == 0:
            raise _singular_scalar(t, lump, a)
        return np.array([[1 / a]], dtype=object), B / a
    a_matrix = sympy.Matrix(A.tolist())
    if sympy.simplify(a_matrix.det()) == 0:
        raise SingularJacobian(
            f"{_where(t, lump)} is singular: its {l}×{l} block A has determinant 0, so the"
            " Jacobian is singular"
        )
    inv = a_matrix.inv()
    inv_b = inv * sympy.Matrix(l, B.shape[1], list(B.flat))
    return (
        np.array(inv.tolist(), dtype=object).reshape(l, l),
        np.array(inv_b.tolist(), dtype=object).reshape(l, B.shape[1]),
    )


def _build(
    graph: DGraph,
    order: list[str],
    partial: Callable[[str, str], Any],
    values: dict[str, Any],
    dtype: type,
    invert: Callable[[int, Lump, np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]],
    symbolic: bool,
) -> Linearization:
    """The lumps of ``order`` with their blocks from ``partial`` and inverses by ``invert``."""
    found = lumps(graph, order)
    steps = []
    for t, lump in enumerate(found, start=1):
        A, B, inner = _blocks(graph, lump, partial, dtype)
        A_inv, A_inv_B = invert(t, lump, A, B)
        steps.append(LumpStep(lump, A, B, A_inv, A_inv_B, inner + lump.l**2 * lump.k))
    return Linearization(
        graph,
        tuple(order),
        tuple(steps),
        tuple(output_slots(graph, found)),
        values,
        symbolic,
    )


def local_partials(
    graph: DGraph, point: Sequence[float]
) -> tuple[dict[str, float], dict[tuple[str, str], float]]:
    """Vertex values and local partials ∂v/∂u at ``point``; non-finite ones are named."""
    n = check_square(graph)
    point = np.asarray(point, dtype=float)
    if point.shape != (n,):
        raise DGraphError(f"the point has {point.size} values; the graph has {n} inputs")
    try:
        values = vertex_values(graph, point)
        labels = edge_values(graph, values)
    except GraphError as exc:  # core.numeric: a vertex without expression or partial
        partials = {(u, v): graph.partial(u, v) for u, v in graph.edges()}
        if any(p is None or not p.is_Number for p in partials.values()):
            raise DGraphError(str(exc)) from None
        return {}, {e: float(p) for e, p in partials.items()}
    for v, value in values.items():
        if not np.isfinite(value):
            raise DGraphError(f"vertex {v!r} has the value {value} at this point")
    found = {}
    for u, v in graph.edges():
        value = float(labels[graph.symbol(u, v)])
        if not np.isfinite(value):
            raise DGraphError(f"the local partial ∂{v}/∂{u} is {value} at this point")
        found[u, v] = value
    return {v: float(x) for v, x in values.items()}, found


def linearize(
    graph: DGraph, point: Sequence[float], order: str | Sequence[str] | None = "greedy"
) -> Linearization:
    """The macro steps of ``order`` with their blocks and inverses at ``point`` (inputs order).

    >>> from dgraph import from_trace
    >>> g = from_trace("inputs: a, b\\noutputs: y, z\\nu = a*b\\nz = b + u**2\\ny = u", "statement")
    >>> lin = linearize(g, [2.0, 3.0])
    >>> for s in lin.steps:
    ...     print(s.lump.produced, s.lump.consumed, s.lump.read, s.A.tolist(), s.B.tolist())
    ('u',) ('a',) ('b',) [[3.0]] [[2.0]]
    ('z',) ('b',) ('u',) [[1.0]] [[12.0]]
    ('y',) ('u',) () [[1.0]] [[]]
    """
    values, partials = local_partials(graph, point)
    return linearize_partials(graph, partials, order, values)


def linearize_partials(
    graph: DGraph,
    partials: dict[tuple[str, str], float],
    order: str | Sequence[str] | None = "greedy",
    values: dict[str, float] | None = None,
) -> Linearization:
    """:func:`linearize` from local partials already evaluated (:func:`local_partials`)."""
    order = resolve_order(graph, order)
    return _build(
        graph, order, lambda u, v: partials[u, v], values or {}, float, _numeric_inverse, False
    )


def linearize_symbolic(
    graph: DGraph, order: str | Sequence[str] | None = "greedy", substitute: bool = True
) -> Linearization:
    """The macro steps with sympy blocks: over the inputs (``substitute``) or vertex symbols."""
    check_square(graph)
    values = graph.values() if substitute else {v: vertex_symbol(v) for v in graph.vertices}
    replace = {vertex_symbol(v): e for v, e in values.items()}

    def partial(u: str, v: str) -> sympy.Expr:
        """The local partial ∂v/∂u, over the inputs when substituting."""
        p = graph.partial(u, v)
        if p is None:
            raise DGraphError(f"edge {u} -> {v} has no known local partial")
        return p.xreplace(replace) if substitute else p

    order = resolve_order(graph, order)
    return _build(graph, order, partial, values, object, _symbolic_inverse, True)


def step_matrices(step: LumpStep, n: int) -> tuple[np.ndarray, np.ndarray]:
    """J_t and J_t⁻¹ as dense n×n matrices in slot coordinates (for display and checks)."""
    dtype = step.A.dtype
    jac, inv = np.eye(n, dtype=dtype), np.eye(n, dtype=dtype)
    for matrix, first, second in ((jac, step.A, step.B), (inv, step.A_inv, -step.A_inv_B)):
        matrix[step.rows] = 0
        matrix[np.ix_(step.rows, step.rows)] = first
        matrix[np.ix_(step.rows, step.cols)] = second
    return jac, inv
