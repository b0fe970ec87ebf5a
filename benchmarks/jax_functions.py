"""The real-world benchmark functions written in JAX, as a user would write them, from the
same formulas as dgraph/bench/realworld.py (there in sympy): for ``from_jax``.

Each entry is ``(function, example arguments)``; the arguments' shapes make the inputs.
"""

from __future__ import annotations

import jax.numpy as jnp
import jax.scipy.special as jsp
import numpy as np


def heart_dipole(a, b, c, d, t, u, v, w):
    """The eight residuals of the human heart dipole problem (MINPACK-2 dhhd)."""
    s = (0.5, -0.3, 0.2, 0.7, -0.1, 0.4, 0.6, -0.2)
    return (
        a + b - s[0],
        c + d - s[1],
        t * a + u * b - v * c - w * d - s[2],
        v * a + w * b + t * c + u * d - s[3],
        a * (t**2 - v**2) - 2 * c * t * v + b * (u**2 - w**2) - 2 * d * u * w - s[4],
        c * (t**2 - v**2) + 2 * a * t * v + d * (u**2 - w**2) + 2 * b * u * w - s[5],
        a * t * (t**2 - 3 * v**2)
        + c * v * (v**2 - 3 * t**2)
        + b * u * (u**2 - 3 * w**2)
        + d * w * (w**2 - 3 * u**2)
        - s[6],
        c * t * (t**2 - 3 * v**2)
        - a * v * (v**2 - 3 * t**2)
        + d * u * (u**2 - 3 * w**2)
        - b * w * (w**2 - 3 * u**2)
        - s[7],
    )


def roe_flux(rho_L, u_L, p_L, rho_R, u_R, p_R):
    """Roe's flux between a left and a right state (rho, u, p) of an ideal gas, gamma 7/5."""
    gamma, eps = 1.4, 0.01

    def state(r, u, p):
        e = p / (gamma - 1) + r * u**2 / 2
        return (e + p) / r, (r * u, r * u**2 + p, u * (e + p))

    hl, fl = state(rho_L, u_L, p_L)
    hr, fr = state(rho_R, u_R, p_R)
    sl, sr = jnp.sqrt(rho_L), jnp.sqrt(rho_R)
    ubar = (sl * u_L + sr * u_R) / (sl + sr)
    hbar = (sl * hl + sr * hr) / (sl + sr)
    abar = jnp.sqrt((gamma - 1) * (hbar - ubar**2 / 2))
    rbar = sl * sr
    dr, du, dp = rho_R - rho_L, u_R - u_L, p_R - p_L
    alphas = (
        (dp - rbar * abar * du) / (2 * abar**2),
        dr - dp / abar**2,
        (dp + rbar * abar * du) / (2 * abar**2),
    )
    lambdas = (ubar - abar, ubar, ubar + abar)
    vectors = (
        (1.0, ubar - abar, hbar - ubar * abar),
        (1.0, ubar, ubar**2 / 2),
        (1.0, ubar + abar, hbar + ubar * abar),
    )
    flux = []
    for k in range(3):
        waves = sum(
            jnp.sqrt(lam**2 + eps) * alpha * vec[k]
            for lam, alpha, vec in zip(lambdas, alphas, vectors, strict=True)
        )
        flux.append((fl[k] + fr[k]) / 2 - waves / 2)
    return {"F_mass": flux[0], "F_momentum": flux[1], "F_energy": flux[2]}


def robot_arm(q):
    """End-effector position of a PUMA 560 from its six joint angles (standard DH)."""
    dh = [  # (a, (cos alpha, sin alpha), d)
        (0.0, (0.0, 1.0), 0.0),
        (0.4318, (1.0, 0.0), 0.1491),
        (0.0203, (0.0, -1.0), 0.0),
        (0.0, (0.0, 1.0), 0.4331),
        (0.0, (0.0, -1.0), 0.0),
        (0.0, (1.0, 0.0), 0.05),
    ]
    transform = jnp.eye(4)
    for k, (a, (ca, sa), d) in enumerate(dh):
        ct, st = jnp.cos(q[k]), jnp.sin(q[k])
        link = jnp.array(
            [
                [ct, -st * ca, st * sa, a * ct],
                [st, ct * ca, -ct * sa, a * st],
                [0.0, sa, ca, d],
                [0.0, 0.0, 0.0, 1.0],
            ]
        )
        transform = transform @ link
    return {"x": transform[0, 3], "y": transform[1, 3], "z": transform[2, 3]}


