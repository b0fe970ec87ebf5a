"""Session 47 (perf47): ``make_function``'s build CPU-s of a survey program unrolled over
``steps`` (its NumPy version, the ``steps`` keyword bound), each in a fresh process with
the dgraph on ``PYTHONPATH``, the median of ``runs``, its Jacobian's error against
``jax.jacfwd`` of the JAX version (relative to the largest row sum) and the growth
exponents between lengths:

    python benchmarks/perf47_unrolled.py rigidb python 10,20,40,80 3
    python benchmarks/perf47_unrolled.py ebm jax 10,20,40 3
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))

CHILD = r"""
import functools, json, sys, time
import numpy as np
import jax
jax.config.update("jax_enable_x64", True)
import dgraph
from api import assemble
from common import flat_fn, load, point
name, lang, steps = sys.argv[1], sys.argv[2], int(sys.argv[3])
mod_np, mod_jax, specs, params = load(name)
pts = point(mod_np, mod_jax, specs, 0)
f = functools.partial(mod_np.f, steps=steps)
start = time.process_time()
G = dgraph.make_function(f, "jacobian", lang, params=params, point=pts)
cpu = time.process_time() - start
g, xf, _, diff = flat_fn(functools.partial(mod_jax.f, steps=steps), specs, params, pts)
ref = np.asarray(jax.jacfwd(g)(xf))
sizes = [int(np.prod(specs[i][1])) if specs[i][1] else 1 for i in diff]
J = assemble(G(*pts), [ref.shape[0]], sizes)
err = float(np.abs(J - ref).max() / np.abs(ref).sum(axis=1).max())
print(json.dumps({"cpu": cpu, "err": err, "verified": bool(G.generated.verified)}))
"""


def main() -> None:
    name, lang = sys.argv[1], sys.argv[2]
    lengths, runs = [int(s) for s in sys.argv[3].split(",")], int(sys.argv[4])
    env = dict(os.environ)
    survey = os.path.join(HERE, "programs_survey")
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (env.get("PYTHONPATH"), survey, os.path.join(survey, "programs")) if p
    )
    found = []
    for steps in lengths:
        got = []
        for _ in range(runs):
            out = subprocess.run(
                [sys.executable, "-W", "ignore", "-c", CHILD, name, lang, str(steps)],
                capture_output=True,
                text=True,
                env=env,
                cwd=survey,
                check=True,
            )
            got.append(json.loads(out.stdout.strip().splitlines()[-1]))
        cpus = [g["cpu"] for g in got]
        median = float(np.median(cpus))
        found.append((steps, median))
        shown = ", ".join(f"{c:.2f}" for c in cpus)
        err = max(g["err"] for g in got)
        verified = all(g["verified"] for g in got)
        print(
            f"{name} {lang} steps={steps}: median {median:.2f} CPU-s ({shown}); "
            f"err {err:.1e}; verified={verified}",
            flush=True,
        )
    for (n0, c0), (n1, c1) in itertools.pairwise(found):
        print(f"{name} {lang} growth {n0}->{n1}: exponent {np.log(c1 / c0) / np.log(n1 / n0):.2f}")


if __name__ == "__main__":
    main()
