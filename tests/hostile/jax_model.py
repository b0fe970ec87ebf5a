"""JAX functions the command line cannot take, each for one reason."""

import jax
import jax.numpy as jnp


def running_total(x):
    return jnp.cumsum(x)  # 500 inputs: n(n+1)/2 scalar edges, over the element level's limit


def picks_by_value(x):
    return x[jnp.argmax(x)]  # a take at a position known only at run time (supported)


def writes_by_value(x):
    return x.at[jnp.argmax(x)].apply(jnp.sin)  # applied at a run-time index: JAX has no JVP


def loops(x):
    return jax.lax.fori_loop(0, 3, lambda i, a: a * x, x)  # a loop primitive


def sorts_by_two_keys(x):
    return jax.lax.sort((x, 2 * x), num_keys=2)[0]  # sort: of the array level only


def sorted_copy(x):
    return jnp.sort(x) * 2.0  # its Jacobian is a run-time permutation


def polygamma_of_order_x(x):
    return jax.lax.polygamma(x, x + 1)  # no derivative in the order (as in JAX)


def spring(q, k):
    return k * jnp.sum((q[1:] - q[:-1]) ** 2)


def decay(c):
    return jax.lax.scan(lambda c, _: (c * 0.9 + jnp.sin(c), None), c, None, length=4)[0]


def halve(c):
    return jax.lax.while_loop(lambda c: jnp.sum(c) > 1.0, lambda c: c * 0.5, c)


def sign_branch(c):
    return jax.lax.cond(c[0] > 0.0, jnp.sin, jnp.cos, c)


def argmax_in_loop(c):  # its Hessian reads the argmax positions its gradient stacks (no C clip)
    return jax.lax.fori_loop(0, 3, lambda i, y: y * jnp.sin(y[jnp.argmax(y)]), c).sum()


def while_write_at_counter(c):
    def body(s):
        i, y = s
        return i + 1, y.at[i].set(y[i] * c[0])  # a write: only reads are selected

    return jax.lax.while_loop(lambda s: s[0] < 3, body, (0, c))[1]


def taken_at_its_floor(x):
    return x[jnp.floor(x).astype(jnp.int32)] * 2.0  # a take at positions known at run time


def added_at_its_floor(x):
    return x.at[jnp.floor(x).astype(jnp.int32)].add(x * 2.0)  # a scatter-add at run time


def times_its_largest(x):
    return x * x[jnp.argmax(x)]  # a take at a position known only at run time (C prints it)


def mantissa_scaled(x):
    return jnp.frexp(x)[0] * x  # frexp (two results, one of them int32): not in the C values


def complex_tangent(x):
    return jnp.sum(jnp.abs(jnp.tan(x + 1j)) ** 2)  # tan of complex numbers: no pair rule


def complex_output(x):
    return jnp.fft.rfft(x)  # complex outputs: the derivatives are of real ones


def long_spectrum(x):
    return jnp.sum(jnp.abs(jnp.fft.rfft(x)) ** 2)  # at 5000 entries: over FFT_MOST (4096)


def branches_on_value(x):
    if x[0] > 0:  # a Python branch on a traced value: JAX cannot trace it
        return jnp.sum(x**2)
    return jnp.sum(x**3)


def rows_at_counter(x):  # 1,500 steps, each writing a row of x.size entries it carries
    body = lambda i, y: y.at[i].set(x * i + 0.5 * y[i - 1])  # noqa: E731 (reads the carry: a loop)
    return jnp.sum(jax.lax.fori_loop(0, 1500, body, jnp.zeros((1500, x.shape[0]))) ** 2)


def wide_carry(x):  # a loop carrying 40,000 entries of a 40,000-entry input: 1.6e9 dense
    return jax.lax.fori_loop(0, 3, lambda i, y: jnp.sin(y) * 0.5 + y, x)


def spectrum_of_rank_one(x):  # its Hessian's code holds n × n² arrays: past 4·10⁸ at 512
    n = x.shape[0]
    a = jnp.diag(jnp.arange(n) * 1.0) + 0.1 * jnp.outer(x, x)
    return jnp.sum(jnp.linspace(1.0, 2.0, n) * jnp.linalg.eigvalsh(a))


def sine_by_callback(x):  # Python's sin through jax.pure_callback: no rule to read or print
    import numpy as np

    return jax.pure_callback(np.sin, jax.ShapeDtypeStruct(x.shape, x.dtype), x)


def long_tridiagonal(x):  # tridiagonal_solve is read as a dense solve: refused past 1024
    ones = jnp.ones_like(x)
    return jax.lax.linalg.tridiagonal_solve(0.1 * ones, 4.0 + x, 0.1 * ones, x[:, None])


def eigenvectors_read(x):  # a nonsymmetric matrix's eigenvectors: scale and phase LAPACK's
    return jnp.real(jnp.linalg.eig(x.reshape(2, 2))[1]).ravel()


def spectral_radius(x):  # max |λ|: its Jacobian reads, its Hessian is refused
    return jnp.max(jnp.abs(jnp.linalg.eigvals(x.reshape(2, 2))))
