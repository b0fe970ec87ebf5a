"""CPU seconds of ``dgraph codegen`` of long element-level chains whose statements share
subexpressions with their partials (the passes' ``cse`` has work at every step), and the
growth exponent; the generated text's sha256 to compare two checkouts.

    python benchmarks/cse_scale.py [--sizes 1000,3000,10000] [--tree DIR] [--reps 1]

The trace: ``v_k = v_(k-1)*(1 - 0.5*v_(k-1)**2) + 0.1*cos(v_(k-1))``, k = 1..n, from
``x`` to ``y`` (each partial reads ``v_(k-1)**2`` and the value's factors again). Each
size is given to ``python -m dgraph codegen FILE -o jac.py --json`` in a fresh process
with ``PYTHONPATH=DIR`` (default: this checkout); CPU seconds are user + system of that
process (import included).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from long_programs import slope

HERE = Path(__file__).resolve().parent.parent


def mixed_chain(n: int) -> str:
    """The trace of the module docstring's chain of ``n`` statements."""
    lines = [f"# {n}-step chain", "inputs: x", "outputs: y"]
    previous = "x"
    for k in range(1, n + 1):
        name = "y" if k == n else f"v{k}"
        p = previous
        lines.append(f"{name} = {p}*(1 - 0.5*{p}**2) + 0.1*cos({p})")
        previous = name
    return "\n".join(lines) + "\n"


def run(n: int, tree: Path, folder: Path) -> dict:
    """Codegen of the chain of ``n`` in a fresh process: CPU seconds, the text's hash."""
    trace = folder / f"chain_{n}.trace"
    trace.write_text(mixed_chain(n))
    out = folder / f"jac_{n}.py"
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(
        [sys.executable, "-m", "dgraph", "codegen", str(trace), "-o", str(out), "--json"],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(tree)},
        cwd=folder,
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if done.returncode != 0:
        return {"n": n, "error": (done.stderr.strip().splitlines() or ["?"])[-1]}
    data = json.loads(done.stdout.splitlines()[0])
    sha = hashlib.sha256(out.read_bytes()).hexdigest()[:12]
    fields = {k: data.get(k) for k in ("method", "mults", "adds")}
    return {
        "n": n,
        "cpu": round(cpu, 2),
        "sha": sha,
        "checked": data.get("check", {}).get("ok"),
        **fields,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="1000,3000,10000")
    parser.add_argument("--tree", default=str(HERE))
    parser.add_argument("--reps", type=int, default=1)
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    points = []
    with tempfile.TemporaryDirectory() as folder:
        for n in sizes:
            for _ in range(args.reps):
                row = run(n, Path(args.tree), Path(folder))
                print(json.dumps(row), flush=True)
                if "cpu" in row:
                    points.append((n, row["cpu"]))
    if len({n for n, _ in points}) > 1:
        print(f"growth exponent {slope(points):.2f}")


if __name__ == "__main__":
    main()
