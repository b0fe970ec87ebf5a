"""sympy's Jacobian of a graph's outputs, lambdified once per process for each function:
tests/test_codegen.py and tests/test_codegen_cuda.py check generated code against it on the
same functions (the physics and real-world suites), and differentiating the unexpanded
expressions costs most of a reference."""

from __future__ import annotations

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
