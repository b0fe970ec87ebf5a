"""``make_function`` of ``np.max(x)`` (autograd's tests/test_numpy.py ``test_max``, a
10 x 11 matrix) at growing sizes: CPU seconds and the growth exponent between sizes.

``python autograd_max_codegen.py N...`` (run it with ``PYTHONPATH`` at the dgraph to
measure; each size in a fresh process is fairer: one size per call)."""

from __future__ import annotations

import sys
import time

import numpy as np

import dgraph


def main() -> None:
    for n in map(int, sys.argv[1:]):
        x = np.random.default_rng(0).standard_normal(n)
        start = time.process_time()
        made = dgraph.make_function(lambda x: np.max(x), "jacobian", point=[x])
        spent = time.process_time() - start
        jacobian = made(x)
        assert made.generated.verified and jacobian[np.argmax(x)] == 1 == np.abs(jacobian).sum()
        print(f"n={n} make_function {spent:.2f} CPU-s", flush=True)


if __name__ == "__main__":
    main()
