import jax.numpy as jnp
from jax.scipy.special import logsumexp

MARGIN = jnp.float32(0.3)


def f(emb, W, labels, s=16.0, m=MARGIN, eps=1e-7):
    e = emb / jnp.linalg.norm(emb, axis=1, keepdims=True)
    w = W / jnp.linalg.norm(W, axis=0, keepdims=True)
    cos = jnp.clip(e @ w, -1 + eps, 1 - eps)
    theta = jnp.arccos(cos)
    onehot = labels[:, None].astype(int) == jnp.arange(W.shape[1])
    logits = s * jnp.where(onehot, jnp.cos(theta + m), cos)
    target = jnp.sum(jnp.where(onehot, logits, 0.0), axis=1)
    return jnp.mean(logsumexp(logits, axis=1) - target)
