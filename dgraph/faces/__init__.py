"""Face elimination (Naumann 2004; Zhou 2020, §5): the line graph and its labeled states
(``elimination``; the rules it shares with ``pathfree``'s line states: ``state``),
multiplication relations (``relations``), whether an expression set is a face
elimination without circular dependencies (``realize``, read path-free by ``pathfree``),
the exact ``face-optimal`` search (``optimal``, over the compact states of ``compact``
with the bracketing bound of ``bound``), greedy face elimination in effective
multiplications (``greedy``).

References
----------
U. Naumann, *Optimal accumulation of Jacobian matrices by elimination methods on the
dual computational graph*, Math. Program. 99 (2004) 399-421.
Y. Zhou, *Notes on Computational Graph and Jacobian Accumulation*, arXiv:2012.15034,
2020, §5.
"""
