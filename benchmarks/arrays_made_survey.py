"""A mini-survey of arrays the function makes or copies and then writes into (session 37):
literals (``np.array([[...]])``), ``np.asarray`` of a list, ``np.diag``, ``np.arange``,
``np.linspace``, ``np.tile``, ``np.copy``; a module's, closure's or instance's template
matrix copied (``A0.copy()``, ``astype``, ``copy.deepcopy``, arithmetic) and filled in;
augmented writes (``y[1:] += v``, ``A[0, :] *= v``) as an array's first traced write;
imports in the function's body (``import numpy``, ``import math``, ``from scipy.special
import logsumexp``); NumPy's functions imported by name; a callable instance and a
``functools.partial``; such arrays given beside a traced value to a function that takes a
constant there (``np.linalg.lstsq``'s matrix, ``gammaincc``'s shape, ``np.interp``'s
table, ...). Each Hessian (``dgraph.hessian``) against central differences of
the function, and the C Hessian against it (``loops_survey.cell``): ok / WRONG / the one
line of a refusal. One stays refused: ``t = y[1:]; t += v`` (a named view: NumPy would
change ``y`` too; it was silently wrong, read by JAX).

    python benchmarks/arrays_made_survey.py
"""

import copy
import functools
import warnings

import numpy as np
import scipy.linalg
import scipy.signal
import scipy.special
import scipy.stats
from loops_survey import cell
from numpy import array, diag, linspace

warnings.filterwarnings("ignore")
X = np.array([0.3, -0.7, 1.1])
A0 = np.array([[2.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 4.0]])


def literal(x):
    M = np.array([[2.0, 1.0], [1.0, 3.0]])
    M[0, 0] = x[0] ** 2
    return M @ x[:2] @ x[:2] + x[2]


def asarray_list(x):
    c = np.asarray([0.5, 1.5, 2.5])
    c[2] += x[1]
    return np.sum(c * x**2)


def diag_arange(x):
    D = np.diag([1.0, 2.0, 3.0])
    D[0, 1] = x[2]
    k = np.arange(3.0)
    k[0] = x[0] * x[1]
    return x @ D @ x + k @ x


def linspace_tile(x):
    s = np.linspace(0.0, 1.0, 3)
    s[1] *= x[2]
    t = np.tile([1.0, 2.0], 2)
    t[3] = np.exp(x[0])
    return s @ x + t[1:] @ x


def names_imported(x):
    M = array([[2.0, 1.0], [1.0, 3.0]])
    M[0, 0] = x[0] ** 2
    D = diag([1.0, 2.0, 3.0])
    D[0, 1] = x[2]
    s = linspace(0.0, 1.0, 3)
    s[0] = np.exp(x[1])
    return M @ x[:2] @ x[:2] + x @ D @ x + s @ x


def template_copy(x):
    A = A0.copy()
    A[0, 0] = x[0] ** 2
    return x @ A @ x


def template_astype_deepcopy(x):
    A = A0.astype(float)
    A[1, 1] = x[1] ** 3
    B = copy.deepcopy(A0) * 2.0
    B[2, 0] = np.sin(x[2])
    return x @ A @ x + x @ B @ x


def template_row_added(x):
    A = A0.copy()
    A[0] += x
    return x @ A @ x


def first_write_augmented(x):
    y = np.zeros(4)
    y[1:] += x**2
    A = np.ones((3, 3))
    A[0, :] *= x
    A[:, 1] -= x**2
    return y @ y + np.sum(A * A)


def closure_template(K0=A0):
    def energy(x):
        K = K0.copy()
        K[1, 1] = x[1] ** 3
        return x @ K @ x

    return energy


def numpy_in_body(x):
    import numpy

    M = numpy.zeros((3, 3))
    M[0, 0] = x[0] ** 2
    return numpy.sum(M) + x[1] * x[2]


def math_in_body(x):
    import math

    return math.exp(x[0]) * x[1] + math.sin(x[2])


