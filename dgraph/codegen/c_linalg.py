"""C text of the dense linear algebra the tensor C values call (an inverse by LU with
partial pivoting, a triangle's inverse by substitution, the Cholesky factor, the
determinant and ``slogdet``, the symmetric eigendecomposition, the reduced QR and SVD),
defined in the generated files that call them, as :mod:`dgraph.codegen.c_special` defines
the special functions.

Each takes one n×n matrix read through its row and column strides (a transposed view
needs no copy) and writes a row-major result. The LU factors and pivots are a call of their
own (``dgraph_lu_of``) into buffers from the caller, one block per matrix of a batch (a
CUDA thread per matrix needs no allocation), which the inverse and the determinant read:
the C values factor a matrix once for all the inverses and determinants of it. The LU is
LAPACK ``getrf``'s (Golub and Van Loan 2013, algorithm 3.4.1:
at step k the first row at or below k of the largest magnitude in column k); the
inverse solves ``A·X = I`` with it (several right-hand sides, algorithm 3.4.2); the
Cholesky factor is the outer-product form's (algorithm 4.2.1), reading A's lower triangle
as ``numpy.linalg.cholesky`` does. A product of two matrices (``dgraph_matmul``) sums
outside the result's row, two rows a pass, so that its inner loop runs along rows of the
right operand and of the result, restrict-qualified: vectorized at ``-O2``.

A matrix LAPACK refuses gives what dgraph's NumPy values give (``NumPyOps``' inverse and
Cholesky factor NaN, as JAX gives): an exactly zero pivot, or a Cholesky pivot that is not
positive (or NaN), fills the result with NaN; ``slogdet`` of a singular matrix is
``(0, -inf)`` and its ``det`` 0, as NumPy's.

The symmetric eigendecomposition (``dgraph_eigh``, ``numpy.linalg.eigh``'s values and
vectors) is the cyclic Jacobi method (Golub and Van Loan 2013, algorithm 8.5.3 with the
rotation of 8.5.2): A's lower triangle read as ``eigh`` does (``UPLO="L"``), scaled by its
largest magnitude, rotated row by row until the off-diagonal norm is at most 1e-3·eps of
the Frobenius norm (entries negligible beside both their diagonal entries set to 0 after
the third sweep, Rutishauser's rule), at most 60 sweeps; the eigenvalues ascending with
their vectors (the columns of V). LAPACK's vectors carry no sign convention, so each
vector is normalized here with its entry of largest magnitude (the first such) positive:
a program whose value reads an eigenvector's sign may differ from NumPy's there (its code
check then fails), the derivative formulas do not (they read V·(·)·Vᵀ products and
their own V). A non-finite entry, or no convergence, fills w and V with NaN (JAX gives
NaN; NumPy raises).

The reduced QR (``dgraph_qr``, ``numpy.linalg.qr``'s default mode) is LAPACK's: Householder
reflections (Golub and Van Loan 2013, algorithms 5.1.1 and 5.2.1) with ``geqrf``'s signs
(``dlarfg``: ``R_jj = -sign(α)·‖(α, x)‖``, no reflection where the column below the
diagonal is 0), Q accumulated backward as ``orgqr`` does (5.1.6): Q and R equal NumPy's to
rounding, signs included. The reduced SVD (``dgraph_svd``, ``numpy.linalg.svd`` with
``full_matrices=False``) is one-sided Jacobi (Hestenes 1958; Golub and Van Loan 2013,
8.6.3): the min(m, n) columns of A (its rows where m < n), scaled by its largest magnitude,
rotated pairwise until each pair's cosine is below max(m, n)·eps, at most 60 sweeps (a pair
one of whose columns is below max(m, n)·eps of the other not rotated: at an exactly
rank-deficient matrix that column is rounding, whose rotations never converge); the
values descending, a value at most max(m, n)·eps of the largest set to 0, a zero value's
vector completed by Gram-Schmidt on the unit vectors (orthogonal to the others: the
cofactors of ``det``'s derivative read them at a singular matrix).
LAPACK's singular vectors carry no sign convention; here each left vector's entry of
largest magnitude (the first such) is positive, the right vector flipped with it: as for
``eigh``, a program whose value reads a singular vector's sign may differ from NumPy's (its
code check then fails), the values and sign-invariant functions of the vectors do not.

References
----------
Golub, G. H. and Van Loan, C. F. (2013). *Matrix Computations*, 4th ed., 3.4, 4.2, 5.1,
5.2, 8.5 and 8.6.

Hestenes, M. R. (1958). Inversion of matrices by biorthogonalization and related results.
*J. SIAM* 6(1), 51-90.
"""

