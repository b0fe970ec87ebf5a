import numpy as np

INPUTS = "A1:2x3,A2:3x2x3,A3:3x2x3,A4:3x2"


def f(A1, A2, A3, A4):
    psi = np.einsum("ia,ajb,bkc,cl->ijkl", A1, A2, A3, A4)
    T = np.einsum("ajb,cjd->acbd", A2, A2)  # transfer matrix, the trace of its square
    return np.append(psi.ravel() / np.sqrt(np.sum(psi**2)), np.einsum("abab->", T))


def POINT(rng):
    return [rng.normal(size=(2, 3)), rng.normal(size=(3, 2, 3)), rng.normal(size=(3, 2, 3)),
            rng.normal(size=(3, 2))]  # fmt: skip
