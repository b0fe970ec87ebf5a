import jax
import jax.numpy as jnp

B = 3.0


def rq_spline(x, w, h, d, min_w=1e-3, min_d=1e-3):
    # Durkan et al. (2019): monotone rational-quadratic spline on [-B, B], identity outside
    K = w.size
    wn = jnp.exp(w - jnp.max(w))
    wn = min_w + (1 - min_w * K) * wn / jnp.sum(wn)
    hn = jnp.exp(h - jnp.max(h))
    hn = min_w + (1 - min_w * K) * hn / jnp.sum(hn)
    cw = jnp.concatenate([jnp.array([-B]), -B + 2 * B * jnp.cumsum(wn)[:-1], jnp.array([B])])
    ch = jnp.concatenate([jnp.array([-B]), -B + 2 * B * jnp.cumsum(hn)[:-1], jnp.array([B])])
    deriv = jnp.concatenate([jnp.ones(1), min_d + jax.nn.softplus(d), jnp.ones(1)])
    inside = (x > -B) & (x < B)
    xc = jnp.clip(x, -B, B)
    idx = jnp.clip(jnp.searchsorted(cw, xc, side="right") - 1, 0, K - 1)
    xk, wk = cw[idx], cw[idx + 1] - cw[idx]
    yk, hk = ch[idx], ch[idx + 1] - ch[idx]
    dk, dk1 = deriv[idx], deriv[idx + 1]
    s = hk / wk
    t = (xc - xk) / wk
    den = s + (dk1 + dk - 2 * s) * t * (1 - t)
    y = yk + hk * (s * t**2 + dk * t * (1 - t)) / den
    logdet = (
        2 * jnp.log(s)
        + jnp.log(dk1 * t**2 + 2 * s * t * (1 - t) + dk * (1 - t) ** 2)
        - 2 * jnp.log(den)
    )
    return jnp.where(inside, y, x), jnp.where(inside, logdet, 0.0)


def f(x, w, h, d):
    y, logdet = rq_spline(x, w, h, d)
    return jnp.sum(0.5 * y**2 - logdet)  # a flow's negative log-likelihood
