"""Where the test suite's time goes: a summary of a sampling profile of the whole run.

The profile is py-spy's (sampling from outside the processes, so the suite runs at its
own speed; every worker and the Python processes the tests start are followed)::

    pip install --target /tmp/prof py-spy
    /tmp/prof/bin/py-spy record --subprocesses --rate 20 --format raw -o /tmp/spy.txt -- \\
        .venv/bin/python -m pytest -q -p no:cacheprovider
    python benchmarks/suite_profile.py /tmp/spy.txt            # the summary
    python benchmarks/suite_profile.py /tmp/spy.txt --above "(jax/_src/interpreters/mlir.py"

The summary: the share of samples under a few markers (inside JAX, its MLIR lowering,
its tracing, XLA's compile, sympy, imports), the samples by the package of the innermost
frame, inclusive samples per dgraph module and function, and per test file. ``--above
PATTERN``: the innermost dgraph or test frames (``--depth`` of them) above the first
frame that contains PATTERN, by samples: who causes, say, the lowering. A sample is
1/rate seconds of one thread running (py-spy leaves idle threads out).
"""

from __future__ import annotations

import argparse
import collections
import re

MARKERS = {
    "inside JAX": "(jax/",
    "JAX's MLIR lowering": "(jax/_src/interpreters/mlir.py",
    "JAX's tracing": "trace_to_jaxpr",
    "XLA's compile": "(jax/_src/compiler.py",
    "sympy": "(sympy/",
    "imports": "_find_and_load",
    "hypothesis": "(hypothesis/",
}
_FRAME = re.compile(r"^(.*) \((.*?):(\d+)\)$")


def stacks(path: str):
    """(frames, samples) per line of py-spy's raw output; the process field dropped."""
    with open(path) as f:
        for line in f:
            stack, _, n = line.rstrip("\n").rpartition(" ")
            if n.isdigit():
                yield stack.split(";")[1:], int(n)


def _file(frame: str) -> str:
    m = _FRAME.match(frame)
    return m.group(2) if m else ""


def _name(frame: str) -> str:
    m = _FRAME.match(frame)
    return m.group(1) if m else frame


def _package(file: str) -> str:
    if file.startswith("dgraph/"):
        return file.rsplit("/", 1)[0]
    if file.startswith("tests/"):
        return "tests"
    return file.split("/")[0]


def summary(path: str, top: int) -> None:
    """Print the markers, packages, dgraph modules and functions, and test files."""
    total = 0
    marks, own, modules, functions, files = (collections.Counter() for _ in range(5))
    for frames, n in stacks(path):
        total += n
        if frames:
            own[_package(_file(frames[-1]))] += n
        seen_f, seen_m, test = set(), set(), None
        for frame in frames:
            file = _file(frame)
            if file.startswith("dgraph/"):
                key = f"{file[7:]}:{_name(frame)}"
                if key not in seen_f:
                    seen_f.add(key)
                    functions[key] += n
                if file not in seen_m:
                    seen_m.add(file)
                    modules[file[7:]] += n
            elif test is None and file.startswith("tests/test_"):
                test = file[6:]
        files[test or "(no test file: start, collection, subprocesses)"] += n
        for label, pattern in MARKERS.items():
            if any(pattern in f for f in frames):
                marks[label] += n
    print(f"{total} samples")
    for title, counter in (
        ("markers", marks),
        ("innermost frame's package", own),
        ("dgraph modules (inclusive)", modules),
        ("dgraph functions (inclusive)", functions),
        ("test files (inclusive)", files),
    ):
        print(f"== {title}")
        for key, n in counter.most_common(top):
            print(f"{n:8d} {n / total:6.1%}  {key}")


def above(path: str, pattern: str, depth: int, top: int) -> None:
    """Print the innermost dgraph or test frames above the first frame with ``pattern``."""
    found, total = collections.Counter(), 0
    for frames, n in stacks(path):
        at = next((i for i, f in enumerate(frames) if pattern in f), None)
        if at is None:
            continue
        total += n
        ours = [f for f in frames[:at] if _file(f).startswith(("dgraph/", "tests/"))]
        found[" < ".join(reversed(ours[-depth:])) if ours else "-"] += n
    print(f"{total} samples under {pattern!r}")
    for key, n in found.most_common(top):
        print(f"{n:8d}  {key}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("profile", help="py-spy record --format raw output")
    parser.add_argument("--above", help="a frame pattern: who runs under it")
    parser.add_argument("--depth", type=int, default=1)
    parser.add_argument("--top", type=int, default=40)
    args = parser.parse_args()
    if args.above:
        above(args.profile, args.above, args.depth, args.top)
    else:
        summary(args.profile, args.top)
