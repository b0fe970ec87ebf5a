"""The tape accounting of the paper's reference implementation (ADMission; Naumann,
matrix-free chaining, §4-6).

The paper's limited-memory table (§4), its bounded runs of the §5 example and its case
study (§6) report what the reference solver prints, and those numbers follow a different
accounting from the recurrence (3.8) itself:

- an adjoint that continues a preaccumulated adjoint seed (MxG after MxG) is charged the
  seed's tape *plus* its own sweep, as if both ran as one reverse sweep over their
  concatenated DAGs (``I·F̄₃·F̄₂·F̄₁`` needs |E₁| + |E₂| + |E₃|), and feasibility is tested
  on that sum instead of on Σ_{ν=i..k}|E_ν| alone;
- every subchain keeps only its cheapest feasible solution, whatever its tape, so the
  table is no longer an exact dynamic program (a dearer seed with less tape can be what a
  longer chain needs).

:func:`reference_solve` reproduces every number the paper prints this way; the brute
force of :mod:`dgraph.chain.bruteforce` with ``accounting="cumulative"`` gives the true
optimum under the same accounting. :func:`dgraph.chain.dynamic.solve` is the recurrence.
"""

from __future__ import annotations

from .dynamic import ChainSolution, dynamic_program
from .problem import ChainProblem

__all__ = ["reference_solve"]


def reference_solve(problem: ChainProblem, memory: int | None = None) -> ChainSolution:
    """What the reference solver reports: cumulative adjoint tape, cheapest per subchain.

    >>> from .problem import bundled_problem
    >>> s = reference_solve(bundled_problem("example_s4.txt"), memory=55)
    >>> s.cost, s.tape_used, s.bracketing()
    (120, 48, '(I₁·F̄₃)·(I₂·F̄₂·F̄₁)')
    """
    return dynamic_program(problem, memory, matrix_free=True, cumulative=True)
