"""Sparse Hessian of a Poisson GLM written with scipy.special (``xlogy``, ``gammaln``,
``expit``; ``logsumexp`` would make it dense), read by the NumPy tracer at the array level
(issue 55): build CPU-s of each size (one process, sizes in order; the first includes
imports), nonzeros, per call CPU-s.
``python benchmarks/scipy_special_scale.py N ...``"""

import sys
import time

import numpy as np
import scipy.special as ss

import dgraph


def glm_objective(k):
    def f(x):
        mu = np.exp(0.3 * x)
        return np.sum(mu - ss.xlogy(k, mu) + ss.gammaln(k + 1.0)) + np.sum(ss.expit(x) ** 2)

    return f


for n in map(int, sys.argv[1:]):
    rng = np.random.default_rng(n)
    k = rng.poisson(2.0, n).astype(float)
    x = rng.uniform(-0.5, 0.5, n)
    f = glm_objective(k)
    t = time.process_time()
    h = dgraph.hessian(f, x, sparse=True)
    build = time.process_time() - t
    t = time.process_time()
    H = h(x)
    call = time.process_time() - t
    print(f"n={n} build_cpu={build:.2f} call_cpu={call:.4f} nnz={H.nnz}")
