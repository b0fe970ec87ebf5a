import numpy as np

INPUTS = "v0:,angle:,k:"


def f(v0, angle, k, g=9.81, dt=0.02, n=150):
    # a projectile with quadratic drag, explicit Euler; range by interpolating the step
    # that crosses the ground, and the apex height
    x = y = 0.0
    vx, vy = v0 * np.cos(angle), v0 * np.sin(angle)
    xs, ys = [x], [y]
    for _ in range(n):
        v = np.hypot(vx, vy)
        vx, vy = vx - dt * k * v * vx, vy - dt * (g + k * v * vy)
        x, y = x + dt * vx, y + dt * vy
        xs.append(x)
        ys.append(y)
    xs, ys = np.stack(xs), np.stack(ys)
    i = np.argmax(ys < 0)
    t = ys[i - 1] / (ys[i - 1] - ys[i])
    return np.stack([xs[i - 1] + t * (xs[i] - xs[i - 1]), np.max(ys)])


def POINT(rng):
    return [np.array(20.0), np.array(np.pi / 4), np.array(0.0)]  # no drag
