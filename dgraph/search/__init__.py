"""``best``: heuristic and exact searches for the cheapest verified accumulation, priced
on the elimination kernel (:mod:`dgraph.elimination.kernel`) — greedy rules, restarts,
beam search (``orders``), window-priced annealing and exact window re-ordering
(``windows``), the exact effective vertex search
(``effective_optimal``), lower bounds (``junction_bounds``, ``bracketing_bound``,
``rank_bound``), the price models and which searches and bounds hold in each
(``prices``), and the portfolio (``best``), one for every price model.

References
----------
U. Naumann, *Optimal Jacobian accumulation is NP-complete*, Math. Program. 112 (2008)
427-441.
A. Griewank, A. Walther, *Evaluating Derivatives*, 2nd ed., SIAM, 2008, ch. 9-10.
"""
