import numpy as np

INPUTS = "pos:2,bias:,beacons:5x2,ranges:5"
PARAMS = "beacons,ranges"
R_EARTH = 6371.0


def haversine(lat1, lon1, lat2, lon2):
    a = (
        np.sin((lat2 - lat1) / 2) ** 2
        + np.cos(lat1) * np.cos(lat2) * np.sin((lon2 - lon1) / 2) ** 2
    )
    return 2 * R_EARTH * np.arcsin(np.sqrt(np.clip(a, 0.0, 1.0)))


def f(pos, bias, beacons, ranges):
    lat, lon = np.radians(pos[0]), np.radians(pos[1])
    d = haversine(lat, lon, np.radians(beacons[:, 0]), np.radians(beacons[:, 1]))
    return np.sum((d + bias - ranges) ** 2)


def POINT(rng):
    beacons = np.array([[48.1, 11.5], [48.3, 11.7], [47.9, 11.2], [48.2, 11.1], [48.0, 11.9]])
    ranges = np.array([0.4, 27.5, 31.0, 31.5, 33.0])
    return [np.array([48.12, 11.52]), np.array(0.3), beacons, ranges]
