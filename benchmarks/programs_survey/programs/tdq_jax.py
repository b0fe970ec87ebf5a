import jax
import jax.numpy as jnp
from jax.scipy.special import logsumexp

INPUTS = "W:5x3,phi:10x5,a:10,r:10,phi_next:10x5,done:10"
PARAMS = "phi,a,r,phi_next,done"


def f(W, phi, a, r, phi_next, done, gamma=0.9, tau=0.5):
    # soft Q-learning with a linear Q and a semi-gradient target (stop_gradient), as DQN
    q = phi @ W
    q_sa = jnp.take_along_axis(q, a.astype(int)[:, None], axis=1)[:, 0]
    v_next = tau * logsumexp(phi_next @ W / tau, axis=1)
    target = r + gamma * (1.0 - done) * jax.lax.stop_gradient(v_next)
    return jnp.mean((q_sa - target) ** 2)


def POINT(rng):
    import numpy as np

    done = np.zeros(10)
    done[[3, 9]] = 1.0
    return [0.1 * rng.normal(size=(5, 3)), rng.normal(size=(10, 5)), rng.integers(0, 3, 10),
            rng.normal(size=10), rng.normal(size=(10, 5)), done]  # fmt: skip
