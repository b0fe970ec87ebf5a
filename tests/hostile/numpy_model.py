"""NumPy-style functions the command line cannot take, each for one reason."""

import numpy as np
from scipy import linalg, sparse
from scipy.interpolate import CubicSpline, interp1d
from scipy.sparse.linalg import spsolve
from scipy.stats import multivariate_normal


def branches(x):
    if x > 0:  # a branch on a value that depends on the input
        return x
    return -x


def converts(x):
    return float(np.array([x, x])) * 2.0  # float() of two traced values (NumPy refuses it too)


def unknown_ufunc(x):
    return np.spacing(x) + x


def unknown_special(x):
    import scipy.special

    return np.sum(scipy.special.wrightomega(x))


def argsorted_rows(x):
    return np.sum(x.reshape(2, 2)[np.argsort(x[:2]) + 0] ** 3)  # rows at moved positions: unread


def vector(x):
    return x[1:] * x[:-1]  # an array: its Hessian is a Lagrangian's, with weights


_BUFFER = np.zeros(4)  # made outside the function: NumPy's own array
NEAREST = interp1d(np.arange(4.0), np.arange(4.0) ** 2, kind="nearest")  # made outside
PERIODIC = CubicSpline(np.arange(5.0), [0.0, 1.0, 0.0, -1.0, 0.0], bc_type="periodic")


def assigns_into(u):
    r = _BUFFER  # a NumPy array: a traced value cannot be written into it
    r[1:-1] = u[:-2] - 2 * u[1:-1] + u[2:] + np.exp(u[1:-1])
    return r


def needs_nu(u, nu, dx=0.5):
    return u * nu / dx  # nu has no default: --inputs must name it


def keyword_only_no_default(u, *, nu):
    return u * nu  # nu has no default and cannot be given on the command line


def no_freedom(x):
    return np.std(x, ddof=5)  # over 5 entries: NumPy's nan; JAX's reading a constant nan


def negative_labels(w):
    return np.sum(np.bincount(np.array([0, -1, 2]), weights=w) ** 2)  # a label below 0


def reduceat_out_of_bounds(x):
    return np.sum(np.add.reduceat(x, [0, 2, 7]) ** 2)  # 7 is past the 4 entries


def log_sum_exp(x):
    return np.log(np.sum(np.exp(x)))  # every entry of its Hessian is nonzero: dense pattern


def rfft_spectrum(x):
    return np.fft.rfft(x)  # a complex output: the derivatives are of real outputs


def long_rfft(x):
    return np.sum(np.abs(np.fft.rfft(x, n=5000)) ** 2)  # past 4096: dense DFT matrices


def pseudo_inverse(x):
    return np.sum(np.linalg.pinv(np.reshape(x, (2, 2)), hermitian=True))  # by svd only


def stacked_dets(x):
    return np.sum(np.linalg.det(np.reshape(np.tile(x, 8), (2, 2, 8))))  # not square


def sparse_solve(x):
    big = sparse.eye(5000, format="csc")  # spsolve densifies: over 4096 it is refused
    return np.sum(spsolve(big, np.tile(x, 1250)))


def repeat_negative(x):
    return np.sum(np.repeat(x, [1, -1, 2, 1]) ** 3)  # np.repeat refuses a negative count


def residual_list(x):
    return [x[0] * x[1] ** 2, np.exp(x[2]) * x[3], x[0] * x[3]]  # three outputs, three weights


def sum_where_wrong_shape(x):
    return np.sum(x.reshape(2, 2), where=np.ones(4, dtype=bool))  # the mask is not x's shape


def masked_length(x):
    """len(x[x > 0]): a length that depends on the inputs."""
    return np.sum(x) * len(x[x > 0])


def masked_cumsum(x):
    """np.cumsum(x[x > 0]): the order and length of a selection that depends on the inputs."""
    return np.sum(np.cumsum(x[x > 0]))


def masked_vector_write(x):
    """y[y > 0] = an array: NumPy needs as many values as the mask selects."""
    y = x * 2.0
    y[y > 0] = np.ones(4)
    return np.sum(y)


def matrix_logarithm(x):
    return np.sum(linalg.logm(x.reshape(2, 2)))  # refused where a real eigenvalue is ≤ 0


def lu_factors_read(x):
    lu, _piv = linalg.lu_factor(x.reshape(2, 2))
    return np.sum(np.log(np.abs(np.diag(lu))))  # the factors are held for lu_solve only


def matrix_exponential_of_a_vector(x):
    return np.sum(linalg.expm(x))  # expm of a vector, not of square matrices


def legendre_of_a_fractional_degree(x):
    from scipy import special

    return np.sum(special.eval_legendre(2.5, x))  # a hypergeometric function, not read


def quantile_without_q(x):
    from scipy import stats

    return np.sum(stats.norm.ppf(loc=x))  # ppf needs its probabilities q


