"""elimination_lower_bound on random layered graphs of growing size: CPU seconds and the
bound (benchmarks/RESULTS.md, "The junction bound's flows at scale")."""

import time

from dgraph.frontends.random_graphs import random_layered
from dgraph.search.junction_bounds import elimination_lower_bound

for layers, width in ((10, 30), (20, 50), (30, 70)):
    g = random_layered(0, layers, width, 3)
    t = time.process_time()
    b = elimination_lower_bound(g)
    d = time.process_time() - t
    print(layers, width, g.n_edges, b, f"{d:.2f}s", flush=True)
