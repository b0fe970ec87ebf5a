import numpy as np

INPUTS = "T:,P:,z:3,Tc:3,Pc:3,om:3"
PARAMS = "Tc,Pc,om"
R = 8.314


def f(T, P, z, Tc, Pc, om, kij=0.0, iters=25):
    # Peng & Robinson (1976): fugacity coefficients of a gas mixture
    kappa = 0.37464 + 1.54226 * om - 0.26992 * om**2
    alpha = (1 + kappa * (1 - np.sqrt(T / Tc))) ** 2
    a = 0.45724 * R**2 * Tc**2 / Pc * alpha
    b = 0.07780 * R * Tc / Pc
    aij = np.sqrt(np.outer(a, a)) * (1 - kij)
    am = z @ aij @ z
    bm = z @ b
    A = am * P / (R * T) ** 2
    Bv = bm * P / (R * T)
    Z = 1.0  # the vapour root by Newton from the ideal gas
    for _ in range(iters):
        g = Z**3 - (1 - Bv) * Z**2 + (A - 3 * Bv**2 - 2 * Bv) * Z - (A * Bv - Bv**2 - Bv**3)
        dg = 3 * Z**2 - 2 * (1 - Bv) * Z + (A - 3 * Bv**2 - 2 * Bv)
        Z = Z - g / dg
    s2 = np.sqrt(2.0)
    return (
        b / bm * (Z - 1)
        - np.log(Z - Bv)
        - A / (2 * s2 * Bv) * (2 * (aij @ z) / am - b / bm)
        * np.log((Z + (1 + s2) * Bv) / (Z + (1 - s2) * Bv))
    )  # fmt: skip


def POINT(rng):
    return [np.array(300.0), np.array(2.0e6), np.array([0.8, 0.15, 0.05]),
            np.array([190.6, 305.3, 369.8]), np.array([4.599e6, 4.872e6, 4.248e6]),
            np.array([0.012, 0.100, 0.152])]  # fmt: skip
