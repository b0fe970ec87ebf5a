"""Naumann's eliminations on the c-graph: vertex elimination (forward, reverse, Markowitz,
any order), front- and back-edge elimination written once over label algebras
(``kernel``), the optimal vertex order by A* over eliminated sets (``vertex_optimal``)
and the edge-elimination metagraph's shortest path (``metagraph``).

References
----------
U. Naumann, *Optimizing the Accumulation of Jacobians by Edge Elimination in the
Computational Graph*, INRIA RR-3659, 1999.
U. Naumann, *Optimal accumulation of Jacobian matrices by elimination methods on the
dual computational graph*, Math. Program. 99 (2004) 399-421.
"""
