"""Session 59 (rk59): the builds of :mod:`unrolled58` (Lorenz and enzyme RK4 unrolled,
``make_function(..., "jacobian", lang)``) for two or more source trees, alternated run by
run in the same minutes (each build a fresh process with ``PYTHONPATH`` the tree): the
median CPU-s per tree and length, the ratio of each tree's median to the first's, and
each tree's growth exponents between lengths:

    python benchmarks/unrolled59.py lorenz jax 10,30 2 /tmp/base,.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys

import numpy as np
from unrolled58 import CHILD


def build(tree: str, name: str, lang: str, steps: int, here: str) -> dict:
    """One build's CPU-s, error against ``jax.jacfwd`` and verification, in a fresh
    process importing dgraph from ``tree``."""
    tree = os.path.abspath(tree)
    out = subprocess.run(  # run from here: ``-c`` puts the working directory first
        [sys.executable, "-W", "ignore", "-c", CHILD, name, lang, str(steps), here],
        capture_output=True,
        text=True,
        check=True,
        env=dict(os.environ, PYTHONPATH=tree),
        cwd=here,
    )
    found = json.loads(out.stdout.strip().splitlines()[-1])
    if not found["dgraph"].startswith(tree + os.sep):
        raise SystemExit(f"{tree}: dgraph imported from {found['dgraph']}")
    return found


def main() -> None:
    """Alternate the trees' builds; print a row per length and tree, then exponents."""
    name, lang = sys.argv[1], sys.argv[2]
    lengths, runs = [int(s) for s in sys.argv[3].split(",")], int(sys.argv[4])
    trees = sys.argv[5].split(",")
    here = os.path.dirname(os.path.abspath(__file__))
    medians: dict[str, list[float]] = {t: [] for t in trees}
    for steps in lengths:
        got: dict[str, list[dict]] = {t: [] for t in trees}
        for _ in range(runs):
            for tree in trees:
                got[tree].append(build(tree, name, lang, steps, here))
        for tree in trees:
            cpu = float(np.median([g["cpu"] for g in got[tree]]))
            medians[tree].append(cpu)
            runs_s = " ".join(f"{g['cpu']:.2f}" for g in got[tree])
            ratio = cpu / medians[trees[0]][-1]
            print(
                f"{name} {lang} {steps} {tree}: median {cpu:.2f} ({runs_s}) ratio {ratio:.2f}"
                f" err {got[tree][0]['err']:.1e} verified {got[tree][0]['verified']}",
                flush=True,
            )
    for tree in trees:
        found = medians[tree]
        slopes = [
            math.log(found[k + 1] / found[k]) / math.log(lengths[k + 1] / lengths[k])
            for k in range(len(lengths) - 1)
        ]
        print(f"exponents {tree}", " ".join(f"{s:.2f}" for s in slopes))


if __name__ == "__main__":
    main()
