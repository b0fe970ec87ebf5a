"""The runs a region keeps (``dgraph.core.kept_runs``): within a budget of bytes, the oldest
let go first, the newest kept whatever its size; one run's tangents at a time; the blocks
handed over counted as runs come and go."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from dgraph.core.kept_runs import KeptRuns, nbytes


def _run(entries: int, **fields) -> dict:
    return {"outputs": [np.zeros(entries)], "trips": 3, **fields}


def test_the_bytes_of_a_run_count_its_arrays_and_its_steps():
    steps = [{"a": np.zeros(4), "b": np.zeros((2, 3))} for _ in range(5)]
    m = sp.csr_array(np.eye(3))
    assert nbytes(steps) == 5 * (4 + 6) * 8  # every step's: the first's times the steps
    assert nbytes(m) == 3 * 8 + 3 * m.indices.itemsize + 4 * m.indptr.itemsize
    assert nbytes({"jacobian": {(0, 0): m, (0, 1): None}, "trips": 3}) == nbytes(m) + 8


def test_runs_are_kept_within_the_budget_the_oldest_let_go_first():
    runs = KeptRuns(budget=3 * 800 + 3 * 8)
    for k in range(3):
        runs.put(bytes([k]), _run(100))
    assert len(runs) == 3 and runs.held == 3 * 808
    runs.put(b"\x03", _run(100))  # over: the oldest goes
    assert [bytes([k]) in runs for k in range(4)] == [False, True, True, True]
    runs.put(b"\x04", _run(1000))  # larger than the budget: kept alone
    assert len(runs) == 1 and runs.get(b"\x04") is not None and runs.held == 8008
    runs.put(b"\x04", _run(1))  # replaced: its bytes with it
    assert len(runs) == 1 and runs.held == 16


def test_one_run_keeps_tangents_and_the_handed_entries_follow_the_runs():
    runs = KeptRuns()
    block = np.ones((2, 2))
    first = _run(1, jacobian={(0, 0): block}, magnitudes={(0, 0): block})
    first["handed jacobian"] = {(0, 1): block, "entries": 4}
    runs.put(b"a", first)
    assert runs.handed == 4 and runs.held == 16 + 3 * 32 + 8  # an int: 8 bytes
    runs.put(b"b", _run(1, jacobian={(0, 0): block}))
    assert "jacobian" not in first and "magnitudes" not in first  # one point's at a time
    assert runs.held == (16 + 32 + 8) + (16 + 32)  # the handed block still held
    runs.put(b"a", _run(1))  # replaced: its handed entries go with it
    assert runs.handed == 0
    runs.clear()
    assert len(runs) == 0 and runs.held == 0
