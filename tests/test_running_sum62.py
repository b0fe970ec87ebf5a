"""A sum carried over an unrolled loop's steps is summed once per step, not again with
every earlier step's parts (session 62, rksum62): Michaelis–Menten mass action
(E + S <-> ES -> E + P, whose fourth state is a pure running sum of the steps'
increments) under classical RK4 in a plain Python loop, as benchmarks/unrolled58.py."""

import jax
import jax.numpy as jnp
import numpy as np

import dgraph
from dgraph.codegen.tensor import blockops


def _enzyme(c, k, xp):
    E, S, ES, _ = c
    r1 = k[0] * E * S - k[1] * ES
    r2 = k[2] * ES
    return xp.array([-r1 + r2, -r1, r1 - r2, r2])


def _rk4(steps, xp=np, dt=0.05):
    def f(y0, p):
        y = y0
        for _ in range(steps):
            k1 = _enzyme(y, p, xp)
            k2 = _enzyme(y + dt / 2 * k1, p, xp)
            k3 = _enzyme(y + dt / 2 * k2, p, xp)
            k4 = _enzyme(y + dt * k3, p, xp)
            y = y + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        return y

    return f


POINT = [np.array([1.0, 5.0, 0.0, 0.0]), np.array([2.0, 1.0, 1.5])]


def _largest_sum(monkeypatch, steps):
    """The most parts one ``materialize`` scatters in the build, and the Jacobian."""
    largest = [0]
    materialize = blockops.BlockOps.materialize

    def counted(self, valued, product=False):
        if valued is not None and isinstance(valued[1], blockops.Terms):
            largest[0] = max(largest[0], valued[1].count)
        return materialize(self, valued, product)

    monkeypatch.setattr(blockops.BlockOps, "materialize", counted)
    G = dgraph.make_function(_rk4(steps), "jacobian", "python", point=POINT)
    assert G.generated.verified
    return largest[0], np.concatenate([np.asarray(b).reshape(4, -1) for b in G(*POINT)], 1)


def test_a_carried_running_sum_is_summed_once_a_step(monkeypatch):
    # before: the largest sum grew by 12 parts a step (38, 50, 74 at 3, 4, 6 steps)
    short, _ = _largest_sum(monkeypatch, 3)
    longer, J = _largest_sum(monkeypatch, 4)
    assert longer == short
    with jax.enable_x64(True):
        ref = jax.jacfwd(_rk4(4, jnp), (0, 1))(*map(jnp.asarray, POINT))
    ref = np.concatenate([np.asarray(b) for b in ref], 1)
    np.testing.assert_allclose(J, ref, rtol=1e-12, atol=1e-14)