def black_scholes(S, K, T, r, sigma):
    """Call and put prices from spot, strike, maturity, rate and volatility."""

    def cdf(x):
        return (1 + jsp.erf(x / jnp.sqrt(2.0))) / 2

    d1 = (jnp.log(S / K) + (r + sigma**2 / 2) * T) / (sigma * jnp.sqrt(T))
    d2 = d1 - sigma * jnp.sqrt(T)
    discount = K * jnp.exp(-r * T)
    return {"call": S * cdf(d1) - discount * cdf(d2), "put": discount * cdf(-d2) - S * cdf(-d1)}


def reaction_rates(T, H, O, OH, H2, O2, H2O):  # noqa: E741 (the species' names)
    """Net production rates of six species by five chain reactions (Arrhenius rates)."""
    reactions = [  # (reactants, products, A, b, E/R)
        (("H", "O2"), ("OH", "O"), 35.0, -0.4, 8353.0),
        (("O", "H2"), ("OH", "H"), 0.05, 2.7, 3150.0),
        (("OH", "H2"), ("H2O", "H"), 2.2, 1.5, 1726.0),
        (("OH", "OH"), ("H2O", "O"), 0.03, 2.4, -1063.0),
        (("H", "OH"), ("H2O",), 44.0, -2.0, 0.0),
    ]
    amount = {"H": H, "O": O, "OH": OH, "H2": H2, "O2": O2, "H2O": H2O}
    net = dict.fromkeys(amount, 0.0)
    for reactants, products, a, b, e in reactions:
        rate = a * T**b * jnp.exp(-e / T)
        for x in reactants:
            rate = rate * amount[x]
        for x in reactants:
            net[x] = net[x] - rate
        for x in products:
            net[x] = net[x] + rate
    return {f"w_{x}": net[x] for x in amount}


def mlp(x):
    """Softmax(W2 tanh(W1 x + b1) + b2) with the weights of realworld.mlp (seed 0)."""
    import random

    rng = random.Random(0)

    def weight():
        return rng.randint(-9, 9) / 10

    hidden = [jnp.tanh(sum(weight() * x[i] for i in range(4)) + weight()) for _ in range(6)]
    z = [sum(weight() * h for h in hidden) + weight() for _ in range(3)]
    e = [jnp.exp(zk) for zk in z]
    total = sum(e)
    return {f"p{k}": ek / total for k, ek in enumerate(e)}


def propane_combustion(x):
    """The eleven residuals of the propane combustion equilibrium (Meintjes & Morgan's full
    formulation; pressure 40, R = 10): element balances, then equilibrium relations."""
    p, r = 40.0, 10.0
    n1, n2, n3, n4, n5, n6, n7, n8, n9, n10, total = (x[k] for k in range(11))
    root = jnp.sqrt(p / total)
    return {
        "carbon": n1 + n4 - 3.0,
        "hydrogen": 2 * n1 + n2 + n4 + n7 + n8 + n9 + 2 * n10 - r,
        "oxygen": 2 * n2 + 2 * n5 + n6 + n7 - 8.0,
        "nitrogen": 2 * n3 + n9 - 4 * r,
        "k5": n2 * n4 - n1 * n5,
        "k6": jnp.sqrt(n2 * n4) - jnp.sqrt(n1) * root * n6,
        "k7": jnp.sqrt(n1 * n2) - jnp.sqrt(n4) * n7 * root,
        "k8": n1 - n4 * n8 * p / total,
        "k9": n1 * jnp.sqrt(n3) - n4 * n9 * root,
        "k10": n1**2 - n4**2 * n10 * p / total,
        "total": total - sum(x[k] for k in range(10)),
    }


FUNCTIONS = {
    "heart-dipole": (heart_dipole, (1.0,) * 8),
    "roe-flux": (roe_flux, (1.0, 0.5, 1.0, 0.8, 0.3, 0.7)),
    "robot-arm": (robot_arm, (np.ones(6),)),
    "black-scholes": (black_scholes, (1.0, 1.0, 1.0, 0.05, 0.2)),
    "reaction-rates": (reaction_rates, (1500.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0)),
    "mlp": (mlp, (np.ones(4),)),
    "propane-combustion": (propane_combustion, (np.ones(11),)),
}
