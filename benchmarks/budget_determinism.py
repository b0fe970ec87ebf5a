"""``--budget`` is work: the same ``--json`` (seconds fields aside) on an idle and a loaded
machine, and the wall time of each run.

Runs ``dgraph ARGS --json`` once as the machine is, then again with ``--load`` busy
processes (``while True: pass``) started beside it and killed after, and prints each run's
wall time, whether the ceiling cut it, and whether the two objects differ (with the first
differing key). Usage::

    python benchmarks/budget_determinism.py [--load 2] -- compare GRAPH --budget 5 --seed 0
    python benchmarks/budget_determinism.py -- accumulate GRAPH -m best --budget 5 --seed 0
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from typing import Any

__all__ = ["counted", "first_difference", "main"]


def counted(data: Any) -> Any:
    """``data`` without its seconds fields: what load may change."""
    if isinstance(data, dict):
        return {k: counted(v) for k, v in data.items() if "seconds" not in k}
    if isinstance(data, list):
        return [counted(v) for v in data]
    return data


def first_difference(a: Any, b: Any, where: str = "") -> str | None:
    """The path of the first place ``a`` and ``b`` differ, or None."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b)):
            if key not in a or key not in b:
                return f"{where}/{key} (missing on one side)"
            found = first_difference(a[key], b[key], f"{where}/{key}")
            if found:
                return found
        return None
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for k, (x, y) in enumerate(zip(a, b, strict=True)):
            found = first_difference(x, y, f"{where}[{k}]")
            if found:
                return found
        return None
    return None if a == b else f"{where}: {a!r} != {b!r}"


def _run(args: list[str]) -> tuple[float, Any]:
    started = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-m", "dgraph", *args, "--json"], capture_output=True, text=True
    )
    seconds = time.perf_counter() - started
    if out.returncode not in (0, 1):
        raise SystemExit(f"dgraph failed ({out.returncode}): {out.stderr.strip()[-500:]}")
    return seconds, json.loads(out.stdout)


def _cut(data: Any) -> bool:
    return bool(data.get("cut_by_time"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--load", type=int, default=2, help="busy processes in the 2nd run")
    parser.add_argument("args", nargs=argparse.REMAINDER)
    options = parser.parse_args()
    args = [a for a in options.args if a != "--"]
    idle_seconds, idle = _run(args)
    busy = [
        subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(options.load)
    ]
    try:
        loaded_seconds, loaded = _run(args)
    finally:
        for process in busy:
            process.kill()
            process.wait()
    print(f"as is:  {idle_seconds:.1f} s, cut_by_time {_cut(idle)}")
    print(
        f"loaded: {loaded_seconds:.1f} s ({options.load} busy processes),"
        f" cut_by_time {_cut(loaded)}"
    )
    difference = first_difference(counted(idle), counted(loaded))
    print("identical, seconds aside" if difference is None else f"differ at {difference}")


if __name__ == "__main__":
    main()
