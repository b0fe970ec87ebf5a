"""Binomial checkpointing: the reverse sweep of a chain of steps under a bound on the
states stored, with the fewest recomputed steps (Griewank 1992; Griewank and Walther,
"Algorithm 799: revolve", ACM TOMS 26(1), 2000; *Evaluating Derivatives*, 2nd ed., SIAM
2008, ch. 12), re-stated here as a schedule built as data.

A chain of T steps maps the state x_t to x_{t+1}; its reverse sweep runs the adjoint of
step t at x_t for t = T-1 .. 0. With ``slots`` stored states (the first holding x_0), the
fewest forward steps that reverse ``l`` steps starting from a stored x_0 is

    cost(l, s) = t·l - C(s + t, s + 1),   t = min{t : C(s + t, s) ≥ l}

(the binomial bound β(s, t) = C(s + t, s) is the longest chain s slots reverse with no
step run more than t times forward). The schedule is found by splitting: advance m steps
from x_0, store x_m in a free slot, reverse the last l - m steps with one slot fewer,
free the slot, then reverse the first m with the same slots; m is chosen where both parts
stay within the repetition budget of the optimum (checked against the dynamic program
:func:`optimal_cost` in tests/test_revolve.py).

The schedule is a list of :class:`Action` rows:

* ``takeshot`` (slot, t): store the current state x_t in the slot;
* ``advance`` (t): run step t forward, x_t → x_{t+1};
* ``turn`` (t): the adjoint of step t at the current state x_t (Griewank's *firstturn*
  for t = T-1, *youturn* after);
* ``restore`` (slot, t): the current state becomes the slot's x_t; ``free`` says the
  slot is not read again (it may be stored into later).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from math import comb

from ...errors import DGraphError

__all__ = [
    "Action",
    "Schedule",
    "binomial_schedule",
    "optimal_cost",
    "revolve_cost",
    "run_time_schedule",
    "split_at",
]


@dataclass(frozen=True)
class Action:
    """One row of a schedule: ``kind`` (takeshot, advance, turn, restore), the step
    ``t`` it concerns, the ``slot`` (-1: none) and, for a restore, whether the slot is
    freed."""

    kind: str
    t: int
    slot: int = -1
    free: bool = False


@dataclass(frozen=True)
class Schedule:
    """The actions reversing ``steps`` steps under ``slots`` stored states."""

    steps: int
    slots: int
    actions: tuple[Action, ...]

    @property
    def advances(self) -> int:
        """Forward steps run, the first sweep included (a turn's own step not counted)."""
        return sum(a.kind == "advance" for a in self.actions)

    @property
    def recomputed(self) -> int:
        """Forward steps beyond the first sweep's T - 1 (before the first turn)."""
        return self.advances - (self.steps - 1)

    def max_stored(self) -> int:
        """The most slots holding a state at once (from the actions, not assumed)."""
        held: set[int] = set()
        most = 0
        for a in self.actions:
            if a.kind == "takeshot":
                if a.slot in held:
                    raise DGraphError(f"revolve: slot {a.slot} stored into while held")
                held.add(a.slot)
                most = max(most, len(held))
            elif a.kind == "restore" and a.free:
                held.discard(a.slot)
        return most


def _repetitions(steps: int, slots: int) -> int:
    """The least t with C(slots + t, slots) ≥ steps."""
    t = 0
    while comb(slots + t, slots) < steps:
        t += 1
    return t


def revolve_cost(steps: int, slots: int) -> int:
    """Griewank's closed form of the fewest forward steps reversing ``steps`` steps from
    a stored x_0 with ``slots`` ≥ 1 stored states (x_0's among them)."""
    if steps <= 1:
        return 0
    if slots == 1:
        return steps * (steps - 1) // 2
    t = _repetitions(steps, slots)
    return t * steps - comb(slots + t, slots + 1)


@cache
def optimal_cost(steps: int, slots: int) -> int:
    """The same optimum by the dynamic program over the first split (for tests; small
    sizes): min over m of m + cost(steps - m, slots - 1) + cost(m, slots)."""
    if steps <= 1:
        return 0
    if slots == 1:
        return steps * (steps - 1) // 2
    best = optimal_cost(steps, slots - 1)
    for m in range(1, steps):
        best = min(best, m + optimal_cost(steps - m, slots - 1) + optimal_cost(m, slots))
    return best


def _split(steps: int, slots: int) -> int:
    """The first advance m of an optimal split (slots ≥ 2, steps ≥ 2)."""
    target = revolve_cost(steps, slots)
    t = _repetitions(steps, slots)
    lo = max(1, steps - comb(slots - 1 + t, slots - 1))
    hi = min(steps - 1, comb(slots + t - 1, slots))
    for m in (hi, lo, *range(lo, hi + 1)):
        if lo <= m <= hi and (
            m + revolve_cost(steps - m, slots - 1) + revolve_cost(m, slots) == target
        ):
            return m
    raise DGraphError(f"revolve: no optimal split of {steps} steps under {slots} slots")


def binomial_schedule(steps: int, slots: int) -> Schedule:
    """The binomial checkpointing schedule of ``steps`` ≥ 1 steps under ``slots`` ≥ 1
    stored states (x_0's slot 0 among them; the current state besides).

    Raises
    ------
    DGraphError
        If ``steps`` or ``slots`` is below 1.
    """
    if steps < 1 or slots < 1:
        raise DGraphError(f"revolve: {steps} steps under {slots} stored states")
    actions: list[Action] = [Action("takeshot", 0, 0)]
    # work items: ("reverse", start, end, slot, free slots) reverses steps start..end-1
    # with x_start in ``slot``, the current state x_start; ("restore", ...) restores first.
    work: list[tuple] = [("reverse", 0, steps, 0, tuple(range(1, slots)), True)]
    while work:
        kind, start, end, slot, free, last = work.pop()
        length = end - start
        if kind == "restore":  # freed when no further restore of the slot follows
            actions.append(Action("restore", start, slot, last and length == 1))
        if length == 1:
            actions.append(Action("turn", start))
            continue
        if not free:  # one slot: every state recomputed from x_start
            for j in range(end - 1, start - 1, -1):
                actions += [Action("advance", t) for t in range(start, j)]
                actions.append(Action("turn", j))
                if j > start:
                    actions.append(Action("restore", start, slot, last and j == start + 1))
            continue
        m = _split(length, 1 + len(free))
        actions += [Action("advance", t) for t in range(start, start + m)]
        mid = start + m
        work.append(("restore", start, mid, slot, free, last))
        if end - mid == 1:  # the current state is the one the last step's turn needs
            actions.append(Action("turn", mid))
        else:
            actions.append(Action("takeshot", mid, free[0]))
            work.append(("reverse", mid, end, free[0], free[1:], True))
    return Schedule(steps, slots, tuple(actions))


def split_at(steps: int, slots: int) -> int:
    """The first advance of an optimal split found by arithmetic alone, as generated code
    computes it at run time (Griewank and Walther's rule in *revolve*, Algorithm 799):
    t and β(slots, t) by a short loop, then the binomials on either side of β.

    ``steps`` ≥ 2 steps to reverse from the current state, ``slots`` ≥ 1 stored states
    counting the current one's; one slot: advance to the last step (``steps - 1``).
    """
    if slots == 1:
        return steps - 1
    reps, span = 0, 1
    while span < steps:
        reps += 1
        span = span * (reps + slots) // reps
    b1 = span * reps // (slots + reps)
    b2 = b1 * slots // (slots + reps - 1)
    b3 = b2 * (slots - 1) // (slots + reps - 2) if slots > 2 else 1
    b4 = b2 * (reps - 1) // slots
    b5 = (b3 * (slots - 2) // reps if slots > 3 else 1) if slots > 2 else 0
    if steps <= b1 + b3:
        return max(b4, 1)
    if steps >= span - b5:
        return max(b1, 1)
    return max(steps - b2 - b3, 1)


def run_time_schedule(steps: int, slots: int) -> Schedule:
    """The schedule a reverse sweep computes as it runs, once the trip count ``steps`` is
    known (a while loop's vjp: :mod:`.loop_sweeps`): a stack of checkpoints, x_0 at the
    bottom; at a state x_c below the next step to turn, f - 1, advance
    :func:`split_at` (f - c, free slots + 1) steps and push the state reached unless it is
    x_{f-1}; at x_{f-1}, turn, then restore the top checkpoint, popped when it is the next
    turn's state. The same actions as :func:`binomial_schedule` in count: the fewest
    advances for ``slots`` stored states (tests/test_revolve.py).
    """
    if steps < 1 or slots < 1:
        raise DGraphError(f"revolve: {steps} steps under {slots} stored states")
    actions = [Action("takeshot", 0, 0)]
    stack, capo, fine = [0], 0, steps
    while fine > 0:
        if capo < fine - 1:
            m = split_at(fine - capo, slots - len(stack) + 1)
            actions += [Action("advance", t) for t in range(capo, capo + m)]
            capo += m
            if capo < fine - 1:
                actions.append(Action("takeshot", capo, len(stack)))
                stack.append(capo)
            continue
        actions.append(Action("turn", capo))
        fine -= 1
        if fine == 0:
            break
        capo = stack[-1]
        free = capo == fine - 1
        actions.append(Action("restore", capo, len(stack) - 1, free))
        if free:
            stack.pop()
    return Schedule(steps, slots, tuple(actions))