def wasserstein_of_traced(x):
    from scipy import stats

    return stats.wasserstein_distance(x, [0.0, 1.0, 2.0])  # not read: refused in one line


def entropy_omitting_nans(x):
    from scipy.stats import entropy

    return entropy(x, nan_policy="omit")  # only 'propagate' is read


def alpha_of_traced(x):
    from scipy import stats

    return stats.alpha.logpdf(x, 2.0)  # a family not read: named in one line


def nearest_table_of_traced(x):
    return NEAREST(x)  # a table made outside, of a kind not read: refused in one line


def periodic_integral_to_traced(x):
    return PERIODIC.integrate(0.0, x[0])  # its own refusal, not sympy's route's (.integrate)


def long_savgol(x):
    from scipy import signal

    return signal.savgol_filter(x, 5, 2)  # its matrix is dense: an axis of at most 2,048


def bessel_of_two_arrays(x, y):
    from scipy import special

    return np.sum(special.k0(x) * y)  # JAX has no k0: a Hessian from one vector only


def bessel_in_jax(x):
    from scipy import special

    return np.sum(special.j0(x) * x)  # JAX has no j0: no generated JAX code


def bessel_j_of_order_two(x):
    from scipy import special

    return np.sum(special.jv(2, x))  # J's upward recurrence loses digits: orders 0, ±1 only


def uneven_split(x):
    return np.sum(np.split(x, 2)[0])  # 3 entries do not split in 2 equal parts


def histogram_estimated(x):
    """np.histogram with an estimator's bins: refused (the bins' count would depend on
    the data)."""
    return np.histogram(x, bins="auto")[0]


def histogram_traced_edges(x):
    """np.histogram with edges from the inputs: refused (a count or constant edges)."""
    return np.histogram(x, bins=np.sort(x))[0]


def take_wrapped_at_computed_positions(x):
    """np.take(mode='wrap') at positions computed from the inputs: refused (constant ones)."""
    return np.take(x, np.argsort(x), mode="wrap")


def banded_too_long(x):
    """scipy.linalg.solve_banded of order 5,000: read as a dense solve, refused past 4,096."""
    import scipy.linalg

    return scipy.linalg.solve_banded((1, 1), np.vstack([0.1 * x, 4.0 + x, 0.1 * x]), x)


def counted_positions(x):
    """The count of np.nonzero's positions of a traced mask: they are read as an index only."""
    return np.sum(x) * len(np.nonzero(x > 0.5)[0])


def root_of_negative(x):  # sqrtm of -I - x x^T: real eigenvalues below 0, no real root
    return linalg.sqrtm(-np.eye(2) - np.outer(x[:2], x[:2]) - np.diag(x[2:] ** 2)).ravel()


def eigenvalues_of_rows(x):  # eigvals of a 2x3 matrix: not square
    return np.real(np.linalg.eigvals(x.reshape(2, 3)))


def root_of_jordan(x):  # sqrtm of [[x0, x1], [0, x0]]: defective where x1 != 0
    return linalg.sqrtm(np.array([[x[0], x[1]], [0.0, x[0]]])).ravel()


def root_and_error(x):  # disp=False: SciPy returns (root, error estimate)
    root, error = linalg.sqrtm(np.array([[x[0], x[1]], [0.0, 2.0]]), disp=False)
    return root.ravel() * error


_NORMALS = np.random.default_rng(3).standard_normal((2, 10, 8))
_NORMALS[0, 2, 0] = -4.0  # path 1's variance goes below 0


def heston_truncated(p):  # full truncation: sqrt(max(v, 0)*dt) at 0, its partial infinite
    v0, kappa, theta, xi = p[0], p[1], p[2], p[3]
    rho, dt, z = -0.7, 0.1, _NORMALS
    x, v = np.zeros(8), v0 * np.ones(8)
    for k in range(10):
        vp = np.maximum(v, 0.0)
        sq = np.sqrt(vp * dt)
        x = x - 0.5 * vp * dt + sq * z[1, k]
        v = v + kappa * (theta - vp) * dt + xi * sq * (rho * z[1, k] + 0.714 * z[0, k])
    return np.mean(np.exp(x))


def forcing_switch(t, y):
    """A forcing switched off at a time (scipy's test_ivp.py fun_medazko): a branch on
    the parameter t, whose value changes per call."""
    phi = 2.0 if t <= 5 else 0.0
    return y * phi + y**2


SINGULAR_COV = np.diag([1.0, 1.0, 0.0, 0.0])


def singular_normal(x):
    # autograd's tests/test_scipy.py test_mvn_sing_cov: a singular covariance
    return multivariate_normal.logpdf(x, np.zeros(4), SINGULAR_COV, allow_singular=True)


def divided_by_a_subnormal(x):
    return np.log1p(x**2) / 1e-320  # a constant partial 1e320, past the doubles
