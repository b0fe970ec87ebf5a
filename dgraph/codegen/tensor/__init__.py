"""Code on whole arrays for a tensor graph's Jacobian (issue 41, item 4).

One statement per array operation and per block operation, never one per element, built
as the array statements of :mod:`dgraph.codegen.ir` and printed per target (NumPy and
JAX: :mod:`dgraph.codegen.printing`'s array printers; C and CUDA: :mod:`.c_values`):
:mod:`.dialect` (a target's printer, imports, helpers), :mod:`.constants` (index
arrays computed once at generation time, embedded in the module), :mod:`.forward` (each
vertex's :class:`~dgraph.blocks.arrays.ArrayOp`), :mod:`.leaves` (each edge block's values),
:mod:`.blockops` (products as one einsum, sums as broadcast adds, sparse blocks through
precomputed index pairs), :mod:`.module` (the program and its passes: liveness, constant
folding, common subexpressions), :mod:`.fuse` (JAX's permutations folded into their
producers), :mod:`.check` (the code run
against :func:`~dgraph.core.block_values.jacobian_blocks` and central differences of the
array program) and :mod:`.function` (``make_function`` for tensor graphs); :mod:`.sweeps`
prints ``jvp`` and ``vjp`` as tangent and adjoint sweeps over the blocks (never J),
checked by :mod:`.sweep_check`.
"""

from .check import check_tensor
from .function import make_tensor_function
from .module import tensor_module
from .sweeps import sweep_module

__all__ = ["check_tensor", "make_tensor_function", "sweep_module", "tensor_module"]
