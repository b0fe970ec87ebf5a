import jax
import jax.numpy as jnp

VT = 0.025852


def lambertw(x, iters=30):
    # principal branch by Halley's iteration from a log start (x >= 0)
    w = jnp.where(x < 1.0, x / (1.0 + x), jnp.log1p(x) - jnp.log(jnp.log1p(x) + 1.0))

    def body(_, w):
        ew = jnp.exp(w)
        fw = w * ew - x
        return w - fw / (ew * (w + 1) - (w + 2) * fw / (2 * w + 2))

    return jax.lax.fori_loop(0, iters, body, w)


def f(p, V):
    Is, n, R = jnp.exp(p[0]), p[1], p[2]
    nvt = n * VT
    return nvt / R * lambertw(Is * R / nvt * jnp.exp((V + Is * R) / nvt)) - Is