from __future__ import annotations

__all__ = ["LINALG_FUNCTIONS"]

# LU with partial pivoting in place (row-major n×n), piv[k] the row swapped with row k:
# returns the permutation's sign, 0 where a pivot is exactly 0 (the factors stay LAPACK's:
# the elimination goes on past it).
# y -= s·x along two rows that do not overlap (restrict, C++'s __restrict__ in CUDA:
# vectorized at -O2, four at a time as in dgraph_matmul): the LU's and its solves' inner loop.
_ROW = r"""
#ifdef __cplusplus
#define DGRAPH_RESTRICT __restrict__
#else
#define DGRAPH_RESTRICT restrict
#endif
/* y[j] -= s x[j] for j < m, x and y apart. */
DGRAPH_SPECIAL void dgraph_row_sub(long m, double s, const double *DGRAPH_RESTRICT x,
                                   double *DGRAPH_RESTRICT y)
{
    long j = 0;
    for (; j + 4 <= m; j += 4) {
        y[j] -= s * x[j];
        y[j + 1] -= s * x[j + 1];
        y[j + 2] -= s * x[j + 2];
        y[j + 3] -= s * x[j + 3];
    }
    for (; j < m; j++) y[j] -= s * x[j];
}
"""

_LU = r"""
/* P·A = L·U in place (row-major n x n), the first largest magnitude at or below k the
 * pivot of column k (LAPACK getrf); returns det P, or 0 where a pivot is 0. */
DGRAPH_SPECIAL double dgraph_lu(long n, double *a, int64_t *piv)
{
    double sign = 1.0;
    for (long k = 0; k < n; k++) {
        long p = k;
        double best = fabs(a[k * n + k]);
        for (long i = k + 1; i < n; i++)
            if (fabs(a[i * n + k]) > best) {
                best = fabs(a[i * n + k]);
                p = i;
            }
        piv[k] = p;
        if (p != k) {
            for (long j = 0; j < n; j++) {
                const double t = a[k * n + j];
                a[k * n + j] = a[p * n + j];
                a[p * n + j] = t;
            }
            sign = -sign;
        }
        if (a[k * n + k] == 0.0) {
            sign = 0.0;
            continue;
        }
        for (long i = k + 1; i < n; i++) {
            const double l = a[i * n + k] /= a[k * n + k];
            dgraph_row_sub(n - k - 1, l, a + k * n + k + 1, a + i * n + k + 1);
        }
    }
    return sign;
}

/* A (strided) copied row-major into lu, then factored: dgraph_lu's sign. */
DGRAPH_SPECIAL double dgraph_lu_of(long n, const double *a, long rows, long cols, double *lu,
                                   int64_t *piv)
{
    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++) lu[i * n + j] = a[i * rows + j * cols];
    return dgraph_lu(n, lu, piv);
}
"""

_LU_SOLVE = r"""
/* B := A^-1 B in place for m right-hand sides (B row-major n x m), A's factors lu, piv. */
DGRAPH_SPECIAL void dgraph_lu_solve(long n, const double *lu, const int64_t *piv, long m, double *b)
{
    for (long k = 0; k < n; k++)
        if (piv[k] != k)
            for (long j = 0; j < m; j++) {
                const double t = b[k * m + j];
                b[k * m + j] = b[piv[k] * m + j];
                b[piv[k] * m + j] = t;
            }
    for (long i = 1; i < n; i++)
        for (long k = 0; k < i; k++) dgraph_row_sub(m, lu[i * n + k], b + k * m, b + i * m);
    for (long i = n - 1; i >= 0; i--) {
        for (long k = i + 1; k < n; k++) dgraph_row_sub(m, lu[i * n + k], b + k * m, b + i * m);
        for (long j = 0; j < m; j++) b[i * m + j] /= lu[i * n + i];
    }
}
"""
_NAN = """
DGRAPH_SPECIAL void dgraph_nan_fill(long count, double *out)
{
    for (long k = 0; k < count; k++) out[k] = NAN;
}
"""

