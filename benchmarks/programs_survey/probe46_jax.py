"""survey46's JAX probes (custom_vjp, lax control flow, pytrees, ...) through probe46.run."""

import sys
import warnings

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

jax.config.update("jax_enable_x64", True)
warnings.simplefilter("ignore")
from jax.flatten_util import ravel_pytree  # noqa: E402
from probe46 import run  # noqa: E402


@jax.custom_vjp
def clip_grad(x):
    return x


def _f(x):
    return x, None


def _b(_, g):
    return (jnp.clip(g, -1.0, 1.0),)


clip_grad.defvjp(_f, _b)


@jax.custom_vjp
def softplus_v(x):
    return jnp.logaddexp(x, 0.0)


def _sf(x):
    return softplus_v(x), x


def _sb(x, g):
    return (g * jax.nn.sigmoid(x),)


softplus_v.defvjp(_sf, _sb)


def tree_loss(w, b):
    p = {"layer": {"w": w, "b": b}}
    flat, unravel = ravel_pytree(p)
    q = unravel(flat * 2.0)
    return jnp.sum(jnp.tanh(q["layer"]["w"] @ q["layer"]["b"])) + jax.tree_util.tree_reduce(
        lambda a, c: a + jnp.sum(c**2), p, 0.0
    )


x = np.array([0.3, -1.2, 0.7, 2.0])
W = np.arange(6.0).reshape(2, 3) / 5
P = {
    "custom_vjp": (lambda x: jnp.sum(softplus_v(x) ** 2), x),
    "lax_cond": (
        lambda x: lax.cond(x[0] > 0, lambda v: jnp.sin(v), lambda v: jnp.cos(v), x),
        x,
    ),
    "lax_switch": (lambda x: lax.switch(1, [jnp.sin, jnp.cos, jnp.tanh], x), x),
    "stop_gradient": (lambda x: x * lax.stop_gradient(x) + jnp.sum(x**2), x),
    "ravel_pytree": (tree_loss, W, np.array([0.5, -0.5, 1.0])),
    "vmap_dict": (
        lambda W, b: jax.vmap(
            lambda p, x: p["W"] @ x + p["b"], in_axes=({"W": None, "b": None}, 0)
        )({"W": W, "b": b}, jnp.ones((4, 3))),
        W,
        np.array([1.0, 2.0]),
    ),
    "logsumexp_b": (
        lambda x: jax.scipy.special.logsumexp(x, b=jnp.array([1.0, 0.5, 2.0, 0.0])),
        x,
    ),
    "segment_max": (
        lambda x: jax.ops.segment_max(x, jnp.array([0, 0, 1, 1]), num_segments=2),
        x,
    ),
    "segment_sum_sorted": (
        lambda x: jax.ops.segment_sum(
            x**2, jnp.array([0, 0, 1, 2]), num_segments=3, indices_are_sorted=True
        ),
        x,
    ),
    "gelu_exact": (lambda x: jax.nn.gelu(x, approximate=False), x),
    "piecewise": (
        lambda x: jnp.piecewise(
            x, [x < 0, x >= 1], [lambda v: v**2, lambda v: 2 * v - 1, lambda v: v**3]
        ),
        x,
    ),
    "checkpoint_scan": (
        lambda x: lax.scan(
            jax.checkpoint(lambda c, _: (jnp.sin(c) * 1.1, c[0])), x, None, length=5
        )[1],
        x,
    ),
    "fori_unroll": (
        lambda x: lax.fori_loop(0, 4, lambda i, c: c * jnp.cos(c) + i, x, unroll=True),
        x,
    ),
    "while_fixed": (
        lambda x: lax.while_loop(
            lambda s: s[0] < 3, lambda s: (s[0] + 1, s[1] ** 2 * 0.5 + 0.1), (0, x)
        )[1],
        x,
    ),
    "float32_inside": (
        lambda x: jnp.sum(x.astype(jnp.float32) ** 2).astype(jnp.float64) + jnp.sum(x),
        x,
    ),
    "nn_one_hot_idx": (lambda x: jnp.sum(jax.nn.one_hot(jnp.argmax(x), 4) * x), x),
    "softmax_where": (
        lambda x: jax.nn.softmax(x, where=jnp.array([True, False, True, True])),
        x,
    ),
    "lax_select": (lambda x: lax.select(x > 0.5, x**2, -x), x),
    "nan_to_num_log": (lambda x: jnp.nan_to_num(jnp.log(x), nan=0.0, neginf=0.0), x),
    "xlogy0": (
        lambda x: jax.scipy.special.xlogy(x**2, x**2),
        np.array([0.0, 0.5, 1.5]),
    ),
    "clip_grad_vjp": (lambda x: jnp.sum(clip_grad(x) ** 3), x),
}
for k, v in P.items():
    if len(sys.argv) < 2 or k in sys.argv[1:]:
        run(k, v[0], v[0], *v[1:])
