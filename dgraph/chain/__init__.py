"""Jacobian chain products from tangents, adjoints and dense products under a tape bound
(Naumann, *Matrix-Free Jacobian Chaining*).

References
----------
U. Naumann, *Matrix-Free Jacobian Chaining*.
"""

from .bridge import stages
from .bruteforce import brute_force, solutions
from .dynamic import (
    ChainSolution,
    homogeneous_adjoint,
    homogeneous_tangent,
    preaccumulation,
    preaccumulation_parts,
    solve,
)
from .hessian import (
    HessianProblem,
    HessianSolution,
    forward_over_reverse,
    parse_hessian_problem,
    second_order_tangent,
    solve_hessian,
)
from .notation import Node, notation
from .partition import cut_profile, vertex_cuts
from .problem import ChainProblem, bundled_problem, parse_problem, random_problem, read_problem
from .reference import reference_solve

__all__ = [
    "ChainProblem",
    "ChainSolution",
    "HessianProblem",
    "HessianSolution",
    "Node",
    "brute_force",
    "bundled_problem",
    "cut_profile",
    "forward_over_reverse",
    "homogeneous_adjoint",
    "homogeneous_tangent",
    "notation",
    "parse_hessian_problem",
    "parse_problem",
    "preaccumulation",
    "preaccumulation_parts",
    "random_problem",
    "read_problem",
    "reference_solve",
    "second_order_tangent",
    "solutions",
    "solve",
    "solve_hessian",
    "stages",
    "vertex_cuts",
]
