"""A NumPy function traced at the array level (--inputs u:NxM) for the bad shapes."""

import numpy as np


def residual(u):
    return np.exp(u[1:, :]) - u[:-1, :]


def solves(u):
    return np.linalg.lstsq(u, np.ones(u.shape[0]))[0]  # least squares: not traced
