"""Sparse patterns where a constant mask zeroes entries (session 61, mask61).

Each program of the family is written in NumPy and in ``jax.numpy``; each is made
with ``dgraph.make_function(..., sparse=True)`` (the Jacobian of a vector function, the
Hessian of a scalar one) from both, and the stored entries are compared with the true
pattern (the union of ``jax.jacfwd``'s / ``jax.hessian``'s nonzeros at four random
points), the values with JAX's at a fifth, and the dense function's too.

    PYTHONPATH=. python benchmarks/mask_patterns.py            # every program
    PYTHONPATH=. python benchmarks/mask_patterns.py attn seg   # some

Prints one row per program and reader: stored, true, whether the pattern holds the true
one, the largest difference from JAX (sparse, dense), verified, and the CPU-s to make.
"""

from __future__ import annotations

import sys
import time

import jax
import jax.numpy as jnp
import numpy as np

import dgraph

jax.config.update("jax_enable_x64", True)

R = np.random.default_rng(61)
T, D, HEADS = 6, 4, 2
WQ, WK, WV = (R.normal(size=(D, D)) for _ in range(3))
CAUSAL = np.tril(np.ones((T, T), dtype=bool))
PACKED = CAUSAL & (np.arange(T)[:, None] // 3 == np.arange(T)[None, :] // 3)  # 2 sequences
VALID = np.arange(T) < 4  # the last two positions are padding
MASK = R.random((5, 6)) < 0.5  # a constant mask into a reduction
SEG = np.array([0, 0, 1, 1, 1, 2, 2, 0])  # segment of each entry
MEMBER = SEG[None, :] == np.arange(3)[:, None]


def _softmax_np(s):
    s = s - s.max(axis=-1, keepdims=True)
    e = np.exp(s)
    return e / e.sum(axis=-1, keepdims=True)


def attn_np(X):  # causal, single head; the mask by np.triu as ml59's
    s = (X @ WQ) @ (X @ WK).T / 2.0
    s = np.where(np.triu(np.ones((T, T), dtype=bool), k=1), -np.inf, s)
    return _softmax_np(s) @ (X @ WV)


def attn_jax(X):
    s = (X @ WQ) @ (X @ WK).T / 2.0
    s = jnp.where(CAUSAL, s, -jnp.inf)
    return jax.nn.softmax(s, axis=-1) @ (X @ WV)


def mha_np(X):  # causal, two heads of width 2, batched by einsum
    q = (X @ WQ).reshape(T, HEADS, 2).transpose(1, 0, 2)
    k = (X @ WK).reshape(T, HEADS, 2).transpose(1, 0, 2)
    v = (X @ WV).reshape(T, HEADS, 2).transpose(1, 0, 2)
    s = np.einsum("htd,hsd->hts", q, k) / np.sqrt(2.0)
    s = np.where(CAUSAL[None], s, -np.inf)
    return np.einsum("hts,hsd->htd", _softmax_np(s), v).transpose(1, 0, 2).reshape(T, D)


def mha_jax(X):
    q = (X @ WQ).reshape(T, HEADS, 2).transpose(1, 0, 2)
    k = (X @ WK).reshape(T, HEADS, 2).transpose(1, 0, 2)
    v = (X @ WV).reshape(T, HEADS, 2).transpose(1, 0, 2)
    s = jnp.einsum("htd,hsd->hts", q, k) / jnp.sqrt(2.0)
    s = jnp.where(CAUSAL[None], s, -jnp.inf)
    a = jax.nn.softmax(s, axis=-1)
    return jnp.einsum("hts,hsd->htd", a, v).transpose(1, 0, 2).reshape(T, D)


def pad_np(X):  # a padding mask on the keys (no causal mask)
    s = (X @ WQ) @ (X @ WK).T / 2.0
    s = np.where(VALID[None, :], s, -np.inf)
    return _softmax_np(s) @ (X @ WV)


def pad_jax(X):
    s = (X @ WQ) @ (X @ WK).T / 2.0
    s = jnp.where(VALID[None, :], s, -jnp.inf)
    return jax.nn.softmax(s, axis=-1) @ (X @ WV)


BIAS = np.where(CAUSAL, 0.0, -np.inf)  # an additive mask, made once


def bias_np(X):  # causal by an additive -inf bias
    s = (X @ WQ) @ (X @ WK).T / 2.0 + BIAS
    return _softmax_np(s) @ (X @ WV)


def bias_jax(X):
    s = (X @ WQ) @ (X @ WK).T / 2.0 + BIAS
    return jax.nn.softmax(s, axis=-1) @ (X @ WV)


KEEP = (np.arange(8) % 3 != 1).astype(float)  # a 0/1 mask, multiplied in


def mulmask_np(x):  # a multiplied 0/1 mask, then a product with a running sum
    return (KEEP * np.sin(x)) * np.cumsum(x)


def mulmask_jax(x):
    return (KEEP * jnp.sin(x)) * jnp.cumsum(x)


def where_np(x):  # where(constant mask, x, 0) into a reduction
    return np.sum(np.where(MASK, np.tanh(x), 0.0), axis=1)


def where_jax(x):
    return jnp.sum(jnp.where(MASK, jnp.tanh(x), 0.0), axis=1)


def seg_np(x):  # a softmax within each segment, by a -inf mask
    s = np.where(MEMBER, x[None, :], -np.inf)
    return _softmax_np(s).sum(axis=0)


def seg_jax(x):
    s = jnp.where(MEMBER, x[None, :], -jnp.inf)
    return jax.nn.softmax(s, axis=1).sum(axis=0)


def segsum_np(x):  # segment-wise masked sums of a product, by the 0/1 membership
    return (MEMBER * (x * np.sin(x))[None, :]).sum(axis=1) * np.arange(1.0, 4.0)


def segsum_jax(x):
    return (MEMBER * (x * jnp.sin(x))[None, :]).sum(axis=1) * jnp.arange(1.0, 4.0)


def _loss(f, lib):
    def loss(X):
        return lib.sum(lib.sin(f(X)))

    return loss


def _packed_np(X):
    s = (X @ WQ) @ (X @ WK).T / 2.0
    return _softmax_np(np.where(PACKED, s, -np.inf)) @ (X @ WV)


def _packed_jax(X):
    s = (X @ WQ) @ (X @ WK).T / 2.0
    return jax.nn.softmax(jnp.where(PACKED, s, -jnp.inf), axis=-1) @ (X @ WV)


def _pad_loss_np(X):  # padded rows left out of the loss too
    return np.sum(np.where(VALID[:, None], np.sin(pad_np(X)), 0.0))


def _pad_loss_jax(X):
    return jnp.sum(jnp.where(VALID[:, None], jnp.sin(pad_jax(X)), 0.0))


PROGRAMS = {  # name: (NumPy, JAX, input shape, mode)
    "attn": (attn_np, attn_jax, (T, D), "jacobian"),
    "mha": (mha_np, mha_jax, (T, D), "jacobian"),
    "pad": (pad_np, pad_jax, (T, D), "jacobian"),
    "bias": (bias_np, bias_jax, (T, D), "jacobian"),
    "where": (where_np, where_jax, (5, 6), "jacobian"),
    "mulmask": (mulmask_np, mulmask_jax, (8,), "jacobian"),
    "seg": (seg_np, seg_jax, (8,), "jacobian"),
    "segsum": (segsum_np, segsum_jax, (8,), "jacobian"),
    "attn_loss": (_loss(attn_np, np), _loss(attn_jax, jnp), (T, D), "hessian"),
    "packed_loss": (_loss(_packed_np, np), _loss(_packed_jax, jnp), (T, D), "hessian"),
    "pad_loss": (_pad_loss_np, _pad_loss_jax, (T, D), "hessian"),
    "seg_loss": (_loss(seg_np, np), _loss(seg_jax, jnp), (8,), "hessian"),
    "where_loss": (_loss(where_np, np), _loss(where_jax, jnp), (5, 6), "hessian"),
}


def reference(f_jax, mode: str, x: np.ndarray) -> np.ndarray:
    """JAX's Jacobian (Hessian) at ``x`` as a (rows, x.size) matrix."""
    d = jax.jacfwd(f_jax) if mode == "jacobian" else jax.hessian(f_jax)
    return np.asarray(d(jnp.asarray(x))).reshape(-1, x.size)


def true_pattern(f_jax, mode: str, shape: tuple[int, ...], rng) -> np.ndarray:
    """The union of JAX's nonzeros at four random points."""
    return np.logical_or.reduce(
        [reference(f_jax, mode, rng.normal(size=shape)) != 0 for _ in range(4)]
    )


def run(name: str) -> list[tuple]:
    f_np, f_jax, shape, mode = PROGRAMS[name]
    rng = np.random.default_rng(1)
    x = rng.normal(size=shape)
    true = true_pattern(f_jax, mode, shape, rng)
    ref = reference(f_jax, mode, x)
    rows = []
    for reader, f in (("numpy", f_np), ("jax", f_jax)):
        start = time.process_time()
        S = dgraph.make_function(f, mode, point=[x], sparse=True)
        made = time.process_time() - start
        J = S(x)
        J = J if not isinstance(J, tuple) else J[0]
        stored = J.toarray() if hasattr(J, "toarray") else np.asarray(J.todense())
        mask = np.zeros(stored.shape, dtype=bool)
        coo = J.tocoo() if hasattr(J, "tocoo") else None
        mask[coo.row, coo.col] = True
        dense = np.asarray(dgraph.make_function(f, mode, point=[x])(x)).reshape(ref.shape)
        rows.append(
            (
                name,
                reader,
                mode,
                int(mask.sum()),
                int(true.sum()),
                bool((mask | ~true).all()),
                float(np.abs(stored - ref).max()),
                float(np.abs(dense - ref).max()),
                bool(S.generated.verified),
                round(made, 2),
            )
        )
    return rows


def main(names: list[str]) -> None:
    heads = "program reader mode stored true holds sparse_diff dense_diff verified make_CPU-s"
    print("| " + " | ".join(heads.split()) + " |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name in names or list(PROGRAMS):
        for row in run(name):
            n, reader, mode, stored, true, holds, ds, dd, ver, made = row
            cells = (n, reader, mode, stored, true, holds, f"{ds:.1e}", f"{dd:.1e}", ver, made)
            print("| " + " | ".join(str(c) for c in cells) + " |")


if __name__ == "__main__":
    main(sys.argv[1:])
