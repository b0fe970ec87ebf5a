"""The dynamic program for matrix-free Jacobian chain bracketing (Naumann, matrix-free
chaining, Eq. 3.7 and, with a tape bound M̄, Eq. 3.8).

    fma[i][i] = |E_i|·min(n_i, m_i)          (|E_i|·n_i when |E_i| > M̄)
    fma[j][i] = min over i <= k < j of
        fma[j][k+1] + fma[k][i] + m_j·m_k·n_i        product  (MxM)
        fma[j][k+1] + m_j·Σ_{ν=i..k} |E_ν|           adjoint  (MxG), if that Σ <= M̄
        fma[k][i]   + n_i·Σ_{ν=k+1..j} |E_ν|         tangent  (GxM)

Tape: an adjoint operation records the DAGs it sweeps, Σ_{ν=i..k}|E_ν| (a leaf: |E_i|);
operations run one after another from argument checkpoints, so a solution needs the
largest of its sweeps' tapes. Among solutions of least cost the one needing least tape
is chosen (both criteria decompose over subchains, so the recurrence stays exact).

Every anti-diagonal of the table (all subchains of one length) is computed at once with
numpy on strided views of the table; Σ|E| comes from prefix sums, so the whole table
costs O(q³) array operations.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
from numpy.lib.stride_tricks import as_strided

from ..errors import InputError
from .notation import CODES, Node, notation
from .problem import ChainProblem

__all__ = [
    "ChainSolution",
    "PreaccumulationParts",
    "homogeneous_adjoint",
    "homogeneous_tangent",
    "preaccumulation",
    "preaccumulation_parts",
    "solve",
]

TANGENT, ADJOINT, PRODUCT = 0, 1, 2
_NAMES = ("tangent", "adjoint", "product")


@dataclass(frozen=True, eq=False)
class ChainSolution:
    """The full table of the recurrence, 0-based ``[i, j]`` (upper triangle) for F'_{j+1,i+1}:
    least cost, tape of that solution, operation (0 tangent, 1 adjoint, 2 product) and split k."""

    problem: ChainProblem
    memory: int | None
    matrix_free: bool
    fma: np.ndarray
    tape: np.ndarray
    op: np.ndarray
    split: np.ndarray

    @property
    def cost(self) -> int:
        """The optimal number of fma for the whole chain."""
        return int(self.fma[0, -1])

    @property
    def tape_used(self) -> int:
        """The tape memory the optimal solution needs (its largest adjoint sweep)."""
        return int(self.tape[0, -1])

    def _children(self, a: int, b: int) -> list[tuple[int, int]]:
        """The 0-based subchains the operation for (a, b) starts from."""
        if a == b:
            return []
        op, k = int(self.op[a, b]), int(self.split[a, b])
        upper, lower = (k + 1, b), (a, k)
        return {PRODUCT: [upper, lower], ADJOINT: [upper], TANGENT: [lower]}[op]

    def node(self, j: int, i: int) -> Node:
        """The optimal way to compute F'_{j,i} (1-based), as a tree (built without
        recursion: a chain of q factors can nest q deep)."""
        built: dict[tuple[int, int], Node] = {}
        stack = [(i - 1, j - 1)]
        while stack:
            a, b = stack[-1]
            children = self._children(a, b)
            missing = [c for c in children if c not in built]
            if missing:
                stack.extend(missing)
                continue
            stack.pop()
            k = None if a == b else int(self.split[a, b]) + 1
            built[a, b] = Node(
                _NAMES[int(self.op[a, b])],
                b + 1,
                a + 1,
                k,
                int(self.fma[a, b]),
                int(self.tape[a, b]),
                tuple(built[c] for c in children),
            )
        return built[i - 1, j - 1]

    def tree(self) -> Node:
        """The optimal solution for the whole chain F'_{q,1}."""
        return self.node(self.problem.q, 1)

    def bracketing(self, latex: bool = False) -> str:
        """The optimal solution in the paper's notation (Ḟ, F̄, I)."""
        return notation(self.tree(), self.problem, latex=latex, seeds=self.matrix_free)

    def rows(self) -> list[dict[str, Any]]:
        """Every subchain's entry, in the reference's order (j ascending, i descending)."""
        out = []
        for b in range(self.problem.q):
            for a in range(b, -1, -1):
                op = _NAMES[int(self.op[a, b])]
                out.append(
                    {
                        "j": b + 1,
                        "i": a + 1,
                        "op": op,
                        "code": CODES[op],
                        "split": None if a == b else int(self.split[a, b]) + 1,
                        "fma": int(self.fma[a, b]),
                        "tape": int(self.tape[a, b]),
                    }
                )
        return out


