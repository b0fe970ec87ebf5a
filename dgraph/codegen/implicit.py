"""Straight lines for graphs with solved values: s(x) with h(x, s) = 0, h affine in s.

The graph computes residuals h (:attr:`~dgraph.core.graph.DGraph.solved`; built by
:func:`~dgraph.frontends.linear.from_linear_system`), h = F(x) - M(x) s. M = -∂h/∂s is
one tangent sweep per unknown from its parameter over the graph's own partials. M is
LU-factored once, without pivoting (as sympy's ``LUsolve`` of a symbolic matrix; mass
matrices are symmetric positive definite), and the factors serve the solution
s = M⁻¹ h(x, 0) and, by the implicit function theorem, the Jacobian ds/dx = M⁻¹ ∂h/∂x:
one solve per column of the expression set's entries, where differentiating a symbolic
solve's expression tree would differentiate the factorization itself. ``jvp`` solves
once, ``vjp`` once with Mᵀ. Signs are chosen so that F - M s needs no negation.

Without pivoting a pivot can vanish, or nearly, at a point where M is singular or badly
ordered: each symbolic pivot's reciprocal is NaN at run time when the pivot is at most
n·2⁻⁵² times the largest entry left in its row and column (:func:`_reciprocal`), so every
value computed from the factors is NaN there, in every target language, rather than a
silently wrong solution and Jacobian.

>>> import sympy
>>> from dgraph import from_linear_system
>>> from dgraph.codegen.program import jacobian_program
>>> from dgraph.methods import accumulate
>>> x, k = sympy.symbols("x k")
>>> g = from_linear_system([[k, 0], [x, 1]], [sympy.sin(x), 1], [x], params=[k])
>>> print(jacobian_program(accumulate(g, "forward")).to_text())  # y0 = sin(x)/k, y1 = 1 - x y0
lu4 = Piecewise((1/v_k, Abs(v_k) > 4.44089209850063e-16*Abs(v_x)), (nan, True))
d_t1_x = cos(v_x)
s1 = d_t1_x*lu4
jacobian[0, 0] = s1
jacobian[1, 0] = -lu4*sin(v_x) - s1*v_x

References
----------
Griewank, A. and Walther, A., *Evaluating Derivatives*, 2nd ed., SIAM 2008, ch. 15.
Golub, G. H. and Van Loan, C. F., *Matrix Computations*, 4th ed., 2013, §3.2 (LU).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

import sympy

from ..core.graph import DGraph
from ..errors import DGraphError
from .counting import fold_constants
from .ir import Assignment, fresh, in_order, value_symbol

__all__ = [
    "TINY_PIVOT",
    "Factors",
    "Solution",
    "ordered",
    "solution",
    "solve",
    "solve_transposed",
    "temporaries",
]

Matrix = list[list[sympy.Expr]]

TINY_PIVOT = 2.0**-52  # a pivot at most n times this times its row and column is NaN


@dataclass(frozen=True)
class Factors:
    """M = L U: ``lower`` below the diagonal (unit diagonal), ``upper`` on and above it,
    ``reciprocals`` the pivots' reciprocals."""

    lower: Matrix
    upper: Matrix
    reciprocals: list[sympy.Expr]


@dataclass(frozen=True)
class Solution:
    """The assignments computing h(x, 0), M, its factors and s (then bound to the solved
    parameters' variables, which the graph's values read); not yet in order."""

    assignments: list[Assignment]
    factors: Factors


def solution(
    graph: DGraph,
    values: list[Assignment],
    labels: dict[sympy.Symbol, sympy.Expr],
    temps: Iterator[sympy.Symbol],
) -> Solution:
    """h(x, 0), M = -∂h/∂s by tangent sweeps from the solved parameters, M = L U, and
    s = M⁻¹ h(x, 0); ``values`` are the graph's vertex values, ``labels`` the edge
    symbols' scalar stand-ins."""
    unknowns = tuple(value_symbol(s) for s in graph.solved)
    out: list[Assignment] = []
    residual = _at_zero(graph, values, unknowns, out, temps)
    matrix = _sweeps(graph, dict(values), labels, unknowns, out, temps)
    factors = _factor(matrix, out, temps)
    s = solve(factors, residual, out, temps)
    out += list(zip(unknowns, s, strict=True))
    return Solution(out, factors)


