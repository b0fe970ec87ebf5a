"""Session 51 (sel51): the CPU seconds of a default codegen choice found kept
(``select_jacobian`` of a graph whose content was chosen for before, built again: each
test of a file reading one function, each call of a notebook), which no longer makes
the graph's scalar labels (``program.edge_labels``) first. Run with PYTHONPATH set to
the tree to time; prints one line per case.

    PYTHONPATH=.:benchmarks python benchmarks/labels51.py
"""

from __future__ import annotations

import time

import numpy as np
from cli_files_survey import hundred_ops

from dgraph.codegen import selection
from dgraph.frontends import from_function


def _operations(n: int):
    space: dict[str, object] = {}
    exec(compile(hundred_ops(n), "<hundred_ops>", "exec"), space)
    return from_function(space["f"], sizes=[0, 0, 0, 0])


def _rosen(n: int):
    def f(x):
        return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)

    return from_function(f, sizes=[n])


def main() -> None:
    cases = {"400 operations": (_operations, 400), "rosen n=60": (_rosen, 60)}
    for name, (make, n) in cases.items():
        graphs = [make(n) for _ in range(5)]  # one content, built again
        selection.select_jacobian(graphs[0])
        start = time.process_time()
        for g in graphs[1:]:
            selection.select_jacobian(g)
        kept = (time.process_time() - start) / (len(graphs) - 1)
        print(f"{name}: kept choice {kept:.3f} s")


if __name__ == "__main__":
    main()
