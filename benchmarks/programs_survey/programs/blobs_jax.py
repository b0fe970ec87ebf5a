import jax.numpy as jnp


def f(c, amp, img, s=1.5):
    yy, xx = jnp.meshgrid(jnp.arange(12.0), jnp.arange(12.0), indexing="ij")
    model = jnp.sum(
        amp[:, None, None]
        * jnp.exp(
            -((xx - c[:, 0, None, None]) ** 2 + (yy - c[:, 1, None, None]) ** 2) / (2 * s**2)
        ),
        axis=0,
    )
    r = model - img
    rp = jnp.pad(r, 1, mode="reflect")
    lap = rp[:-2, 1:-1] + rp[2:, 1:-1] + rp[1:-1, :-2] + rp[1:-1, 2:] - 4 * r
    ep = jnp.pad(r, ((0, 0), (2, 2)), mode="edge")
    gx = (ep[:, 4:] - ep[:, :-4]) / 4
    return jnp.sum(r**2) + 0.1 * jnp.sum(lap**2) + 0.05 * jnp.sum(gx**2)
