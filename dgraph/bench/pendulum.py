"""n-link pendulums from :mod:`sympy.physics.mechanics`: the equations of motion as a
simulation user derives them (Kane's method, ``kane.rhs()``), to benchmark Jacobian code
for implicit integrators. Each link is a massless rod of length ``l<i>`` with a particle of
mass ``m<i>`` at its end, in a plane under gravity ``g``.

References
----------
Kane, T. R. and Levinson, D. A., *Dynamics: Theory and Applications*, McGraw-Hill, 1985.
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy
from sympy.physics import mechanics as me

__all__ = ["Pendulum", "n_link_pendulum"]


@dataclass(frozen=True)
class Pendulum:
    """Equations of motion x' = f(x, p): ``rhs`` (the 2n right-hand sides, functions of time
    in ``q`` and ``u``), the states ``q + u`` (dynamicsymbols) and the parameters."""

    rhs: list[sympy.Expr]
    states: list[sympy.Expr]
    params: list[sympy.Symbol]
    kane: me.KanesMethod


def n_link_pendulum(n: int) -> Pendulum:
    """The planar n-link pendulum: angles ``q<i>`` from the vertical, speeds ``u<i>``,
    ``kane.rhs()`` solved for (q', u').

    >>> p = n_link_pendulum(1)
    >>> [str(s) for s in p.states], [str(s) for s in p.params]
    (['q0(t)', 'u0(t)'], ['m0', 'l0', 'g'])
    """
    if n < 1:
        raise ValueError("a pendulum has at least one link")
    q = me.dynamicsymbols(f"q:{n}")
    u = me.dynamicsymbols(f"u:{n}")
    m = sympy.symbols(f"m:{n}", positive=True)
    length = sympy.symbols(f"l:{n}", positive=True)
    g = sympy.Symbol("g", positive=True)
    ground = me.ReferenceFrame("N")
    pivot = me.Point("O")
    pivot.set_vel(ground, 0)
    particles, loads, kinematics = [], [], []
    previous = pivot
    for i in range(n):
        frame = ground.orientnew(f"A{i}", "Axis", (q[i], ground.z))
        frame.set_ang_vel(ground, u[i] * ground.z)
        point = previous.locatenew(f"P{i}", length[i] * frame.x)
        point.v2pt_theory(previous, ground, frame)
        particles.append(me.Particle(f"Pa{i}", point, m[i]))
        loads.append((point, m[i] * g * ground.x))
        kinematics.append(q[i].diff() - u[i])
        previous = point
    kane = me.KanesMethod(ground, q_ind=list(q), u_ind=list(u), kd_eqs=kinematics)
    kane.kanes_equations(particles, loads)
    rhs = list(kane.rhs())
    params = [s for pair in zip(m, length, strict=True) for s in pair] + [g]
    return Pendulum(rhs, [*q, *u], params, kane)
