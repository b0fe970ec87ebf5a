import numpy as np
from scipy.signal import lfilter

INPUTS = "b:3,x:32"
A = np.array([1.0, -1.2, 0.5])


def f(b, x):
    """An IIR filter (scipy.signal.lfilter) with learned numerator taps, its output's
    energy per block of 8 samples."""
    y = lfilter(b, A, x)
    return np.sum(y.reshape(4, 8) ** 2, axis=1)
