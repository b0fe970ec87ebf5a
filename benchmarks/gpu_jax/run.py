"""Generated JAX Jacobians against JAX's jacfwd/jacrev, nanoseconds per point.

    python3 run.py DIR OUT.json [BATCHES]           # modules from make_modules.py in DIR
    python3 run.py DIR OUT.json BATCH --variants    # layouts at one batch

Batch-first: x (B, n) -> J (B, m, n) for dgraph (its jitted ``jacobian``), JAX's
``jit(vmap(jacfwd(primal)))`` and ``jacrev`` of the generated primal, and "copy", a jitted
function that reads x and writes J's bytes (the memory-traffic floor). With ``--variants``
also the module's ``jacobian_batch_last`` (the one-point program on columns): on x's
transpose, transposed back ("cols"), and batch-last in and out, x (n, B) -> J (m, n, B)
("cols-last", and "copy-last" its floor).
Needs only JAX and NumPy.
"""

import json
import sys
import time
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

jax.config.update("jax_enable_x64", True)


def load(name: str, text: str):
    module = type(sys)(name)
    exec(compile(text, name, "exec"), module.__dict__)
    return module


def timed(f, x, reps: int) -> float:
    f(x).block_until_ready()
    f(x).block_until_ready()
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        f(x).block_until_ready()
        times.append(time.perf_counter() - t)
    return float(np.median(times))


def writer(m: int, n: int, last: bool):
    """x -> an array of J's shape and bytes: what any Jacobian must at least move."""
    if last:
        return jax.jit(lambda xt: jnp.broadcast_to(xt[None, :1, :] * 1.0, (m, n, *xt.shape[1:])))
    return jax.jit(lambda x: jnp.broadcast_to(x[..., None, :1] * 1.0, (*x.shape[:-1], m, n)))


def functions(text: str, m: int, n: int, variants: bool) -> tuple[dict, dict]:
    module = load("generated", text)
    first = {
        "dgraph": jax.jit(module.jacobian),
        "jacfwd": jax.jit(jax.vmap(jax.jacfwd(module.primal))),
        "jacrev": jax.jit(jax.vmap(jax.jacrev(module.primal))),
        "copy": writer(m, n, last=False),
    }
    last = {}
    if variants:
        cols = module.jacobian_batch_last
        first["cols"] = jax.jit(lambda x: jnp.moveaxis(cols(x.T), -1, 0))
        last = {"cols-last": jax.jit(cols), "copy-last": writer(m, n, last=True)}
    return first, last


def main() -> None:
    here, out = Path(sys.argv[1]), Path(sys.argv[2])
    variants = "--variants" in sys.argv
    args = [a for a in sys.argv[3:] if not a.startswith("--")]
    batches = [int(b) for b in (args[0] if args else "1,10000,1000000,4000000").split(",")]
    meta = json.loads((here / "meta.json").read_text())
    print("jax", jax.__version__, jax.devices(), flush=True)
    rows = []
    for name, info in meta.items():
        m, n = info["m"], info["n"]
        first, last = functions((here / f"{name}.py").read_text(), m, n, variants)
        for dtype in (np.float64, np.float32):
            for batch in batches:
                x = np.random.default_rng(0).uniform(0.5, 1.5, size=(batch, n)).astype(dtype)
                if name == "reaction_rates":
                    x[:, 0] = 1500.0  # kelvin
                x = jnp.asarray(x)
                reference = np.asarray(first["jacfwd"](x[:64]))
                got = np.asarray(first["dgraph"](x[:64]))
                error = float(np.abs(got - reference).max() / max(1.0, np.abs(reference).max()))
                reps = 50 if batch <= 10_000 else 10
                row = {"f": name, "dtype": np.dtype(dtype).name, "B": batch, "err": error}
                row |= {k: timed(f, x, reps) / batch * 1e9 for k, f in first.items()}
                xt = jnp.asarray(x.T)
                row |= {k: timed(f, xt, reps) / batch * 1e9 for k, f in last.items()}
                rows.append(row)
                print(json.dumps(row), flush=True)
    out.write_text(json.dumps(rows))


if __name__ == "__main__":
    main()
