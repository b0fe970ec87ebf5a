"""Functions that index, iterate or measure an argument given no size: a vector read as a
scalar must be refused in one line naming how to give its size, never a scalar graph."""


def indexes(x):
    return x[0] * x[1]


def iterates(x):
    return sum(v * v for v in x)
