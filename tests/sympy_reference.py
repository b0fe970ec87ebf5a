"""References for a graph's Jacobian, made once per process for each function: sympy's
Jacobian lambdified, and the complex step of the lambdified outputs, which
tests/test_codegen.py and tests/test_codegen_cuda.py check generated code against on the
same functions (the physics and real-world suites): differentiating the unexpanded
expressions with sympy costs most of a sympy reference, five times the complex step's."""

from __future__ import annotations

import numpy as np
import sympy

from dgraph.core.graph import vertex_symbol

_LAMBDIFIED: dict[tuple, object] = {}


def sympy_jacobian(graph):
    """``f(*x) -> J``: sympy's Jacobian of ``graph``'s output expressions in its inputs,
    lambdified (NumPy; ``cse`` keeps the printed expressions of the deep recurrences
    small). Kept by the expressions themselves (sympy's structural equality), so two
    graphs of one function share it and two functions never do."""
    values = graph.values()
    inputs = tuple(vertex_symbol(x) for x in graph.inputs)
    key = (inputs, tuple(values[y] for y in graph.outputs))
    if key not in _LAMBDIFIED:
        jac = sympy.Matrix(list(key[1])).jacobian(list(inputs))
        _LAMBDIFIED[key] = sympy.lambdify(list(inputs), jac, "numpy", cse=True)
    return _LAMBDIFIED[key]


# the complex extensions NumPy and SciPy evaluate, analytic where the real functions are
_ANALYTIC = (sympy.sin, sympy.cos, sympy.tan, sympy.exp, sympy.log, sympy.tanh, sympy.erf)
STEP = 1e-30  # the complex step: O(STEP²) truncation, far below double rounding
_STEPPED: dict[tuple, object] = {}


def complex_step_jacobian(graph):
    """``J(points) -> (B, m, n)``: the Jacobian of ``graph``'s output expressions at each
    of ``points`` (B, n) by the complex step, Im f(x + i h e_j) / h = ∂f/∂x_j + O(h²)
    (Squire & Trapp, SIAM Review 40, 1998; Martins, Sturdza & Alonso, ACM TOMS 29, 2003):
    no difference of two values, so accurate to rounding, where differentiating an
    unexpanded expression with sympy takes seconds. The outputs are lambdified once (SciPy's
    erf and NumPy take complex arguments), all n steps and B points in one call. Raises
    ValueError for an expression not built from sums, products, powers and the analytic
    functions above (a kink's abs, max or Piecewise has no complex step): use
    :func:`sympy_jacobian` there."""
    values = graph.values()
    inputs = tuple(vertex_symbol(x) for x in graph.inputs)
    key = (inputs, tuple(values[y] for y in graph.outputs))
    if key not in _STEPPED:
        for expr in key[1]:
            for node in sympy.preorder_traversal(expr):
                if node.is_Atom or node.is_Add or node.is_Mul or node.is_Pow:
                    continue
                if not isinstance(node, _ANALYTIC):
                    raise ValueError(f"no complex step through {type(node).__name__}")
        _STEPPED[key] = sympy.lambdify(list(inputs), list(key[1]), ["scipy", "numpy"], cse=True)
    f, n = _STEPPED[key], len(inputs)

    def jacobian(points):
        points = np.asarray(points, dtype=float)
        stepped = points[None, :, :] + 1j * STEP * np.eye(n)[:, None, :]  # (n, B, n)
        outputs = f(*np.moveaxis(stepped, -1, 0))  # m arrays (n, B), or numbers
        parts = np.stack([np.broadcast_to(y, stepped.shape[:2]) for y in outputs])
        return np.moveaxis(parts.imag / STEP, -1, 0)  # (B, m, n)

    return jacobian