def _check_memory(memory: int | None) -> int | None:
    if memory is None:
        return None
    if isinstance(memory, bool) or not isinstance(memory, (int, np.integer)):
        raise InputError(f"tape bound must be an integer, got {memory!r}")
    if memory < 0:
        raise InputError(f"tape bound must be >= 0, got {memory}")
    return int(memory)


def _dtype(problem: ChainProblem) -> tuple[Any, int]:
    """int64 when every option value fits (they are at most 2·max size·Σ|E| + max size³),
    else Python integers in object arrays (same code, slower)."""
    size = max(*problem.m, *problem.n)
    bound = 2 * size * problem.total_edges + size**3 + 1
    if bound < 2**61:
        return np.int64, 2**62
    return object, 4 * bound


def _window(
    a: np.ndarray, rows: int, cols: int, start: int, row_step: int, col_step: int
) -> np.ndarray:
    """A read-only view with (r, c) = a.flat[start + r·row_step + c·col_step]: every
    subchain's splits at once, without copying (numpy's sliding_window_view cannot step
    along the diagonal)."""
    flat = a.reshape(-1)
    size = flat.strides[0]
    return as_strided(
        flat[start:], (rows, cols), (row_step * size, col_step * size), writeable=False
    )


def dynamic_program(
    problem: ChainProblem, memory: int | None, matrix_free: bool, cumulative: bool = False
) -> ChainSolution:
    """The table of the recurrence. ``cumulative`` switches to the reference
    implementation's accounting (see :mod:`dgraph.chain.reference`)."""
    memory = _check_memory(memory)
    q = problem.q
    dtype, inf = _dtype(problem)
    m, n, e = (np.array(v, dtype=dtype) for v in (problem.m, problem.n, problem.edges))
    limit = inf if memory is None else memory
    prefix = np.zeros(q + 1, dtype=dtype)
    prefix[1:] = np.cumsum(e)
    fma = np.zeros((q, q), dtype=dtype)
    tape = np.zeros((q, q), dtype=dtype)
    op = np.full((q, q), TANGENT, dtype=np.int8)
    split = np.full((q, q), -1, dtype=np.int64)

    d = np.arange(q)
    adjoint_leaf = ((e <= limit) & (m * e < n * e)).astype(bool)  # ties: tangent needs no tape
    fma[d, d] = np.where(adjoint_leaf, m * e, n * e)
    tape[d, d] = np.where(adjoint_leaf, e, 0)
    op[d, d] = np.where(adjoint_leaf, ADJOINT, TANGENT)

    kinds = np.array([PRODUCT, TANGENT, ADJOINT] if matrix_free else [PRODUCT], dtype=np.int8)
    width = len(kinds)
    no_tape = problem.total_edges + 1
    for length in range(1, q):
        count = q - length  # subchains i..j = i + length, one row each; columns t = k - i
        i = np.arange(count)
        lower_fma = _window(fma, count, length, 0, q + 1, 1)  # F'_{k,i} = [i, i + t]
        lower_tape = _window(tape, count, length, 0, q + 1, 1)
        upper_fma = _window(fma, count, length, q + length, q + 1, q)  # F'_{j,k+1}
        upper_tape = _window(tape, count, length, q + length, q + 1, q)
        m_k = _window(m, count, length, 0, 1, 1)
        prefix_k = _window(prefix, count, length, 1, 1, 1)  # Σ|E| over factors 1..k
        m_j, n_i = m[length:, None], n[:count, None]
        # options ordered by split point, then product, tangent, adjoint (as the reference)
        cost = np.empty((count, length, width), dtype=dtype)
        taped = np.empty((count, length, width), dtype=dtype)
        product = cost[:, :, 0]
        np.multiply(m_k, m_j * n_i, out=product)
        product += upper_fma
        product += lower_fma
        np.maximum(upper_tape, lower_tape, out=taped[:, :, 0])
        if matrix_free:
            tangent = cost[:, :, 1]
            np.subtract(prefix[length + 1 :, None], prefix_k, out=tangent)  # Σ over k+1..j
            tangent *= n_i
            tangent += lower_fma
            taped[:, :, 1] = lower_tape
            sweep = prefix_k - prefix[:count, None]  # Σ|E| over i..k, recorded by the adjoint
            if cumulative:
                np.add(upper_tape, sweep, out=taped[:, :, 2])
            else:
                np.maximum(upper_tape, sweep, out=taped[:, :, 2])
            adjoint = cost[:, :, 2]
            np.multiply(sweep, m_j, out=adjoint)
            adjoint += upper_fma
            adjoint[(taped[:, :, 2] if cumulative else sweep) > limit] = inf
        cost = cost.reshape(count, -1)
        taped = taped.reshape(count, -1)
        best = cost.min(axis=1)
        if cumulative:  # the reference keeps the first cheapest option, whatever its tape
            choice = cost.argmin(axis=1)
        else:
            choice = np.where(cost == best[:, None], taped, no_tape).argmin(axis=1)
        fma[i, i + length] = best
        tape[i, i + length] = taped[i, choice]
        op[i, i + length] = kinds[choice % width]
        split[i, i + length] = i + choice // width
    return ChainSolution(problem, memory, matrix_free, fma, tape, op, split)


