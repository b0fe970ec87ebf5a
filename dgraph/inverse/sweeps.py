"""The four sweeps over macro steps: J·ẋ, Jᵀ·ȳ, J⁻ᵀ·x̄ and J⁻¹·ẏ.

Pearlmutter & Siskind (2.3)–(2.4), with J = J_T ⋯ J_1, name the two inverse modes:

- forward-inverse (2.4a) ``J⁻ᵀx̄ = J_T⁻ᵀ(⋯(J_1⁻ᵀ x̄))``, processed first step first,
  alongside the primal and without a tape (their Fig. 2(e)); each step writes every slot
  it involves: ȳ_P = A⁻ᵀx̄_C, ȳ_S = x̄_S − (A⁻¹B)ᵀx̄_C;
- reverse-inverse (2.4b) ``J⁻¹ẏ = J_1⁻¹(⋯(J_T⁻¹ ẏ))``, processed last step first, so it
  needs the primal's values on a tape (their Fig. 2(f)); each step writes only its
  written slots: ẋ_C = A⁻¹ẏ_P − (A⁻¹B)ẏ_S.

Each costs Σ l·k multiplications, as many as one tangent (:func:`tangent`) or adjoint
(:func:`adjoint`) sweep over the same steps. (Up to version 0.1.0 dgraph had the two names
swapped: ``forward_inverse`` computed J⁻¹ẏ; see docs/inverse.md, "Migration".) The state
is one array of n slots (or n rows of a batch); slot i starts as input i. The same code
runs on floats and on sympy expressions (object arrays).

References
----------
B. A. Pearlmutter, J. M. Siskind, *Automatic Differentiation: Inverse Accumulation
Mode*, §2, (2.4a)–(2.4b) and Figs. 1–2.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import sympy

from ..core.graph import DGraph
from ..errors import DGraphError
from .lumps import Lump
from .steps import Linearization, linearize, linearize_symbolic

__all__ = [
    "InverseProduct",
    "adjoint",
    "adjoint_inverse_expressions",
    "forward_inverse",
    "inverse_expressions",
    "inverse_product",
    "jacobian_matrix",
    "reverse_inverse",
    "tangent",
]


def _vector(lin: Linearization, vector: Any, per: str) -> np.ndarray:
    """``vector`` as an array with one entry (or row) per input or per output."""
    array = np.array(vector, dtype=object if lin.symbolic else float)
    if array.ndim not in (1, 2) or array.shape[0] != lin.n:
        names = lin.graph.inputs if per == "input" else lin.graph.outputs
        raise DGraphError(
            f"the vector has {array.shape[0] if array.ndim else 1} entries; it needs {lin.n},"
            f" one per {per} ({', '.join(names)})"
        )
    return array


def tangent(lin: Linearization, xdot: Any) -> np.ndarray:
    """J·ẋ (forward mode): ẋ per input, result per output."""
    s = _vector(lin, xdot, "input")
    for step in lin.steps:
        s[step.rows] = step.A @ s[step.rows] + step.B @ s[step.cols]
    return s[list(lin.output_slots)]


def adjoint(lin: Linearization, ybar: Any) -> np.ndarray:
    """Jᵀ·ȳ (reverse mode): ȳ per output, result per input."""
    v = _vector(lin, ybar, "output")
    s = np.zeros_like(v)
    s[list(lin.output_slots)] = v
    for step in reversed(lin.steps):
        w = s[step.rows]
        s[step.cols] += step.B.T @ w
        s[step.rows] = step.A.T @ w
    return s


def forward_inverse(lin: Linearization, xbar: Any) -> np.ndarray:
    """J⁻ᵀ·x̄ by forward-inverse mode (2.4a): first step first, no tape; x̄ per input,
    result per output.

    >>> from dgraph import from_trace
    >>> g = from_trace("inputs: a, b\\noutputs: y, z\\nu = a*b\\nz = b + u**2\\ny = u", "statement")
    >>> lin = linearize(g, [2.0, 3.0])
    >>> ybar = forward_inverse(lin, [0.0, 1.0])
    >>> ybar.tolist(), adjoint(lin, ybar).tolist()
    ([-12.0, 1.0], [0.0, 1.0])
    """
    s = _vector(lin, xbar, "input")
    for step in lin.steps:
        w = s[step.rows]
        s[step.cols] -= step.A_inv_B.T @ w
        s[step.rows] = step.A_inv.T @ w
    return s[list(lin.output_slots)]


def reverse_inverse(lin: Linearization, ydot: Any) -> np.ndarray:
    """J⁻¹·ẏ by reverse-inverse mode (2.4b): last step first, over the steps kept from the
    primal (the tape); ẏ per output, result per input.

    >>> from dgraph import from_trace
    >>> g = from_trace("inputs: a, b\\noutputs: y, z\\nu = a*b\\nz = b + u**2\\ny = u", "statement")
    >>> lin = linearize(g, [2.0, 3.0])
    >>> xdot = reverse_inverse(lin, [1.0, 0.0])
    >>> xdot.tolist(), tangent(lin, xdot).tolist()
    ([8.333333333333334, -12.0], [1.0, 0.0])
    """
    v = _vector(lin, ydot, "output")
    s = np.zeros_like(v)
    s[list(lin.output_slots)] = v
    for step in reversed(lin.steps):
        s[step.rows] = step.A_inv @ s[step.rows] - step.A_inv_B @ s[step.cols]
    return s


def jacobian_matrix(lin: Linearization) -> np.ndarray:
    """The dense Jacobian (outputs × inputs) by one tangent sweep in vector mode."""
    eye = np.eye(lin.n, dtype=object if lin.symbolic else float)
    return tangent(lin, eye)


@dataclass(frozen=True, eq=False)
class InverseProduct:
    """J⁻¹v (or J⁻ᵀv) at a point, the linearization that gave it, and its residual."""

    result: np.ndarray
    residual: float  # ‖J·result − v‖₂ (‖Jᵀ·result − v‖₂), by a tangent (adjoint) sweep
    transpose: bool
    linearization: Linearization

    @property
    def lumps(self) -> list[Lump]:
        """The lumps of the linearization."""
        return self.linearization.lumps

    @property
    def mults(self) -> int:
        """Multiplications of the sweep that gave the result."""
        return self.linearization.mults

    @property
    def mode(self) -> str:
        """The paper's name of the sweep: ``forward-inverse`` (J⁻ᵀ) or ``reverse-inverse`` (J⁻¹)."""
        return "forward-inverse" if self.transpose else "reverse-inverse"

    def to_dict(self) -> dict:
        """The JSON object of ``dgraph inverse --json`` (without the graph, point and vector)."""
        lin = self.linearization
        return {
            "result": [float(r) for r in self.result],
            "lumps": [lump.to_dict() for lump in lin.lumps],
            "mults": lin.mults,
            "residual": self.residual,
            "setup_mults": lin.setup_mults,
            "max_l": lin.max_l,
            "transpose": self.transpose,
            "mode": self.mode,
            "inputs": lin.graph.inputs,
            "outputs": lin.graph.outputs,
            "order": list(lin.order),
            "width": lin.width,
        }


