import numpy as np

INPUTS = "u:16,nu:"


def f(u, nu, L=2 * np.pi):
    # periodic Sobolev-type energy: spectral derivative by rfft/irfft, plus |û_k|² weights
    n = u.size
    k = 2 * np.pi * np.fft.rfftfreq(n, d=L / n)
    uh = np.fft.rfft(u)
    ux = np.fft.irfft(1j * k * uh, n=n)
    power = np.abs(uh) ** 2 / n**2
    return 0.5 * np.mean(ux**2) + nu * np.sum(k**2 * power) + 0.25 * np.mean(u**4)


def POINT(rng):
    x = np.linspace(0, 2 * np.pi, 16, endpoint=False)
    return [np.sin(x) + 0.3 * np.cos(3 * x) + 0.05 * rng.normal(size=16), np.array(0.1)]
