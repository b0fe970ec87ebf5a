import jax


def _combine(x, y):
    a1, b1 = x
    a2, b2 = y
    return a1 * a2, a2 * b1 + b2


def f(a, b):
    lam = jax.nn.sigmoid(a)
    _, h = jax.lax.associative_scan(_combine, (lam, b))
    return h
