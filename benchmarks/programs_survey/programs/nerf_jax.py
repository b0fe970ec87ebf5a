import jax
import jax.numpy as jnp


def f(raw, rgb_raw, t):
    sigma = jax.nn.relu(raw)
    rgb = jax.nn.sigmoid(rgb_raw)
    delta = jnp.append(jnp.diff(t), 1e10)
    alpha = 1.0 - jnp.exp(-sigma * delta)
    trans = jnp.cumprod(1.0 - alpha + 1e-10, axis=-1)
    trans = jnp.concatenate([jnp.ones_like(trans[:, :1]), trans[:, :-1]], axis=-1)
    w = alpha * trans
    return {
        "acc": w.sum(-1),
        "depth": (w * t).sum(-1),
        "rgb": jnp.einsum("rs,rsc->rc", w, rgb),
    }
