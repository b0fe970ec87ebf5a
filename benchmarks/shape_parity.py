"""Both shape inferences of the code IR on every statement of generated programs: the
passes' (:func:`dgraph.codegen.array_passes.array_shapes`, None = unknown) and the C
printers' (:class:`dgraph.codegen.shapes.ShapeInference`), statement by statement.

    PYTHONPATH=. python benchmarks/shape_parity.py [--time]

Prints, per program family, the statements where both know a shape and agree, where they
disagree, and where only one knows it (with the call names involved); with ``--time``, the
CPU seconds of 20 runs of the passes' inference and of both compared over every program."""

from __future__ import annotations

import collections
import sys
import time

import jax
import jax.numpy as jnp
import numpy as np

import dgraph
from dgraph.codegen import array_passes, ir
from dgraph.codegen.shapes import Shaped, ShapeInference, arguments

jax.config.update("jax_enable_x64", True)


def programs(build) -> list[ir.ArrayProgram]:
    """The array programs whose shapes the passes infer while ``build`` runs (a tensor
    module's count included: its ``generated.ops``, counted when read)."""
    seen: list[ir.ArrayProgram] = []
    original = array_passes.array_shapes

    def record(program, known=None):
        seen.append(program)
        return original(program, known)

    patched = [m for m in list(sys.modules.values())
               if getattr(m, "array_shapes", None) is original]  # fmt: skip
    for m in patched:
        m.array_shapes = record
    try:
        build()
    finally:
        for m in patched:
            m.array_shapes = original
    return seen


def compare(program: ir.ArrayProgram) -> collections.Counter:
    """Per statement: "agree", "disagree <calls>", "passes only <calls>", "C only <calls>"."""
    passes = array_passes.array_shapes(program)
    env = arguments(program)
    for name, shape in program.constant_shapes.items():
        env.setdefault(name, Shaped(tuple(shape), np.dtype(float)))
    inference = ShapeInference(env)
    tally: collections.Counter = collections.Counter()
    for s in program.statements:
        if s.at:
            continue
        calls = sorted({n.func.rpartition(".")[2] for n in ir.walk(s.value)
                        if isinstance(n, ir.Call)})  # fmt: skip
        try:
            found = inference.statement(s)
            theirs = tuple(found.shape) if isinstance(found, Shaped) else None
        except Exception as error:
            theirs = None
            tally[f"C error {type(error).__name__} {calls}"] += 1
        ours = passes.get(s.target)
        ours = tuple(ours) if isinstance(ours, tuple) else None
        if theirs is None and ours is not None:
            inference.env[s.target] = Shaped(ours, np.dtype(float))
        if ours is not None and theirs is not None:
            tally["agree" if ours == theirs else f"disagree {calls} {ours} {theirs}"] += 1
        elif ours is not None:
            tally[f"passes only {calls}"] += 1
        elif theirs is not None:
            tally[f"C only {calls}"] += 1
    return tally


def det_hessian():
    x = np.random.default_rng(8).normal(size=16)
    dgraph.hessian(lambda x: jnp.linalg.det(x.reshape(4, 4) / 4 + jnp.eye(4)), x, sparse=True)


def scan_hessian():
    def f(u0):
        def step(u, _):
            return u + 0.1 * jnp.sin(u) * jnp.roll(u, 1), None

        return jnp.sum(jax.lax.scan(step, u0, None, length=4)[0] ** 2)

    dgraph.hessian(f, np.linspace(0.5, 1.5, 5), sparse=True)


def softmax_jacobian():
    x = np.linspace(-1.0, 1.0, 6)
    g = dgraph.from_jax(jax.nn.softmax, x, level="array")
    return dgraph.make_function(g, "jacobian", lang="python", sparse=True).generated.ops


def cumprod_jacobian():
    x = np.linspace(0.5, 1.5, 6)
    g = dgraph.from_jax(lambda x: jnp.cumprod(x) * jnp.prod(x), x, level="array")
    return dgraph.make_function(g, "jacobian", lang="python", sparse=True).generated.ops


def cumprod_axes_jacobian():
    def f(u):
        rows = jnp.sin(jnp.cumprod(u, axis=1)) * jnp.prod(u, axis=0)
        return rows + jnp.cumprod(u[:, 1] * u[:, 0])[:, None]

    u = np.random.default_rng(0).uniform(0.5, 1.5, (4, 5))
    g = dgraph.from_jax(f, u, level="array")
    return dgraph.make_function(g, "jacobian", lang="python", sparse=True).generated.ops


FAMILIES = {f.__name__: f for f in (det_hessian, scan_hessian, softmax_jacobian,
                                    cumprod_jacobian, cumprod_axes_jacobian)}  # fmt: skip


def timed(found: list[ir.ArrayProgram], rounds: int = 20) -> None:
    """CPU seconds of ``rounds`` runs of the passes' inference, then of both compared."""
    start = time.process_time()
    for _ in range(rounds):
        for p in found:
            array_passes.array_shapes(p)
    middle = time.process_time()
    for _ in range(rounds):
        for p in found:
            compare(p)
    end = time.process_time()
    n = sum(len(p.statements) for p in found)
    print(f"{len(found)} programs, {n} statements, {rounds} rounds: array_shapes"
          f" {middle - start:.3f} CPU-s, both compared {end - middle:.3f} CPU-s")  # fmt: skip


if __name__ == "__main__":
    every: list[ir.ArrayProgram] = []
    for name, build in FAMILIES.items():
        found = programs(build)
        every += found
        total: collections.Counter = collections.Counter()
        for p in found:
            total += compare(p)
        print(f"{name}: {len(found)} programs")
        for key, count in sorted(total.items(), key=lambda kv: -kv[1]):
            print(f"  {count:5d}  {key}")
    if "--time" in sys.argv:
        timed(every)
