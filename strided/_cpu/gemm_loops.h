/* Tiny float32/float64 matrix products in vector registers, for strided/_cpu/gemm_loops.pyx:
 * see Note [Tiny products in registers] there. Compiled once per x86-64 level with that module
 * (GCC's vector extensions: a 64-byte vector is one AVX-512 register at x86-64-v4, two AVX2
 * registers at v3, four SSE registers at v2). */
#ifndef STRIDED_GEMM_LOOPS_H
#define STRIDED_GEMM_LOOPS_H

#include <stddef.h>
#include <string.h>

#define STRIDED_TINY_MAX 16 /* the largest m, n and k of a tiny product */

/* The largest m * n * k of a tiny product at this level: a 16 x 16 x 16 product takes a third
 * of OpenBLAS's time at x86-64-v4 and three quarters at v3; with SSE's 16-byte registers it
 * takes more than OpenBLAS's (which dispatches on the CPU itself), 12 x 12 x 12 a little less
 * (Note [Which route a product takes] in blas.pyx). */
#if defined(__AVX2__)
#define STRIDED_TINY_WORK 4096
#else
#define STRIDED_TINY_WORK 2048
#endif

/* One product C (m x n) = alpha * A (m x k) @ B (k x n) + beta * C, strides in bytes; the same
 * for every product of a batch. ``swap``: the kernel computes C^T = B^T @ A^T instead (the
 * fields then describe that product: strided_tiny_plan). */
typedef struct {
    ptrdiff_t m, n, k;
    ptrdiff_t a_s0, a_s1, b_s0, b_s1, c_s0, c_s1;
    double alpha, beta;
    int beta_zero, is_double, swap, dots;
} strided_tiny_gemm;

/* The lanes a row of n outputs takes: 4, 8 or 16. */
static inline ptrdiff_t strided_tiny_lanes(ptrdiff_t n)
{
    return n <= 4 ? 4 : n <= 8 ? 8 : 16;
}

/* Orient the product so that the vector lanes run along the longer side of C: C (m x n) takes
 * m rows of lanes(n) lanes, C^T takes n rows of lanes(m). On a tie, the orientation whose C
 * rows are contiguous in memory (one vector store a row). A matrix times a vector whose rows
 * (or a vector times a matrix whose columns) are contiguous is instead m dot products
 * (``dots``): their lanes run along k. */
static inline void strided_tiny_plan(strided_tiny_gemm* g, ptrdiff_t itemsize)
{
    ptrdiff_t t, here = g->m * strided_tiny_lanes(g->n), there = g->n * strided_tiny_lanes(g->m);
    g->dots = g->m == 1 && g->n == 1;
    g->swap = there < here || (there == here && g->c_s1 != itemsize && g->c_s0 == itemsize);
    if (g->n == 1 && g->m > 1 && g->a_s1 == itemsize)
        g->dots = 1, g->swap = 0;
    else if (g->m == 1 && g->n > 1 && g->b_s0 == itemsize)
        g->dots = 1, g->swap = 1;
    if (!g->swap)
        return;
    t = g->m, g->m = g->n, g->n = t;
    /* A' = B^T (n x k), B' = A^T (k x m), C' = C^T */
    t = g->a_s0, g->a_s0 = g->b_s1, g->b_s1 = t;
    t = g->a_s1, g->a_s1 = g->b_s0, g->b_s0 = t;
    t = g->c_s0, g->c_s0 = g->c_s1, g->c_s1 = t;
}

/* The widest vector register this level has, in bytes; a row of NP lanes is R such vectors. */
#if defined(__AVX512F__)
#define STRIDED_TINY_VBYTES 64
#elif defined(__AVX__)
#define STRIDED_TINY_VBYTES 32
#else
#define STRIDED_TINY_VBYTES 16
#endif
#define STRIDED_TINY_VB(T, NP)                                                                 \
    (NP * sizeof(T) < STRIDED_TINY_VBYTES ? NP * sizeof(T) : STRIDED_TINY_VBYTES)

