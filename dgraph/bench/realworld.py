"""Real-world functions for the benchmark suite, written from their published formulas.

One per field, the kinds of functions whose Jacobians simulations and optimizers need:

* physics — the human heart dipole residuals (MINPACK-2, Averick et al. 1991);
* engineering, fluids — Roe's approximate Riemann flux for the 1-D Euler equations (Roe
  1981; Toro, *Riemann Solvers*, ch. 11), with a smooth |λ|;
* engineering, robotics — forward kinematics of a 6-joint arm with Denavit–Hartenberg
  parameters of the PUMA 560 (Craig, *Introduction to Robotics*, ch. 3);
* finance — Black–Scholes prices of a European call and put (Black & Scholes 1973);
* chemistry — mass-action rates with Arrhenius constants for a small H₂/O₂ chain
  mechanism (Arrhenius 1889; rate constants illustrative);
* machine learning — a two-layer perceptron with tanh and softmax (fixed weights).

Constants are exact rationals so the graphs are reproducible; inputs are the variables
one differentiates by.
"""

from __future__ import annotations

import random

import sympy

from ..core.graph import DGraph
from ..frontends import from_sympy

__all__ = [
    "REAL_WORLD",
    "black_scholes",
    "heart_dipole",
    "mlp",
    "reaction_rates",
    "robot_arm",
    "roe_flux",
]


def heart_dipole(binary: bool = False) -> DGraph:
    """The eight residuals of the human heart dipole problem (MINPACK-2 ``dhhd``)."""
    a, b, c, d, t, u, v, w = sympy.symbols("a b c d t u v w")
    s = [sympy.Rational(k, 10) for k in (5, -3, 2, 7, -1, 4, 6, -2)]  # the measured moments
    f = {
        "f1": a + b - s[0],
        "f2": c + d - s[1],
        "f3": t * a + u * b - v * c - w * d - s[2],
        "f4": v * a + w * b + t * c + u * d - s[3],
        "f5": a * (t**2 - v**2) - 2 * c * t * v + b * (u**2 - w**2) - 2 * d * u * w - s[4],
        "f6": c * (t**2 - v**2) + 2 * a * t * v + d * (u**2 - w**2) + 2 * b * u * w - s[5],
        "f7": a * t * (t**2 - 3 * v**2)
        + c * v * (v**2 - 3 * t**2)
        + b * u * (u**2 - 3 * w**2)
        + d * w * (w**2 - 3 * u**2)
        - s[6],
        "f8": c * t * (t**2 - 3 * v**2)
        - a * v * (v**2 - 3 * t**2)
        + d * u * (u**2 - 3 * w**2)
        - b * w * (w**2 - 3 * u**2)
        - s[7],
    }
    return from_sympy(f, [a, b, c, d, t, u, v, w], name="heart-dipole", binary=binary)


def roe_flux(binary: bool = False) -> DGraph:
    """Roe's flux between a left and a right state (ρ, u, p) of an ideal gas, γ = 7/5."""
    rl, ul, pl, rr, ur, pr = sympy.symbols("rho_L u_L p_L rho_R u_R p_R")
    gamma = sympy.Rational(7, 5)
    eps = sympy.Rational(1, 100)

    def state(r, u, p):
        e = p / (gamma - 1) + r * u**2 / 2
        return e, (e + p) / r, (r * u, r * u**2 + p, u * (e + p))

    _, hl, fl = state(rl, ul, pl)
    _, hr, fr = state(rr, ur, pr)
    sl, sr = sympy.sqrt(rl), sympy.sqrt(rr)
    ubar = (sl * ul + sr * ur) / (sl + sr)
    hbar = (sl * hl + sr * hr) / (sl + sr)
    abar = sympy.sqrt((gamma - 1) * (hbar - ubar**2 / 2))
    rbar = sl * sr
    dr, du, dp = rr - rl, ur - ul, pr - pl
    alphas = (
        (dp - rbar * abar * du) / (2 * abar**2),
        dr - dp / abar**2,
        (dp + rbar * abar * du) / (2 * abar**2),
    )
    lambdas = (ubar - abar, ubar, ubar + abar)
    vectors = (
        (1, ubar - abar, hbar - ubar * abar),
        (1, ubar, ubar**2 / 2),
        (1, ubar + abar, hbar + ubar * abar),
    )
    flux = {}
    for k, name in enumerate(("F_mass", "F_momentum", "F_energy")):
        waves = sum(
            sympy.sqrt(lam**2 + eps) * alpha * vec[k]
            for lam, alpha, vec in zip(lambdas, alphas, vectors, strict=True)
        )
        flux[name] = (fl[k] + fr[k]) / 2 - waves / 2
    return from_sympy(flux, [rl, ul, pl, rr, ur, pr], name="roe-flux", binary=binary)


