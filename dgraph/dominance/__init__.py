"""Dominance: dominator trees, D* factor subgraphs (Guenter), umbrellas (Murota-Kubota)."""
