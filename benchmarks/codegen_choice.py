"""What default codegen ships, per function, for comparing two versions of the choice.

    PYTHONPATH=DIR python benchmarks/codegen_choice.py --json before.json
    python benchmarks/codegen_choice.py --json after.json
    python benchmarks/codegen_choice.py --table before.json after.json

``generate(graph, "python")`` (default choice, check on) on the bundled graphs, every
function of the full suite and of benchmarks/codegen_functions.py, the Roe flux and the
2-, 3- and 4-link pendulums of benchmarks/codegen_seconds.py; per function the shipped
method and the jacobian's multiplications, additions and divisions (graphs without local
partials give no code and are left out). ``--table`` prints both as Markdown.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))


def measure(out: Path) -> None:
    from codegen import builders
    from codegen_seconds import pendulum

    from dgraph.codegen import generate
    from dgraph.errors import DGraphError
    from dgraph.frontends import bundled

    names = ["naumann_sin.trace", "spherical_coordinates.trace"]
    graphs = {n: (lambda n=n: bundled(n)) for n in names} | builders()
    graphs |= {f"pendulum-{n}": (lambda n=n: pendulum(n)) for n in (2, 3, 4)}
    rows = {}
    for name, build in graphs.items():
        try:
            gen = generate(build(), "python")
        except DGraphError:
            continue
        ops = gen.programs["jacobian"].ops
        rows[name] = [gen.summary()["method"], ops.mults, ops.adds, ops.divs]
        print(name, rows[name], flush=True)
    out.write_text(json.dumps(rows, indent=1))


def table(before: Path, after: Path) -> str:
    old, new = json.loads(before.read_text()), json.loads(after.read_text())
    lines = ["| function | before | after |", "|---|---|---|"]
    for name, row in old.items():
        if name in new:
            cells = [f"{r[0]}, {r[1]}/{r[2]}/{r[3]}" for r in (row, new[name])]
            lines.append(f"| {name} | {cells[0]} | {cells[1]} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, help="measure, and write the rows here")
    parser.add_argument("--table", type=Path, nargs=2, metavar=("BEFORE", "AFTER"))
    args = parser.parse_args()
    if args.json:
        measure(args.json)
    if args.table:
        print(table(*args.table))


if __name__ == "__main__":
    main()