def _at_zero(
    graph: DGraph,
    values: list[Assignment],
    unknowns: tuple[sympy.Symbol, ...],
    out: list[Assignment],
    temps: Iterator[sympy.Symbol],
) -> list[sympy.Expr]:
    """h(x, 0): the values that read an unknown recomputed with the unknowns zero."""
    renamed: dict[sympy.Symbol, sympy.Expr] = {u: sympy.S.Zero for u in unknowns}
    for s, e in values:
        if e.free_symbols & renamed.keys():
            t = next(temps)
            out.append((t, fold_constants(e.xreplace(renamed))))
            renamed[s] = t
    return [renamed.get(value_symbol(y), value_symbol(y)) for y in graph.outputs]


def _sweeps(
    graph: DGraph,
    values: dict[sympy.Symbol, sympy.Expr],
    labels: dict[sympy.Symbol, sympy.Expr],
    unknowns: tuple[sympy.Symbol, ...],
    out: list[Assignment],
    temps: Iterator[sympy.Symbol],
) -> Matrix:
    """M[i][k] = -∂h_i/∂s_k: dv = sum_u c_vu du - ∂phi_v/∂s_k, from each unknown."""
    columns = []
    for unknown in unknowns:
        tangent: dict[str, sympy.Expr] = {}
        for v in graph.order():
            expr = values.get(value_symbol(v))
            if expr is None:
                continue
            terms = [
                labels[graph.symbol(u, v)] * tangent[u]
                for u in graph.predecessors(v)
                if u in tangent
            ]
            if unknown in expr.free_symbols:
                terms.append(-expr.diff(unknown))
            total = fold_constants(sympy.Add(*terms))
            if total == 0:
                continue
            if not total.is_Atom:
                t = next(temps)
                out.append((t, total))
                total = t
            tangent[v] = total
        columns.append([tangent.get(y, sympy.S.Zero) for y in graph.outputs])
    return [list(row) for row in zip(*columns, strict=True)]


def _factor(matrix: Matrix, out: list[Assignment], temps: Iterator[sympy.Symbol]) -> Factors:
    """Doolittle's LU without pivoting; numbers fold (an identity block costs nothing)."""
    n = len(matrix)
    a = [list(row) for row in matrix]
    lower: Matrix = [[sympy.S.Zero] * n for _ in range(n)]
    reciprocals: list[sympy.Expr] = []
    for k in range(n):
        if a[k][k] == 0:
            raise DGraphError(
                f"the linear system's matrix has a zero pivot in row {k} without pivoting:"
                " order the equations so that the diagonal is nonzero"
            )
        reciprocals.append(_assign(_reciprocal(a, k, n), out, temps))
        for i in range(k + 1, n):
            if a[i][k] == 0:
                continue
            lower[i][k] = _assign(a[i][k] * reciprocals[k], out, temps)
            for j in range(k + 1, n):
                if a[k][j] != 0:
                    a[i][j] = _assign(a[i][j] - lower[i][k] * a[k][j], out, temps)
    upper = [[a[i][j] if j >= i else sympy.S.Zero for j in range(n)] for i in range(n)]
    return Factors(lower, upper, reciprocals)


def _reciprocal(a: Matrix, k: int, n: int) -> sympy.Expr:
    """1/a_kk, or NaN where the pivot is too small at run time for the factors to mean
    anything: |a_kk| <= n eps max(|a_kj|, |a_ik|) over the rest of its row and column
    (a multiplier a_ik/a_kk or a back-substitution step beyond 1/(n eps), eps the double
    precision unit roundoff 2**-53 doubled). An exactly zero pivot is NaN whatever its
    neighbours; a symmetric positive definite or diagonally dominant matrix, which needs
    no pivoting, has pivots far above the bound. A pivot that is a number needs no check."""
    pivot = a[k][k]
    if pivot.is_Number:
        return 1 / pivot
    others = [a[k][j] for j in range(k + 1, n)] + [a[i][k] for i in range(k + 1, n)]
    others = [e for e in others if e != 0]
    bound = (
        sympy.Float(n * TINY_PIVOT) * sympy.Max(*(sympy.Abs(e) for e in others))
        if others
        else sympy.S.Zero
    )
    return sympy.Piecewise((1 / pivot, sympy.Abs(pivot) > bound), (sympy.nan, True))