_INV = r"""
/* out = A^-1 (row-major) from A's LU (dgraph_lu_of), A X = I; NaN where a pivot is 0. */
DGRAPH_SPECIAL void dgraph_inv(long n, const double *lu, const int64_t *piv, double *out)
{
    for (long k = 0; k < n; k++)
        if (lu[k * n + k] == 0.0) {
            dgraph_nan_fill(n * n, out);
            return;
        }
    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++) out[i * n + j] = i == j;
    dgraph_lu_solve(n, lu, piv, n, out);
}
"""

# The inverse of the triangle (lower or upper, its other entries never read) by
# substitution on the identity's columns: a zero on the diagonal gives NaN.
_TRIANGLE = r"""
/* out = T^-1 (row-major) for the lower (or upper) triangle T of A, by substitution. */
DGRAPH_SPECIAL void dgraph_triangle_inv(long n, int lower, const double *a, long rows,
                                        long cols, double *out)
{
    for (long i = 0; i < n; i++)
        if (a[i * rows + i * cols] == 0.0) {
            dgraph_nan_fill(n * n, out);
            return;
        }
    for (long c = 0; c < n; c++)
        for (long s = 0; s < n; s++) {
            const long i = lower ? s : n - 1 - s;
            double v = i == c;
            if (lower)
                for (long k = 0; k < i; k++) v -= a[i * rows + k * cols] * out[k * n + c];
            else
                for (long k = i + 1; k < n; k++) v -= a[i * rows + k * cols] * out[k * n + c];
            out[i * n + c] = v / a[i * rows + i * cols];
        }
}
"""

_CHOLESKY = r"""
/* out = L, A = L L^T (row-major, zeros above the diagonal) from A's lower triangle;
 * NaN where A is not positive definite (a pivot not > 0). */
DGRAPH_SPECIAL void dgraph_cholesky(long n, const double *a, long rows, long cols, double *out)
{
    for (long j = 0; j < n; j++) {
        double d = a[j * rows + j * cols];
        for (long k = 0; k < j; k++) d -= out[j * n + k] * out[j * n + k];
        if (!(d > 0.0)) {
            dgraph_nan_fill(n * n, out);
            return;
        }
        out[j * n + j] = sqrt(d);
        for (long i = j + 1; i < n; i++) {
            double v = a[i * rows + j * cols];
            for (long k = 0; k < j; k++) v -= out[i * n + k] * out[j * n + k];
            out[i * n + j] = v / out[j * n + j];
            out[j * n + i] = 0.0;
        }
    }
}
"""

# A product of one matrix pair, the summed axis outside the result's row (i-k-j: the inner
# loop runs along a row of b and of out, contiguous where their column stride is 1, which
# the compiler vectorizes at -O2 since the restrict parameters rule out overlaps), two rows
# of out a pass; a product with one column (a matrix times a vector) sums each entry in a
# register. A triangular operand (ta, tb: 1 lower, 2 upper, 0 full; its other entries 0)
# bounds the sums to its triangle: half the multiplications.
_MATMUL = r"""
/* out = A B (n x k times k x m, each read through its row and column strides; out
 * row-major with row stride ro), none of the three overlapping; ta, tb: 1 where A (B) is
 * lower triangular, 2 upper, 0 full (the sums skip its zeros). */
DGRAPH_SPECIAL void dgraph_matmul(long n, long k, long m, const double *restrict a, long ar,
                                  long ac, int ta, const double *restrict b, long br, long bc,
                                  int tb, double *restrict out, long ro)
{
    if (m == 1 || bc != 1) {
        for (long i = 0; i < n; i++) {
            const long p0 = ta == 2 ? i : 0, p1 = ta == 1 && i + 1 < k ? i + 1 : k;
            for (long j = 0; j < m; j++) {
                double s = 0.0;
                for (long p = p0; p < p1; p++) s += a[i * ar + p * ac] * b[p * br + j * bc];
                out[i * ro + j] = s;
            }
        }
        return;
    }
    long i = 0;
    for (; i + 2 <= n; i += 2) { /* two rows of out a pass: each row of b read once */
        double *restrict r0 = out + i * ro, *restrict r1 = out + (i + 1) * ro;
        const long p0 = ta == 2 ? i : 0, p1 = ta == 1 && i + 2 < k ? i + 2 : k;
        for (long j = 0; j < m; j++) r0[j] = r1[j] = 0.0;
        for (long p = p0; p < p1; p++) {
            const double s0 = a[i * ar + p * ac], s1 = a[(i + 1) * ar + p * ac];
            const double *restrict from = b + p * br;
            long j = tb == 2 ? p : 0;
            const long j1 = tb == 1 && p + 1 < m ? p + 1 : m;
            for (; j + 4 <= j1; j += 4) { /* four columns: paired by the vectorizer */
                const double f0 = from[j], f1 = from[j + 1], f2 = from[j + 2], f3 = from[j + 3];
                r0[j] += s0 * f0;
                r0[j + 1] += s0 * f1;
                r0[j + 2] += s0 * f2;
                r0[j + 3] += s0 * f3;
                r1[j] += s1 * f0;
                r1[j + 1] += s1 * f1;
                r1[j + 2] += s1 * f2;
                r1[j + 3] += s1 * f3;
            }
            for (; j < j1; j++) {
                r0[j] += s0 * from[j];
                r1[j] += s1 * from[j];
            }
        }
    }
    for (; i < n; i++) {
        double *restrict row = out + i * ro;
        const long p0 = ta == 2 ? i : 0, p1 = ta == 1 && i + 1 < k ? i + 1 : k;
        for (long j = 0; j < m; j++) row[j] = 0.0;
        for (long p = p0; p < p1; p++) {
            const double s = a[i * ar + p * ac];
            const double *restrict from = b + p * br;
            const long j1 = tb == 1 && p + 1 < m ? p + 1 : m;
            for (long j = tb == 2 ? p : 0; j < j1; j++) row[j] += s * from[j];
        }
    }
}
"""

