"""An array program's values at a few entries (``dgraph.codegen.tensor.entry_values``,
what the cancellation pass evaluates at its later points): the same bits as the whole
program's values there, through gathers, scatters, scatter-adds whose parts meet at a
position, segment sums, reshapes and elementwise operations; a statement of another
kind (a slice) is evaluated whole, and so is what it reads."""

from __future__ import annotations

import numpy as np
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from dgraph.codegen.evaluate import ArrayEvaluator
from dgraph.codegen.ir import (
    ArrayStatement,
    BinOp,
    Call,
    Const,
    Formula,
    Index,
    Name,
    Scatter,
    ScatterAdd,
    SegmentSum,
    Slice,
)
from dgraph.codegen.tensor.entry_values import EntryValues, demand, values

A0, A1 = sympy.symbols("_a0 _a1")


def _program(x_size: int, k: dict[str, np.ndarray]) -> list[ArrayStatement]:
    """x → a gather, a scatter, a scatter-add of two parts, a segment sum, a formula and
    a ufunc, and a slice (whole) feeding an elementwise product."""

    def r(name: str):
        return Call("ravel", (Name(name),))

    return [
        ArrayStatement("g", BinOp("*", Index(r("x"), (Name("K1"),)), Const(2.0))),
        ArrayStatement("s", Scatter(12, Name("K2"), r("g"))),
        ArrayStatement(
            "t",
            ScatterAdd(
                Call("broadcast_to", (r("s"), Const((12,)))),
                ((Name("K3"), r("g")), (Name("K4"), BinOp("-", r("g"), Name("c1")))),
            ),
        ),
        ArrayStatement(
            "seg", SegmentSum(BinOp("*", Index(r("t"), (Name("K5"),)), Name("w")), Name("K6"), 5)
        ),
        ArrayStatement("h", Index(Name("x"), (Slice(1, x_size, None),))),
        ArrayStatement(
            "f",
            BinOp(
                "+",
                Formula(sympy.sin(A0) * A1 - A1**2, ((A0, Name("seg")), (A1, Name("seg")))),
                Call("exp", (Name("seg"),)),
            ),
        ),
        ArrayStatement("y", BinOp("*", Call("reshape", (Name("f"), Const((5, 1)))), Const(0.5))),
        ArrayStatement("z", BinOp("*", Name("h"), Index(r("seg"), (Name("K7"),)))),
    ]


@settings(max_examples=30, deadline=None)
@given(st.data())
def test_values_at_entries_are_the_whole_programs_bits(data):
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    n, from_end = 6, data.draw(st.booleans())
    k = {
        "K1": rng.integers(-n if from_end else 0, n, 8),  # an entry read twice, or from the end
        "K2": rng.permutation(12)[:8],  # a scatter's positions: each once
        "K3": rng.permutation(12)[:8],
        "K4": rng.permutation(12)[:8],  # meets K3's positions: two terms added there
        "K5": rng.integers(0, 12, 9),
        "K6": rng.integers(0, 5, 9),  # segments of several terms
        "K7": rng.integers(0, 5, n - 1),
    }
    known = {**k, "c1": np.array([0.25]), "w": rng.uniform(-2, 2, 9)}
    statements = _program(n, k)
    env = {**known, "x": rng.uniform(0.25, 0.75, n)}
    whole = ArrayEvaluator().run(statements, dict(env))
    shapes = {name: np.shape(v) for name, v in whole.items()}
    wanted_y = np.unique(rng.integers(0, 5, data.draw(st.integers(1, 5))))
    wanted_z = np.unique(rng.integers(0, n - 1, data.draw(st.integers(1, 5))))
    program = EntryValues(shapes, known)
    need = demand(program, statements, [(Name("y"), wanted_y), (Name("z"), wanted_z)])
    assert need is not None
    assert need["h"] is None and need["x"] is None  # the slice, and what it reads: whole
    assert need["seg"] is not None and set(need["seg"]) <= set(range(5))
    if need["g"] is None:  # a position read from the end: the gather is taken whole
        assert (k["K1"] < 0).any()
    else:
        assert (k["K1"][need["g"]] >= 0).all()
    ev, part = ArrayEvaluator(), dict(env)
    for s in statements:
        if s.target not in need:
            continue
        if need[s.target] is None:
            ev.run([s], part)
            continue
        at = need[s.target]
        found = values(program, s.value, at, part, ev)
        assert np.array_equal(found, np.ravel(whole[s.target])[at]), s.target  # bit for bit
        part[s.target] = (at, found)
    for name, at in (("y", wanted_y), ("z", wanted_z)):
        found = values(program, Name(name), at, part, ev)
        assert np.array_equal(found, np.ravel(whole[name])[at])


