import numpy as np

INPUTS = "el:6,t:8"
PARAMS = "t"
MU = 398600.4418


def f(el, t):
    """Keplerian elements (a, e, i, Ω, ω, M0) to ECI positions at times t: Kepler's equation
    by 8 fixed Newton steps, then the perifocal-to-inertial rotation R3(−Ω) R1(−i) R3(−ω)."""
    a, e, inc, raan, argp, M0 = el[0], el[1], el[2], el[3], el[4], el[5]
    n = np.sqrt(MU / a**3)
    M = M0 + n * t
    E = M.copy()
    for _ in range(8):
        E = E - (E - e * np.sin(E) - M) / (1 - e * np.cos(E))
    nu = 2 * np.arctan(np.sqrt((1 + e) / (1 - e)) * np.tan(E / 2))
    r = a * (1 - e * np.cos(E))
    pf = np.stack([r * np.cos(nu), r * np.sin(nu), np.zeros_like(r)])
    cO, sO, ci, si, cw, sw = (
        np.cos(raan),
        np.sin(raan),
        np.cos(inc),
        np.sin(inc),
        np.cos(argp),
        np.sin(argp),
    )
    R = np.array(
        [
            [cO * cw - sO * sw * ci, -cO * sw - sO * cw * ci, sO * si],
            [sO * cw + cO * sw * ci, -sO * sw + cO * cw * ci, -cO * si],
            [sw * si, cw * si, ci],
        ]
    )
    return (R @ pf).T


def POINT(rng):
    el = np.array([7000.0, 0.05, 0.9, 0.5, 1.2, 0.3]) * (1 + 0.01 * rng.normal(size=6))
    return [el, np.linspace(0.0, 3000.0, 8)]
