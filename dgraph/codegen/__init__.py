"""Generated Jacobian code: straight-line programs from expression sets, printed as NumPy,
C99, JAX or CUDA, with the baselines users would otherwise reach for (docs/codegen.md).

Modules: :mod:`~dgraph.codegen.ir` (the straight-line programs: scalar assignments, and
array statements for tensor graphs, a scalar one of shape ``()``),
:mod:`~dgraph.codegen.program` (what the code computes), :mod:`~dgraph.codegen.passes`
(cse, inlining, powers), :mod:`~dgraph.codegen.selection` (which expression set),
:mod:`~dgraph.codegen.function` (``make_function``),
:mod:`~dgraph.codegen.counting` (one counting rule for every tool),
:mod:`~dgraph.codegen.printing`, :mod:`~dgraph.codegen.python`, :mod:`~dgraph.codegen.c`,
:mod:`~dgraph.codegen.jaxcode` and :mod:`~dgraph.codegen.cuda` (printing, loading),
:mod:`~dgraph.codegen.check` (the printed code run against the graph),
:mod:`~dgraph.codegen.generate` (graph to file), :mod:`~dgraph.codegen.hessian` and
:mod:`~dgraph.codegen.hessian_native` (Hessians; in C and CUDA), :mod:`~dgraph.codegen.compare`
(sympy, CasADi, JAX); ``dgraph codegen`` is :mod:`dgraph.cli.codegen`.
"""

from .c import c_source, load_c
from .check import CodeCheck, check_generated
from .counting import Ops, count_ops
from .cuda import cuda_source, load_cuda, load_cuda_host
from .generate import Generated, generate, generate_all
from .ir import Program
from .program import (
    jacobian_program,
    jvp_program,
    primal_program,
    vjp_program,
)
from .python import load_python, python_module
from .selection import Selection, cheapest_jacobian, select_jacobian

__all__ = [
    "CodeCheck",
    "Generated",
    "Ops",
    "Program",
    "Selection",
    "c_source",
    "cheapest_jacobian",
    "check_generated",
    "count_ops",
    "cuda_source",
    "generate",
    "generate_all",
    "jacobian_program",
    "jvp_program",
    "load_c",
    "load_cuda",
    "load_cuda_host",
    "load_python",
    "primal_program",
    "python_module",
    "select_jacobian",
    "vjp_program",
]