def test_a_store_or_a_second_assignment_is_not_taken():
    shapes, known = {"a": (3,), "x": (3,)}, {}
    program = EntryValues(shapes, known)
    twice = [
        ArrayStatement("a", BinOp("*", Name("x"), Const(2.0))),
        ArrayStatement("a", BinOp("*", Name("a"), Const(2.0))),
    ]
    assert demand(program, twice, [(Name("a"), np.array([1]))]) is None
    store = [ArrayStatement("a", Const(1.0), at=(Const(0),))]
    assert demand(program, store, [(Name("a"), np.array([1]))]) is None


def test_a_later_ask_reuses_an_earlier_lookup_with_the_same_positions():
    """A scatter's lookup of fewer positions, among those an earlier program asked (the
    cancellation pass's third point after its second), looks only at the entries found
    then, and finds what a fresh lookup finds; positions outside the earlier ones are
    looked up afresh."""
    rng = np.random.default_rng(3)
    size = 50
    flat = rng.integers(0, size, 400)  # repeats: several entries land on one position
    node = Scatter(size, Name("K"), Name("d"))
    key = (id(node), id(flat))
    earlier = EntryValues({}, {"K": flat})
    first = np.unique(rng.choice(size, 20, replace=False))
    earlier.positions(node, flat, first, size)
    outside = np.setdiff1d(np.arange(size), first)[:2]
    for at, reused in (
        (first[::3], True),
        (first[:1], True),
        (np.union1d(first[:4], outside), False),
    ):
        fresh = EntryValues({}, {"K": flat}).positions(node, flat, at, size)
        later = EntryValues({}, {"K": flat}, earlier.lookups)
        for mine, theirs in zip(later.positions(node, flat, at, size), fresh, strict=True):
            np.testing.assert_array_equal(mine, theirs)
        # the earlier entries with one that lands at ``at`` left out: read when reused
        found_at, taken, rank = earlier.lookups[key]
        dropped = np.flatnonzero(np.isin(flat[taken], at))[0]
        short = {key: (found_at, np.delete(taken, dropped), rank)}
        got = EntryValues({}, {"K": flat}, short).positions(node, flat, at, size)[0]
        assert (got.size == fresh[0].size - 1) == reused


def _marked_lookup(flat: np.ndarray, at: np.ndarray, size: int):
    """A scatter's lookup by its definition: the entries of ``flat`` landing at ``at``
    (marks read at every entry), in order, and each one's rank in ``at``."""
    hit = np.zeros(size, dtype=bool)
    hit[at] = True
    taken = np.flatnonzero(hit[flat])
    rank = np.empty(size, dtype=np.int64)
    rank[at] = np.arange(at.size)
    return taken, rank[flat[taken]]


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_a_lookup_in_increasing_positions_is_the_marked_lookup(data):
    """A scatter's positions in increasing order (the minimal surface's) are searched
    for the positions asked instead of marked and read whole: the same entries in the
    same order, the same ranks, int64 both (int32 or int64 positions; positions asked
    that no entry lands at; none asked; a position from the end taken the long way)."""
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    size = data.draw(st.integers(1, 40))
    dtype = data.draw(st.sampled_from([np.int32, np.int64]))
    flat = np.sort(rng.choice(size, data.draw(st.integers(0, size)), replace=False))
    flat = flat.astype(dtype)
    if data.draw(st.booleans()) and flat.size:  # not increasing, or read from the end
        flat[0] = -1 if data.draw(st.booleans()) else flat[-1]
    at = np.sort(rng.choice(size, data.draw(st.integers(0, size)), replace=False))
    node = Scatter(size, Name("K"), Name("d"))
    found = EntryValues({}, {"K": flat}).positions(node, flat, at, size)
    for mine, theirs in zip(found, _marked_lookup(flat, at, size), strict=True):
        np.testing.assert_array_equal(mine, theirs)
        assert mine.dtype == theirs.dtype == np.int64
