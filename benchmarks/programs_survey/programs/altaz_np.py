import numpy as np

INPUTS = "radec:10x2,site:2,lst"
PARAMS = "site,lst"


def f(radec, site, lst):
    """Equatorial (right ascension, declination) to horizontal (altitude, azimuth) for an
    observer at latitude site[0], with Bennett's refraction on the altitude in degrees."""
    ra, dec = radec[:, 0], radec[:, 1]
    phi = site[0]
    H = lst - ra
    sin_alt = np.sin(dec) * np.sin(phi) + np.cos(dec) * np.cos(phi) * np.cos(H)
    alt = np.arcsin(sin_alt)
    az = np.arctan2(
        -np.cos(dec) * np.sin(H), np.sin(dec) * np.cos(phi) - np.cos(dec) * np.sin(phi) * np.cos(H)
    )
    az = np.mod(az, 2 * np.pi)
    altd = np.degrees(alt)
    refr = 1.0 / np.tan(np.radians(altd + 7.31 / (altd + 4.4))) / 60.0
    return np.column_stack([altd + refr, np.degrees(az)])


def POINT(rng):
    radec = np.column_stack([rng.uniform(0, 2 * np.pi, 10), rng.uniform(0.2, 1.2, 10)])
    return [radec, np.array([0.8, 0.1]), np.array(1.0)]
