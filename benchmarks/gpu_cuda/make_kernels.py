"""Write dgraph's generated CUDA files (``jacobian`` of the cheapest verified accumulation,
checked through the host build) for the real-world functions, their sizes, the same
functions written in JAX and the runner into a folder, for ``benchmarks/gpu.py`` on a
machine with a GPU (which needs CuPy, JAX and NumPy, and nothing of dgraph).

    python benchmarks/gpu_cuda/make_kernels.py DIR
    python3 DIR/gpu.py DIR OUT.json [BATCHES]      # on the GPU machine
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

from dgraph import from_jax
from dgraph.bench.realworld import REAL_WORLD
from dgraph.codegen.generate import generate

HERE = Path(__file__).resolve().parent
FUNCTIONS = [
    "roe-flux",
    "robot-arm",
    "heart-dipole",
    "propane-combustion",
    "black-scholes",
    "reaction-rates",
    "mlp",
]


def build(name: str):
    """The bundled sympy graph, or (propane) the jaxpr graph of the JAX version."""
    if name in REAL_WORLD:
        return REAL_WORLD[name]()
    sys.path.insert(0, str(HERE.parent))
    import jax_functions

    function, example = jax_functions.FUNCTIONS[name]
    return from_jax(function, *example, name=name)


def main() -> None:
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    meta = {}
    for name in FUNCTIONS:
        graph = build(name)
        gen = generate(graph, "cuda", modes=("jacobian", "jvp", "vjp"))
        if not gen.verified:
            sys.exit(f"{name}: the CUDA file was not verified: {gen.check.summary()}")
        module = name.replace("-", "_")
        (out / f"{module}.cu").write_text(gen.text)
        meta[module] = {
            "function": name,
            "n": len(graph.inputs),
            "m": len(graph.outputs),
            "inputs": list(graph.inputs),
            "outputs": list(graph.outputs),
            "method": gen.programs["jacobian"].method,
            "mults": gen.mults,
        }
        print(f"{name}: method {meta[module]['method']}, {gen.main.ops}", flush=True)
    (out / "meta.json").write_text(json.dumps(meta, indent=1))
    shutil.copy(HERE.parent / "gpu.py", out / "gpu.py")
    shutil.copy(HERE.parent / "jax_functions.py", out / "jax_functions.py")
    print(f"wrote {len(meta)} CUDA files and the runner to {out}")


if __name__ == "__main__":
    main()
