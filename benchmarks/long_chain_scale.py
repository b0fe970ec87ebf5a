"""CPU-s of ``dgraph structure``, ``accumulate``, ``codegen -o j.py`` (and ``faces``) on one running
scalar value updated by n statements (``t = t*0.9999 + c*y``, cli_files_survey's
``huge``), and their growth exponents between successive sizes. Each command runs in a
child process (its CPU-s from ``resource``, a process's start included); ``--root DIR``
runs another checkout's ``dgraph`` package (an A/B against an older commit:
``git archive REV dgraph | tar -x -C DIR``).

    python benchmarks/long_chain_scale.py [--root DIR] [--sizes 1000,2000,4000,8000]
        [--commands structure,accumulate,codegen,faces]
"""

from __future__ import annotations

import argparse
import itertools
import math
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

COMMANDS = {
    "structure": ["structure", "{file}:f"],
    "accumulate": ["accumulate", "{file}:f"],
    "codegen": ["codegen", "{file}:f", "-o", "{dir}/j.py"],
    "faces": ["faces", "{file}:f"],
}
LIMIT = 600  # seconds of wall time a command may take


def chain(n: int) -> str:
    lines = ["import numpy as np", "", "", "def f(x, y):", "    t = x"]
    lines += [f"    t = t * 0.9999 + {1e-4 * (k % 7):.4f} * y" for k in range(n)]
    lines.append("    return t, t * y")
    return "\n".join(lines) + "\n"


def cpu_seconds(args: list[str], root: str | None) -> float | str:
    """The child's user + system CPU-s; ``">limit"`` past :data:`LIMIT`, ``"exit N"``
    where it failed (before this session, ``accumulate``'s printing recursed past
    Python's limit from 1,000 statements: exit 1)."""
    env = dict(os.environ)
    if root:
        env["PYTHONPATH"] = root
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        done = subprocess.run(
            [sys.executable, "-m", "dgraph", *args],
            env=env,
            capture_output=True,
            timeout=LIMIT,
            cwd=root or None,
        )
    except subprocess.TimeoutExpired:
        return ">limit"
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        return f"exit {done.returncode}"
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--root", default=None)
    parser.add_argument("--sizes", default="1000,2000,4000,8000")
    parser.add_argument("--commands", default="structure,accumulate,codegen")
    args = parser.parse_args()
    commands = {c: COMMANDS[c] for c in args.commands.split(",")}
    sizes = [int(s) for s in args.sizes.split(",")]
    with tempfile.TemporaryDirectory() as tmp:
        print("command     " + "".join(f"{n:>9}" for n in sizes) + "   exponents")
        for command, template in commands.items():
            seconds = []
            for n in sizes:
                file = Path(tmp, f"chain{n}.py")
                file.write_text(chain(n))
                cli = [a.format(file=file, dir=tmp) for a in template]
                seconds.append(cpu_seconds(cli, args.root))
            cells = "".join(f"{s:9.1f}" if isinstance(s, float) else f"{s:>9}" for s in seconds)
            slopes = [
                f"{math.log(b / a) / math.log(m / n):.2f}"
                for (n, a), (m, b) in itertools.pairwise(zip(sizes, seconds, strict=True))
                if isinstance(a, float) and isinstance(b, float)
            ]
            print(f"{command:<12}{cells}   {' '.join(slopes)}", flush=True)


if __name__ == "__main__":
    main()
