"""CPU milliseconds of placing a summand's entries in a sparse sum's pattern, the two ways
``dgraph.codegen.tensor.blockops._placed`` chooses between (issue 55, the minimal
surface's build): a search of the summand's flat keys among the sum's (``np.searchsorted``)
and a merge of the two patterns (``_flagged_merge``, then the entries flagged the
summand's), each checked to give the same positions.

    python benchmarks/sum_placing.py [--band K]

Large: the 7-band pattern of a 1000 × 1000 grid's 10⁶ rows (7·10⁶ entries, the minimal
surface's Hessian has this shape) and a 3-band summand (3·10⁶). Small: random patterns
of 8 columns and 30 to 3,000 rows, a summand of about half the entries (where
``MERGE_FROM`` sends a sum to the search). The median of 5 runs (large) or the mean of
200 (small), ``time.process_time``.

``--band K`` instead builds ``benchmarks/long_programs.py``'s Hessian of K terms (n = 2,000,
``hessian_build``) in this process with ``blockops._resolved`` (placing),
``BlockOps._keyed_sum`` and ``BlockOps.add`` (all sums, the keyed ones included) timed, and
prints those CPU seconds and the build's.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import numpy as np


def _ms(f, reps: int = 5) -> tuple[float, object]:
    times, out = [], None
    for _ in range(reps):
        t0 = time.process_time()
        out = f()
        times.append(time.process_time() - t0)
    return 1e3 * statistics.median(times), out


def main() -> None:
    import scipy.sparse as sp

    from dgraph.blocks import sparse
    from dgraph.codegen.tensor.blockops import _flagged_merge, _flat_keys, _places, _positions

    m = 1000
    n = m * m
    bands = sp.diags([1.0] * 7, [-m - 1, -m, -1, 0, 1, m, m + 1], shape=(n, n), format="csr")
    part = sp.diags([1.0] * 3, [-m, 0, m + 1], shape=(n, n), format="csr")
    total = sparse((n,), (n,), *bands.nonzero())
    summand = sparse((n,), (n,), *part.nonzero())
    keys = _flat_keys(total, n)
    searched, p = _ms(lambda: _positions(keys, _flat_keys(summand, n)))
    merged, q = _ms(lambda: _places(_flagged_merge(summand, total)[1], total.nnz)[0])
    assert np.array_equal(p, q)
    print(f"{summand.nnz:,} in {total.nnz:,}: search {searched:.1f} ms, merge {merged:.1f} ms")
    rng = np.random.default_rng(0)
    for rows in (30, 100, 300, 1000, 3000):
        mask = rng.random((rows, 8)) < 0.7
        total = sparse((rows,), (8,), *np.nonzero(mask))
        summand = sparse((rows,), (8,), *np.nonzero(mask & (rng.random((rows, 8)) < 0.5)))
        keys = _flat_keys(total, 8)
        searched, p = _ms(lambda: _positions(keys, _flat_keys(summand, 8)), 200)  # noqa: B023
        merged, q = _ms(
            lambda: _places(_flagged_merge(summand, total)[1], total.nnz)[0],  # noqa: B023
            200,
        )
        assert np.array_equal(p, q)
        print(f"{summand.nnz:,} in {total.nnz:,}: search {searched:.3f} ms, merge {merged:.3f} ms")


def band(k: int) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import long_programs

    import dgraph.codegen.tensor.blockops as bo

    spent = {"placing": 0.0, "keyed sums": 0.0, "BlockOps.add": 0.0}

    def wrap(owner, name: str, key: str) -> None:
        inner = getattr(owner, name)

        def timed(*a, **kw):
            t0 = time.process_time()
            try:
                return inner(*a, **kw)
            finally:
                spent[key] += time.process_time() - t0

        setattr(owner, name, timed)

    wrap(bo, "_resolved", "placing")
    wrap(bo.BlockOps, "_keyed_sum", "keyed sums")
    wrap(bo.BlockOps, "add", "BlockOps.add")
    t0 = time.process_time()
    found = long_programs.hessian_build(k, 2000)
    build = time.process_time() - t0
    times = ", ".join(f"{key} {v:.3f}" for key, v in spent.items())
    print(f"K = {k}: build {build:.2f} CPU-s; {times}; nnz {found.get('nnz')}")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--band":
        band(int(sys.argv[2]))
    else:
        main()
