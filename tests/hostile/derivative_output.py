"""An output that keeps a time derivative of a dynamicsymbol (sympy.physics.mechanics)."""

import sympy
from sympy.physics.mechanics import dynamicsymbols

q = dynamicsymbols("q")


def with_derivative(x):
    return x * sympy.sin(x) + q.diff()
