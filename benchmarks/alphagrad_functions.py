"""AlphaGrad's scalar benchmark functions (Lohoff & Neftci, "Optimizing automatic
differentiation with deep reinforcement learning", NeurIPS 2024), written in JAX from the
formulas its library Graphax publishes, with the same operations in the same order, so
that their jaxpr graphs are the ones AlphaGrad's counts are for.

Each entry of ``FUNCTIONS`` is ``(function, example arguments)``; ``PUBLISHED`` holds the
structural multiplications AlphaGrad reports for each: the best of forward, reverse and
Markowitz, and its learned order's; ``THREE`` forward, reverse and Markowitz where Graphax
states them. benchmarks/best_alphagrad.py compares them with dgraph's counts and ``best``.
AlphaGrad's graph has a vertex for every equation of the jaxpr, also one that changes
nothing (``x * 1``) or whose value is constant (``1 ** x``): read these functions with
``dgraph.from_jax(f, *args, every_equation=True)``.

``BlackScholes_Jacobian`` is the jaxpr of Graphax's own Jacobian of the Black-Scholes
price, ``jacve(BlackScholes, order="rev")``: its graph is the price's equations, the
elemental partials Graphax computes for each (its derivative rules, ``_PARTIALS`` below)
and the products and sums of eliminating the price's vertices in reverse order.
``reverse_vertex_elimination`` does that in JAX; its jaxpr's Markowitz count is AlphaGrad's
350. (JAX's own ``jax.grad`` of the price, ``black_scholes_gradient``, is a different graph:
best of three 337.)
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import jax.scipy.special as jsp
import numpy as np

# AlphaGrad's structural counts: (best of forward/reverse/Markowitz, its learned order)
PUBLISHED = {
    "RoeFlux_1d": (364, 320),
    "RobotArm_6DOF": (288, 231),
    "HumanHeartDipole": (172, 148),
    "PropaneCombustion": (90, 88),
    "BlackScholes_Jacobian": (350, 312),
    "g": (451, 417),
}
# forward, reverse and Markowitz as Graphax states them (a comment above its g)
THREE = {"g": (632, 566, 451)}

GAMMA = 0.5  # the ratio of specific heats as Graphax's Roe flux sets it


def _pressure(rho, momentum, energy):
    return (GAMMA - 1.0) * (energy - 0.5 * momentum**2 / rho)


def _enthalpy(rho, energy, pressure):
    return (energy + pressure) / rho


def _euler_flux(rho, momentum, energy, pressure):
    velocity = momentum / rho
    return momentum, pressure + momentum * velocity, velocity * (pressure + energy)


def roe_flux_1d(rl, ml, el, rr, mr, er):
    """Roe's approximate Riemann flux (Roe 1981) between a left and a right conserved
    state (density, momentum, energy), 1-D."""
    d_rho = rr - rl
    rho_lr = jnp.sqrt(rl * rr)
    weight = jnp.sqrt(rl) + jnp.sqrt(rr)
    vel_l = ml / rl
    p_l = _pressure(rl, ml, el)
    h_l = _enthalpy(rl, el, p_l)
    vel_r = mr / rr
    p_r = _pressure(rr, mr, er)
    h_r = _enthalpy(rr, er, p_r)
    d_p = p_r - p_l
    d_vel = vel_r - vel_l
    u = (jnp.sqrt(rl) * vel_l + jnp.sqrt(rr) * vel_r) / weight
    h = (jnp.sqrt(rl) * h_l + jnp.sqrt(rr) * h_r) / weight
    u2 = u**2
    a2 = (GAMMA - 1.0) * (h - 0.5 * u2)
    a = jnp.sqrt(a2)
    lam_plus = jnp.abs(u + a)
    lam = jnp.abs(u)
    lam_minus = jnp.abs(u)
    scale = a * rho_lr
    k0 = (d_rho - d_p / a2) * lam
    k1 = (d_vel + d_p / scale) * lam_plus
    k2 = (d_vel - d_p / scale) * lam_minus
    left = _euler_flux(rl, ml, el, p_l)
    right = _euler_flux(rr, mr, er, p_r)
    total = [fl + fr for fl, fr in zip(left, right, strict=True)]
    c = 0.5 * rho_lr / a
    diss = (
        k0 + c * k1 - c * k2,
        k0 * u + c * k1 * (u + a) - c * k2 * (u - a),
        k0 * 0.5 * u2 + c * k1 * (h + u * a) - c * k2 * (h - u * a),
    )
    return tuple(0.5 * (f - d) for f, d in zip(total, diss, strict=True))


def _sin_sum(a, b):
    return jnp.cos(a) * jnp.sin(b) + jnp.sin(a) * jnp.cos(b)


def _cos_sum(a, b):
    return jnp.cos(a) * jnp.cos(b) - jnp.sin(a) * jnp.sin(b)


def robot_arm_6dof(t1, t2, t3, t4, t5, t6):
    """Forward kinematics of a 6-DOF arm: tool position and Tait-Bryan angles (the
    Denavit-Hartenberg chain Graphax takes from Sahin et al.)."""
    a1, a2, a3 = 175.0, 890.0, 50.0
    d1, d4, d6 = 575.0, 1035.0, 185.0
    c1, c2, c4, c5, c6 = (jnp.cos(t) for t in (t1, t2, t4, t5, t6))
    c23 = _cos_sum(t2, t3)
    s1, s2, s4, s5, s6 = (jnp.sin(t) for t in (t1, t2, t4, t5, t6))
    s23 = _sin_sum(t2, t3)
    ax = s5 * (c1 * c23 * c4 + s1 * s4) + c1 * s23 * c5
    ay = s5 * (s1 * c23 * c4 - c1 * s4) + s1 * s23 * c5
    az = s23 * c4 * s5 - c23 * c5
    nz = c6 * (c23 * s5 + s23 * c4 * c5) - s23 * s4 * s6
    oz = -s6 * (c23 * s5 + s23 * c4 * c5) - s23 * s4 * c6
    yaw = jnp.arctan2(ay, ax)
    pitch = jnp.arctan2(jnp.sqrt(1.0 - az**2), az)
    roll = jnp.arctan2(oz, -nz)
    px = d6 * (s5 * (c1 * c23 * c4 + s1 * s4) + c1 * s23 * c5) + c1 * (
        a1 + a2 * c2 + a3 * c23 + d4 * s23
    )
    py = d6 * (s5 * (s1 * c23 * c4 + c1 * s4) + s1 * s23 * c5) + s1 * (
        a1 + a2 * c2 + a3 * c23 + d4 * s23
    )
    pz = a2 * s2 + d1 + a3 * s23 - d4 * c23 + d6 * (s23 * c4 * s5 - c23 * c5)
    return px, py, pz, yaw, pitch, roll


def human_heart_dipole(x1, x2, x3, x4, x5, x6, x7, x8):
    """MINPACK-2's human heart dipole residuals, every measured value 1 (as Graphax)."""
    s = 1.0
    f1 = x1 + x2 - s
    f2 = x3 + x4 - s
    f3 = x5 * x1 + x6 * x2 - x7 * x3 - x8 * x4 - s
    f4 = x7 * x1 + x8 * x2 + x5 * x3 + x6 * x4 - s
    q57 = x5**2 - x7**2
    q68 = x6**2 - x8**2
    f5 = x1 * q57 - 2 * x3 * x5 * x7 + x2 * q68 - 2 * x4 * x6 * x8 - s
    f6 = x3 * q57 - 2 * x1 * x5 * x7 + x4 * q68 - 2 * x2 * x6 * x8 - s
    c5 = x5 * (x5**2 - 3 * x7**2)
    c7 = x7 * (x7**2 - 3 * x5**2)
    c6 = x6 * (x6**2 - 3 * x8**2)
    c8 = x8 * (x8**2 - 3 * x6**2)
    f7 = x1 * c5 + x3 * c7 + x2 * c6 + x4 * c8 - s
    f8 = x3 * c5 - x1 * c7 + x4 * c6 - x2 * c8 - s
    return f1, f2, f3, f4, f5, f6, f7, f8


