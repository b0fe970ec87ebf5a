import jax.numpy as jnp
from jax.scipy.stats import norm


def f(b, g, log_s, a, x, w, y, sel):
    s, rho = jnp.exp(log_s), jnp.tanh(a)
    zg = g[0] + g[1] * w
    e = (y - b[0] - b[1] * x) / s
    ll_sel = norm.logpdf(e) - log_s + norm.logcdf((zg + rho * e) / jnp.sqrt(1 - rho**2))
    return -jnp.sum(jnp.where(sel > 0, ll_sel, norm.logcdf(-zg)))
