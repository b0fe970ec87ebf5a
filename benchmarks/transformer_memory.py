"""Memory of a two-block transformer's gradient (issue 54, item 4).

The scalar loss of a 2-layer transformer in plain JAX (token embeddings and positions,
per block: layer norm, multi-head attention with softmax, a residual, layer norm, a GELU
MLP, a residual; a final layer norm and a mean-squared loss against fixed targets),
differentiated with respect to all its parameters (the token indices and targets are
constants of the function). Each candidate runs in its own subprocess, so its peak
resident memory (``ru_maxrss``) is its own; the figure is the rise over the process after
its imports and the model's setup:

- ``jacrev``: ``jax.jacrev`` of the loss, called once (jit, then one call);
- ``dgraph-jacobian``: ``from_jax(..., level="array")`` then ``make_function(g,
  "jacobian")`` (build, check, load) and one call;
- ``dgraph-vjp``: the same with ``make_function(g, "vjp")``.

    python benchmarks/transformer_memory.py                 # d_model 64, sequence 32, 4 heads
    python benchmarks/transformer_memory.py --d-model 128 --seq 64 --heads 4
    python benchmarks/transformer_memory.py --only dgraph-vjp   # one candidate, in this process
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time

CANDIDATES = ("jacrev", "dgraph-jacobian", "dgraph-vjp")


def model(d_model: int, seq: int, heads: int, vocab: int = 50, layers: int = 2):
    """The loss function, its parameters (a tuple of arrays, the order of the loss's
    arguments) and its parameters' names."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    rng = np.random.default_rng(0)
    d_ff = 4 * d_model
    tokens = rng.integers(0, vocab, seq)
    target = rng.normal(size=(seq, d_model))
    mask = np.tril(np.ones((seq, seq), dtype=bool))

    def normal(*shape, scale=None):
        s = scale if scale is not None else 1.0 / np.sqrt(shape[0])
        return rng.normal(scale=s, size=shape)

    names, params = ["embed", "pos"], [normal(vocab, d_model, scale=0.1), normal(seq, d_model)]
    for i in range(layers):
        block = {
            "ln1_g": np.ones(d_model),
            "ln1_b": np.zeros(d_model),
            "wq": normal(d_model, d_model),
            "wk": normal(d_model, d_model),
            "wv": normal(d_model, d_model),
            "wo": normal(d_model, d_model),
            "ln2_g": np.ones(d_model),
            "ln2_b": np.zeros(d_model),
            "w1": normal(d_model, d_ff),
            "b1": np.zeros(d_ff),
            "w2": normal(d_ff, d_model),
            "b2": np.zeros(d_model),
        }
        names += [f"{k}{i}" for k in block]
        params += list(block.values())
    names += ["lnf_g", "lnf_b"]
    params += [np.ones(d_model), np.zeros(d_model)]
    per_block = 12

    def layer_norm(x, g, b):
        mu = jnp.mean(x, axis=-1, keepdims=True)
        var = jnp.mean((x - mu) ** 2, axis=-1, keepdims=True)
        return (x - mu) / jnp.sqrt(var + 1e-5) * g + b

    def attention(x, wq, wk, wv, wo):
        dh = d_model // heads
        q = (x @ wq).reshape(seq, heads, dh).transpose(1, 0, 2)
        k = (x @ wk).reshape(seq, heads, dh).transpose(1, 0, 2)
        v = (x @ wv).reshape(seq, heads, dh).transpose(1, 0, 2)
        s = jnp.einsum("hqd,hkd->hqk", q, k) / np.sqrt(dh)
        s = jnp.where(mask, s, -1e9)
        a = jax.nn.softmax(s, axis=-1)
        o = jnp.einsum("hqk,hkd->hqd", a, v).transpose(1, 0, 2).reshape(seq, d_model)
        return o @ wo

    def loss(*ps):
        embed, pos = ps[0], ps[1]
        x = embed[tokens] + pos
        for i in range(layers):
            p = ps[2 + per_block * i : 2 + per_block * (i + 1)]
            ln1_g, ln1_b, wq, wk, wv, wo, ln2_g, ln2_b, w1, b1, w2, b2 = p
            x = x + attention(layer_norm(x, ln1_g, ln1_b), wq, wk, wv, wo)
            h = layer_norm(x, ln2_g, ln2_b)
            x = x + jax.nn.gelu(h @ w1 + b1) @ w2 + b2
        y = layer_norm(x, ps[-2], ps[-1])
        return jnp.mean((y - target) ** 2)

    return loss, tuple(params), names


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def measure(candidate: str, d_model: int, seq: int, heads: int) -> dict:
    """Peak memory and seconds of one candidate, in this process."""
    import jax
    import numpy as np

    jax.config.update("jax_enable_x64", True)
    import dgraph  # noqa: F401  (imports counted in the baseline)
    from dgraph import from_jax, make_function

    loss, params, _ = model(d_model, seq, heads)
    reference = jax.jit(jax.grad(loss, argnums=tuple(range(len(params)))))
    base = _rss_mb()
    start = time.perf_counter()
    if candidate == "jacrev":
        f = jax.jit(jax.jacrev(loss, argnums=tuple(range(len(params)))))
        built = time.perf_counter()
        grads = jax.block_until_ready(f(*params))
        info: dict = {}
    else:
        mode = candidate.split("-")[1]
        g = from_jax(loss, *params, level="array")
        fn = make_function(g, mode, lang="python")
        built = time.perf_counter()
        grads = fn(*params) if mode == "jacobian" else fn(*params, np.array(1.0))
        info = {"vertices": len(g), "edges": g.n_edges, "verified": fn.generated.verified}
    called = time.perf_counter()
    peak = _rss_mb()
    ref = jax.block_until_ready(reference(*params))
    error = max(
        float(np.abs(np.asarray(a).reshape(-1) - np.asarray(b).reshape(-1)).max())
        for a, b in zip(grads, ref, strict=True)
    )
    return {
        "candidate": candidate,
        "peak_mb": round(peak - base, 1),
        "build_s": round(built - start, 2),
        "call_s": round(called - built, 3),
        "max_error": error,
        "parameters": int(sum(np.size(p) for p in params)),
        **info,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--d-model", type=int, default=64)
    parser.add_argument("--seq", type=int, default=32)
    parser.add_argument("--heads", type=int, default=4)
    parser.add_argument("--only", choices=CANDIDATES, help="one candidate, in this process")
    args = parser.parse_args()
    sizes = (args.d_model, args.seq, args.heads)
    if args.only:
        print(json.dumps(measure(args.only, *sizes)))
        return
    rows = []
    for candidate in CANDIDATES:
        cmd = [sys.executable, __file__, "--only", candidate]
        cmd += ["--d-model", str(args.d_model), "--seq", str(args.seq), "--heads", str(args.heads)]
        done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode != 0:
            rows.append({"candidate": candidate, "failed": done.stderr.strip().splitlines()[-1:]})
        else:
            rows.append(json.loads(done.stdout.strip().splitlines()[-1]))
        print(json.dumps(rows[-1]), flush=True)
    jac = next((r for r in rows if r["candidate"] == "jacrev" and "peak_mb" in r), None)
    if jac:
        for r in rows:
            if "peak_mb" in r and r is not jac:
                print(f"{r['candidate']}: {r['peak_mb'] / max(jac['peak_mb'], 1.0):.2f}x jacrev")


if __name__ == "__main__":
    main()
