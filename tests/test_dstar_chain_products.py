"""D*'s shared chain products (dgraph.dominance.dstar._chain_products): the pair queue
gives exactly what recounting every pair per merge gave (same merges, same order, same
references), and its work grows with the paths' length, not with its square."""

from __future__ import annotations

import itertools
import random
from collections import Counter

import sympy

from dgraph.dominance import dstar as dstar_module
from dgraph.dominance.dstar import _chain_products, _Sums


def _recounted(chains: dict, sums: _Sums) -> tuple[dict, int]:
    """The former implementation: every adjacent pair recounted before each merge."""
    number: dict[sympy.Expr, int] = {}
    factors: list[sympy.Expr] = []
    for c in chains.values():
        for f in c:
            if f not in number:
                number[f] = len(factors)
                factors.append(f)
    work = {key: [number[f] for f in c] for key, c in chains.items()}
    merged: dict[tuple[int, int], int] = {}
    mults = 0
    while True:
        counts = Counter(pair for c in work.values() for pair in itertools.pairwise(c))
        if not counts:
            break
        (left, right), _ = counts.most_common(1)[0]
        if (left, right) not in merged:
            product = sympy.Mul(factors[left], factors[right], evaluate=False)
            merged[left, right] = len(factors)
            factors.append(sums.name(product))
            mults += 1
        joined = merged[left, right]
        for c in work.values():
            i = 0
            while i < len(c) - 1:
                if c[i] == left and c[i + 1] == right:
                    c[i : i + 2] = [joined]
                i += 1
    return {key: factors[c[0]] for key, c in work.items()}, mults


def test_pair_queue_equals_recounting_on_random_paths():
    symbols = sympy.symbols("a0:6", commutative=False)
    rng = random.Random(7)
    for trial in range(300):
        alphabet = symbols[: rng.randint(1, 6)]
        chains = {
            ("y", k): [rng.choice(alphabet) for _ in range(rng.randint(1, 9))]
            for k in range(rng.randint(1, 8))
        }
        a, b = _Sums(), _Sums()
        got = _chain_products({k: list(c) for k, c in chains.items()}, a)
        want = _recounted({k: list(c) for k, c in chains.items()}, b)
        assert got == want, (trial, chains)
        assert a.references == b.references


def test_runs_of_one_factor_merge_left_to_right_without_overlap():
    x = sympy.Symbol("x", commutative=False)
    for length in range(1, 12):
        a, b = _Sums(), _Sums()
        assert _chain_products({0: [x] * length}, a) == _recounted({0: [x] * length}, b)
        assert a.references == b.references


def test_queue_pushes_grow_linearly_with_the_paths(monkeypatch):
    """A stencil's paths (each output's chain shares factors with its neighbours): heap
    pushes per factor stay bounded as the outputs grow (recounting was quadratic)."""
    pushes = []
    real = dstar_module.heapq.heappush

    def counted(queue, item):
        pushes.append(item)
        real(queue, item)

    monkeypatch.setattr(dstar_module.heapq, "heappush", counted)
    per_factor = []
    for n in (100, 400):
        s = sympy.symbols(f"s0:{n + 2}", commutative=False)
        chains = {(i, j): [s[i], s[j + 1], s[0]] for i in range(n) for j in (i, i + 1)}
        pushes.clear()
        _chain_products(chains, _Sums())
        per_factor.append(len(pushes) / sum(len(c) for c in chains.values()))
    assert per_factor[1] <= per_factor[0] * 1.1 + 0.01
