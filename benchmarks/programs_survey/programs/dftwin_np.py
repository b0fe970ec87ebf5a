import numpy as np

INPUTS = "x:256"
N = 256
n = np.arange(N)
W = 0.5 - 0.5 * np.cos(2 * np.pi * n / (N - 1))
K = np.arange(N // 2 + 1)
C = np.cos(2 * np.pi * np.outer(K, n) / N)
S = np.sin(2 * np.pi * np.outer(K, n) / N)


def f(x):
    xw = (x - np.mean(x)) * W
    re = C @ xw
    im = S @ xw
    return 10.0 * np.log10(re**2 + im**2 + 1e-12)
