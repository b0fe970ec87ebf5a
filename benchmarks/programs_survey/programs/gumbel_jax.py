import jax

TAU = 0.5


def f(logits, g):
    return jax.nn.softmax((logits + g) / TAU, axis=1)
