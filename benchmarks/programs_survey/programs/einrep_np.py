import numpy as np

INPUTS = "M:4x4,a:4,T:3x3x3"


def f(M, a, T):
    tr = np.einsum("ii->", M)
    diag = np.einsum("ii->i", M)
    rowdot = np.einsum("ij,ij->i", M, M)
    tr3 = np.einsum("ij,jk,ki->", M, M, M)
    cube = np.einsum("i,i,i->", a, a, a)
    tt = np.einsum("iij->j", T)
    return np.concatenate([diag * tr, rowdot, np.array([tr3, cube]), tt**3])
