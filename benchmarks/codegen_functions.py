"""Physics-style functions for the code-generation benchmark (benchmarks/codegen.py).

Each entry builds a differentiation graph by tracing a plain Python function with sympy
symbols (``dgraph.from_function``): the kind of model code whose Jacobian users generate.
"""

from __future__ import annotations

from collections.abc import Callable

import sympy
from sympy import cos, exp, sin, sqrt

from dgraph import DGraph, from_function

__all__ = ["FUNCTIONS"]


def gravity(x1, y1, z1, x2, y2, z2, x3, y3, z3):
    """Newtonian forces on three unit masses (G = 1): F_i = sum_j (r_j - r_i)/|r_j - r_i|^3."""
    p = [(x1, y1, z1), (x2, y2, z2), (x3, y3, z3)]
    forces = [[0, 0, 0] for _ in p]
    for i in range(3):
        for j in range(i + 1, 3):
            d = [p[j][k] - p[i][k] for k in range(3)]
            r2 = d[0] ** 2 + d[1] ** 2 + d[2] ** 2
            inv3 = 1 / (r2 * sqrt(r2))
            for k in range(3):
                forces[i][k] += d[k] * inv3
                forces[j][k] -= d[k] * inv3
    return [f for force in forces for f in force]


def double_pendulum(t1, t2, w1, w2):
    """Right-hand side of the double pendulum (unit masses and lengths, g = 9.81)."""
    g = sympy.Float(9.81)
    delta = t1 - t2
    den = 3 - cos(2 * delta)
    a1 = (
        -3 * g * sin(t1) - g * sin(t1 - 2 * t2) - 2 * sin(delta) * (w2**2 + w1**2 * cos(delta))
    ) / den
    a2 = 2 * sin(delta) * (2 * w1**2 + 2 * g * cos(t1) + w2**2 * cos(delta)) / den
    return w1, w2, a1, a2


def planar_arm(q1, q2, q3, q4):
    """End-effector position and orientation of a planar four-link arm (lengths 1, 0.8, 0.6,
    0.4): the robotics Jacobian."""
    lengths = [1, sympy.Rational(4, 5), sympy.Rational(3, 5), sympy.Rational(2, 5)]
    angle, x, y = 0, 0, 0
    for q, length in zip((q1, q2, q3, q4), lengths, strict=True):
        angle = angle + q
        x = x + length * cos(angle)
        y = y + length * sin(angle)
    return x, y, angle


def euler_flux(rho, mx, my, energy):
    """Flux in x of the 2-D compressible Euler equations (gamma = 1.4), conserved variables."""
    gamma = sympy.Rational(7, 5)
    u, v = mx / rho, my / rho
    p = (gamma - 1) * (energy - rho * (u**2 + v**2) / 2)
    return mx, mx * u + p, my * u, u * (energy + p)


def quaternion_rotation(q0, q1, q2, q3, vx, vy, vz):
    """A vector rotated by a (not necessarily unit) quaternion, normalized: R(q/|q|) v."""
    n = q0**2 + q1**2 + q2**2 + q3**2
    r = [
        [1 - 2 * (q2**2 + q3**2) / n, 2 * (q1 * q2 - q0 * q3) / n, 2 * (q1 * q3 + q0 * q2) / n],
        [2 * (q1 * q2 + q0 * q3) / n, 1 - 2 * (q1**2 + q3**2) / n, 2 * (q2 * q3 - q0 * q1) / n],
        [2 * (q1 * q3 - q0 * q2) / n, 2 * (q2 * q3 + q0 * q1) / n, 1 - 2 * (q1**2 + q2**2) / n],
    ]
    return [r[i][0] * vx + r[i][1] * vy + r[i][2] * vz for i in range(3)]


def lennard_jones(x1, y1, x2, y2, x3, y3, x4, y4):
    """Lennard-Jones forces (epsilon = sigma = 1) in a 2-D cluster of four atoms; the
    Jacobian is the negative Hessian of the energy."""
    p = [(x1, y1), (x2, y2), (x3, y3), (x4, y4)]
    forces = [[0, 0] for _ in p]
    for i in range(4):
        for j in range(i + 1, 4):
            dx, dy = p[i][0] - p[j][0], p[i][1] - p[j][1]
            inv2 = 1 / (dx**2 + dy**2)
            inv6 = inv2**3
            scale = 24 * inv2 * inv6 * (2 * inv6 - 1)
            for k, d in enumerate((dx, dy)):
                forces[i][k] += scale * d
                forces[j][k] -= scale * d
    return [f for force in forces for f in force]


def arrhenius(temperature, c1, c2, c3):
    """Reaction rates of a three-species chain A -> B -> C, A + B -> C with Arrhenius
    constants k = A exp(-E / T): the kinetics Jacobian of combustion codes."""
    k1 = 2 * exp(-1000 / temperature)
    k2 = 5 * exp(-1500 / temperature)
    k3 = 3 * exp(-800 / temperature)
    r1, r2, r3 = k1 * c1, k2 * c2, k3 * c1 * c2
    return -r1 - r3, r1 - r2 - r3, r2 + r3


FUNCTIONS: dict[str, Callable[[], DGraph]] = {
    f.__name__.replace("_", "-"): (lambda f=f: from_function(f, name=f.__name__.replace("_", "-")))
    for f in (
        gravity,
        double_pendulum,
        planar_arm,
        euler_flux,
        quaternion_rotation,
        lennard_jones,
        arrhenius,
    )
}