/* Copy n contiguous elements of ``size`` bytes, n below ``lanes`` (4, 8 or 16), in pieces of
 * half the lanes, a quarter, ... and 1: each a fixed-size copy, which the compiler turns into
 * one load and one store (a copy of a length known only at run time is a call into the C
 * library, ~5 ns, as long as the work of a row). */
static inline void strided_tiny_copy(char* dst, const char* src, ptrdiff_t n, ptrdiff_t size,
                                     ptrdiff_t lanes)
{
    ptrdiff_t piece;
    for (piece = lanes / 2; piece >= 1; piece /= 2) {
        if (n & piece) {
            if (size == 8) {
                if (piece == 8) memcpy(dst, src, 64);
                else if (piece == 4) memcpy(dst, src, 32);
                else if (piece == 2) memcpy(dst, src, 16);
                else memcpy(dst, src, 8);
            } else {
                if (piece == 8) memcpy(dst, src, 32);
                else if (piece == 4) memcpy(dst, src, 16);
                else if (piece == 2) memcpy(dst, src, 8);
                else memcpy(dst, src, 4);
            }
            dst += piece * size;
            src += piece * size;
        }
    }
}

/* STRIDED_TINY_KERNEL(T, NP): strided_tiny_<T>_<NP>, the products of a batch whose C rows fit
 * NP lanes, held as R vectors of the level's width (vectors wider than the registers would be
 * split by the compiler through memory). B's k rows are read as vectors: in place when they
 * are contiguous and exactly NP long, otherwise first copied ("packed") into NP-lane rows
 * padded with zeros. Each row of C is then a sum over p of A[i, p] * (row p of B), in order of
 * p, four rows of C at a time (four independent chains of multiply-adds, which the CPU
 * overlaps). */