def inverse_product(
    graph: DGraph,
    point: Sequence[float],
    vector: Sequence[float],
    transpose: bool = False,
    order: str | Sequence[str] | None = "greedy",
) -> InverseProduct:
    """J⁻¹v (v per output, result per input) by reverse-inverse mode or, with ``transpose``,
    J⁻ᵀv (v per input, result per output) by forward-inverse mode, at ``point``, without
    forming J.

    >>> from dgraph import from_trace
    >>> g = from_trace("inputs: a, b\\noutputs: y, z\\nu = a*b\\nz = b + u**2\\ny = u", "statement")
    >>> p = inverse_product(g, [2.0, 3.0], [0.0, 1.0])
    >>> p.result.round(6).tolist(), p.mults, p.residual
    ([-0.666667, 1.0], 5, 0.0)
    """
    lin = linearize(graph, point, order)
    if transpose:
        result = forward_inverse(lin, vector)
        residual = adjoint(lin, result) - np.asarray(vector, dtype=float)
    else:
        result = reverse_inverse(lin, vector)
        residual = tangent(lin, result) - np.asarray(vector, dtype=float)
    return InverseProduct(result, float(np.linalg.norm(residual)), transpose, lin)


def inverse_expressions(
    graph: DGraph,
    vector: Sequence[sympy.Expr] | None = None,
    order: str | Sequence[str] | None = "greedy",
    substitute: bool = True,
) -> list[sympy.Expr]:
    """J⁻¹ẏ (reverse-inverse mode) as sympy expressions, one per input; ẏ defaults to
    symbols ``ydot_<output>``.

    With ``substitute`` the local partials are expressions of the inputs, otherwise of
    the vertex symbols (the labels of the paper's Fig. 2(f), reverse-inverse mode).
    """
    lin = linearize_symbolic(graph, order, substitute)
    if vector is None:
        vector = [sympy.Symbol(f"ydot_{y}") for y in graph.outputs]
    return list(reverse_inverse(lin, vector))


def adjoint_inverse_expressions(
    graph: DGraph,
    vector: Sequence[sympy.Expr] | None = None,
    order: str | Sequence[str] | None = "greedy",
    substitute: bool = True,
) -> list[sympy.Expr]:
    """J⁻ᵀx̄ as sympy expressions, one per output; x̄ defaults to symbols ``xbar_<input>``.

    These are forward-inverse mode's sums, the labels of the paper's Fig. 2(e).
    """
    lin = linearize_symbolic(graph, order, substitute)
    if vector is None:
        vector = [sympy.Symbol(f"xbar_{x}") for x in graph.inputs]
    return list(forward_inverse(lin, vector))
