"""What the path-free face check does on a running value (``t = t*0.9999 + c*y``, the
shape of ``long_chain_scale.py``): the check's CPU-s and its counts of stack nodes made,
hash-cons lookups (``Stacks.node``), unions, meets, label reads, and the region products
those reads scan (each read's region, as the definition tests every product of it).
Run it with ``PYTHONPATH`` naming a checkout to count another version (the counters wrap
methods both versions have).

    PYTHONPATH=. python benchmarks/faces_stack_counts.py [--sizes 1000,2000] [--method markowitz]
"""

from __future__ import annotations

import argparse
import collections
import sys
import tempfile
import time
from pathlib import Path

from dgraph.faces import pathfree
from dgraph.faces.realize import check_faces
from dgraph.frontends import load
from dgraph.methods import accumulate

sys.path.insert(0, str(Path(__file__).parent))
from long_chain_scale import chain

COUNTED = ("node", "union", "meet", "read_left", "read_right")


def counting(counts: collections.Counter) -> list[pathfree.Stacks]:
    """Wrap the counted methods of :class:`~dgraph.faces.pathfree.Stacks`; the stacks
    objects made are listed in the returned list."""
    made: list[pathfree.Stacks] = []
    stacks = pathfree.Stacks
    init = stacks.__init__

    def recorded(self, dag) -> None:
        init(self, dag)
        made.append(self)

    stacks.__init__ = recorded
    for name in COUNTED:
        method = getattr(stacks, name)

        def counted(self, *args, _method=method, _name=name):
            counts[_name] += 1
            if _name.startswith("read_"):
                y, t = self.frame[args[0]]
                slot = t if _name == "read_left" else t - 1
                if 0 <= slot < self.dag.size(y):
                    side = "left" if _name == "read_left" else "right"
                    counts["region products"] += len(self._region(y, slot, side))
            return _method(self, *args)

        setattr(stacks, name, counted)
    return made


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="1000,2000")
    parser.add_argument("--method", default="markowitz")
    args = parser.parse_args()
    counts: collections.Counter = collections.Counter()
    made = counting(counts)
    names = ("CPU-s", "stack nodes", *COUNTED, "region products")
    print("| n | " + " | ".join(names) + " |")
    print("|---" * (len(names) + 1) + "|")
    with tempfile.TemporaryDirectory() as tmp:
        for n in (int(s) for s in args.sizes.split(",")):
            file = Path(tmp, f"chain{n}.py")
            file.write_text(chain(n))
            es = accumulate(load(f"{file}:f"), args.method)
            counts.clear()
            made.clear()
            start = time.process_time()
            check = check_faces(es)
            seconds = time.process_time() - start
            counts["stack nodes"] = sum(len(s.frame) - 1 for s in made)
            cells = [f"{seconds:.2f}"] + [f"{counts[k]:,}" for k in names[1:]]
            print(f"| {n:,} | " + " | ".join(cells) + f" |  realized: {check.realized}")


if __name__ == "__main__":
    main()
