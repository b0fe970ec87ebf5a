"""The sparse Hessian of scipy.optimize.rosen itself (it converts its argument with
np.asarray inside scipy: read at the element level, issue 55): build CPU-s (the first
call, imports included), nonzeros and the largest difference from scipy's rosen_hess.
``python benchmarks/rosen_scipy.py N ...``"""

import sys
import time

import numpy as np
from scipy.optimize import rosen, rosen_hess

import dgraph

for n in map(int, sys.argv[1:]):
    x = np.linspace(-0.4, 0.7, n)
    t = time.process_time()
    h = dgraph.hessian(rosen, x, sparse=True)
    build = time.process_time() - t
    H = h(x)
    err = np.max(np.abs(H.toarray() - rosen_hess(x)))
    print(f"n={n} build_cpu={build:.2f} nnz={H.nnz} max_err={err:.1e}")
