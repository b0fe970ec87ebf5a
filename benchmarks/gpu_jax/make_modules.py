"""Write dgraph's generated JAX modules (primal and jacobian) of the real-world functions
and their sizes into a folder, for run.py and variants.py on a machine with a GPU (which
needs JAX, NumPy and nothing of dgraph).

    python benchmarks/gpu_jax/make_modules.py DIR
    python3 DIR/run.py DIR out.json [batches] [--variants]   # on the GPU machine
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

from dgraph.bench.realworld import REAL_WORLD
from dgraph.codegen.jaxcode import jax_module
from dgraph.codegen.program import primal_program
from dgraph.codegen.selection import cheapest_jacobian


def main() -> None:
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    meta = {}
    for name, build in REAL_WORLD.items():
        g = build()
        program, _ = cheapest_jacobian(g)
        programs = {"primal": primal_program(g), "jacobian": program}
        text = jax_module(programs, title=name, inputs=g.inputs, outputs=g.outputs)
        module = name.replace("-", "_")
        (out / f"{module}.py").write_text(text)
        meta[module] = {"n": len(g.inputs), "m": len(g.outputs), "method": program.method}
    (out / "meta.json").write_text(json.dumps(meta))
    here = Path(__file__).resolve().parent
    shutil.copy(here / "run.py", out / "run.py")
    print(f"wrote {len(meta)} modules and the scripts to {out}")


if __name__ == "__main__":
    main()
