"""``best``: heuristic and exact searches for the cheapest verified accumulation —
effective-cost pricing (``kinds``), greedy rules, restarts, beam search and annealing
(``orders``), the exact effective vertex search (``effective_optimal``), the rank lower
bound for any accumulation (``rank_bound``) and the portfolio (``best``)."""
