import numpy as np

INPUTS = "theta0:8,omega:8,K:"


def f(theta0, omega, K, dt=0.05, steps=20):
    # Kuramoto oscillators, explicit Euler, phases kept in [0, 2 pi); the order parameter
    th = theta0
    for _ in range(steps):
        coupling = np.sum(np.sin(th[None, :] - th[:, None]), axis=1)
        th = np.mod(th + dt * (omega + K / th.size * coupling), 2 * np.pi)
    return np.abs(np.mean(np.exp(1j * th)))


def POINT(rng):
    theta0 = rng.uniform(0, 2 * np.pi, size=8)
    theta0[:2] = 0.0  # two in phase at 0
    return [theta0, rng.normal(size=8), np.array(1.5)]
