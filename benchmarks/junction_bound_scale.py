"""elimination_lower_bound on random layered graphs of growing size: CPU seconds and the
bound (benchmarks/RESULTS.md, "The junction bound's flows at scale")."""

import time

from dgraph.frontends.random_graphs import random_layered
from dgraph.search.junction_bounds import elimination_lower_bound

for layers, width in ((10, 30), (20, 50), (30, 70)):
    g = random_layered(0, layers, width, 3)
    start = time.process_time()
    bound = elimination_lower_bound(g)
    print(layers, width, g.n_edges, bound, f"{time.process_time() - start:.2f}s", flush=True)
