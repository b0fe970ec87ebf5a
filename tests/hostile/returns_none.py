"""A model whose function forgets to return."""


def f(a):
    a * 2
