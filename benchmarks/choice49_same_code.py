"""Session 49 (choice49): generate code (python, c, jax; jacobian, jvp, vjp,
value_and_jacobian) for a corpus of scalar graphs and write every text, count and
selection row as JSON: run once with the base on PYTHONPATH and once with the branch,
then compare the two files:

    PYTHONPATH=BASE python benchmarks/choice49_same_code.py base.json
    PYTHONPATH=. python benchmarks/choice49_same_code.py branch.json
    cmp base.json branch.json
"""

import json
import sys
import time

sys.path.insert(0, "benchmarks")
import numpy as np
from codegen_functions import FUNCTIONS

import dgraph
from dgraph.bench.suite import SUITES
from dgraph.codegen.generate import generate_all

MODES = ("jacobian", "jvp", "vjp", "value_and_jacobian")


def numpy_cases():
    x = np.array([0.3, -1.2, 0.7, 1.6])
    return {
        "softmax": (lambda v: np.exp(v) / np.sum(np.exp(v)), x),
        "logsumexp-max": (lambda v: np.max(v) + np.log(np.sum(np.exp(v - np.max(v)))), x),
        "relu-where": (lambda v: np.where(v > 0, v * v, 0.1 * v), x),
        "rosenbrock": (lambda v: np.sum(100 * (v[1:] - v[:-1] ** 2) ** 2 + (1 - v[:-1]) ** 2), x),
        "huber": (lambda v: np.sum(np.where(np.abs(v) < 1, 0.5 * v**2, np.abs(v) - 0.5)), x),
        "cummax": (lambda v: np.sum(np.maximum.accumulate(v) * v), x),
        "norm": (lambda v: np.linalg.norm(v) * np.sign(v[0]) + np.heaviside(v[1], 0.5) * v[2], x),
    }


def main(out):
    graphs = {}
    graphs.update(
        {
            f"suite:{k}": v
            for k, v in SUITES["full"].items()
            if "spherical-harmonics-8" not in k and "chebyshev-20" not in k
        }
    )
    graphs.update({f"fn:{k}": v for k, v in FUNCTIONS.items()})
    for k, (f, x) in numpy_cases().items():
        graphs[f"np:{k}"] = lambda f=f, x=x: dgraph.from_function(f, sizes=[len(x)])
    result = {}
    for name, make in graphs.items():
        t = time.process_time()
        try:
            g = make()
            gens = generate_all(g, ("python", "c", "jax"), modes=MODES, check=False)
            result[name] = [
                {
                    "lang": x.lang,
                    "text": x.text,
                    "method": x.method,
                    "ops": {n: p.ops.to_dict() for n, p in x.programs.items()},
                    "selection": None if x.selection is None else x.selection.to_dict(),
                }
                for x in gens
            ]
        except Exception as exc:  # a case the corpus cannot run: recorded, compared too
            result[name] = f"error: {type(exc).__name__}: {exc}"
        print(f"{name}: {time.process_time() - t:.2f} CPU-s", file=sys.stderr, flush=True)
    with open(out, "w") as f:
        json.dump(result, f, indent=0, sort_keys=True)


main(sys.argv[1])
