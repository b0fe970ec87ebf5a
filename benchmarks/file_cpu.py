"""CPU seconds (user + system) of single test files in two checkouts, run alternately.

Usage: ``python benchmarks/file_cpu.py BASE_TREE NEW_TREE tests/test_x.py ...``.
Each file runs as ``python -m pytest FILE -n0 -q -p no:cacheprovider`` with
``PYTHONPATH=.`` in each tree, base first; on a loaded machine the CPU seconds compare,
the wall seconds do not. Prints one Markdown row a file and the totals.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys

__all__ = ["cpu_seconds"]


def cpu_seconds(tree: str, test_file: str) -> tuple[float, int]:
    """User + system CPU seconds of the pytest run of ``test_file`` in ``tree``, and its
    exit status."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    command = [sys.executable, "-m", "pytest", test_file, "-n0", "-q", "-p", "no:cacheprovider"]
    status = subprocess.run(
        command, cwd=tree, env={**os.environ, "PYTHONPATH": "."}, capture_output=True
    ).returncode
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    used = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return used, status


def main(base: str, new: str, files: list[str]) -> None:
    """Print the table: base and new CPU seconds a file, their ratio, and the totals."""
    print("| file | base CPU-s | new CPU-s | new/base |")
    print("|---|---:|---:|---:|")
    total = [0.0, 0.0]
    for test_file in files:
        (b, sb), (n, sn) = cpu_seconds(base, test_file), cpu_seconds(new, test_file)
        total[0] += b
        total[1] += n
        flag = "" if sb == sn == 0 else f" (exit {sb}/{sn})"
        print(f"| {test_file}{flag} | {b:.1f} | {n:.1f} | {n / b:.2f} |")
    print(f"| total | {total[0]:.1f} | {total[1]:.1f} | {total[1] / total[0]:.2f} |")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3:])
