"""A model whose function takes *args: how many inputs it has is not written anywhere."""

import numpy as np


def total(*xs):
    return sum(np.sin(x) for x in xs)