def logsumexp_in_body(x):
    from scipy.special import logsumexp

    return logsumexp(x) * x[0]


class Model:
    def __init__(self):
        self.K = A0.copy()
        self.w = np.array([0.5, 1.5, 2.5])

    def energy(self, x):
        K = self.K.copy()
        K[0, 0] = x[0] ** 2
        b = self.w * 2.0
        b[0] = np.exp(x[1])
        return x @ K @ x + b @ x

    def __call__(self, x):
        import math

        A = np.zeros((3, 3))
        A[1, 1] = math.exp(x[1])
        return x @ (self.K + A) @ x


def _partial_body(x, c):
    import math

    A = np.zeros((3, 3))
    A[0, 1] = x[0] * c
    return x @ A @ x + math.exp(x[1]) * c


def _partial_array(x, K0):
    K = K0.copy()
    K[0, 0] = x[0] ** 2
    return x @ K @ x


def named_view(x):
    y = np.zeros(4)
    t = y[1:]
    t += x**2
    return y @ y


MODEL = Model()
PROGRAMS = [
    literal, asarray_list, diag_arange, linspace_tile, names_imported, template_copy,
    template_astype_deepcopy, template_row_added, first_write_augmented, closure_template(),
    numpy_in_body, math_in_body, logsumexp_in_body, MODEL.energy, MODEL,
    functools.partial(_partial_body, c=2.0), functools.partial(_partial_array, K0=A0),
    named_view,
]  # fmt: skip


def _K():
    return np.array([[2.0, 0.5, 0.1], [0.5, 3.0, 0.2], [0.1, 0.2, 4.0]])


def _v():
    return np.array([0.2, 0.5, 0.9])


#: arrays of constants made in the function (fresh: writable) given beside a traced value
#: to a function that takes a constant there (each read as a constant)
CONSTANT_ARGUMENTS = {
    "interp": lambda x: np.sum(np.interp(x, _v(), _v() ** 2) * x),
    "convolve": lambda x: np.sum(np.convolve(x, _v(), mode="same") ** 2),
    "polyval": lambda x: np.sum(np.polyval(_v(), x) * x),
    "einsum": lambda x: np.einsum("ij,i,j->", _K(), x, x),
    "kron": lambda x: np.sum(np.kron(_v(), x) ** 2),
    "solve": lambda x: x @ np.linalg.solve(_K(), x),
    "cho_solve": lambda x: x @ scipy.linalg.cho_solve(scipy.linalg.cho_factor(_K()), x),
    "lstsq": lambda x: np.sum(np.linalg.lstsq(_K(), x, rcond=None)[0] ** 2),
    "where_clip": lambda x: np.sum(np.where(_v() > 0.4, x**2, np.clip(x, _v() - 0.5, 1.0))),
    "concatenate": lambda x: np.sum(np.concatenate([_v(), x**2]) ** 2),
    "norm_logpdf": lambda x: np.sum(scipy.stats.norm.logpdf(x, loc=_v(), scale=_v() + 1)),
    "gammaincc_shape": lambda x: np.sum(scipy.special.gammaincc(_v() + 1.0, x**2)),
    "xlogy": lambda x: np.sum(scipy.special.xlogy(_v(), x**2 + 1.0)),
    "trapezoid": lambda x: np.trapezoid(x**2, _v()),
    "fftconvolve": lambda x: np.sum(scipy.signal.fftconvolve(x, _v(), mode="same") ** 2),
    "logsumexp_b": lambda x: scipy.special.logsumexp(x, b=_v()),
    "average": lambda x: np.average(x**2, weights=_v()),
}


def main() -> None:
    for name, f in CONSTANT_ARGUMENTS.items():
        f.__name__ = name
        PROGRAMS.append(f)
    for f in PROGRAMS:
        if not hasattr(f, "__name__"):  # loops_survey.cell reads it
            f.__name__ = f"partial({f.func.__name__})" if hasattr(f, "func") else "Model()"
        print(f"{f.__name__:26s} {cell(f, X)}")


if __name__ == "__main__":
    main()
