"""A program as autograd's examples write it that the command line cannot take."""

import autograd.numpy as np
from autograd import grad


def grad_inside(x):
    # autograd differentiating inside the function: its boxes cannot hold a traced array
    return np.sum(grad(lambda y: np.sum(np.tanh(y) ** 2))(x) * x)
