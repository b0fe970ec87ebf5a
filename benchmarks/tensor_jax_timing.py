"""dgraph's generated JAX Jacobian of AlphaGrad's MLP and Transformer encoder, timed under
``jax.jit`` on this machine against ``jax.jacrev`` and ``jax.jacfwd`` (jitted) and, in
Graphax's environment, Graphax's ``jacve`` with the same elimination order.

    python benchmarks/tensor_jax_timing.py [--reps 30] [--modules DIR] [CASE ...]
    PYTHONPATH=<graphax and its deps> <graphax venv>/bin/python \\
        benchmarks/tensor_jax_timing.py --graphax [--reps 30] [--modules DIR] [CASE ...]
    python benchmarks/tensor_jax_timing.py --saved [--modules DIR] [CASE ...]   (a GPU)

The first form (the project's environment) builds each function's array-level graph
(``from_jax(..., level="array")``, one tensor vertex per jaxpr equation), prices forward,
reverse and Markowitz over structured blocks (``accumulate``), generates the cheapest as
JAX code (``make_function(g, "jacobian", lang="jax", method=...)``, checked against the
blocks and central differences), checks it against jacrev, then times every candidate in
one process: N rounds, each round one call of each candidate in turn (interleaved), the
median per candidate. It writes the generated modules to ``--modules``. The second form
(jax 0.4.26 with Graphax) imports those modules, which are plain ``jax.numpy``, and times
them beside ``graphax.jacve(f, order, argnums)`` and jacrev/jacfwd of its own JAX, again in
one process. The functions and their sizes: :mod:`tensor_timing_functions`.

Each Jacobian is of the function's output with respect to every argument (AlphaGrad's
``argnums``), returned dense (``out.shape + arg.shape`` per argument) by every candidate.
Prints a markdown table: seconds per call (median), ratio to the fastest baseline.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

import jax
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from tensor_timing_functions import encoder, encoder_inputs, mlp, mlp_inputs

# name: (function, arguments, scale at which the three methods are priced, what it is)
CASES = {
    "MLP": (mlp, lambda: mlp_inputs(512, 1), None, "batch 512, W1 (8, 4): AlphaGrad's count sizes"),
    "MLP-16": (
        mlp,
        lambda: mlp_inputs(512, 16),
        lambda: mlp_inputs(512, 1),
        "batch 512, W1 (128, 64): AlphaGrad's runtime notebook (scale 16)",
    ),
    "Encoder-16": (
        encoder,
        lambda: encoder_inputs(16),
        lambda: encoder_inputs(2),
        "x (64, 64), 2 blocks: AlphaGrad's runtime notebook (scale 16)",
    ),
}
METHODS = ("forward", "reverse", "markowitz")
GRAPHAX_ORDER = {"reverse": "rev", "forward": "fwd"}  # the same order by position
JACFWD_LIMIT = 2**22  # jacfwd pushes one tangent per input entry: skipped above this


def _time(candidates: dict, args, reps: int) -> dict[str, float]:
    """Median seconds per call, the candidates interleaved within each round."""
    for fn in candidates.values():
        jax.block_until_ready(fn(*args))  # compile
    times: dict[str, list[float]] = {name: [] for name in candidates}
    for _ in range(reps):
        for name, fn in candidates.items():
            start = time.perf_counter()
            jax.block_until_ready(fn(*args))
            times[name].append(time.perf_counter() - start)
    return {name: float(np.median(t)) for name, t in times.items()}


def _agree(generated: dict, keys, inputs, reference, case: str) -> float:
    """The largest difference from jacrev relative to its largest entry; fails loudly."""
    worst = 0.0
    for (_, x), ref in zip(keys, reference, strict=True):
        ref = np.asarray(ref)
        mine = np.asarray(generated[keys[inputs.index(x)]]).reshape(ref.shape)
        error = float(np.abs(mine - ref).max()) / max(1.0, float(np.abs(ref).max()))
        worst = max(worst, error)
    if worst > 1e-4:
        raise SystemExit(f"{case}: the generated Jacobian differs from jacrev ({worst:.1e})")
    return worst


def _doubles():
    """JAX's double precision on (the check compares in doubles: float32 rounding
    through the encoder's softmax differs by 1e-3 between any two correct orders)."""
    if hasattr(jax, "enable_x64"):
        return jax.enable_x64(True)
    from jax.experimental import enable_x64

    return enable_x64()