def propane_combustion(x1, x2, x3, x4, x5, x6, x7, x8, x9, x10, x11):
    """The propane combustion equilibrium (Meintjes & Morgan's full formulation, MINPACK-2
    style), pressure 40 and R 10 as Graphax writes it."""
    p, r = 40.0, 10.0
    root = jnp.sqrt(p / x11)
    return (
        x1 + x4 - 3.0,
        2 * x1 + x2 + x4 + x7 + x8 + x9 + 2 * x10 - r,
        2 * x2 + 2 * x5 + x6 + x7 - 8.0,
        2 * x3 + x9 - 4 * r,
        x2 * x4 - x1 * x5,
        jnp.sqrt(x2 * x4) - jnp.sqrt(x1) * root * x6,
        jnp.sqrt(x1 * x2) - jnp.sqrt(x4) * x7 * root,
        x1 - x4 * x8 * p / x11,
        x1 * jnp.sqrt(x3) - x4 * x9 * root,
        x1**2 - x4**2 * x10 * p / x11,
        x11 - x1 - x2 - x3 - x4 - x5 - x6 - x7 - x8 - x9 - x10,
    )


def _phi(z):
    return (1.0 + jsp.erf(z / jnp.sqrt(2.0))) / 2


def _black76(forward, strike, rate, vol, time):
    d1 = (jnp.log(forward / strike) + (vol**2) / 2.0 * time) / (vol * jnp.sqrt(time))
    d2 = d1 - vol * jnp.sqrt(time)
    return jnp.exp(-rate * time) * (forward * _phi(d1) - strike * _phi(d2))


