import jax.numpy as jnp

NU, DT = 0.01, 0.05


def ddx(a):
    return 0.5 * (jnp.roll(a, -1, axis=1) - jnp.roll(a, 1, axis=1))


def ddy(a):
    return 0.5 * (jnp.roll(a, -1, axis=0) - jnp.roll(a, 1, axis=0))


def lap(a):
    return jnp.roll(a, 1, 0) + jnp.roll(a, -1, 0) + jnp.roll(a, 1, 1) + jnp.roll(a, -1, 1) - 4 * a


def f(w):
    n = w.shape[0]
    k = jnp.fft.fftfreq(n) * n
    kx, ky = jnp.meshgrid(k, k)
    k2 = (kx**2 + ky**2).at[0, 0].set(1.0)
    psi = jnp.real(jnp.fft.ifft2(jnp.fft.fft2(w) / k2))
    u, v = ddy(psi), -ddx(psi)
    return w + DT * (-u * ddx(w) - v * ddy(w) + NU * lap(w))
