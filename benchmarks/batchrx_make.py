"""Session 62: the survey's ``batchrx`` (a batch reactor, 2A -> B -> C, integrated by
classical RK4 steps; benchmarks/programs_survey/programs/batchrx_np.py) with its step
count as a parameter: ``make_function(f, "jacobian", lang)`` CPU-s (the build, the
expression set, the code and its check; JAX's import excluded) in a fresh process per
run, the generated text's hash and length, and the growth exponent over the step counts.

    PYTHONPATH=. python benchmarks/batchrx_make.py --steps 10 20 30 --langs python jax c
    PYTHONPATH=. python benchmarks/batchrx_make.py --steps 10 --langs jax --repeat 3

``--one STEPS LANG``: one run in this process (what the parent runs), one JSON line.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import log_slope, median

sys.path.insert(0, str(Path(__file__).resolve().parent / "programs_survey" / "programs"))
import batchrx_np


def reactor(steps: int):
    """batchrx's ``f`` with ``steps`` RK4 steps (the survey's: 30)."""
    batchrx_np.STEPS = steps
    return batchrx_np.f


def one(steps: int, lang: str) -> dict:
    """One make in this process: CPU-s, verified, the text's hash and length."""
    import dgraph

    if lang == "jax":
        import jax  # noqa: F401  # imported before the clock starts, as a JAX user has it

    rng = np.random.default_rng(0)
    point = [np.array([10.0, 4.0, 8.0, 5.0]) + 0.1 * rng.normal(size=4), np.array([1.0, 0, 0])]
    warnings.simplefilter("ignore")
    t0 = time.process_time()
    made = dgraph.make_function(reactor(steps), "jacobian", lang, point=point)
    seconds = time.process_time() - t0
    text = made.generated.text
    return {
        "steps": steps,
        "lang": lang,
        "cpu_s": round(seconds, 2),
        "verified": bool(made.generated.verified),
        "sha": hashlib.sha256(text.encode()).hexdigest()[:12],
        "chars": len(text),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", nargs="+", type=int, default=[10, 20, 30])
    parser.add_argument("--langs", nargs="+", default=["python", "jax", "c"])
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--one", nargs=2, metavar=("STEPS", "LANG"))
    args = parser.parse_args()
    if args.one:
        print(json.dumps(one(int(args.one[0]), args.one[1])), flush=True)
        return
    for lang in args.langs:
        medians = []
        for steps in args.steps:
            runs = []
            for _ in range(args.repeat):
                out = subprocess.run(
                    [sys.executable, __file__, "--one", str(steps), lang],
                    capture_output=True,
                    text=True,
                    check=True,
                )
                runs.append(json.loads(out.stdout.strip().splitlines()[-1]))
            cpu = median([r["cpu_s"] for r in runs])
            medians.append(cpu)
            last = runs[-1]
            print(
                f"{lang:6s} steps {steps:3d}  CPU-s median {cpu:6.2f} "
                f"({', '.join(str(r['cpu_s']) for r in runs)})  verified={last['verified']} "
                f"sha {last['sha']} chars {last['chars']}",
                flush=True,
            )
        if len(args.steps) > 1:
            print(f"{lang:6s} growth exponent {log_slope(args.steps, medians):.2f}", flush=True)


if __name__ == "__main__":
    main()
