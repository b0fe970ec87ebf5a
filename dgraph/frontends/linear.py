"""Graphs of linear systems M(x) s = F(x): the mass-matrix form of equations of motion.

The graph computes the residuals r = F(x) - M(x) s, with the unknowns ``s`` as parameters
marked solved (:attr:`~dgraph.core.graph.DGraph.solved`); the function it stands for is
s(x) = M(x)⁻¹ F(x). Code generation then differentiates the residual's graph and solves
with one factorization of M (the implicit function theorem), instead of differentiating
through the expression tree of a symbolic solve such as ``kane.rhs()``'s ``LUsolve``.

References
----------
Griewank, A. and Walther, A., *Evaluating Derivatives*, 2nd ed., SIAM 2008, ch. 15
(implicit and iterative differentiation).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import sympy

from ..core.algebra import real_symbol
from ..core.graph import DGraph
from ..errors import InputError
from .functions import from_sympy

__all__ = ["from_linear_system"]


def from_linear_system(
    matrix: sympy.MatrixBase | Sequence[Sequence[sympy.Expr]],
    rhs: sympy.MatrixBase | Sequence[sympy.Expr],
    inputs: Iterable[sympy.Symbol | str],
    params: Iterable[sympy.Symbol | str] = (),
    solve_for: Sequence[str] | None = None,
    name: str = "",
) -> DGraph:
    """The graph of s(x) = M(x)⁻¹ F(x): the outputs are the residuals ``r<i>`` of
    F - M s, solved for s.

    Parameters
    ----------
    matrix
        M, square, over ``inputs`` and ``params``.
    rhs
        F, one entry per row of M.
    inputs
        The symbols differentiated.
    params
        Symbols not differentiated (masses, lengths).
    solve_for
        The solved values' names, the function's outputs (default ``y0, y1, ...``); they
        become parameters of the residual graph (:meth:`DGraph.solve_for`).
    name
        The graph's name.

    Returns
    -------
    DGraph
        Outputs ``r0, r1, ...``; ``solved`` names s.

    Raises
    ------
    InputError
        A matrix that is not square or does not match ``rhs``, or a name used twice.

    Examples
    --------
    With :mod:`sympy.physics.mechanics`:
    ``from_linear_system(kane.mass_matrix_full, kane.forcing_full, q + u, params)``.

    >>> x, k = sympy.symbols("x k")
    >>> g = from_linear_system([[k, 0], [x, 1]], [sympy.sin(x), 1], [x], params=[k])
    >>> g.outputs, g.solved, g.parameters
    (['r0', 'r1'], ('y0', 'y1'), ('k', 'y0', 'y1'))
    """
    for given, what in ((matrix, "matrix"), (rhs, "right-hand side")):
        if _has_text(given):  # sympy.Matrix would sympify (evaluate) it
            raise InputError(
                f"the {what} contains text: give sympy expressions or numbers"
                " (parse text with dgraph.core.parse.parse_expression)"
            )
    try:
        m = sympy.Matrix(matrix)
        f = sympy.Matrix(rhs)
    except (TypeError, ValueError, sympy.SympifyError) as exc:
        raise InputError(f"the linear system is not a matrix and a vector: {exc}") from None
    n = m.rows
    if n == 0 or m.cols != n:
        raise InputError(f"the matrix is {m.rows} x {m.cols}: a linear system needs a square one")
    if len(f) != n or min(f.shape) != 1:
        raise InputError(f"the right-hand side has shape {f.shape}: give {n} values")
    inputs, params = list(inputs), list(params)
    taken = {str(getattr(s, "func", s)) if not isinstance(s, str) else s for s in inputs + params}
    taken |= {str(s) for s in inputs + params}
    names = list(solve_for) if solve_for is not None else _fresh("y", n, taken)
    if len(names) != n:
        raise InputError(f"{len(names)} names in solve_for for {n} unknowns")
    residuals = _fresh("r", n, taken | set(names))
    unknowns = sympy.Matrix([real_symbol(s) for s in names])
    residual = f.reshape(n, 1) - m * unknowns
    graph = from_sympy(
        dict(zip(residuals, residual, strict=True)),
        inputs,
        name=name,
        params=[*params, *names],
    )
    graph.solve_for(names)
    return graph


def _has_text(value: object) -> bool:
    """Whether a nested list/tuple holds a string (a sympy matrix holds none)."""
    if isinstance(value, (str, bytes)):
        return True
    if isinstance(value, (list, tuple)):
        return any(_has_text(v) for v in value)
    return False


def _fresh(base: str, count: int, taken: set[str]) -> list[str]:
    """``base0, base1, ...`` with ``_`` appended to ``base`` until no name is taken."""
    while any(f"{base}{k}" in taken for k in range(count)) or base in taken:
        base += "_"
    return [f"{base}{k}" for k in range(count)]
