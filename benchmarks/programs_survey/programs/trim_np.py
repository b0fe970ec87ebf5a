import numpy as np

INPUTS = "x:1001"


def f(x):
    s = np.sort(x)
    med = np.median(x)
    return np.stack([np.mean(s[100:-100]), med, np.max(np.abs(x - med))])


def POINT(rng):
    x = np.round(rng.normal(size=1001), 1)  # rounded data: many ties, sorted runs of equals
    x[np.argmax(np.abs(x))] += 5.0
    return [x]
