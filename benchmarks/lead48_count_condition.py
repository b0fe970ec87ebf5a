"""Session 48 (lead): a count of comparisons compared, ``where(np.sum(x > 1) > 2, Σx², Σx)``,
at the element level: ``make_function(f, "value_and_jacobian")`` CPU-s by the length N.

``python benchmarks/lead48_count_condition.py N [N ...]`` prints N, CPU-s, verified,
whether J equals 2x (the branch taken at linspace(0.5, 1.5, N) from N = 6 on).
"""

import sys
import time
import warnings

import numpy as np

import dgraph


def f(x):
    count = np.sum(x > 1.0)
    return np.where(count > 2, np.sum(x**2), np.sum(x))


if __name__ == "__main__":
    warnings.simplefilter("ignore")
    for n in map(int, sys.argv[1:]):
        x = np.linspace(0.5, 1.5, n)
        t = time.process_time()
        made = dgraph.make_function(f, "value_and_jacobian", point=[x])
        _, jacobian = made(x)
        seconds = time.process_time() - t
        print(n, round(seconds, 2), made.generated.verified, np.allclose(jacobian, 2 * x))
