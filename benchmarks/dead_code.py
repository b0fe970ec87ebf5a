"""Dead code in a graph file (issue 40 item 10): a random layered graph of about 94,400
edges with dead branches goes through ``dgraph structure`` as the graph without them.

Run: python benchmarks/dead_code.py [--layers 41 --width 775 --dead 1000]
Prints, for the live graph and the same graph with dead vertices added
(:func:`dgraph.frontends.random_graphs.add_dead_code`), the edges in the file, the seconds to
load it and to compute its structure (best of ``--repeat``), and the note.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from dgraph.errors import DGraphError
from dgraph.frontends import load
from dgraph.frontends.random_graphs import add_dead_code, random_layered
from dgraph.methods.structure import structure


def timed(path: Path, repeat: int) -> tuple[float, float, list[str], int]:
    """Best seconds to load ``path`` and to compute its structure, its notes, its edges."""
    loads, structures = [], []
    for _ in range(repeat):
        started = time.process_time()
        graph = load(path)
        loaded = time.process_time()
        structure(graph)
        loads.append(loaded - started)
        structures.append(time.process_time() - loaded)
    return min(loads), min(structures), graph.notes, graph.n_edges


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layers", type=int, default=41)
    parser.add_argument("--width", type=int, default=775)
    parser.add_argument("--dead", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        live = Path(tmp) / "live.json"
        dead = Path(tmp) / "dead.json"
        live.write_text(random_layered(0, args.layers, args.width, 3, 4).to_json())
        graph = add_dead_code(random_layered(0, args.layers, args.width, 3, 4), args.dead, 1)
        in_file = graph.n_edges
        dead.write_text(graph.to_json())
        print("| graph | edges in the file | edges loaded | load s | structure s |")
        print("|---|---|---|---|---|")
        for name, path, edges in (("live", live, None), ("with dead code", dead, in_file)):
            try:
                load_s, structure_s, notes, loaded = timed(path, args.repeat)
            except DGraphError as exc:  # before issue 40: "vertex ... is dangling"
                print(f"| {name} | {edges} | refused: {str(exc)[-60:]} | | |")
                continue
            print(f"| {name} | {edges or loaded} | {loaded} | {load_s:.2f} | {structure_s:.2f} |")
            if notes:
                print(f"\nnote: {notes[0]}\n")


if __name__ == "__main__":
    main()
