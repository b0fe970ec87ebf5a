import jax.numpy as jnp


def f(img, pts):
    x, y = pts[:, 0], pts[:, 1]
    i0 = jnp.clip(jnp.floor(x), 0, 3).astype(int)
    j0 = jnp.clip(jnp.floor(y), 0, 3).astype(int)
    tx, ty = x - i0, y - j0
    a = img[i0, j0] * (1 - tx) * (1 - ty) + img[i0 + 1, j0] * tx * (1 - ty)
    return a + img[i0, j0 + 1] * (1 - tx) * ty + img[i0 + 1, j0 + 1] * tx * ty
