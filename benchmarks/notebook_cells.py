"""Where an example notebook's time goes: its code cells run in IPython's shell (display
formatting included, as a kernel has it: a drawing's SVG and PNG are made), with the
test mode's budgets (``PYTEST_CURRENT_TEST`` set, as tests/test_notebooks.py runs them),
each cell's CPU seconds printed, its children's (graphviz, compilers, the searches' fork
server) beside them. ``--profile N`` prints cell N's cProfile (CPU time), ``--outputs``
writes every cell's printed and displayed text to a file, to compare two versions' runs.

Usage::

    PYTHONPATH=. python benchmarks/notebook_cells.py examples/07_best.ipynb [--profile 20]
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import io
import os
import pstats
import time
from pathlib import Path

__all__ = ["main"]


def _children() -> float:
    t = os.times()
    return t.children_user + t.children_system


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebook", type=Path)
    parser.add_argument("--profile", type=int, default=-1, help="a code cell's index")
    parser.add_argument("--outputs", type=Path, help="write the cells' text output here")
    args = parser.parse_args()
    os.environ["PYTEST_CURRENT_TEST"] = "notebook_cells"
    import nbformat
    from IPython.core.interactiveshell import InteractiveShell

    path = args.notebook.resolve()
    nb = nbformat.read(path, as_version=4)
    os.chdir(path.parent)
    shell = InteractiveShell.instance()
    texts, total = [], time.process_time()
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        out, profile = io.StringIO(), cProfile.Profile(time.process_time)
        cpu, children = time.process_time(), _children()
        with contextlib.redirect_stdout(out):
            if i == args.profile:
                profile.enable()
            result = shell.run_cell(cell.source)
            profile.disable()
        cpu, children = time.process_time() - cpu, _children() - children
        failed = " FAILED" if result.error_in_exec or result.error_before_exec else ""
        print(f"cell {i:2}: {cpu:6.2f} CPU-s, children {children:5.2f}{failed}")
        texts.append(f"--- cell {i}\n{out.getvalue()}")
        if i == args.profile:
            stats = io.StringIO()
            pstats.Stats(profile, stream=stats).sort_stats("cumulative").print_stats(40)
            print(stats.getvalue())
    print(f"total: {time.process_time() - total:.2f} CPU-s")
    if args.outputs is not None:
        args.outputs.write_text("".join(texts))


if __name__ == "__main__":
    main()