#define STRIDED_TINY_KERNEL(T, NP)                                                              \
    typedef T strided_tiny_##T##_##NP##_v __attribute__((vector_size(STRIDED_TINY_VB(T, NP))));  \
                                                                                                \
    /* Row ``crow`` of C from the R vectors of ``acc``: whole vectors where C's row is       \
     * contiguous, alpha is 1 and beta 0; the rest lane by lane, as alpha * acc + beta * C (C  \
     * unread when beta is 0, so NaN in it stays out). */                                      \
    static inline void strided_tiny_store_##T##_##NP(const strided_tiny_gemm* g, char* crow,    \
                                                     const strided_tiny_##T##_##NP##_v* acc)    \
    {                                                                                           \
        enum { L = sizeof(*acc) / sizeof(T), R = NP / L };                                      \
        const T alpha = (T)g->alpha, beta = (T)g->beta;                                         \
        const int plain = g->alpha == 1 && g->beta_zero;                                        \
        ptrdiff_t j = 0, r;                                                                     \
        T lane[NP];                                                                             \
        if (plain && g->c_s1 == (ptrdiff_t)sizeof(T)) {                                         \
            for (r = 0; r < R && (r + 1) * L <= g->n; r++, j += L)                              \
                memcpy(crow + r * sizeof(*acc), &acc[r], sizeof(*acc));                         \
            if (j < g->n) {                                                                     \
                memcpy(lane, acc, sizeof lane);                                                 \
                strided_tiny_copy(crow + j * sizeof(T), (const char*)(lane + j), g->n - j,      \
                                  sizeof(T), NP);                                               \
            }                                                                                   \
            return;                                                                             \
        }                                                                                       \
        memcpy(lane, acc, sizeof lane);                                                         \
        for (; j < g->n; j++) {                                                                 \
            T* cp = (T*)(crow + j * g->c_s1);                                                   \
            T v = plain ? lane[j] : alpha * lane[j];                                            \
            *cp = g->beta_zero ? v : v + beta * *cp;                                            \
        }                                                                                       \
    }                                                                                           \
                                                                                                \
    static void strided_tiny_##T##_##NP(const strided_tiny_gemm* g, char* c, const char* a,    \
                                        const char* b, ptrdiff_t count, ptrdiff_t sc,           \
                                        ptrdiff_t sa, ptrdiff_t sb)                             \
    {                                                                                           \
        typedef strided_tiny_##T##_##NP##_v V;                                                  \
        enum { R = NP * sizeof(T) / sizeof(V) };                                                \
        const ptrdiff_t m = g->m, n = g->n, k = g->k;                                           \
        const ptrdiff_t as0 = g->a_s0, as1 = g->a_s1, bs0 = g->b_s0, bs1 = g->b_s1;             \
        const ptrdiff_t cs0 = g->c_s0;                                                          \
        const int direct = n == NP && bs1 == (ptrdiff_t)sizeof(T);                              \
        T packed[STRIDED_TINY_MAX * NP];                                                        \
        ptrdiff_t e, i, j, p, r, step = direct ? bs0 : (ptrdiff_t)(NP * sizeof(T));            \
        if (!direct) /* the padding lanes, zero once: each product writes lanes 0..n-1 */      \
            memset(packed, 0, sizeof(T) * NP * (k < STRIDED_TINY_MAX ? k : STRIDED_TINY_MAX));  \
        for (e = 0; e < count; e++, c += sc, a += sa, b += sb) {                                \
            const char* brows = direct ? b : (const char*)packed;                               \
            if (!direct && bs1 == (ptrdiff_t)sizeof(T)) {                                       \
                for (p = 0; p < k; p++)                                                         \
                    strided_tiny_copy((char*)(packed + p * NP), b + p * bs0, n, sizeof(T), NP); \
            } else if (!direct) {                                                               \
                for (p = 0; p < k; p++)                                                         \
                    for (j = 0; j < n; j++)                                                     \
                        packed[p * NP + j] = *(const T*)(b + p * bs0 + j * bs1);                \
            }                                                                                   \
            for (i = 0; i + 4 <= m; i += 4) {                                                   \
                const char* a0 = a + i * as0;                                                   \
                V acc0[R], acc1[R], acc2[R], acc3[R], bv;                                       \
                for (r = 0; r < R; r++)                                                         \
                    acc0[r] = acc1[r] = acc2[r] = acc3[r] = (V){0};                             \
                for (p = 0; p < k; p++) {                                                       \
                    const char* ap = a0 + p * as1;                                              \
                    const T x0 = *(const T*)ap, x1 = *(const T*)(ap + as0);                     \
                    const T x2 = *(const T*)(ap + 2 * as0), x3 = *(const T*)(ap + 3 * as0);     \
                    for (r = 0; r < R; r++) {                                                   \
                        memcpy(&bv, brows + p * step + r * sizeof(V), sizeof bv);               \
                        acc0[r] += x0 * bv;                                                     \
                        acc1[r] += x1 * bv;                                                     \
                        acc2[r] += x2 * bv;                                                     \
                        acc3[r] += x3 * bv;                                                     \
                    }                                                                           \
                }                                                                               \
                strided_tiny_store_##T##_##NP(g, c + i * cs0, acc0);                            \
                strided_tiny_store_##T##_##NP(g, c + (i + 1) * cs0, acc1);                      \
                strided_tiny_store_##T##_##NP(g, c + (i + 2) * cs0, acc2);                      \
                strided_tiny_store_##T##_##NP(g, c + (i + 3) * cs0, acc3);                      \
            }                                                                                   \
            for (; i < m; i++) {                                                                \
                const char* ap = a + i * as0;                                                   \
                V acc[R], bv;                                                                   \
                for (r = 0; r < R; r++)                                                         \
                    acc[r] = (V){0};                                                            \
                for (p = 0; p < k; p++) {                                                       \
                    const T x = *(const T*)(ap + p * as1);                                      \
                    for (r = 0; r < R; r++) {                                                   \
                        memcpy(&bv, brows + p * step + r * sizeof(V), sizeof bv);               \
                        acc[r] += x * bv;                                                       \
                    }                                                                           \
                }                                                                               \
                strided_tiny_store_##T##_##NP(g, c + i * cs0, acc);                             \
            }                                                                                   \
        }                                                                                       \
    }

