"""``best``: heuristic and exact searches for the cheapest verified accumulation."""