def solve(problem: ChainProblem, memory: int | None = None) -> ChainSolution:
    """The optimal matrix-free bracketing (Eq. 3.7; Eq. 3.8 with tape bound ``memory``).

    >>> p = ChainProblem.from_factors([(3, 3, 29), (1, 3, 14), (2, 1, 7)])
    >>> s = solve(p)
    >>> s.cost, s.tape_used, s.bracketing()
    (56, 29, '(Ḟ₃·I₁)·(I₁·F̄₂·F̄₁)')
    >>> solve(p, memory=13).cost
    142
    """
    return dynamic_program(problem, memory, matrix_free=True)


def preaccumulation(problem: ChainProblem, memory: int | None = None) -> ChainSolution:
    """Optimal homogeneous preaccumulation: every F'_i by its cheaper mode (tangent when
    ``|E_i|`` > ``memory``), then the classical dense matrix chain (Eq. 1.1)."""
    return dynamic_program(problem, memory, matrix_free=False)


class PreaccumulationParts(NamedTuple):
    """A preaccumulation's cost in two parts (:func:`preaccumulation_parts`)."""

    leaves: int  # preaccumulating the factors
    products: int  # the dense products of the preaccumulated factors


def preaccumulation_parts(solution: ChainSolution) -> PreaccumulationParts:
    """The cost of preaccumulating the factors and that of the dense products."""
    leaves = int(sum(int(solution.fma[i, i]) for i in range(solution.problem.q)))
    return PreaccumulationParts(leaves, solution.cost - leaves)


def homogeneous_tangent(problem: ChainProblem) -> int:
    """Tangent mode through the whole chain: n_1·Σ|E_i|."""
    return problem.n[0] * problem.total_edges


def homogeneous_adjoint(problem: ChainProblem) -> int:
    """Adjoint mode through the whole chain: m_q·Σ|E_i| (tape Σ|E_i| as one sweep)."""
    return problem.m[-1] * problem.total_edges
