import numpy as np

INPUTS = "pos:5x3"


def f(pos, lam=21.0, eps=1.0, gam=1.2, a=1.8, sig=1.0):
    # Stillinger & Weber (1985): the three-body term of silicon, triplets by loops
    n = len(pos)
    e = 0.0
    for i in range(n):
        for j in range(n):
            for k in range(j + 1, n):
                if i in (j, k):
                    continue
                rij, rik = pos[j] - pos[i], pos[k] - pos[i]
                dij, dik = np.linalg.norm(rij), np.linalg.norm(rik)
                cos = rij @ rik / (dij * dik)
                inside = (dij < a * sig) & (dik < a * sig)
                dijs = np.where(inside, dij, 0.0)
                diks = np.where(inside, dik, 0.0)
                fac = np.exp(gam * sig / (dijs - a * sig) + gam * sig / (diks - a * sig))
                e = e + np.where(inside, lam * eps * (cos + 1.0 / 3.0) ** 2 * fac, 0.0)
    return e


def POINT(rng):
    t = 1.3 / np.sqrt(3.0)
    pos = np.array([[0.0, 0, 0], [t, t, t], [t, -t, -t], [-t, t, -t], [1.8, 0.0, 0.0]])
    return [pos]  # 0-1-2 tetrahedral (cos = -1/3); atom 4 exactly at the cutoff of atom 0