def robot_arm(binary: bool = False) -> DGraph:
    """End-effector position of a PUMA 560 from its six joint angles (standard DH)."""
    q = sympy.symbols("q1:7")
    r = sympy.Rational
    # (a, alpha, d) per joint, metres; alpha as (cos, sin) of 0 or ±90°
    dh = [
        (0, (0, 1), 0),
        (r(4318, 10000), (1, 0), r(1491, 10000)),
        (r(203, 10000), (0, -1), 0),
        (0, (0, 1), r(4331, 10000)),
        (0, (0, -1), 0),
        (0, (1, 0), r(5, 100)),
    ]
    transform = sympy.eye(4)
    for theta, (a, (ca, sa), d) in zip(q, dh, strict=True):
        ct, st = sympy.cos(theta), sympy.sin(theta)
        link = sympy.Matrix(
            [
                [ct, -st * ca, st * sa, a * ct],
                [st, ct * ca, -ct * sa, a * st],
                [0, sa, ca, d],
                [0, 0, 0, 1],
            ]
        )
        transform = transform * link
    return from_sympy(
        {"x": transform[0, 3], "y": transform[1, 3], "z": transform[2, 3]},
        list(q),
        name="robot-arm",
        binary=binary,
    )


def black_scholes(binary: bool = False) -> DGraph:
    """Call and put prices from spot S, strike K, maturity T, rate r and volatility σ."""
    s, k, t, rate, sigma = sympy.symbols("S K T r sigma")

    def cdf(x):
        return (1 + sympy.erf(x / sympy.sqrt(2))) / 2

    d1 = (sympy.log(s / k) + (rate + sigma**2 / 2) * t) / (sigma * sympy.sqrt(t))
    d2 = d1 - sigma * sympy.sqrt(t)
    discount = k * sympy.exp(-rate * t)
    call = s * cdf(d1) - discount * cdf(d2)
    put = discount * cdf(-d2) - s * cdf(-d1)
    return from_sympy(
        {"call": call, "put": put}, [s, k, t, rate, sigma], name="black-scholes", binary=binary
    )


def reaction_rates(binary: bool = False) -> DGraph:
    """Net production rates of H, O, OH, H2, O2, H2O at temperature T by mass action with
    Arrhenius constants k = A T^b exp(-E/(R T)) for five chain reactions."""
    temp, h, o, oh, h2, o2, h2o = sympy.symbols("T H O OH H2 O2 H2O")
    r = sympy.Rational
    reactions = [  # (reactants, products, A, b, E/R)
        ((h, o2), (oh, o), r(35, 1), r(-4, 10), r(8353, 1)),
        ((o, h2), (oh, h), r(5, 100), r(27, 10), r(3150, 1)),
        ((oh, h2), (h2o, h), r(22, 10), r(15, 10), r(1726, 1)),
        ((oh, oh), (h2o, o), r(3, 100), r(24, 10), r(-1063, 1)),
        ((h, oh), (h2o,), r(44, 1), r(-2, 1), r(0, 1)),
    ]
    species = (h, o, oh, h2, o2, h2o)
    net = dict.fromkeys(species, sympy.Integer(0))
    for reactants, products, a, b, e in reactions:
        rate = a * temp**b * sympy.exp(-e / temp)
        for x in reactants:
            rate = rate * x
        for x in reactants:
            net[x] -= rate
        for x in products:
            net[x] += rate
    return from_sympy(
        {f"w_{x}": net[x] for x in species}, [temp, *species], name="reaction-rates", binary=binary
    )


def mlp(
    inputs: int = 4, hidden: int = 6, outputs: int = 3, seed: int = 0, binary: bool = False
) -> DGraph:
    """Softmax(W2 tanh(W1 x + b1) + b2) with fixed small rational weights."""
    rng = random.Random(seed)

    def weight() -> sympy.Rational:
        return sympy.Rational(rng.randint(-9, 9), 10)

    x = sympy.symbols(f"x0:{inputs}")
    h = [sympy.tanh(sum(weight() * xi for xi in x) + weight()) for _ in range(hidden)]
    z = [sum(weight() * hj for hj in h) + weight() for _ in range(outputs)]
    e = [sympy.exp(zk) for zk in z]
    total = sum(e)
    return from_sympy(
        {f"p{k}": ek / total for k, ek in enumerate(e)}, list(x), name="mlp", binary=binary
    )


REAL_WORLD = {
    "heart-dipole": heart_dipole,
    "roe-flux": roe_flux,
    "robot-arm": robot_arm,
    "black-scholes": black_scholes,
    "reaction-rates": reaction_rates,
    "mlp": mlp,
}
