import numpy as np

INPUTS = "income:6,rates:4"
EDGES = np.array([0.0, 10.0, 40.0, 90.0])


def f(income, rates):
    # a progressive schedule: the bracket by searchsorted, the tax below it by cumsum
    base = np.concatenate([np.zeros(1), np.cumsum(np.diff(EDGES) * rates[:-1])])
    k = np.searchsorted(EDGES, income, side="right") - 1
    tax = base[k] + rates[k] * (income - EDGES[k])
    return np.sum(tax**2) / 100.0


def POINT(rng):
    inc = np.array([5.0, 10.0, 25.0, 40.0, 70.0, 120.0])  # two on a bracket edge
    return [inc + 0.0 * rng.normal(size=6), np.array([0.1, 0.2, 0.3, 0.45])]