_DETERMINANT = r"""
/* which 0: the sign of det A, 1: log|det A| (NumPy's slogdet: (0, -inf) where singular),
 * 2: det A; from A's LU (dgraph_lu_of). */
DGRAPH_SPECIAL double dgraph_determinant(long n, const double *lu, const int64_t *piv,
                                         int which)
{
    double sign = 1.0, log_abs = 0.0;
    for (long k = 0; k < n; k++) {
        if (piv[k] != k) sign = -sign;
        if (lu[k * n + k] == 0.0) sign = 0.0;
    }
    double det = sign;
    for (long k = 0; k < n; k++) {
        const double d = lu[k * n + k];
        if (d < 0) sign = -sign;
        log_abs += log(fabs(d));
        det *= d;
    }
    if (sign == 0.0) log_abs = -INFINITY;
    return which == 0 ? sign : which == 1 ? log_abs : det;
}
"""

# Cyclic Jacobi (GVL algorithm 8.5.3): each (p, q), p < q, of a sweep rotated to zero by
# J(p, q, θ) (sym.schur2: τ = (a_qq - a_pp)/(2 a_pq), t the smaller root of t² + 2τt - 1),
# A := JᵀAJ updating rows and columns p, q (the symmetric matrix kept whole), V := VJ.
_EIGH = r"""
/* w (ascending) and V (row-major, columns the vectors, each with its largest entry > 0)
 * of the symmetric A (lower triangle read; strided), by cyclic Jacobi; a: n*n scratch.
 * NaN in w and V where A has a non-finite entry or 60 sweeps do not converge. */
DGRAPH_SPECIAL void dgraph_eigh(long n, const double *m, long rows, long cols, double *a,
                                double *w, double *v)
{
    double scale = 0.0;
    for (long i = 0; i < n; i++)
        for (long j = 0; j <= i; j++) {
            const double x = m[i * rows + j * cols];
            if (!(fabs(x) <= 1.7976931348623157e308)) {
                dgraph_nan_fill(n, w);
                dgraph_nan_fill(n * n, v);
                return;
            }
            if (fabs(x) > scale) scale = fabs(x);
        }
    const double unit = scale > 0.0 ? scale : 1.0;
    double norm = 0.0;
    for (long i = 0; i < n; i++)
        for (long j = 0; j <= i; j++) {
            a[i * n + j] = a[j * n + i] = m[i * rows + j * cols] / unit;
            norm += (i == j ? 1.0 : 2.0) * a[i * n + j] * a[i * n + j];
        }
    for (long k = 0; k < n * n; k++) v[k] = k % (n + 1) == 0;
    const double tol = 1e-3 * 2.220446049250313e-16;
    const double limit = tol * tol * norm;
    int converged = 0;
    for (int sweep = 0; sweep < 60; sweep++) {
        double off = 0.0;
        for (long p = 0; p < n; p++)
            for (long q = p + 1; q < n; q++) off += 2.0 * a[p * n + q] * a[p * n + q];
        if (off <= limit) {
            converged = 1;
            break;
        }
        for (long p = 0; p < n - 1; p++)
            for (long q = p + 1; q < n; q++) {
                const double apq = a[p * n + q], app = a[p * n + p], aqq = a[q * n + q];
                if (apq == 0.0) continue;
                const double g = 100.0 * fabs(apq);
                if (sweep > 2 && fabs(app) + g == fabs(app) && fabs(aqq) + g == fabs(aqq)) {
                    a[p * n + q] = a[q * n + p] = 0.0;
                    continue;
                }
                const double tau = (aqq - app) / (2.0 * apq);
                const double t = (tau >= 0.0 ? 1.0 : -1.0) / (fabs(tau) + sqrt(1.0 + tau * tau));
                const double c = 1.0 / sqrt(1.0 + t * t), s = t * c;
                for (long k = 0; k < n; k++) {
                    if (k == p || k == q) continue;
                    const double akp = a[k * n + p], akq = a[k * n + q];
                    a[k * n + p] = a[p * n + k] = c * akp - s * akq;
                    a[k * n + q] = a[q * n + k] = s * akp + c * akq;
                }
                a[p * n + p] = app - t * apq;
                a[q * n + q] = aqq + t * apq;
                a[p * n + q] = a[q * n + p] = 0.0;
                for (long k = 0; k < n; k++) {
                    const double vkp = v[k * n + p], vkq = v[k * n + q];
                    v[k * n + p] = c * vkp - s * vkq;
                    v[k * n + q] = s * vkp + c * vkq;
                }
            }
    }
    if (!converged) {
        dgraph_nan_fill(n, w);
        dgraph_nan_fill(n * n, v);
        return;
    }
    for (long k = 0; k < n; k++) w[k] = a[k * n + k];
    for (long k = 0; k < n; k++) { /* ascending (selection), each vector's column with it */
        long low = k;
        for (long j = k + 1; j < n; j++)
            if (w[j] < w[low]) low = j;
        if (low != k) {
            const double t = w[k];
            w[k] = w[low];
            w[low] = t;
            for (long i = 0; i < n; i++) {
                const double x = v[i * n + k];
                v[i * n + k] = v[i * n + low];
                v[i * n + low] = x;
            }
        }
        long big = 0;
        for (long i = 1; i < n; i++)
            if (fabs(v[i * n + k]) > fabs(v[big * n + k])) big = i;
        if (v[big * n + k] < 0.0)
            for (long i = 0; i < n; i++) v[i * n + k] = -v[i * n + k];
        w[k] *= unit;
    }
}
"""
# Householder QR (GVL algorithms 5.1.1 and 5.2.1, LAPACK geqrf's reflectors: dlarfg's
# β = -sign(α)·‖(α, x)‖, H = I when x = 0) and Q accumulated backward (orgqr, GVL 5.1.6).
_QR = r"""
/* The reduced QR of the m x n A (strided; k = min(m, n)): Q (m x k) and R (k x n, zeros
 * below the diagonal), row-major, by Householder reflections with LAPACK's signs (geqrf +
 * orgqr, as numpy.linalg.qr); work: m*n + n doubles. NaN in Q and R where A has a
 * non-finite entry. */
DGRAPH_SPECIAL void dgraph_qr(long m, long n, const double *a, long rows, long cols,
                              double *work, double *q, double *r)
{
    const long k = m < n ? m : n;
    double *h = work, *tau = work + m * n;
    for (long i = 0; i < m; i++)
        for (long j = 0; j < n; j++) {
            h[i * n + j] = a[i * rows + j * cols];
            if (!(fabs(h[i * n + j]) <= 1.7976931348623157e308)) {
                dgraph_nan_fill(m * k, q);
                dgraph_nan_fill(k * n, r);
                return;
            }
        }
    for (long j = 0; j < k; j++) {
        double big = 0.0; /* ||x|| scaled by its largest entry: no overflow */
        for (long i = j + 1; i < m; i++)
            if (fabs(h[i * n + j]) > big) big = fabs(h[i * n + j]);
        double xnorm = 0.0;
        if (big > 0.0) {
            for (long i = j + 1; i < m; i++) xnorm += (h[i * n + j] / big) * (h[i * n + j] / big);
            xnorm = big * sqrt(xnorm);
        }
        const double alpha = h[j * n + j];
        if (xnorm == 0.0) { /* H = I: R's diagonal entry alpha as it is (dlarfg) */
            tau[j] = 0.0;
            continue;
        }
        const double beta = -copysign(hypot(alpha, xnorm), alpha);
        tau[j] = (beta - alpha) / beta;
        const double scale = 1.0 / (alpha - beta);
        for (long i = j + 1; i < m; i++) h[i * n + j] *= scale; /* v = (1, x/(α-β)) */
        h[j * n + j] = beta;
        for (long c = j + 1; c < n; c++) { /* the columns right of j: H applied */
            double s = h[j * n + c];
            for (long i = j + 1; i < m; i++) s += h[i * n + j] * h[i * n + c];
            s *= tau[j];
            h[j * n + c] -= s;
            for (long i = j + 1; i < m; i++) h[i * n + c] -= s * h[i * n + j];
        }
    }
    for (long i = 0; i < k; i++)
        for (long j = 0; j < n; j++) r[i * n + j] = j < i ? 0.0 : h[i * n + j];
    for (long i = 0; i < m; i++)
        for (long j = 0; j < k; j++) q[i * k + j] = i == j;
    for (long j = k - 1; j >= 0; j--) { /* Q = H_0 ... H_(k-1) I[:, :k], backward */
        if (tau[j] == 0.0) continue;
        for (long c = j; c < k; c++) {
            double s = q[j * k + c];
            for (long i = j + 1; i < m; i++) s += h[i * n + j] * q[i * k + c];
            s *= tau[j];
            q[j * k + c] -= s;
            for (long i = j + 1; i < m; i++) q[i * k + c] -= s * h[i * n + j];
        }
    }
}
"""

