import numpy as np
from scipy.special import lambertw

INPUTS = "p:3,V:12"
PARAMS = "V"
VT = 0.025852  # thermal voltage at 300 K


def f(p, V):
    # a diode with a series resistance: I = Is (exp((V - I R)/(n VT)) - 1), solved in
    # closed form by the Lambert W function (Banwell & Jayakumar 2000)
    Is, n, R = np.exp(p[0]), p[1], p[2]
    nvt = n * VT
    arg = Is * R / nvt * np.exp((V + Is * R) / nvt)
    return nvt / R * lambertw(arg).real - Is


def POINT(rng):
    return [np.array([np.log(1e-12), 1.8, 2.0]), np.linspace(0.0, 1.1, 12)]  # V = 0: I = 0
