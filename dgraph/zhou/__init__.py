"""Zhou's factorizer (seed 001): simple chains and blocks, factorization of complex
blocks, pages for several roots and terminals, local-Jacobian accumulation, and the
conversion between expression sets and graphs."""