def _checked(generated, f, keys, inputs, args, case: str) -> float:
    with _doubles():
        wide = [np.asarray(a, dtype=np.float64) for a in args]
        reference = jax.jacrev(f, argnums=tuple(range(len(args))))(*wide)
        return _agree(generated(*wide), keys, inputs, reference, case)


WITH_JACFWD = True  # --no-jacfwd: jacrev alone (jacfwd takes minutes on the encoder)


def _flags() -> str:
    return "" if WITH_JACFWD else "--no-jacfwd "


def _baselines(f, args) -> dict:
    argnums = tuple(range(len(args)))
    found = {"jax.jacrev": jax.jit(jax.jacrev(f, argnums=argnums))}
    if not WITH_JACFWD:
        return found
    if sum(int(np.size(a)) for a in args) * int(np.size(f(*args))) <= JACFWD_LIMIT or (
        sum(int(np.size(a)) for a in args) <= 4096
    ):
        found["jax.jacfwd"] = jax.jit(jax.jacfwd(f, argnums=argnums))
    return found


def _generate(names, modules: Path, reps: int) -> None:
    from dgraph.codegen.function import make_function
    from dgraph.frontends.jaxpr import from_jax
    from dgraph.methods import accumulate

    modules.mkdir(parents=True, exist_ok=True)
    command = "python benchmarks/tensor_jax_timing.py " + _flags() + " ".join(names)
    rows = []
    for case in names:
        f, make_args, pricing, what = CASES[case]
        args = make_args()
        numpy_args = [np.asarray(a) for a in args]
        graph = from_jax(f, *numpy_args, level="array")
        priced_on = graph
        if pricing is not None:  # forward's price takes minutes at full size
            priced_on = from_jax(f, *[np.asarray(a) for a in pricing()], level="array")
        prices = {m: accumulate(priced_on, m).mults for m in METHODS}
        method = min(METHODS, key=lambda m: prices[m])
        start = time.perf_counter()
        J = make_function(graph, "jacobian", lang="jax", method=method)
        seconds_to_generate = time.perf_counter() - start
        text = J.generated.text
        (modules / f"{case}.py").write_text(text)
        (modules / f"{case}.json").write_text(json.dumps({"method": method}))
        generated = jax.jit(J._function)
        keys = [(graph.outputs[0], x) for x in graph.inputs]
        error = _checked(J._function, f, keys, list(graph.inputs), args, case)
        statements = text[text.index("def jacobian") :].count("\n    ") - 1
        candidates = {f"dgraph generated ({method})": generated, **_baselines(f, args)}
        medians = _time(candidates, args, reps)
        priced = ", ".join(f"{m} {prices[m]:,}" for m in METHODS)
        jacobian = f"d loss / d (all {len(args)} arguments)"
        note = (
            f"{what}; block mults {priced}"
            + (" (priced at a smaller scale)" if pricing is not None else "")
            + f"; {statements} statements, generated and checked in {seconds_to_generate:.0f} s;"
            f" max rel. difference from jacrev {error:.0e}"
        )
        rows.append((case, (jacobian, note), medians))
    _print(rows, command, reps)


