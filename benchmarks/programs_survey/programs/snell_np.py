import numpy as np

INPUTS = "curv:2,thick:,n_glass:"


def refract(d, nrm, eta):
    # vector form of Snell's law; nrm faces the incoming ray
    cos_i = -d @ nrm
    k = 1.0 - eta**2 * (1.0 - cos_i**2)
    return eta * d + (eta * cos_i - np.sqrt(k)) * nrm


def surface(o, d, z0, c):
    # intersection with the sphere of curvature c whose vertex is at z = z0
    R = 1.0 / c
    center = np.array([0.0, z0 + R])
    oc = o - center
    b = d @ oc
    disc = b**2 - (oc @ oc - R**2)
    t = -b - np.sign(R) * np.sqrt(disc)
    p = o + t * d
    nrm = (p - center) / R
    return p, nrm  # faces -z near the vertex, against the ray


def f(curv, thick, n_glass, heights=(0.0, 0.3, 0.6, 0.9), image_z=6.0):
    out = []
    for h in heights:  # rays parallel to the axis; the one at h = 0 is the axis itself
        o, d = np.array([h, -1.0]), np.array([0.0, 1.0])
        p, nrm = surface(o, d, 0.0, curv[0])
        d = refract(d, nrm, 1.0 / n_glass)
        p, nrm = surface(p, d, thick, curv[1])
        d = refract(d, nrm, n_glass)
        out.append(p[0] + (image_z - p[1]) * d[0] / d[1])
    return np.stack(out)


def POINT(rng):
    return [np.array([0.2, -0.15]), np.array(0.5), np.array(1.5)]
