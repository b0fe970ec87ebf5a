from scipy.optimize import rosen

INPUTS = "x:8"


def f(x):
    # scipy's own Rosenbrock, as optimisation benchmarks call it
    return rosen(x) + 0.1 * rosen(x[::-1])
