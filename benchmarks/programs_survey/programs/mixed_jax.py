import jax
import jax.numpy as jnp


def f(beta, log_tau, log_sigma, X, y, g, n_groups=5):
    tau2, s2 = jnp.exp(2 * log_tau), jnp.exp(2 * log_sigma)
    gi = g.astype(jnp.int32)
    r = y - X @ beta
    n_j = jax.ops.segment_sum(jnp.ones_like(r), gi, num_segments=n_groups)
    sum_r = jax.ops.segment_sum(r, gi, num_segments=n_groups)
    sum_r2 = jax.ops.segment_sum(r**2, gi, num_segments=n_groups)
    quad = (sum_r2 - tau2 * sum_r**2 / (s2 + n_j * tau2)) / s2
    logdet = (n_j - 1) * jnp.log(s2) + jnp.log(s2 + n_j * tau2)
    return 0.5 * jnp.sum(quad + logdet) + 0.5 * y.size * jnp.log(2 * jnp.pi)