# One-sided Jacobi (Hestenes; GVL §8.6.3): the k = min(m, n) columns (rows, when m < n)
# g_p of A made orthogonal by rotations from the right, W := W·J alongside; then
# s_p = ‖g_p‖, the left (right) vectors g_p/s_p, the other side's W.
_SVD = r"""
/* The reduced SVD of the m x n A (strided; k = min(m, n)): U (m x k), s (k, descending)
 * and Vt (k x n), row-major, by one-sided Jacobi; each left vector (column of U) with its
 * largest entry > 0, the right one with it. work: k*max(m, n) + k*k doubles. NaN in U, s,
 * Vt where A has a non-finite entry or 60 sweeps do not converge. */
DGRAPH_SPECIAL void dgraph_svd(long m, long n, const double *a, long rows, long cols,
                               double *work, double *u, double *s, double *vt)
{
    const int tall = m >= n;
    const long k = tall ? n : m, len = tall ? m : n;
    double *g = work, *w = work + k * len;
    double scale = 0.0;
    for (long i = 0; i < m; i++)
        for (long j = 0; j < n; j++) {
            const double x = a[i * rows + j * cols];
            if (!(fabs(x) <= 1.7976931348623157e308)) scale = NAN;
            if (fabs(x) > scale) scale = fabs(x);
        }
    int converged = scale == scale;
    const double unit = scale > 0.0 ? scale : 1.0;
    for (long i = 0; i < m && converged; i++)
        for (long j = 0; j < n; j++) {
            const double x = a[i * rows + j * cols] / unit;
            if (tall)
                g[j * len + i] = x;
            else
                g[i * len + j] = x;
        }
    for (long p = 0; p < k * k; p++) w[p] = p % (k + 1) == 0;
    const double tol = 2.220446049250313e-16 * len;
    for (int sweep = 0; converged && sweep <= 60; sweep++) {
        int rotated = 0;
        for (long p = 0; p < k - 1; p++)
            for (long q = p + 1; q < k; q++) {
                double alpha = 0.0, beta = 0.0, gamma = 0.0;
                for (long i = 0; i < len; i++) {
                    alpha += g[p * len + i] * g[p * len + i];
                    beta += g[q * len + i] * g[q * len + i];
                    gamma += g[p * len + i] * g[q * len + i];
                }
                if (!(fabs(gamma) > tol * sqrt(alpha * beta))) continue;
                if (alpha < tol * tol * beta || beta < tol * tol * alpha) continue; /* noise */
                rotated = 1;
                const double zeta = (beta - alpha) / (2.0 * gamma);
                const double root = fabs(zeta) + sqrt(1.0 + zeta * zeta);
                const double t = (zeta >= 0.0 ? 1.0 : -1.0) / root;
                const double c = 1.0 / sqrt(1.0 + t * t), sn = t * c;
                for (long i = 0; i < len; i++) {
                    const double x = g[p * len + i], y = g[q * len + i];
                    g[p * len + i] = c * x - sn * y;
                    g[q * len + i] = sn * x + c * y;
                }
                for (long i = 0; i < k; i++) {
                    const double x = w[p * k + i], y = w[q * k + i];
                    w[p * k + i] = c * x - sn * y;
                    w[q * k + i] = sn * x + c * y;
                }
            }
        if (!rotated) break;
        if (sweep == 60) converged = 0;
    }
    if (!converged) {
        dgraph_nan_fill(m * k, u);
        dgraph_nan_fill(k, s);
        dgraph_nan_fill(k * n, vt);
        return;
    }
    for (long p = 0; p < k; p++) {
        double norm = 0.0;
        for (long i = 0; i < len; i++) norm += g[p * len + i] * g[p * len + i];
        s[p] = sqrt(norm);
    }
    double largest = 0.0; /* a column at rounding level beside the largest: its value 0 */
    for (long p = 0; p < k; p++) largest = s[p] > largest ? s[p] : largest;
    for (long p = 0; p < k; p++) s[p] = s[p] <= tol * largest ? 0.0 : s[p];
    for (long p = 0; p < k; p++) { /* descending (selection), the vectors with them */
        long high = p;
        for (long j = p + 1; j < k; j++)
            if (s[j] > s[high]) high = j;
        if (high == p) continue;
        const double t = s[p];
        s[p] = s[high];
        s[high] = t;
        for (long i = 0; i < len; i++) {
            const double x = g[p * len + i];
            g[p * len + i] = g[high * len + i];
            g[high * len + i] = x;
        }
        for (long i = 0; i < k; i++) {
            const double x = w[p * k + i];
            w[p * k + i] = w[high * k + i];
            w[high * k + i] = x;
        }
    }
    for (long p = 0; p < k; p++) { /* g_p / s_p; a zero s_p: completed by Gram-Schmidt */
        if (s[p] > 0.0)
            for (long i = 0; i < len; i++) g[p * len + i] /= s[p];
        for (long e = 0; !(s[p] > 0.0) && e < len; e++) {
            for (long i = 0; i < len; i++) g[p * len + i] = i == e;
            for (int twice = 0; twice < 2; twice++)
                for (long j = 0; j < p; j++) {
                    double d = 0.0;
                    for (long i = 0; i < len; i++) d += g[j * len + i] * g[p * len + i];
                    for (long i = 0; i < len; i++) g[p * len + i] -= d * g[j * len + i];
                }
            double norm = 0.0;
            for (long i = 0; i < len; i++) norm += g[p * len + i] * g[p * len + i];
            if (norm > 0.25) {
                for (long i = 0; i < len; i++) g[p * len + i] /= sqrt(norm);
                break;
            }
        }
        s[p] *= unit;
    }
    for (long p = 0; p < k; p++) { /* U's column p and Vt's row p */
        for (long i = 0; i < m; i++) u[i * k + p] = tall ? g[p * len + i] : w[p * k + i];
        for (long j = 0; j < n; j++) vt[p * n + j] = tall ? w[p * k + j] : g[p * len + j];
        long big = 0;
        for (long i = 1; i < m; i++)
            if (fabs(u[i * k + p]) > fabs(u[big * k + p])) big = i;
        if (u[big * k + p] < 0.0) {
            for (long i = 0; i < m; i++) u[i * k + p] = -u[i * k + p];
            for (long j = 0; j < n; j++) vt[p * n + j] = -vt[p * n + j];
        }
    }
}
"""

# each function, the definitions it needs in order (dgraph.codegen.c_special's table)
LINALG_FUNCTIONS = {
    "dgraph_lu_of": (_ROW, _LU),
    "dgraph_inv": (_NAN, _ROW, _LU_SOLVE, _INV),
    "dgraph_triangle_inv": (_NAN, _TRIANGLE),
    "dgraph_cholesky": (_NAN, _CHOLESKY),
    "dgraph_determinant": (_DETERMINANT,),
    "dgraph_matmul": (_MATMUL,),
    "dgraph_eigh": (_NAN, _EIGH),
    "dgraph_qr": (_NAN, _QR),
    "dgraph_svd": (_NAN, _SVD),
}
