"""Zhou's factorizer (Zhou 2020): simple chains and blocks, factorization of complex
blocks, pages for several roots and terminals, local-Jacobian accumulation, and the
conversion between expression sets and graphs.

References
----------
Y. Zhou, *Notes on Computational Graph and Jacobian Accumulation*, arXiv:2012.15034,
2020.
"""
