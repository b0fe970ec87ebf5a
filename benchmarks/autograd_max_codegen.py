"""``make_function`` of ``np.max(x)`` (autograd's tests/test_numpy.py ``test_max``, a
10 x 11 matrix) at growing sizes: CPU seconds and the growth exponent between sizes.

``python autograd_max_codegen.py SIZE...`` (run it with ``PYTHONPATH`` at the dgraph to
measure; each size in a fresh process is fairer: one size per call). A size is ``n`` (a
vector) or ``RxC`` (a matrix, autograd's ``10x11``), ``min:`` before it for ``np.min``
(``test_min``)."""

from __future__ import annotations

import sys
import time

import numpy as np

import dgraph


def main() -> None:
    for size in sys.argv[1:]:
        kind, _, shape_text = size.rpartition(":")
        f = (lambda x: np.min(x)) if kind == "min" else (lambda x: np.max(x))
        shape = tuple(map(int, shape_text.split("x")))
        x = np.random.default_rng(0).standard_normal(shape)
        start = time.process_time()
        made = dgraph.make_function(f, "jacobian", point=[x])
        spent = time.process_time() - start
        jacobian = np.ravel(made(x))
        best = np.argmin(x) if kind == "min" else np.argmax(x)
        assert made.generated.verified and jacobian[best] == 1 == np.abs(jacobian).sum()
        print(f"{size} make_function {spent:.2f} CPU-s", flush=True)


if __name__ == "__main__":
    main()
