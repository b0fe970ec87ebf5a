from jax.scipy.special import logsumexp


def f(a, b):
    return logsumexp(a, b=b) + 0.5 * logsumexp(a**2 / 4)