STRIDED_TINY_KERNEL(float, 4)
STRIDED_TINY_KERNEL(float, 8)
STRIDED_TINY_KERNEL(float, 16)
STRIDED_TINY_KERNEL(double, 4)
STRIDED_TINY_KERNEL(double, 8)
STRIDED_TINY_KERNEL(double, 16)

/* STRIDED_TINY_DOT(T): a batch of 1 x 1 products, C = alpha * (row of A . column of B) +
 * beta * C, as many products of the sum at a time as a vector register has lanes when both
 * are contiguous (the lanes added at the end), one at a time otherwise. */
#define STRIDED_TINY_DOT(T)                                                                     \
    static void strided_tiny_dot_##T(const strided_tiny_gemm* g, char* c, const char* a,        \
                                     const char* b, ptrdiff_t count, ptrdiff_t sc,              \
                                     ptrdiff_t sa, ptrdiff_t sb)                                \
    {                                                                                           \
        typedef T V __attribute__((vector_size(STRIDED_TINY_VBYTES)));                          \
        enum { L = sizeof(V) / sizeof(T) };                                                     \
        const ptrdiff_t k = g->k, as1 = g->a_s1, bs0 = g->b_s0;                                 \
        const int contiguous = as1 == (ptrdiff_t)sizeof(T) && bs0 == (ptrdiff_t)sizeof(T);      \
        T lane[L], s;                                                                           \
        ptrdiff_t e, p, j;                                                                      \
        for (e = 0; e < count; e++, c += sc, a += sa, b += sb) {                                \
            p = 0;                                                                              \
            s = 0;                                                                              \
            if (contiguous && k >= L) {                                                         \
                V acc = {0}, av, bv;                                                            \
                for (; p + L <= k; p += L) {                                                    \
                    memcpy(&av, a + p * sizeof(T), sizeof av);                                  \
                    memcpy(&bv, b + p * sizeof(T), sizeof bv);                                  \
                    acc += av * bv;                                                             \
                }                                                                               \
                memcpy(lane, &acc, sizeof acc);                                                 \
                for (j = 0; j < L; j++)                                                         \
                    s += lane[j];                                                               \
            }                                                                                   \
            for (; p < k; p++)                                                                  \
                s += *(const T*)(a + p * as1) * *(const T*)(b + p * bs0);                       \
            if (!(g->alpha == 1 && g->beta_zero))                                               \
                s = s * (T)g->alpha;                                                            \
            if (!g->beta_zero)                                                                  \
                s = s + (T)g->beta * *(T*)c;                                                    \
            *(T*)c = s;                                                                         \
        }                                                                                       \
    }

STRIDED_TINY_DOT(float)
STRIDED_TINY_DOT(double)

typedef void (*strided_tiny_fn)(const strided_tiny_gemm*, char*, const char*, const char*,
                                ptrdiff_t, ptrdiff_t, ptrdiff_t, ptrdiff_t);

/* Every product of a batch of ``count``, C, A and B moving by sc, sa and sb bytes, through the
 * kernel of the plan's dtype and lanes (pointers in the caller's order: a swapped plan reads
 * B as its A). */
static inline void strided_tiny_run(const strided_tiny_gemm* g, char* c, const char* a,
                                    const char* b, ptrdiff_t count, ptrdiff_t sc, ptrdiff_t sa,
                                    ptrdiff_t sb)
{
    const char* t;
    ptrdiff_t s, lanes = strided_tiny_lanes(g->n);
    strided_tiny_fn run;
    if (g->swap) { /* C^T = B^T @ A^T: C's pointer is C^T's, A's and B's trade places */
        t = a, a = b, b = t;
        s = sa, sa = sb, sb = s;
    }
    if (g->dots && g->m > 1) { /* a matrix times a vector: a run of m dots per product */
        run = g->is_double ? strided_tiny_dot_double : strided_tiny_dot_float;
        for (; count > 0; count--, c += sc, a += sa, b += sb)
            run(g, c, a, b, g->m, g->c_s0, g->a_s0, 0);
        return;
    }
    if (g->dots)
        run = g->is_double ? strided_tiny_dot_double : strided_tiny_dot_float;
    else if (g->is_double)
        run = lanes == 4 ? strided_tiny_double_4 : lanes == 8 ? strided_tiny_double_8
                                                              : strided_tiny_double_16;
    else
        run = lanes == 4 ? strided_tiny_float_4 : lanes == 8 ? strided_tiny_float_8
                                                             : strided_tiny_float_16;
    run(g, c, a, b, count, sc, sa, sb);
}