def solve(
    factors: Factors, b: list[sympy.Expr], out: list[Assignment], temps: Iterator[sympy.Symbol]
) -> list[sympy.Expr]:
    """M⁻¹ b: forward substitution with L, back substitution with U."""
    lower, upper, r = factors.lower, factors.upper, factors.reciprocals
    y = _triangular(lambda i, k: lower[i][k], b, None, False, out, temps)
    return _triangular(lambda i, k: upper[i][k], y, r, True, out, temps)


def solve_transposed(
    factors: Factors, b: list[sympy.Expr], out: list[Assignment], temps: Iterator[sympy.Symbol]
) -> list[sympy.Expr]:
    """M⁻ᵀ b: Uᵀ t = b forward, then Lᵀ y = t backward."""
    lower, upper, r = factors.lower, factors.upper, factors.reciprocals
    t = _triangular(lambda i, k: upper[k][i], b, r, False, out, temps)
    return _triangular(lambda i, k: lower[k][i], t, None, True, out, temps)


def _triangular(
    entry: Callable[[int, int], sympy.Expr],
    b: list[sympy.Expr],
    reciprocals: list[sympy.Expr] | None,
    backward: bool,
    out: list[Assignment],
    temps: Iterator[sympy.Symbol],
) -> list[sympy.Expr]:
    """x_i = (b_i - sum_k entry(i, k) x_k) r_i over the k already solved: forward (k < i)
    or backward (k > i); without ``reciprocals`` the diagonal is one."""
    n = len(b)
    x: list[sympy.Expr] = [sympy.S.Zero] * n
    for i in reversed(range(n)) if backward else range(n):
        known = range(i + 1, n) if backward else range(i)
        value = b[i] - sympy.Add(*(entry(i, k) * x[k] for k in known))
        x[i] = _assign(value if reciprocals is None else value * reciprocals[i], out, temps)
    return x


def _assign(expr: sympy.Expr, out: list[Assignment], temps: Iterator[sympy.Symbol]) -> sympy.Expr:
    """``expr`` folded; a new variable unless it is a number, a variable or a multiple of
    one (``-h``: the sign folds into the use)."""
    expr = fold_constants(expr)
    c, rest = expr.as_coeff_Mul()
    if expr.is_Atom or (c.is_Number and rest.is_Atom):
        return expr
    t = next(temps)
    out.append((t, expr))
    return t


def temporaries(
    assignments: Iterable[Assignment], others: Iterable[sympy.Expr] = ()
) -> Iterator[sympy.Symbol]:
    """Fresh ``lu1, lu2, ...`` variables no assignment or expression uses."""
    taken: set[sympy.Symbol] = set()
    for s, e in assignments:
        taken.add(s)
        taken |= e.free_symbols
    for e in others:
        taken |= e.free_symbols
    return fresh("lu", taken)


def ordered(assignments: list[Assignment], given: set[sympy.Symbol]) -> list[Assignment]:
    """The assignments (each symbol's first definition) with every one after those it
    reads, otherwise in their order; a cycle means ∂h/∂s reads s: h is not affine in s."""
    definitions: dict[sympy.Symbol, sympy.Expr] = {}
    for s, e in assignments:
        definitions.setdefault(s, e)
    result: list[Assignment] = []
    try:
        in_order(definitions, definitions, set(given), result, lambda ts: sorted(ts, key=str))
    except DGraphError:
        raise DGraphError(
            "the residuals are not affine in the solved values (∂h/∂s depends on s):"
            " code is generated for linear systems M(x) s = F(x)"
        ) from None
    return result
