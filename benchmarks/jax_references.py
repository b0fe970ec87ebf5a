"""CPU seconds of test files with JAX's references stored (tests/jax_reference_store.py),
with the store empty (every reference live) and at a base checkout, run alternately.

    python benchmarks/jax_references.py --base /tmp/base --repeat 2 tests/test_x.py …

Each run is one ``pytest -n 0`` process; its CPU (user + system, children's included) is
read from ``wait4``. Prints each run and the medians per condition.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _cpu(command: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, int]:
    """The CPU seconds of ``command`` and its exit status."""
    process = subprocess.Popen(
        command, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    _, status, usage = os.wait4(process.pid, 0)
    return usage.ru_utime + usage.ru_stime, os.waitstatus_to_exitcode(status)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+")
    parser.add_argument("--base", type=Path, help="a checkout to compare with (PYTHONPATH)")
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--conditions", default="stored,empty,base", help="which, in order")
    args = parser.parse_args()
    pytest = [sys.executable, "-m", "pytest", *args.files, "-n", "0", "-q", "-p", "no:randomly"]
    pytest += ["-W", "ignore", "-p", "no:cacheprovider"]
    empty = tempfile.mkdtemp(prefix="jax_references_")
    conditions = {"stored": (ROOT, {}), "empty": (ROOT, {"DGRAPH_JAX_REFERENCES": empty})}
    if args.base is not None:
        conditions["base"] = (args.base, {})
    conditions = {name: conditions[name] for name in args.conditions.split(",")}
    found: dict[str, list[float]] = {name: [] for name in conditions}
    for repeat in range(args.repeat):
        for name, (root, extra) in conditions.items():
            env = {**os.environ, "PYTHONPATH": str(root), **extra}
            env.pop("DGRAPH_WRITE_JAX_REFERENCES", None)
            seconds, status = _cpu(pytest, root, env)
            found[name].append(seconds)
            print(f"run {repeat} {name}: {seconds:.1f} CPU-s (exit {status})", flush=True)
    for name, seconds in found.items():
        print(f"{name}: median {statistics.median(seconds):.1f} CPU-s of {seconds}")


if __name__ == "__main__":
    main()
