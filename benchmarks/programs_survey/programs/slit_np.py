import numpy as np

INPUTS = "p:3,theta:21,I_obs:21"
PARAMS = "theta,I_obs"
LAM = 0.5  # wavelength, micrometres


def f(p, theta, I_obs):
    # Fraunhofer double slit: I0 sinc^2(a sin t / lam) cos^2(pi d sin t / lam), fitted
    I0, a, d = p
    s = np.sin(theta)
    model = I0 * np.sinc(a * s / LAM) ** 2 * np.cos(np.pi * d * s / LAM) ** 2
    return np.mean((model - I_obs) ** 2)


def POINT(rng):
    theta = np.linspace(-0.2, 0.2, 21)  # includes 0 exactly: sinc's removable point
    I_obs = (
        2.0
        * np.sinc(1.0 * np.sin(theta) / LAM) ** 2
        * np.cos(np.pi * 3.0 * np.sin(theta) / LAM) ** 2
    )
    return [np.array([1.8, 1.1, 2.9]), theta, I_obs + 0.01 * rng.normal(size=21)]