def black_scholes_price(spot, strike, rate, vol, time):
    """Black-Scholes through Black-76 on the forward price."""
    return _black76(jnp.exp(rate * time) * spot, strike, rate, vol, time)


def black_scholes_gradient(spot, strike, rate, vol, time):
    """The five first-order greeks by JAX's reverse mode (``add_any`` sums cotangents)."""
    return jax.grad(black_scholes_price, argnums=(0, 1, 2, 3, 4))(spot, strike, rate, vol, time)


# Graphax's elemental partials (its jacve's derivative rules), as functions of the
# equation's value and operands: the operations they trace are vertices of the Jacobian's
# jaxpr. A partial with respect to a literal is computed and left unused, as Graphax does.
_PARTIALS = {
    "neg": lambda out, x: (-jnp.ones_like(x),),
    "exp": lambda out, x: (out,),
    "log": lambda out, x: (1.0 / x,),
    "sqrt": lambda out, x: (0.5 / out,),
    "integer_pow": lambda out, x, y: (y * x ** (y - 1),),
    "erf": lambda out, x: (2.0 * jnp.exp(-(x**2)) / jnp.sqrt(jnp.pi),),
    "add": lambda out, x, y: (jnp.ones_like(y), jnp.ones_like(x)),
    "sub": lambda out, x, y: (jnp.ones_like(y), -jnp.ones_like(x)),
    "mul": lambda out, x, y: (y, x),
    "div": lambda out, x, y: (1.0 / y, -x / y**2),
}


def reverse_vertex_elimination(f, argnums):
    """The gradient of a scalar function ``f`` of scalars by vertex elimination over its
    jaxpr in reverse equation order, as Graphax's ``jacve(f, order="rev")`` computes it:
    one edge per operand labelled with its elemental partial (``_PARTIALS``), then each
    equation's vertex eliminated last to first, every (in-edge, out-edge) pair multiplied
    (out-edge times in-edge) and added to an edge already there."""
    from jax.extend.core import Literal

    def gradient(*args):
        jaxpr = jax.make_jaxpr(f)(*args).jaxpr
        value = dict(zip(jaxpr.invars, args, strict=True))
        same: dict = {}  # dtype conversions: the variable they convert

        def var(a):
            return a if isinstance(a, Literal) else same.get(a, a)

        def read(a):
            return a.val if isinstance(a, Literal) else value[var(a)]

        into: dict = {v: {} for v in jaxpr.invars}  # into[w][u]: the edge u -> w
        out_of: dict = {v: {} for v in jaxpr.invars}
        order = []
        for eqn in jaxpr.eqns:
            (result,) = eqn.outvars
            if eqn.primitive.name == "convert_element_type":
                same[result] = var(eqn.invars[0])
                continue
            operands = [read(a) for a in eqn.invars]
            value[result] = eqn.primitive.bind(*operands, **eqn.params)
            extra = [eqn.params["y"]] if eqn.primitive.name == "integer_pow" else []
            partials = _PARTIALS[eqn.primitive.name](value[result], *operands, *extra)
            into[result], out_of[result] = {}, {}
            order.append(result)
            for a, partial in zip(eqn.invars, partials, strict=True):
                if not isinstance(a, Literal):
                    into[result][var(a)] = out_of[var(a)][result] = partial
        results = {var(o) for o in jaxpr.outvars}
        for v in reversed(order):
            if v in results:
                continue
            for w, post in out_of[v].items():
                for u, pre in into[v].items():
                    edge = post * pre
                    if u in into[w]:
                        edge = edge + into[w][u]
                    into[w][u] = out_of[u][w] = edge
            for u in into.pop(v):
                del out_of[u][v]
            for w in out_of.pop(v):
                del into[w][v]
        (y,) = [var(o) for o in jaxpr.outvars]
        return tuple(into[y].get(jaxpr.invars[i], jnp.zeros(())) for i in argnums)

    return gradient


black_scholes_jacobian = reverse_vertex_elimination(black_scholes_price, (0, 1, 2, 3, 4))
black_scholes_jacobian.__name__ = "black_scholes_jacobian"
black_scholes_jacobian.__doc__ = """The five first-order greeks by Graphax's reverse vertex
elimination: AlphaGrad's BlackScholes_Jacobian, whose Jacobian is the second-order ones."""


