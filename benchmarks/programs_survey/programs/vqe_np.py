import numpy as np

INPUTS = "theta:6"

X = np.array([[0.0, 1.0], [1.0, 0.0]])
Z = np.diag([1.0, -1.0])
I2 = np.eye(2)
CNOT = np.array([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 0, 1], [0, 0, 1, 0]], float)


def ry(a):
    c, s = np.cos(a / 2), np.sin(a / 2)
    return np.array([[c, -s], [s, c]])


def f(theta):
    # a two-qubit variational eigensolver: RY layers and CNOTs (real amplitudes), the
    # energy of a transverse-field Ising Hamiltonian
    H = -np.kron(Z, Z) - 0.7 * (np.kron(X, I2) + np.kron(I2, X))
    psi = np.zeros(4)
    psi[0] = 1.0
    for layer in range(3):
        psi = np.kron(ry(theta[2 * layer]), ry(theta[2 * layer + 1])) @ psi
        psi = CNOT @ psi
    return psi @ H @ psi


def POINT(rng):
    return [np.array([0.0, np.pi, 0.3, -0.4, 1.1, 0.0])]  # angles exactly 0 and pi
