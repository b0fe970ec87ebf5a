"""C text of the stable sort the tensor C values call for ``argsort`` and ``lexsort``
(the positions of a sort, a take at them), and of the binary search they call for
``searchsorted`` (``dgraph_searchsorted``, one per query), defined in the generated files
that call them, as :mod:`dgraph.codegen.c_special` defines the special functions.

``dgraph_argsort`` orders the ``n`` entries of one line by ``count`` keys read through a
stride (a view needs no copy), the last key first (``numpy.lexsort``'s rule; ``argsort``
is one key), NaN after every number as NumPy and JAX sort it, equal keys in their order
(``stable=True``): a bottom-up merge sort (Knuth 1998, 5.2.4, algorithm S, the
straight two-way merge), O(n log n), in the caller's ``order`` and ``work`` blocks of n
``int64_t`` entries (a CUDA thread a line needs no allocation), without recursion.

References
----------
Knuth, D. E. (1998). *The Art of Computer Programming*, vol. 3, 2nd ed., 5.2.4.
"""

from __future__ import annotations

__all__ = ["SORT_FUNCTIONS"]

_SORT = r"""
/* Whether entry a of a line goes before entry b: keys[k*key_step + j*stride] is key k
 * of entry j, the last key first; NaN after every number. */
DGRAPH_SPECIAL int dgraph_sort_before(long count, const double *keys, long key_step,
                                      long stride, int64_t a, int64_t b)
{
    for (long k = count - 1; k >= 0; k--) {
        const double x = keys[k * key_step + a * stride], y = keys[k * key_step + b * stride];
        if (x < y || (y != y && x == x)) return 1;
        if (y < x || (x != x && y == y)) return 0;
    }
    return 0;
}

/* order[0..n) = the stable order of a line's n entries by its keys (a bottom-up merge
 * sort through work[0..n), Knuth 5.2.4). */
DGRAPH_SPECIAL void dgraph_argsort(long n, long count, const double *keys, long key_step,
                                   long stride, int64_t *order, int64_t *work)
{
    int64_t *from = order, *to = work, *swap;
    for (long j = 0; j < n; j++) order[j] = j;
    for (long width = 1; width < n; width *= 2) {
        for (long low = 0; low < n; low += 2 * width) {
            const long mid = low + width < n ? low + width : n;
            const long high = low + 2 * width < n ? low + 2 * width : n;
            long i = low, j = mid, k = low;
            while (i < mid && j < high)
                to[k++] = dgraph_sort_before(count, keys, key_step, stride, from[j], from[i])
                              ? from[j++] : from[i++];
            while (i < mid) to[k++] = from[i++];
            while (j < high) to[k++] = from[j++];
        }
        swap = from;
        from = to;
        to = swap;
    }
    if (from != order)
        for (long j = 0; j < n; j++) order[j] = from[j];
}
"""

_SEARCH = r"""
/* The position of v in the sorted table a[0..m) (numpy.searchsorted): the count of
 * entries before it, a < v (right: a <= v), NaN after every number; a binary search
 * (lower or upper bound), O(log m). */
DGRAPH_SPECIAL long dgraph_searchsorted(long m, const double *a, double v, int right)
{
    long low = 0, high = m;
    while (low < high) {
        const long mid = low + (high - low) / 2;
        const double x = a[mid];
        const int before = right ? (x <= v || v != v) : (x < v || (v != v && x == x));
        if (before) low = mid + 1;
        else high = mid;
    }
    return low;
}
"""

SORT_FUNCTIONS = {"dgraph_argsort": (_SORT,), "dgraph_searchsorted": (_SEARCH,)}
