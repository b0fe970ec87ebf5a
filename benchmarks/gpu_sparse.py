"""dgraph's sparse JAX Jacobian (a BCOO) of the issue-42 residuals, generated here and
timed under ``jax.jit`` on another machine (a GPU) against one jitted evaluation of F and
against asdex where it is installed there.

    python benchmarks/gpu_sparse.py make DIR [SIZE ...]     (here: writes the modules)
    python benchmarks/gpu_sparse.py run DIR [--asdex-max N] [--reps 20]   (the GPU)

``make`` builds each residual's array-level graph (:mod:`sparse_functions`) at each target
size, makes ``make_function(g, "jacobian", lang="jax", sparse=True)`` (verified, its code
checked) and writes the module text and its build seconds. ``run`` needs only JAX, NumPy
and SciPy: it imports each module, times ``jax.jit(jacobian)`` and ``jax.jit(F)`` on the
default device (median of ``--reps`` calls after the first, inputs already on the device),
asdex's ``jax.jit(asdex.jacobian(F, x))`` up to ``--asdex-max`` unknowns, and compares the
values with asdex's (max |J - J_asdex| / max |J_asdex|). Doubles throughout.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from sparse_functions import FUNCTIONS, grid, point, unknowns


def make(folder: Path, sizes: list[int]) -> None:
    import numpy as np

    import dgraph
    from dgraph.frontends import from_jax

    folder.mkdir(parents=True, exist_ok=True)
    for name in FUNCTIONS:
        for target in sizes:
            side = grid(name, target)
            start = time.perf_counter()
            g = from_jax(FUNCTIONS[name][0], np.asarray(point(name, side)), level="array")
            J = dgraph.make_function(g, "jacobian", lang="jax", sparse=True)
            seconds = time.perf_counter() - start
            stem = f"{name}_{unknowns(name, side)}"
            (folder / f"{stem}.py").write_text(J.generated.text)
            info = {"name": name, "side": side, "build": seconds, "method": J.generated.method}
            (folder / f"{stem}.json").write_text(json.dumps(info))
            print(f"{stem}: {seconds:.1f} s, {len(J.generated.text) / 1e6:.2f} MB", flush=True)


def _median(fn, arg, reps: int) -> float:
    import jax
    import numpy as np

    jax.block_until_ready(fn(arg))
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        jax.block_until_ready(fn(arg))
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def run(folder: Path, reps: int, asdex_max: int) -> None:
    import jax

    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp

    try:
        import asdex
    except ImportError:
        asdex = None
    device = jax.devices()[0]
    print(f"jax {jax.__version__} on {device.device_kind}; median of {reps} calls; float64\n")
    print(
        "| function | unknowns | nnz | F ms | dgraph J ms | J / F | asdex J ms | dgraph / asdex"
        " | max rel. diff. | asdex build s |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for info_file in sorted(folder.glob("*.json")):
        info = json.loads(info_file.read_text())
        name, side = info["name"], info["side"]
        spec = importlib.util.spec_from_file_location(info_file.stem, info_file.with_suffix(".py"))
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        f = FUNCTIONS[name][0]
        x = jax.device_put(jnp.asarray(point(name, side)), device)
        F, J = jax.jit(f), jax.jit(module.jacobian)
        f_s, j_s = _median(F, x, reps), _median(J, x, reps)
        mine = J(x)
        row = [
            name,
            f"{x.size:,}",
            f"{mine.nse:,}",
            f"{f_s * 1e3:.3g}",
            f"{j_s * 1e3:.3g}",
            f"{j_s / f_s:.2f}",
        ]
        if asdex is not None and x.size <= asdex_max:
            start = time.perf_counter()
            theirs_fn = jax.jit(asdex.jacobian(f, x))
            theirs = theirs_fn(x)
            built = time.perf_counter() - start
            a_s = _median(theirs_fn, x, reps)
            a = _as_scipy(theirs)
            m = _as_scipy(mine)
            diff = abs(m - a).max() / max(abs(a).max(), 1e-300)
            row += [f"{a_s * 1e3:.3g}", f"{j_s / a_s:.2f}", f"{diff:.0e}", f"{built:.1f}"]
        else:
            row += ["—", "—", "—", "—"]
        print("| " + " | ".join(row) + " |", flush=True)
        del module, mine
    print(
        "\nbuild seconds (make, on the machine that made them): "
        + ", ".join(
            f"{p.stem} {json.loads(p.read_text())['build']:.1f}"
            for p in sorted(folder.glob("*.json"))
        )
    )


def _as_scipy(matrix):
    """A BCOO (or SciPy) matrix as SciPy CSR, on the host."""
    import numpy as np
    import scipy.sparse as sp

    if sp.issparse(matrix):
        return sp.csr_array(matrix)
    ij = np.asarray(matrix.indices)
    return sp.csr_array((np.asarray(matrix.data), (ij[:, 0], ij[:, 1])), shape=matrix.shape)


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=("make", "run"))
    parser.add_argument("folder", type=Path)
    parser.add_argument("sizes", nargs="*", type=float, default=[1e4, 1e5, 1e6])
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--asdex-max", type=int, default=2_000_000)
    args = parser.parse_args(argv)
    if args.what == "make":
        make(args.folder, [int(s) for s in args.sizes])
    else:
        run(args.folder, args.reps, args.asdex_max)


if __name__ == "__main__":
    main(sys.argv[1:])
