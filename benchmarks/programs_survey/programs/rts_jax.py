import jax
import jax.numpy as jnp

F = jnp.array([[1.0, 0.1], [0.0, 1.0]])
Q = jnp.array([[1e-3, 0.0], [0.0, 1e-2]])
H = jnp.array([1.0, 0.0])
R = 0.05


def f(y, x0):
    def fwd(c, yt):
        m, P = c
        m_, P_ = F @ m, F @ P @ F.T + Q
        S = H @ P_ @ H + R
        K = P_ @ H / S
        m = m_ + K * (yt - H @ m_)
        P = P_ - jnp.outer(K, K) * S
        return (m, P), (m, P, m_, P_)

    _, (ms, Ps, mp, Pp) = jax.lax.scan(fwd, (x0, jnp.eye(2)), y)

    def bwd(c, t):
        m, P = c
        G = Ps[t] @ F.T @ jnp.linalg.inv(Pp[t + 1])
        m = ms[t] + G @ (m - mp[t + 1])
        P = Ps[t] + G @ (P - Pp[t + 1]) @ G.T
        return (m, P), m

    _, back = jax.lax.scan(bwd, (ms[-1], Ps[-1]), jnp.arange(len(y) - 1), reverse=True)
    return jnp.concatenate([back, ms[-1:]])[:, 0]
