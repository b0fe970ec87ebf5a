import numpy as np

INPUTS = "D:,A:,B:,T0:9"


def albedo(T, a_ice=0.62, a_free=0.3, T_ice=-10.0):
    return a_free + 0.5 * (a_ice - a_free) * (1.0 - np.tanh((T - T_ice) / 5.0))


def f(D, A, B, T0, Q=340.0, dt=0.02, steps=40):
    # a 1-D (latitude) energy balance model: insolation, ice albedo, OLR, diffusion in x = sin(lat)
    x = np.linspace(-0.8, 0.8, T0.size)
    S = Q * (1.0 - 0.482 * 0.5 * (3 * x**2 - 1))
    T = T0
    for _ in range(steps):
        flux = (1 - x**2) * np.gradient(T, x)
        T = T + dt * (S * (1 - albedo(T)) - (A + B * T) + D * np.gradient(flux, x))
    return T


def POINT(rng):
    x = np.linspace(-0.8, 0.8, 9)
    return [np.array(0.6), np.array(210.0), np.array(2.0), 25.0 - 40.0 * x**2]
