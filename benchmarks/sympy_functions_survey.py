"""A mini-survey of sympy functions in graphs of scalars (session 36): each expression's
Hessian by ``make_function(from_sympy(...), "hessian")`` against central differences of
sympy's own ``lambdify`` (SciPy; step 1e-4, 1e-5 of the largest entry), and the C
Hessian against the NumPy one: ok / WRONG / the one line of a refusal. "ok?": no
reference (sympy cannot lambdify the function).

    python benchmarks/sympy_functions_survey.py
"""

import warnings

import numpy as np
import sympy as sp

import dgraph

warnings.filterwarnings("ignore")
x, y, z = sp.symbols("x y z", real=True)
K = sp.Symbol("k", integer=True)
P = {x: 0.7, y: -0.4, z: 1.3}
CASES = {
    "besselj": sp.besselj(0, x) * y + sp.besselj(1, z),
    "bessely": sp.bessely(0, z) + x * y,
    "besseli": sp.besseli(1, x) * z,
    "besselk": sp.besselk(0, z) * x,
    "airy": sp.airyai(x) + sp.airybi(y),
    "LambertW": sp.LambertW(z) * x,
    "Ei": sp.Ei(z) + sp.Si(x) + sp.Ci(z),
    "erf2": sp.erfc(x * y) + sp.erfi(x),
    "fresnel": sp.fresnels(x) + sp.fresnelc(y),
    "expint": sp.expint(2, z) * x,
    "lowergamma": sp.lowergamma(2, z) * x,
    "beta": sp.beta(z, 2) * x,
    "digamma": sp.digamma(z) + sp.trigamma(z) * x,
    "polylog": sp.polylog(2, x / 2),
    "Min nested": sp.Min(x, sp.Max(y, z * x), 1) * y,
    "Piecewise and/or": sp.Piecewise(
        (x**2, sp.And(x > 0, y < 0)), (y**2, sp.Or(z > 2, x < -1)), (x * y * z, True)
    ),
    "sinc": sp.sinc(x) * y,
    "sec csc cot": sp.sec(x) + sp.csc(z) + sp.cot(z) * y,
    "asec acot": sp.acot(z) + sp.asinh(y) * sp.acoth(z + 1),
    "re im conjugate": sp.re(x + sp.I * y) * sp.im(z + sp.I * x),
    "Pow negative base int": (y - 1) ** 3 * x**-2,
    "root": sp.root(z, 3) * sp.real_root(y, 3),
    "exp log nested": sp.log(1 + sp.exp(x * y)) * sp.exp(-(z**2)),
    "Rational powers": z ** sp.Rational(5, 3) * x ** sp.Rational(1, 2),
    "Sum finite": sp.Sum(x**K, (K, 1, 4)),
    "Product finite": sp.Product(x + K, (K, 1, 3)),
    "KroneckerDelta": sp.KroneckerDelta(1, 1) * x * y,
    "floor ceil frac": sp.floor(3 * z) * x + sp.ceiling(y) * x**2 + sp.frac(z) * y,
    "sign": sp.sign(x - y) * z**2,
    "atan2": sp.atan2(y, x) * z,
    "factorial": sp.factorial(z) * x,
    "binomial": sp.binomial(z, 2) * x,
    "gamma of sum": sp.gamma(x + z) * y,
    "loggamma": sp.loggamma(z) * x * y,
    "Matrix det": sp.Matrix([[x, y], [z, x * y]]).det(),
    "Matrix inv entry": sp.Matrix([[x + 2, y], [z, 3]]).inv()[0, 1],
    "cosh sinh tanh": sp.cosh(x) * sp.sinh(y) + sp.tanh(z) ** 2,
    "Abs of product": sp.Abs(x * y) * z,
    "Max tie": sp.Max(x, x) * y,
    "sqrt of square": sp.sqrt(x**2 + y**2 + z**2),
    "exp2 log2 log10": 2**x + sp.log(z, 2) + sp.log(z, 10) * y,
    "Float coeffs": sp.Float("1.5e-3") * x * y + sp.Float(2.25) * z,
    "hyper": sp.hyper([1, 2], [3], x / 2),
    "elliptic": sp.elliptic_k(x / 2) + sp.elliptic_e(y / 2),
    "legendre": sp.legendre(3, x) * y + sp.chebyshevt(4, z),
    "hermite": sp.hermite(3, x) * y,
    "assoc_laguerre": sp.assoc_laguerre(2, 1, z) * x,
    "Heaviside 2-arg": sp.Heaviside(x, 1) * y**2,
    "DiracDelta": sp.DiracDelta(x - 5) + y,
}


def differences(expr, symbols, point, h=1e-4):
    """Central differences of sympy's own lambdified ``expr`` (SciPy's functions)."""
    f = sp.lambdify(symbols, expr, modules=["scipy", "numpy"])
    v = np.array([point[s] for s in symbols])
    n = len(v)
    e = np.eye(n) * h
    H = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            ups = f(*(v + e[i] + e[j])) - f(*(v + e[i] - e[j]))
            downs = f(*(v - e[i] + e[j])) - f(*(v - e[i] - e[j]))
            H[i, j] = (ups - downs) / (4 * h * h)
    return H


def cell(expr) -> str:
    symbols = sorted(expr.free_symbols & {x, y, z}, key=lambda s: s.name)
    v = np.array([P[s] for s in symbols])
    try:
        g = dgraph.from_sympy({"f": expr}, inputs=symbols)
        h = np.asarray(dgraph.make_function(g, "hessian")(v)).reshape(len(v), len(v))
    except Exception as exc:
        return f"{type(exc).__name__}: {str(exc)[:160]}"
    try:
        r = differences(expr, symbols, P)
        err = np.abs(h - r).max() / max(1.0, np.abs(r).max())
        res = "ok" if err < 1e-5 else f"WRONG {err:.1e}"
    except Exception as exc:
        res = f"ok? (no reference: {type(exc).__name__})"
    try:
        hc = np.asarray(dgraph.make_function(g, "hessian", lang="c")(v)).reshape(h.shape)
        same = np.allclose(hc, h, rtol=1e-9, atol=1e-12)
        res += " c-ok" if same else f" c-WRONG {np.abs(hc - h).max():.1e}"
    except Exception as exc:
        res += f" c: {type(exc).__name__}: {str(exc)[:100]}"
    return res


def main() -> None:
    for name, expr in CASES.items():
        print(f"{name:24s} {cell(expr)}")


if __name__ == "__main__":
    main()
