"""A NumPy function traced at the array level (--inputs u:NxM) for the bad shapes."""

import numpy as np


def residual(u):
    return np.exp(u[1:, :]) - u[:-1, :]


def solves(u):
    return np.linalg.lstsq(u, np.ones(u.shape[0]))[1]  # residuals: the rank would be traced


def percentile_of_u(u):
    return np.percentile(u, 25.0, method="weibull")  # of NumPy's nine methods, five are read


def convolve_middle(u):
    return np.convolve(np.ravel(u), [1.0, -1.0], mode="middle")  # no such mode


def piecewise_reduced(u):
    return np.sum(np.piecewise(u, [u < 0.0], [lambda s: np.sum(s), 0.0]))  # not elementwise


def piecewise_count(u):
    return np.sum(np.piecewise(u, [u < 0.0], [np.sin, np.cos, np.exp]))  # one function too many


def take_along_unbounded(u):
    return np.sum(np.take_along_axis(u, np.floor(u * 3).astype(int), axis=1))  # any whole number
