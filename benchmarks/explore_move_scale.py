"""CPU-s of the notebook explorer's drawing of its state (``widget.drawing`` then ``svg()``,
with graphviz's CPU-s) after k vertex eliminations in markowitz's order, on a function of
100 operations (``cli_files_survey.hundred_ops``): the drawing of one state should not grow
with the moves made before it.

    python benchmarks/explore_move_scale.py
"""

import resource
import tempfile
from pathlib import Path

from cli_files_survey import hundred_ops  # benchmarks/, first on the path

from dgraph.frontends import load
from dgraph.methods import accumulate
from dgraph.render import widget
from dgraph.render.explore import Exploration


def cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        program = Path(tmp) / "ops100.py"
        program.write_text(hundred_ops(100))
        g = load(f"{program}:f")
    order = [s.target for s in accumulate(g, "markowitz").steps]
    start = cpu()
    layout = widget.start_layout(g)
    out = [f"start_layout {cpu() - start:.2f}"]
    x = Exploration(g)
    for k, v in enumerate(order[:100], 1):
        x.eliminate(v)
        if k in (1, 50, 100):
            start = cpu()
            drawing, _ = widget.drawing(x, layout=layout)
            drawing.svg()
            out.append(f"move {k} {cpu() - start:.2f}")
    print(" | ".join(out))


if __name__ == "__main__":
    main()
