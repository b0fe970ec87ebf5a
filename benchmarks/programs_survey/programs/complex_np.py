import numpy as np

INPUTS = "a:3,b:3"


def f(a, b):
    z = a + 1j * b
    w = z * z + np.exp(1j * a)
    return np.real(w) + np.imag(w * np.conj(z))
