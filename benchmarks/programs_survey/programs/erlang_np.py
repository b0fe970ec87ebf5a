import numpy as np

INPUTS = "A:3"


def f(A, servers=6):
    # Erlang-B by its recursion, then Erlang-C and the mean wait of M/M/c queues
    B = np.ones_like(A)
    for n in range(1, servers + 1):
        B = A * B / (n + A * B)
    rho = A / servers
    C = B / (1.0 - rho * (1.0 - B))
    wait = C / (servers - A)
    return np.concatenate([B, C, wait])


def POINT(rng):
    return [np.array([2.0, 4.5, 5.5])]
