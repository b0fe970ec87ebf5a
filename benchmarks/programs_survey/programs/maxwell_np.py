INPUTS = "E:200,H:200"
C = 0.5


def f(E, H):
    Hn = H.copy()
    Hn[:-1] = H[:-1] + C * (E[1:] - E[:-1])
    En = E.copy()
    En[1:] = E[1:] + C * (Hn[1:] - Hn[:-1])
    return En, Hn
