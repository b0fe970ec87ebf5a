import numpy as np

INPUTS = "w:16x16"
NU, DT = 0.01, 0.05


def ddx(a):
    return 0.5 * (np.roll(a, -1, axis=1) - np.roll(a, 1, axis=1))


def ddy(a):
    return 0.5 * (np.roll(a, -1, axis=0) - np.roll(a, 1, axis=0))


def lap(a):
    return np.roll(a, 1, 0) + np.roll(a, -1, 0) + np.roll(a, 1, 1) + np.roll(a, -1, 1) - 4 * a


def f(w):
    n = w.shape[0]
    k = np.fft.fftfreq(n) * n
    kx, ky = np.meshgrid(k, k)
    k2 = kx**2 + ky**2
    k2[0, 0] = 1.0
    psi = np.real(np.fft.ifft2(np.fft.fft2(w) / k2))
    u, v = ddy(psi), -ddx(psi)
    return w + DT * (-u * ddx(w) - v * ddy(w) + NU * lap(w))
