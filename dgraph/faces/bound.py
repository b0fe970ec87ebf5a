"""A lower bound on the face eliminations a line-graph state still needs: bracketings.

In a face state every input-output path is cut into segments at graph vertices
(:meth:`dgraph.faces.compact.FaceGraph.cuts`). Eliminating a face joins, on each path
through it, a segment from s to r with one from r to t: the multiplication is named by
the triple (s, r, t) of graph vertices, and a path cut at c_0 < c_1 < ... < c_L is
finished by L - 1 of them forming a bracketing (a binary tree) of its segments. One
elimination is one triple, shared by every path it joins, so the fewest triples through
which every path can be bracketed bounds what is left from below (the bracketing bound
of :mod:`dgraph.search.bracketing_bound`, here on a state's cut paths and in structural
multiplications; Naumann 2004, §3, for face elimination).

It is computed exactly, by branch and bound over the root triple of each segment not
yet formable, on each group of paths that could share a triple (paths that share no
ordered pair of cut vertices never do), and groups are cached: the states of one search
repeat them. A group whose search spends more than ``GROUP_WORK`` units of work
(:class:`Work`) gets the weaker bound counted at its root (one triple per pair of path
ends, or the paths that share no triple packed) — still a lower bound, and a count, not
a time, so the result never depends on the machine. Eliminating one face lowers the
exact bound by at most one (its triple, added to a bracketing of the next state,
brackets this one): it is consistent, and where a group falls back to the weak bound
the search's pathmax keeps f monotone.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..core.budget import Deadline

__all__ = ["GROUP_WORK", "OutOfWork", "TripleBound", "Work", "root_bound"]

GROUP_WORK = 2_000_000  # units of work (see Work) per group of paths before the weak bound

Seq = tuple[int, ...]  # a path's (or segment's) cut vertices, ends included
Triple = tuple[int, int, int]


class _Exceeded(Exception):
    """The branch and bound of one group ran past its node allowance."""


class OutOfWork(Exception):
    """A budgeted search spent its allowance (or, as a safety net, its time ceiling)."""


class Work:
    """Units of work spent by one search — branch-and-bound nodes and generated states,
    weighted by their size so that a unit takes about as long everywhere — against an
    allowance (None: unlimited) and a time ceiling (None: none; a
    :class:`~dgraph.core.budget.Deadline`, of CPU time with a wall-clock backstop), looked
    at every 256 units. The allowance makes a budgeted result the same on any machine;
    only the ceiling depends on the machine (its speed, not its load), and
    :attr:`by_time` says if it bit, :attr:`cut_by` by which clock."""

    def __init__(self, allowance: int | None = None, deadline: Deadline | None = None) -> None:
        self.allowance, self.deadline = allowance, deadline
        self.spent, self.by_time = 0, False
        self.cut_by: str | None = None

    def spend(self, units: int = 1) -> None:
        before, self.spent = self.spent, self.spent + units
        if self.allowance is not None and self.spent > self.allowance:
            raise OutOfWork
        checks = self.deadline is not None and before >> 8 != self.spent >> 8
        if checks and (clock := self.deadline.passed()) is not None:  # type: ignore[union-attr]
            self.by_time, self.cut_by = True, clock
            raise OutOfWork


class TripleBound:
    """The fewest triples bracketing every cut path, per group of paths, cached."""

    def __init__(self, work: Work | None = None) -> None:
        self.work = work or Work()
        self._cache: dict[frozenset[Seq], tuple[int, frozenset[Triple]]] = {}
        self.groups_cut = 0  # groups that ran past GROUP_WORK (the weak bound used)

    def __call__(self, cuts: Iterable[Seq]) -> int:
        """The bound for paths with these cut sequences (single segments need nothing)."""
        return sum(self._group(g)[0] for g in _groups({s for s in cuts if len(s) > 2}))

    def triples(self, cuts: Iterable[Seq]) -> frozenset[Triple]:
        """Triples of a cheapest bracketing of every group solved exactly (a guide)."""
        groups = _groups({s for s in cuts if len(s) > 2})
        return frozenset().union(*(self._group(g)[1] for g in groups))

    def _group(self, group: frozenset[Seq]) -> tuple[int, frozenset[Triple]]:
        if group not in self._cache:
            search = _Search(sorted(group), self.work)
            try:
                self._cache[group] = search.run(), frozenset(search.solution)
            except _Exceeded:
                self.groups_cut += 1
                self._cache[group] = _weak(sorted(group)), frozenset()
        return self._cache[group]


def root_bound(cuts: Iterable[Seq]) -> int:
    """The weak bound, without search (:func:`_weak`)."""
    return _weak(sorted({s for s in cuts if len(s) > 2}))


def _weak(seqs: list[Seq]) -> int:
    """The branch and bound's own bound at its root: the larger of one triple per pair
    of path ends and the packing of paths no triple could serve two of."""
    return max(_fresh_pairs(seqs, set()), _packed(seqs, set()))


def _groups(seqs: set[Seq]) -> list[frozenset[Seq]]:
    """The paths split where no triple could be shared: union of paths with a common
    ordered pair of cut vertices (a triple's ends)."""
    parent = {s: s for s in seqs}

    def find(s: Seq) -> Seq:
        while parent[s] != s:
            parent[s] = parent[parent[s]]
            s = parent[s]
        return s

    owner: dict[tuple[int, int], Seq] = {}
    for s in sorted(seqs):
        for a in range(len(s) - 2):
            for b in range(a + 2, len(s)):
                other = owner.setdefault((s[a], s[b]), s)
                ra, rb = find(s), find(other)
                if ra != rb:
                    parent[max(ra, rb)] = min(ra, rb)
    out: dict[Seq, set[Seq]] = {}
    for s in seqs:
        out.setdefault(find(s), set()).add(s)
    return [frozenset(g) for _, g in sorted(out.items())]


def _fresh_pairs(pending: list[Seq], chosen: set[Triple]) -> int:
    """Each segment not formable needs a triple with its own two ends; if none with those
    ends and a middle inside it is chosen yet, a new one: distinct ends, distinct triples."""
    ends = set()
    for s in pending:
        inside = set(s[1:-1])
        if not any(t[0] == s[0] and t[2] == s[-1] and t[1] in inside for t in chosen):
            ends.add((s[0], s[-1]))
    return len(ends)


def _alone(s: Seq, chosen: set[Triple]) -> int:
    """The fewest new triples that bracket ``s`` by itself (interval dynamic program)."""
    n = len(s)
    cost = [[0] * n for _ in range(n)]
    for width in range(2, n):
        for a in range(n - width):
            b = a + width
            cost[a][b] = min(
                ((s[a], s[r], s[b]) not in chosen) + cost[a][r] + cost[r][b]
                for r in range(a + 1, b)
            )
    return cost[0][n - 1]


def _triples(s: Seq) -> set[Triple]:
    n = len(s)
    return {(s[a], s[r], s[b]) for a in range(n) for b in range(a + 2, n) for r in range(a + 1, b)}


def _packed(pending: list[Seq], chosen: set[Triple]) -> int:
    """The sum, over segments no new triple could serve two of, of the new triples each
    needs alone."""
    owed = sorted(((_alone(s, chosen), s) for s in pending), reverse=True)
    used: set[Triple] = set()
    packed = 0
    for need, s in owed:
        if need == 0:
            break
        fresh = _triples(s) - chosen
        if not fresh & used:
            used |= fresh
            packed += need
    return packed


class _Search:
    """Branch and bound over the root triple of each segment not yet formable."""

    def __init__(self, seqs: list[Seq], work: Work) -> None:
        self.seqs, self.work = seqs, work
        self.best = sum(len(s) - 2 for s in seqs) + 1  # every path bracketed on its own
        self.solution: set[Triple] = set()
        self.spent = 0

    def run(self) -> int:
        self._branch(set(), list(self.seqs))
        return self.best

    def _spend(self, units: int) -> None:
        self.work.spend(units)
        self.spent += units
        if self.spent > GROUP_WORK:
            raise _Exceeded

    def _formable(self, s: Seq, chosen: set[Triple], memo: dict[Seq, bool]) -> bool:
        if len(s) <= 2:
            return True
        if s not in memo:
            memo[s] = any(
                (s[0], s[r], s[-1]) in chosen
                and self._formable(s[: r + 1], chosen, memo)
                and self._formable(s[r:], chosen, memo)
                for r in range(1, len(s) - 1)
            )
        return memo[s]

    def _branch(self, chosen: set[Triple], pending: list[Seq]) -> None:
        memo: dict[Seq, bool] = {}
        left = [s for s in pending if not self._formable(s, chosen, memo)]
        self._spend(1 + sum(map(len, pending)))
        if not left:
            if len(chosen) < self.best:
                self.best, self.solution = len(chosen), set(chosen)
            return
        if len(chosen) + _fresh_pairs(left, chosen) >= self.best:
            return
        self._spend(sum(len(s) ** 3 for s in left) // 8)  # what packing costs
        if len(chosen) + _packed(left, chosen) >= self.best:
            return
        s = min(left, key=len)  # the fewest ways to split it
        rest = [p for p in left if p != s]
        splits = sorted(range(1, len(s) - 1), key=lambda r: (s[0], s[r], s[-1]) not in chosen)
        for r in splits:
            parts = [p for p in (s[: r + 1], s[r:]) if len(p) > 2]
            self._branch(chosen | {(s[0], s[r], s[-1])}, rest + parts)
