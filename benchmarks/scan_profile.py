"""Where a loop's generated Jacobian spends its time (issue 54): the reaction-diffusion
scan of benchmarks/scan_regions.py, its ``jacobian`` module (JAX, jitted; the adjoint
loop the chain DP chose), timed per step as generated and with parts of its adjoint step
changed in the text: the body block's product with ``Wᵀ`` (the sparse product) replaced
by one elementwise pass over ``Wᵀ`` — beside ``jax.jacrev`` and ``jax.jacfwd`` of the
same function, per step.
The same for the NumPy module, and its ``cProfile``.

    python benchmarks/scan_profile.py --cells 1000 --steps 100

The variants' values are wrong by construction (only their time is read).
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import re

import jax
from scan_regions import _point, _timed, reaction_diffusion

from dgraph.codegen.python import load_python
from dgraph.codegen.tensor.module import tensor_program
from dgraph.frontends import from_jax
from dgraph.methods import accumulate

jax.config.update("jax_enable_x64", True)


def _variants(text: str, xp: str, cells: int) -> dict[str, str]:
    """The module as generated, and with the adjoint step's product ``A_tᵀ·Wᵀ`` (the
    body's sparse block times the carried cotangents) replaced by one elementwise pass
    over ``Wᵀ`` (its rows scaled by the block's first entries: what any product costs
    at least, and it keeps the body's block program alive)."""
    body = text[text.index("def _adjoint") :]
    line = next(
        m
        for m in map(re.compile(r"^        (_t\d+) = (.*)$").match, body.splitlines())
        if m and ("segment_sum" in m.group(2) or "bincount" in m.group(2) or "[_t" in m.group(2))
    )
    w = re.search(r"\b(_t\d+)\[_t", line.group(2)).group(1)
    entries = re.search(rf"{xp}\.ravel\((\w+)\)", line.group(2)).group(1)
    floor = f"{w} * {xp}.reshape({xp}.ravel({entries})[:{cells}], (-1, 1))"
    return {
        "as generated": text,
        "the product A_tᵀ·Wᵀ replaced by one pass over Wᵀ": text.replace(
            line.group(0), f"        {line.group(1)} = {floor}"
        ),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cells", type=int, default=1000)
    parser.add_argument("--steps", type=int, default=100)
    args = parser.parse_args()
    u, params = _point(args.cells)
    point = (u, *params)
    f = reaction_diffusion(args.steps)
    g = from_jax(f, *point, level="array")
    es = accumulate(g, "forward", verify=False)
    per_step = 1e3 / args.steps
    for name, ref in (("jax.jacrev", jax.jacrev), ("jax.jacfwd", jax.jacfwd)):
        best = _timed(jax.jit(ref(f, argnums=(0, 1, 2, 3))), *point)[1]
        print(f"{name}: {best * per_step:.3f} ms a step", flush=True)
    for lang, xp in (("jax", "jnp"), ("python", "numpy")):
        for name, text in _variants(tensor_program(es, lang).text, xp, args.cells).items():
            call = load_python(text).jacobian
            best = _timed(jax.jit(call) if lang == "jax" else call, *point)[1]
            print(f"{lang} module, {name}: {best * per_step:.3f} ms a step", flush=True)
    module = load_python(tensor_program(es, "python").text)
    profile = cProfile.Profile()
    profile.runcall(module.jacobian, *point)
    stream = io.StringIO()
    pstats.Stats(profile, stream=stream).sort_stats("tottime").print_stats(4)
    print("NumPy module, cProfile (the step function's own time holds its array operations):")
    print("\n".join(line for line in stream.getvalue().splitlines() if line.strip()[:1].isdigit()))


if __name__ == "__main__":
    main()
