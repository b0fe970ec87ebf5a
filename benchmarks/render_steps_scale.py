"""CPU-s of ``dgraph render FILE --steps -m markowitz -o steps.html`` (one frame per
elimination step in one HTML explorer) on functions of n operations: n/4 statements
``t_k = np.sin(u) * v + w / (1 + u * u)`` (``benchmarks/cli_files_survey.py``'s
``hundred_ops`` at n = 100). Each run is a fresh process; its CPU-s include graphviz's
(``dot`` and ``neato``, children of the process). With several source trees, the runs
alternate between them (A, B, A, B, ...) and the pages they write must be byte-identical.

    python benchmarks/render_steps_scale.py                         # this checkout
    python benchmarks/render_steps_scale.py --trees /tmp/base .    # A/B, medians
    python benchmarks/render_steps_scale.py --sizes 25 50 100 --runs 3
    python benchmarks/render_steps_scale.py --command "render --view pages" --suffix .svg

Prints per size and tree the median CPU-s and the growth exponent from the size before
(log t2/t1 over log n2/n1), then the exponent fitted over all sizes, and the medians of
what dgraph's own process spent and what its children (graphviz) spent.
"""

from __future__ import annotations

import argparse
import hashlib
import math
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from cli_files_survey import hundred_ops  # benchmarks/, first on the path
from harness import log_slope


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


# ``python -m dgraph`` that writes, as it exits, its own CPU-s and its children's
SPLIT = """import atexit, resource, runpy, sys
path = sys.argv.pop(1)
def split():
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    with open(path, "w") as f:
        f.write(f"{me.ru_utime + me.ru_stime} {kids.ru_utime + kids.ru_stime}")
atexit.register(split)
runpy.run_module("dgraph", run_name="__main__", alter_sys=True)
"""


def run(
    tree: str, program: Path, out: Path, command: list[str]
) -> tuple[float, str, tuple[float, float]]:
    """One ``dgraph`` process on ``program`` with ``tree`` first on the path: its CPU-s,
    the sha256 of what it wrote, and its CPU-s split into its own and its children's."""
    env = {**os.environ, "PYTHONPATH": str(Path(tree).resolve())}
    split = program.parent / "split.txt"
    before = children_cpu()
    subprocess.run(  # in the program's folder: ``-c`` puts the working folder first
        [sys.executable, "-c", SPLIT, str(split), *command, f"{program}:f", "-o", str(out)],
        env=env,
        cwd=program.parent,
        check=True,
        stdout=subprocess.DEVNULL,
    )
    spent = children_cpu() - before
    own, graphviz = map(float, split.read_text().split())
    return spent, hashlib.sha256(out.read_bytes()).hexdigest(), (own, graphviz)


def check_tree(tree: str, folder: Path) -> None:
    """Compile ``tree``'s dgraph (processes that may not write bytecode would compile it
    at every start, PYTHONDONTWRITEBYTECODE), and stop unless a process started as
    :func:`run` starts one imports dgraph from ``tree``."""
    package = Path(tree).resolve() / "dgraph"
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(package)], check=True)
    found = subprocess.run(
        [sys.executable, "-c", "import dgraph; print(dgraph.__file__)"],
        env={**os.environ, "PYTHONPATH": str(Path(tree).resolve())},
        cwd=folder,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    if not Path(found).resolve().is_relative_to(Path(tree).resolve()):
        sys.exit(f"{tree}: dgraph is imported from {found}")


def slope(points: list[tuple[int, float]]) -> float:
    """The least-squares slope of log t over log n."""
    return log_slope([n for n, _ in points], [t for _, t in points])


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--trees", nargs="+", default=["."], help="source trees (PYTHONPATH)")
    p.add_argument("--sizes", nargs="+", type=int, default=[25, 50, 100, 200])
    p.add_argument("--runs", type=int, default=3)
    p.add_argument(
        "--command",
        default="render --steps -m markowitz",
        help="the dgraph command before FILE (default: render --steps -m markowitz)",
    )
    p.add_argument("--suffix", default=".html", help="the output's suffix (default .html)")
    args = p.parse_args()
    command = args.command.split()
    times: dict[tuple[str, int], list[float]] = {}
    parts: dict[tuple[str, int], list[tuple[float, float]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for tree in args.trees:
            check_tree(tree, Path(tmp))
        for n in args.sizes:
            program = Path(tmp) / f"ops{n}.py"
            program.write_text(hundred_ops(n))
            for _ in range(args.runs):
                digests = set()
                for tree in args.trees:  # alternated
                    out = Path(tmp) / f"out{n}{args.suffix}"
                    spent, digest, split = run(tree, program, out, command)
                    times.setdefault((tree, n), []).append(spent)
                    parts.setdefault((tree, n), []).append(split)
                    digests.add(digest)
                if len(digests) != 1:
                    sys.exit(f"n = {n}: the trees wrote different files")
                print(f"n = {n}: " + "  ".join(f"{times[t, n][-1]:.2f}" for t in args.trees))
    print(f"\n{'n':>5}" + "".join(f"  {t[-24:]:>24} (exp)" for t in args.trees))
    for k, n in enumerate(args.sizes):
        row = f"{n:>5}"
        for tree in args.trees:
            median = statistics.median(times[tree, n])
            grow = ""
            if k:
                m = args.sizes[k - 1]
                before = statistics.median(times[tree, m])
                grow = f"{math.log(median / before) / math.log(n / m):.2f}"
            row += f"  {median:>24.2f} ({grow:>4})"
        print(row)
    if len(args.sizes) > 1:
        fits = [
            slope([(n, statistics.median(times[t, n])) for n in args.sizes]) for t in args.trees
        ]
        print("fitted exponent: " + "  ".join(f"{f:.2f}" for f in fits))
    print("\nown + graphviz CPU-s (medians)")
    for n in args.sizes:
        row = f"{n:>5}"
        for tree in args.trees:
            own = statistics.median(p[0] for p in parts[tree, n])
            graphviz = statistics.median(p[1] for p in parts[tree, n])
            row += f"  {own:>12.2f} + {graphviz:<10.2f}"
        print(row)


if __name__ == "__main__":
    main()
