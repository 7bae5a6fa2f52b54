/* Max pooling over tiles, forward and backward, for strided/_cpu/conv.pyx (see Note [Max
 * pooling over tiles in one pass] there).
 *
 * Each function works on one run of n "lanes" under one output row: the lanes are the
 * windows side by side along the dim that runs through memory (the channels of a
 * channels-last tensor, else the output columns), lx elements apart in x, lo in the result
 * (or its gradient), lg in x's gradient. A window's taps are kh x kw, xh and xw apart in x
 * (gh, gw in x's gradient). Element strides, any sign.
 *
 * Where the lanes are neighbours in x and in what is written (channels-last), each lane loop
 * is one vector loop: the pragma, as a select of compared floats in a loop of constant count
 * was otherwise unrolled into a compare and a branch per lane (8x slower), and the strides
 * given as the constant 1 so that the loads are whole vectors. Lanes kw apart (the output
 * columns of a channels-first tensor) would be gathers: forced into vectors they ran 4x slower
 * than the plain loops, which the compiler then vectorises as it sees fit (and the stride 2
 * given as a constant, 2x slower). nn.functional routes only channels-last tensors here.
 */
#ifndef STRIDED_POOL_H
#define STRIDED_POOL_H

#define STRIDED_POOL_BLOCK 64 /* lanes at a time: their maxima and shares stay in L1 */
#define STRIDED_POOL_INLINE static inline __attribute__((always_inline))
#define STRIDED_POOL_SIMD _Pragma("omp simd")
#define STRIDED_POOL_PLAIN

/* max as the reduction takes it (Note [Branch-free max rows] in reduce.pyx.tp): a NaN in acc
 * stays (nothing compares greater), a NaN v replaces it, a tie keeps acc */
#define STRIDED_POOL_STEP(v, acc) ((((v) > (acc)) | ((v) != (v))) ? (v) : (acc))

/* The loops of one kind (V: _vec with the pragma, _seq without) for element type T */
#define STRIDED_POOL_LOOPS(T, V, SIMD)                                                          \
/* m[l] = the maximum of the window whose first tap is x[l * lx], for l < n <= BLOCK */          \
STRIDED_POOL_INLINE void strided_pool_block_max_##T##V(const T* x, long lx, long n, long xh,    \
                                                       long xw, long kh, long kw, T* m) {      \
    SIMD                                                                                        \
    for (long l = 0; l < n; l++) m[l] = x[l * lx];                                              \
    for (long a = 0; a < kh; a++)                                                               \
        for (long b = 0; b < kw; b++) {                                                         \
            if (a == 0 && b == 0) continue;                                                     \
            const T* s = x + a * xh + b * xw;                                                   \
            SIMD                                                                                \
            for (long l = 0; l < n; l++) m[l] = STRIDED_POOL_STEP(s[l * lx], m[l]);             \
        }                                                                                       \
}                                                                                               \
                                                                                                \
STRIDED_POOL_INLINE void strided_pool_max_run_##T##V(const T* x, long lx, T* out, long lo,      \
                                                     long n, long xh, long xw, long kh,         \
                                                     long kw) {                                 \
    T m[STRIDED_POOL_BLOCK];                                                                    \
    for (long l0 = 0; l0 < n; l0 += STRIDED_POOL_BLOCK) {                                       \
        long c = n - l0 < STRIDED_POOL_BLOCK ? n - l0 : STRIDED_POOL_BLOCK;                     \
        strided_pool_block_max_##T##V(x + l0 * lx, lx, c, xh, xw, kh, kw, m);                   \
        SIMD                                                                                    \
        for (long l = 0; l < c; l++) out[(l0 + l) * lo] = m[l];                                 \
    }                                                                                           \
}                                                                                               \
                                                                                                \
STRIDED_POOL_INLINE void strided_pool_back_run_##T##V(                                          \
        const T* x, long lx, const T* g, long lo, T* gx, long lg, long n, long xh, long xw,     \
        long gh, long gw, long kh, long kw) {                                                   \
    T m[STRIDED_POOL_BLOCK], share[STRIDED_POOL_BLOCK];                                         \
    for (long l0 = 0; l0 < n; l0 += STRIDED_POOL_BLOCK) {                                       \
        long c = n - l0 < STRIDED_POOL_BLOCK ? n - l0 : STRIDED_POOL_BLOCK;                     \
        const T* xb = x + l0 * lx;                                                              \
        T* gb = gx + l0 * lg;                                                                   \
        strided_pool_block_max_##T##V(xb, lx, c, xh, xw, kh, kw, m);                            \
        /* the count of the taps equal to the maximum (>= 1 unless it is NaN) */                \
        SIMD                                                                                    \
        for (long l = 0; l < c; l++) share[l] = 0;                                              \
        for (long a = 0; a < kh; a++)                                                           \
            for (long b = 0; b < kw; b++) {                                                     \
                const T* s = xb + a * xh + b * xw;                                              \
                SIMD                                                                            \
                for (long l = 0; l < c; l++) share[l] += s[l * lx] == m[l] ? (T)1 : (T)0;       \
            }                                                                                   \
        SIMD                                                                                    \
        for (long l = 0; l < c; l++) share[l] = g[(l0 + l) * lo] / share[l];                    \
        for (long a = 0; a < kh; a++)                                                           \
            for (long b = 0; b < kw; b++) {                                                     \
                const T* s = xb + a * xh + b * xw;                                              \
                T* d = gb + a * gh + b * gw;                                                    \
                SIMD                                                                            \
                for (long l = 0; l < c; l++) d[l * lg] = s[l * lx] == m[l] ? share[l] : (T)0;   \
            }                                                                                   \
    }                                                                                           \
}

#define STRIDED_POOL_DEFINE(T)                                                                  \
STRIDED_POOL_LOOPS(T, _vec, STRIDED_POOL_SIMD)                                                  \
STRIDED_POOL_LOOPS(T, _seq, STRIDED_POOL_PLAIN)                                                 \
                                                                                                \
/* result[l * lo] = the maximum of window l, for n windows */                                   \
static void strided_pool_max_##T(const T* x, long lx, T* out, long lo, long n, long xh,        \
                                 long xw, long kh, long kw) {                                   \
    if (lx == 1 && lo == 1)                                                                     \
        strided_pool_max_run_##T##_vec(x, 1, out, 1, n, xh, xw, kh, kw);                        \
    else                                                                                        \
        strided_pool_max_run_##T##_seq(x, lx, out, lo, n, xh, xw, kh, kw);                      \
}                                                                                               \
                                                                                                \
/* x's gradient under n windows: grad / count to each tap equal to its window's maximum     */ \
/* (count of them), 0 to the others (and to every tap of a window whose maximum is NaN)     */ \
static void strided_pool_back_##T(const T* x, long lx, const T* g, long lo, T* gx, long lg,    \
                                  long n, long xh, long xw, long gh, long gw, long kh,          \
                                  long kw) {                                                    \
    if (lx == 1 && lg == 1)                                                                     \
        strided_pool_back_run_##T##_vec(x, 1, g, lo, gx, 1, n, xh, xw, gh, gw, kh, kw);         \
    else                                                                                        \
        strided_pool_back_run_##T##_seq(x, lx, g, lo, gx, lg, n, xh, xw, gh, gw, kh, kw);       \
}

STRIDED_POOL_DEFINE(float)
STRIDED_POOL_DEFINE(double)

#endif