# the random function g of Graphax (fwd 632, rev 566, Markowitz 451, with every equation a
# vertex: its constants 15 and 16 are ones, and 1 ** x and x * 1 simplify away otherwise):
# each statement (result, operation, arguments); arguments are earlier values' numbers, the
# inputs 0-14
_G_OPS = {
    "atan2": jnp.arctan2,
    "pow": jnp.power,
    "sub": jnp.subtract,
    "atan": jnp.arctan,
    "mul": jnp.multiply,
    "add": jnp.add,
    "exp": jnp.exp,
    "sin": jnp.sin,
    "div": jnp.divide,
    "tan": jnp.tan,
    "cos": jnp.cos,
    "atanh": jnp.arctanh,
    "sinh": jnp.sinh,
    "log": jnp.log,
    "sq": jnp.square,
    "asinh": jnp.arcsinh,
    "asin": jnp.arcsin,
    "neg": jnp.negative,
}
_G = """17 atan2 15 3; 18 pow 15 14; 19 atan2 13 17; 20 pow 17 5; 21 sub 9 8; 22 atan 10;
23 mul 21 0; 24 sub 22 18; 25 pow 24 11; 26 add 21 12; 27 exp 2; 28 add 21 26;
29 pow 16 17; 30 sin 3; 31 div 2 23; 32 atan2 24 26; 33 sub 29 25; 34 atan 33;
35 mul 7 27; 36 tan 13; 37 add 27 19; 38 div 7 6; 39 sub 25 34; 40 sub 29 6;
41 pow 35 4; 42 cos 0; 43 sub 40 19; 44 div 41 7; 45 sub 40 8; 46 atan2 16 43;
47 div 8 30; 48 pow 37 36; 49 pow 47 44; 50 atan2 45 40; 51 atan2 44 13; 52 div 4 34;
53 atan2 41 1; 54 atan2 25 53; 55 add 12 51; 56 pow 3 48; 57 sub 24 32; 58 atanh 48;
59 atanh 54; 60 atan2 2 26; 61 sub 52 18; 62 cos 38; 63 div 8 32; 64 atan2 42 46;
65 sinh 36; 66 sub 61 50; 67 pow 13 39; 68 pow 37 26; 69 sub 68 43; 70 log 65;
71 pow 23 58; 72 atan2 50 69; 73 div 20 72; 74 mul 41 56; 75 mul 39 33; 76 mul 61 15;
77 pow 66 64; 78 atan2 53 25; 79 sub 59 60; 80 atan2 73 41; 81 mul 74 46; 82 sq 5;
83 atan2 28 62; 84 atan2 39 9; 85 mul 4 12; 86 div 57 56; 87 atan2 61 63; 88 asinh 14;
89 pow 86 83; 90 asin 66; 91 sub 70 79; 92 atan2 37 65; 93 mul 67 77; 94 pow 87 55;
95 sq 49; 96 div 92 94; 97 add 15 95; 98 div 91 76; 99 atanh 46; 100 mul 75 45;
101 div 100 28; 102 add 90 29; 103 atan2 80 84; 104 sub 20 91; 105 add 82 90;
106 div 102 103; 107 pow 75 42; 108 mul 68 62; 109 div 102 1; 110 pow 98 101;
111 neg 100; 112 div 31 89; 113 div 105 108; 114 sub 22 70; 115 mul 106 44;
116 sub 107 81; 117 pow 58 115; 118 sub 78 108; 119 tan 87; 120 pow 87 48; 121 add 105 38"""
_G_OUTPUTS = (121, 71, 85, 88, 93, 96, 97, 99, 104, 109, 110, 111, 112, 113, 114, 116, 117)
_G_OUTPUTS += (118, 119, 120)


def g(*inputs):
    """Graphax's random function g: 15 inputs, 105 statements, 20 outputs (15 and 16
    are the constant ones it starts with)."""
    values = dict(enumerate(inputs))
    values[15] = values[16] = jnp.ones(())
    for statement in _G.replace("\n", " ").split(";"):
        result, op, *args = statement.split()
        values[int(result)] = _G_OPS[op](*(values[int(a)] for a in args))
    return tuple(values[k] for k in _G_OUTPUTS)


def _point(n: int, low: float = 0.2, high: float = 0.8) -> tuple[np.float64, ...]:
    return tuple(np.float64(v) for v in np.linspace(low, high, n))


FUNCTIONS = {
    "RoeFlux_1d": (roe_flux_1d, (1.0, 2.0, 1.0, 1.1, 2.1, 1.0)),  # gamma 1/2: a² > 0 here
    "RobotArm_6DOF": (robot_arm_6dof, _point(6)),
    "HumanHeartDipole": (human_heart_dipole, _point(8)),
    "PropaneCombustion": (propane_combustion, _point(11, 0.5, 1.5)),
    "BlackScholes_Jacobian": (black_scholes_jacobian, (1.0, 0.9, 0.05, 0.3, 1.5)),
    "g": (g, _point(15, 0.1, 0.3)),
}
