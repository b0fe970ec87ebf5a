import jax
import jax.numpy as jnp


def rms_norm(x, g, eps=1e-6):
    return x * jax.lax.rsqrt(jnp.mean(x**2, axis=-1, keepdims=True) + eps) * g


def block(params, x):
    h = rms_norm(x, params["g"])
    return x + (jax.nn.silu(h @ params["Wg"]) * (h @ params["Wu"])) @ params["Wd"]


def f(x, g, Wg, Wu, Wd):
    params = {"g": g, "Wg": Wg, "Wu": Wu, "Wd": Wd}
    params = jax.tree_util.tree_map(lambda a: a.astype(x.dtype), params)
    return block(params, x)