def _print(rows, command, reps) -> None:
    print(
        f"\njax {jax.__version__}, {platform.processor() or platform.machine()},"
        f" {os.cpu_count()} CPUs; median of {reps} interleaved calls\n"
    )
    print("| function | Jacobian | code | seconds per call | ratio to fastest baseline | command |")
    print("|---|---|---|---|---|---|")
    for case, (jacobian, _), medians in rows:
        fastest = min(s for name, s in medians.items() if not name.startswith("dgraph"))
        for name, seconds in medians.items():
            print(
                f"| {case} | {jacobian} | {name} | {seconds:.3g} | {seconds / fastest:.3g}"
                f" | `{command}` |"
            )
    print()
    for case, (_, note), _ in rows:
        print(f"- {case}: {note}")


def _graphax(names, modules: Path, reps: int, with_graphax: bool = True) -> None:
    """Time the modules written by a first run (``--modules``) beside jacrev (and jacfwd),
    and beside Graphax's jacve where ``with_graphax`` (``--graphax``); ``--saved`` times
    them without Graphax (on another machine: a GPU)."""
    import importlib.util

    graphax = None
    if with_graphax:
        import jax.lax as lax

        if not hasattr(lax, "square_p"):  # graphax's primitive table names it; 0.4.26 has none
            from jax._src import core

            lax.square_p = core.Primitive("square_placeholder")
        import graphax

    flag = "--graphax " if with_graphax else "--saved "
    command = "python benchmarks/tensor_jax_timing.py " + flag + _flags() + " ".join(names)
    rows = []
    for case in names:
        f, make_args, _, what = CASES[case]
        args = make_args()
        spec = importlib.util.spec_from_file_location(f"generated_{case}", modules / f"{case}.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        method = json.loads((modules / f"{case}.json").read_text())["method"]
        generated = jax.jit(module.jacobian)
        argnums = tuple(range(len(args)))
        baselines = _baselines(f, args)
        reference = baselines["jax.jacrev"](*args)
        keys = [(module.OUTPUTS[0], x) for x in module.INPUTS]
        error = _checked(module.jacobian, f, keys, list(module.INPUTS), args, case)
        candidates = {f"dgraph generated ({method})": generated, **baselines}
        if graphax is not None and method in GRAPHAX_ORDER:
            order = GRAPHAX_ORDER[method]
            jacve = jax.jit(graphax.jacve(f, order=order, argnums=argnums))
            got = jacve(*args)
            worst = max(
                float(np.abs(np.asarray(a).reshape(np.shape(b)) - b).max())
                / max(1.0, float(np.abs(b).max()))
                for a, b in zip(got, reference, strict=True)
            )
            if worst > 1e-2:  # float32 against float32 (jacrev)
                raise SystemExit(f"{case}: graphax differs from jacrev ({worst:.1e})")
            candidates[f"graphax.jacve({order!r})"] = jacve
        medians = _time(candidates, args, reps)
        jacobian = f"d loss / d (all {len(args)} arguments)"
        note = f"{what}; max rel. difference from jacrev {error:.0e}"
        rows.append((case, (jacobian, note), medians))
    _print(rows, command, reps)


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cases", nargs="*", default=list(CASES))
    parser.add_argument("--reps", type=int, default=30)
    parser.add_argument("--graphax", action="store_true", help="time beside graphax.jacve")
    parser.add_argument(
        "--saved", action="store_true", help="time the saved modules (no generation, no Graphax)"
    )
    parser.add_argument("--no-jacfwd", action="store_true", help="leave jax.jacfwd out")
    parser.add_argument(
        "--modules", type=Path, default=Path(tempfile.gettempdir()) / "dgraph_tensor_timing"
    )
    args = parser.parse_args(argv)
    unknown = [c for c in args.cases if c not in CASES]
    if unknown:
        raise SystemExit(f"unknown case {unknown[0]!r}: one of {', '.join(CASES)}")
    global WITH_JACFWD
    WITH_JACFWD = not args.no_jacfwd
    if args.graphax or args.saved:
        _graphax(args.cases, args.modules, args.reps, with_graphax=args.graphax)
    else:
        _generate(args.cases, args.modules, args.reps)


if __name__ == "__main__":
    main(sys.argv[1:])