/* ---- integers: see Note [Integer products in registers] in gemm_loops.pyx ----------------- */

#include <stdint.h>

/* One integer product, C (m x n) = alpha * A (m x k) @ B (k x n) + beta * C, modulo 2**(8 *
 * itemsize); strides in bytes, alpha and beta as unsigned numbers (their low bits). */
typedef struct {
    ptrdiff_t m, n, k;
    ptrdiff_t a_s0, a_s1, b_s0, b_s1, c_s0, c_s1;
    ptrdiff_t itemsize;
    uint64_t alpha, beta;
    int beta_zero;
} strided_int_gemm;

#define STRIDED_INT_KC 256 /* the rows of B packed at a time */

/* STRIDED_INT_KERNEL(E, U, VB, WIDTH): strided_int_gemm_<E>_<WIDTH>, rows [i0, i1) of C for
 * elements E (the unsigned integer of the dtype's width) summed in U (at least 32 bits:
 * wraparound is defined for unsigned types, and the low bits of the sum are the same in any
 * width), in vectors of VB bytes. A panel of KC rows of B by NR = 2 vectors of U is packed
 * (widened to U, zero-padded past n), then each group of four rows of C keeps its 4 x NR sums
 * in eight vector registers over the KC rows, and adds alpha times them to C (the first panel
 * of k puts beta * C, or 0, first). */
#define STRIDED_INT_KERNEL(E, U, VB, WIDTH)                                                    \
    static void strided_int_gemm_##E##_##WIDTH(const strided_int_gemm* g, char* c,            \
                                               const char* a, const char* b, ptrdiff_t i0,    \
                                               ptrdiff_t i1)                                  \
    {                                                                                          \
        typedef U V __attribute__((vector_size(VB)));                                          \
        enum { L = sizeof(V) / sizeof(U), NR = 2 * L };                                        \
        V panel[STRIDED_INT_KC * 2];                                                           \
        U lane[4][NR];                                                                         \
        const ptrdiff_t n = g->n, k = g->k;                                                    \
        const ptrdiff_t as0 = g->a_s0, as1 = g->a_s1, bs0 = g->b_s0, bs1 = g->b_s1;            \
        const ptrdiff_t cs0 = g->c_s0, cs1 = g->c_s1;                                          \
        const U alpha = (U)g->alpha, beta = (U)g->beta;                                        \
        ptrdiff_t jb, pb, i, j, p, r, nr, kc, rows;                                            \
        for (jb = 0; jb < n; jb += NR) {                                                       \
            nr = n - jb < NR ? n - jb : NR;                                                    \
            for (pb = 0; pb < k || pb == 0; pb += STRIDED_INT_KC) {                            \
                kc = k - pb < STRIDED_INT_KC ? k - pb : STRIDED_INT_KC;                        \
                for (p = 0; p < kc; p++) { /* pack B[pb + p, jb:jb + nr] */                    \
                    U row[NR];                                                                 \
                    const char* bp = b + (pb + p) * bs0 + jb * bs1;                            \
                    for (j = 0; j < NR; j++)                                                   \
                        row[j] = j < nr ? (U)*(const E*)(bp + j * bs1) : 0;                    \
                    memcpy(&panel[2 * p], row, sizeof row);                                    \
                }                                                                              \
                for (i = i0; i < i1; i += rows) {                                              \
                    const char* ap = a + i * as0 + pb * as1;                                   \
                    V s00 = {0}, s01 = {0}, s10 = {0}, s11 = {0};                              \
                    V s20 = {0}, s21 = {0}, s30 = {0}, s31 = {0};                              \
                    rows = i1 - i < 4 ? 1 : 4;                                                 \
                    for (p = 0; p < kc; p++, ap += as1) {                                      \
                        const V b0 = panel[2 * p], b1 = panel[2 * p + 1];                      \
                        const U x0 = (U)*(const E*)ap;                                         \
                        s00 += x0 * b0;                                                        \
                        s01 += x0 * b1;                                                        \
                        if (rows == 4) {                                                       \
                            const U x1 = (U)*(const E*)(ap + as0);                             \
                            const U x2 = (U)*(const E*)(ap + 2 * as0);                         \
                            const U x3 = (U)*(const E*)(ap + 3 * as0);                         \
                            s10 += x1 * b0;                                                    \
                            s11 += x1 * b1;                                                    \
                            s20 += x2 * b0;                                                    \
                            s21 += x2 * b1;                                                    \
                            s30 += x3 * b0;                                                    \
                            s31 += x3 * b1;                                                    \
                        }                                                                      \
                    }                                                                          \
                    memcpy(lane[0], &s00, sizeof s00);                                         \
                    memcpy(lane[0] + L, &s01, sizeof s01);                                     \
                    memcpy(lane[1], &s10, sizeof s10);                                         \
                    memcpy(lane[1] + L, &s11, sizeof s11);                                     \
                    memcpy(lane[2], &s20, sizeof s20);                                         \
                    memcpy(lane[2] + L, &s21, sizeof s21);                                     \
                    memcpy(lane[3], &s30, sizeof s30);                                         \
                    memcpy(lane[3] + L, &s31, sizeof s31);                                     \
                    for (r = 0; r < rows; r++) {                                               \
                        char* cp = c + (i + r) * cs0 + jb * cs1;                               \
                        for (j = 0; j < nr; j++, cp += cs1) {                                  \
                            U old = pb > 0 ? (U)*(E*)cp : g->beta_zero ? 0 : beta * *(E*)cp;   \
                            *(E*)cp = (E)(old + alpha * lane[r][j]);                           \
                        }                                                                      \
                    }                                                                          \
                }                                                                              \
                if (k == 0)                                                                    \
                    break;                                                                     \
            }                                                                                  \
        }                                                                                      \
    }

