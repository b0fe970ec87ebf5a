"""The accumulation methods by name (:mod:`.registry`), comparing them on one graph
(:mod:`.compare`), and the chain optimum beside them (:mod:`.chain`)."""

from .chain import compare_with_elimination
from .compare import Comparison, compare
from .registry import (
    COMPARED,
    METHODS,
    MethodSpec,
    accumulate,
    jacobian,
    lookup,
    methods,
    register,
    traced_function,
)

__all__ = [
    "COMPARED",
    "METHODS",
    "Comparison",
    "MethodSpec",
    "accumulate",
    "compare",
    "compare_with_elimination",
    "jacobian",
    "lookup",
    "methods",
    "register",
    "traced_function",
]
