"""Inverse accumulation: J⁻¹v and J⁻ᵀv without forming J (Pearlmutter & Siskind).

For F: Rⁿ → Rⁿ evaluated with n live values between steps, every step Jacobian is the
identity but for the rows it writes, and so is its inverse; J⁻¹ẏ and J⁻ᵀx̄ then cost one
sweep each. Programs with temporaries are cut into lumps at the points with exactly n live
values. Modules: :mod:`~dgraph.inverse.width` (live values, constant width),
:mod:`~dgraph.inverse.lumps` (lumps and the orders that make them),
:mod:`~dgraph.inverse.steps` (blocks A, B and their inverses at a point or symbolically),
:mod:`~dgraph.inverse.sweeps` (the four sweeps), :mod:`~dgraph.inverse.tapeless` (J⁻¹ẏ
recomputing the states backwards instead of taping them), :mod:`~dgraph.inverse.programs`
(example programs).

References
----------
B. A. Pearlmutter, J. M. Siskind, *Automatic Differentiation: Inverse Accumulation
Mode*.
"""

from .lumps import (
    Lump,
    exact_order,
    greedy_order,
    lump_cost,
    lumps,
    min_live_order,
    resolve_order,
)
from .steps import (
    Linearization,
    LumpStep,
    linearize,
    linearize_partials,
    linearize_symbolic,
    local_partials,
    step_matrices,
)
from .sweeps import (
    InverseProduct,
    adjoint,
    adjoint_inverse_expressions,
    forward_inverse,
    inverse_expressions,
    inverse_product,
    jacobian_matrix,
    reverse_inverse,
    tangent,
)
from .tapeless import TapelessInverse, tapeless_inverse
from .width import SingularJacobian, check_width, is_constant_width, live_sets, width_profile

__all__ = [
    "InverseProduct",
    "Linearization",
    "Lump",
    "LumpStep",
    "SingularJacobian",
    "TapelessInverse",
    "adjoint",
    "adjoint_inverse_expressions",
    "check_width",
    "exact_order",
    "forward_inverse",
    "greedy_order",
    "inverse_expressions",
    "inverse_product",
    "is_constant_width",
    "jacobian_matrix",
    "linearize",
    "linearize_partials",
    "linearize_symbolic",
    "live_sets",
    "local_partials",
    "lump_cost",
    "lumps",
    "min_live_order",
    "resolve_order",
    "reverse_inverse",
    "step_matrices",
    "tangent",
    "tapeless_inverse",
    "width_profile",
]
