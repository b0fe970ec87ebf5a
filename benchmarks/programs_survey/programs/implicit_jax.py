import jax.numpy as jnp


def f(u, logk, dt=0.05, h=0.1, steps=3):
    k = jnp.exp(logk)
    kf = 0.5 * (k[:-1] + k[1:])
    r = dt / h**2
    main = 1.0 + r * (jnp.concatenate([jnp.zeros(1), kf]) + jnp.concatenate([kf, jnp.zeros(1)]))
    A = jnp.diag(main) + jnp.diag(-r * kf, 1) + jnp.diag(-r * kf, -1)
    for _ in range(steps):
        u = jnp.linalg.solve(A, u)
    return u