/* Each width twice: vectors of the level's width, and of 16 bytes for narrow products, whose
 * rows would fill a fraction of the wide panel's lanes (8 x 8 int32: 8 of AVX-512's 32) */
#define STRIDED_INT_KERNELS(E, U)                                                              \
    STRIDED_INT_KERNEL(E, U, 16, narrow)                                                       \
    STRIDED_INT_KERNEL(E, U, STRIDED_TINY_VBYTES, wide)

STRIDED_INT_KERNELS(uint8_t, uint32_t)
STRIDED_INT_KERNELS(uint16_t, uint32_t)
STRIDED_INT_KERNELS(uint32_t, uint32_t)
STRIDED_INT_KERNELS(uint64_t, uint64_t)

typedef void (*strided_int_fn)(const strided_int_gemm*, char*, const char*, const char*,
                               ptrdiff_t, ptrdiff_t);

/* Rows [i0, i1) of an integer product, by the dtype's width; 16-byte vectors when two of them
 * hold a row of C. */
static inline void strided_int_gemm_rows(const strided_int_gemm* g, char* c, const char* a,
                                         const char* b, ptrdiff_t i0, ptrdiff_t i1)
{
    const int narrow = STRIDED_TINY_VBYTES > 16 && g->n * (g->itemsize == 8 ? 8 : 4) <= 32;
    strided_int_fn run;
    if (g->itemsize == 1)
        run = narrow ? strided_int_gemm_uint8_t_narrow : strided_int_gemm_uint8_t_wide;
    else if (g->itemsize == 2)
        run = narrow ? strided_int_gemm_uint16_t_narrow : strided_int_gemm_uint16_t_wide;
    else if (g->itemsize == 4)
        run = narrow ? strided_int_gemm_uint32_t_narrow : strided_int_gemm_uint32_t_wide;
    else
        run = narrow ? strided_int_gemm_uint64_t_narrow : strided_int_gemm_uint64_t_wide;
    run(g, c, a, b, i0, i1);
}

#endif
