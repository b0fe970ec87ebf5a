"""Dominance: dominator trees, D* factor subgraphs (Guenter), umbrellas (Murota-Kubota).

References
----------
B. Guenter, *Efficient symbolic differentiation for graphics applications*, ACM Trans.
Graph. 26(3), 2007.
K. Murota, K. Kubota, *On elimination of intermediate variables in fast automatic
differentiation* (in Japanese), IPSJ, 1989.
"""
