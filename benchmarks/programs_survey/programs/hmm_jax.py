import jax
import jax.numpy as jnp
from jax.scipy.special import logsumexp


def f(A, m, obs):
    logT = A - logsumexp(A, axis=1, keepdims=True)
    loge = -0.5 * (obs[:, None] - m[None, :]) ** 2 - 0.5 * jnp.log(2 * jnp.pi)

    def step(alpha, le):
        alpha = logsumexp(alpha[:, None] + logT, axis=0) + le
        return alpha, None

    alpha, _ = jax.lax.scan(step, jnp.log(jnp.ones(3) / 3) + loge[0], loge[1:])
    return -logsumexp(alpha)
