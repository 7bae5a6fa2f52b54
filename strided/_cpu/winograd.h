/* The tile transforms of Winograd's F(4x4, 3x3) convolution, for strided/_cpu/conv.pyx (see
 * Note [Winograd's F(4x4, 3x3)] there for the algorithm, the matrices and the error).
 *
 * Each function works on one tile and a block of up to WINO_CB channels at once: the channels
 * are the innermost index of every buffer, so each line of a transform is one loop over the
 * block that the compiler turns into vector code (16 floats of AVX-512 per instruction). The
 * transforms are written out term by term rather than as products with the constant matrices:
 * a product would multiply by the matrices' zeros, which the compiler must keep (0 * inf is
 * NaN), and the written-out form shares the sums that several rows use.
 *
 * Geometry arguments are element strides (any sign), as a strided view has them.
 */
#ifndef STRIDED_WINOGRAD_H
#define STRIDED_WINOGRAD_H

#include <stddef.h>

#define WINO_CB 16 /* channels per block: one AVX-512 vector of floats */
#define WINO_INLINE static inline __attribute__((always_inline))
/* A loop over the channels of a block as one vector loop: with a constant count of 16 the
 * compiler unrolls it completely first, and then fails to vectorise the stores through six
 * row pointers (the module is compiled with OpenMP, which reads the pragma). */
#define WINO_SIMD _Pragma("omp simd")
/* The machine's vectors as values of GCC's vector extension (one AVX-512, AVX2 or SSE register),
 * a block of WINO_CB channels being WINO_NV(T) of them: the register-blocked products below
 * hold WINO_RT blocks as accumulators, which plain loops over arrays left to the compiler do
 * not reliably keep in registers. Memory is read and written through the _mem types, which
 * may point at any element (aligned to the element only) and alias the element type. (One
 * vector of a whole block, wider than AVX2's registers, made GCC move each half through the
 * stack and general registers: the products ran 3-5x slower than OpenBLAS's at x86-64-v3.)
 * Tiles per group, WINO_RT: with AVX-512's 32 registers, 8 (8 accumulators of floats, 16 of
 * doubles); with AVX2's 16, 4 (8 of floats); with SSE's 16, 2 (8 of floats). */
#if defined(__AVX512F__)
#define WINO_VB 64
#define WINO_RT 8
#elif defined(__AVX2__)
#define WINO_VB 32
#define WINO_RT 4
#else
#define WINO_VB 16
#define WINO_RT 2
#endif
#define WINO_NV(T) (WINO_CB * (long)sizeof(T) / WINO_VB)
typedef float strided_wino_vec_float __attribute__((vector_size(WINO_VB)));
typedef double strided_wino_vec_double __attribute__((vector_size(WINO_VB)));
typedef float strided_wino_mem_float
    __attribute__((vector_size(WINO_VB), aligned(sizeof(float)), may_alias));
typedef double strided_wino_mem_double
    __attribute__((vector_size(WINO_VB), aligned(sizeof(double)), may_alias));
#define WINO_UNROLL _Pragma("GCC unroll 16")

#define STRIDED_WINOGRAD(T)                                                                     \
/* One element's cb channels (src[c*sc]) into dst, zeros up to WINO_CB; all zeros when src is \
 * NULL (outside the image). */                                                                 \
WINO_INLINE void strided_wino_gather_n_##T(const T* src, long sc, long cb, T* dst) {            \
  /* the zeros first, as whole vectors: a loop from cb to WINO_CB became a rep stos, whose      \
   * start-up took half the time of a one-channel input's tiles */                               \
  if (cb < WINO_CB || src == NULL) {                                                             \
    for (long c = 0; c < WINO_CB; c++) dst[c] = 0;                                               \
  }                                                                                              \
  if (src != NULL && sc == 1) {                                                                  \
    WINO_SIMD                                                                                    \
    for (long c = 0; c < cb; c++) dst[c] = src[c];                                               \
  } else if (src != NULL && sc == 0) {                                                           \
    /* channels expanded from one value (the gradient of a sum): one broadcast */                \
    const T s0 = src[0];                                                                         \
    WINO_SIMD                                                                                    \
    for (long c = 0; c < cb; c++) dst[c] = s0;                                                   \
  } else if (src != NULL) {                                                                      \
    WINO_SIMD                                                                                    \
    for (long c = 0; c < cb; c++) dst[c] = src[c * sc];                                          \
  }                                                                                              \
}                                                                                                \
                                                                                                 \
/* The entry points: each calls its body with the channel count a constant when the block is  \
 * full, so that the compiler makes that call's loops whole vectors (a loop to a variable       \
 * count ran one element at a time), and with the variable count for the last block. */         \
static inline void strided_wino_gather_##T(const T* src, long sc, long cb, T* dst) {            \
  if (cb == WINO_CB) strided_wino_gather_n_##T(src, sc, WINO_CB, dst);                           \
  else strided_wino_gather_n_##T(src, sc, cb, dst);                                              \
}                                                                                                \
                                                                                                 \
/* d: the 6x6 input patch whose top-left element is (y0, x0), zeros outside the image,         \
 * channels c0 .. c0+cb-1 innermost (d[(i*6 + j)*WINO_CB + c]). */                               \
static inline void strided_wino_patch_##T(                                                       \
    const T* x, long sc, long sh, long sw, long H, long W, long y0, long x0, long cb,            \
    T* d) {                                                                                      \
  for (long i = 0; i < 6; i++) {                                                                 \
    const long y = y0 + i;                                                                       \
    for (long j = 0; j < 6; j++) {                                                               \
      const long z = x0 + j;                                                                     \
      const int inside = y >= 0 && y < H && z >= 0 && z < W;                                     \
      strided_wino_gather_##T(inside ? x + y * sh + z * sw : NULL, sc, cb,                       \
                              d + (i * 6 + j) * WINO_CB);                                        \
    }                                                                                            \
  }                                                                                              \
}                                                                                                \
                                                                                                 \
/* v = B^T d B for the patch d: element (a, b) of the 6x6 result goes to v + (a*6 + b)*plane,   \
 * channels innermost (cb of them). */                                                           \
WINO_INLINE void strided_wino_input_n_##T(const T* d, long cb, T* v, long plane) {              \
  T t[36 * WINO_CB];                                                                             \
  /* rows: t[i][b] = sum_j d[i][j] B[j][b], i.e. B^T applied to each row of d */                \
  for (long i = 0; i < 6; i++) {                                                                 \
    const T* r = d + i * 6 * WINO_CB;                                                            \
    T* o = t + i * 6 * WINO_CB;                                                                  \
    for (long c = 0; c < WINO_CB; c++) {                                                         \
      const T d0 = r[c], d1 = r[WINO_CB + c], d2 = r[2 * WINO_CB + c];                           \
      const T d3 = r[3 * WINO_CB + c], d4 = r[4 * WINO_CB + c], d5 = r[5 * WINO_CB + c];         \
      const T p = d4 - 4 * d2, q = d3 - 4 * d1, s = d4 - d2, u = 2 * (d3 - d1);                 \
      o[c] = 4 * d0 - 5 * d2 + d4;                                                               \
      o[WINO_CB + c] = p + q;                                                                    \
      o[2 * WINO_CB + c] = p - q;                                                                \
      o[3 * WINO_CB + c] = s + u;                                                                \
      o[4 * WINO_CB + c] = s - u;                                                                \
      o[5 * WINO_CB + c] = 4 * d1 - 5 * d3 + d5;                                                 \
    }                                                                                            \
  }                                                                                              \
  /* columns: v[a][b] = sum_i B[i][a] t[i][b] */                                                 \
  for (long b = 0; b < 6; b++) {                                                                 \
    const T* r = t + b * WINO_CB;                                                                \
    const long st = 6 * WINO_CB;                                                                 \
    /* one pointer per output row: v[(a*6 + b)*plane + c] as an index defeats the vectoriser */ \
    T *o0 = v + b * plane, *o1 = o0 + 6 * plane, *o2 = o1 + 6 * plane;                           \
    T *o3 = o2 + 6 * plane, *o4 = o3 + 6 * plane, *o5 = o4 + 6 * plane;                          \
    WINO_SIMD                                                                                    \
    for (long c = 0; c < cb; c++) {                                                              \
      const T d0 = r[c], d1 = r[st + c], d2 = r[2 * st + c];                                     \
      const T d3 = r[3 * st + c], d4 = r[4 * st + c], d5 = r[5 * st + c];                        \
      const T p = d4 - 4 * d2, q = d3 - 4 * d1, s = d4 - d2, u = 2 * (d3 - d1);                 \
      o0[c] = 4 * d0 - 5 * d2 + d4;                                                              \
      o1[c] = p + q;                                                                             \
      o2[c] = p - q;                                                                             \
      o3[c] = s + u;                                                                             \
      o4[c] = s - u;                                                                             \
      o5[c] = 4 * d1 - 5 * d3 + d5;                                                              \
    }                                                                                            \
  }                                                                                              \
}                                                                                                \
                                                                                                 \
/* y = A^T m A: m's element (a, b) at m + (a*6 + b)*plane (channels innermost); the 4x4         \
 * result's (i, j) at y[(i*4 + j)*WINO_CB + c], bias[c] added (bias may be NULL). Every loop    \
 * runs over all WINO_CB channels, so that the loads of t meet whole vector stores (a partial   \
 * block's loop would store t in pieces that a full-width load cannot take from the store       \
 * buffer, a stall per load); m must be readable WINO_CB channels past the block, whatever it   \
 * holds there, and only the first cb channels of y mean anything. */                           \
static inline void strided_wino_output_##T(const T* m, long plane, long cb, const T* bias,      \
                                           T* y) {                                               \
  T t[24 * WINO_CB], bb[WINO_CB];                                                                \
  /* (a branch, not a select: a masked vector load from a NULL bias, its lanes all off, still \
   * costs a microcode assist for the faulting address) */                                   \
  const long nb = bias ? cb : 0;                                                              \
  for (long c = 0; c < nb; c++) bb[c] = bias[c];                                              \
  for (long c = nb; c < WINO_CB; c++) bb[c] = 0;                                              \
  /* columns first: t[i][b] = sum_a A[a][i] m[a][b], for the 4 output rows i */                 \
  for (long b = 0; b < 6; b++) {                                                                 \
    for (long c = 0; c < WINO_CB; c++) {                                                         \
      const T m0 = m[(0 * 6 + b) * plane + c], m1 = m[(1 * 6 + b) * plane + c];                  \
      const T m2 = m[(2 * 6 + b) * plane + c], m3 = m[(3 * 6 + b) * plane + c];                  \
      const T m4 = m[(4 * 6 + b) * plane + c], m5 = m[(5 * 6 + b) * plane + c];                  \
      const T s12 = m1 + m2, d12 = m1 - m2, s34 = m3 + m4, d34 = m3 - m4;                       \
      t[(0 * 6 + b) * WINO_CB + c] = m0 + s12 + s34;                                             \
      t[(1 * 6 + b) * WINO_CB + c] = d12 + 2 * d34;                                              \
      t[(2 * 6 + b) * WINO_CB + c] = s12 + 4 * s34;                                              \
      t[(3 * 6 + b) * WINO_CB + c] = d12 + 8 * d34 + m5;                                         \
    }                                                                                            \
  }                                                                                              \
  /* rows: y[i][j] = sum_b t[i][b] A[b][j] */                                                    \
  for (long i = 0; i < 4; i++) {                                                                 \
    const T* r = t + i * 6 * WINO_CB;                                                            \
    T* o = y + i * 4 * WINO_CB;                                                                  \
    for (long c = 0; c < WINO_CB; c++) {                                                         \
      const T m0 = r[c], m1 = r[WINO_CB + c], m2 = r[2 * WINO_CB + c];                           \
      const T m3 = r[3 * WINO_CB + c], m4 = r[4 * WINO_CB + c], m5 = r[5 * WINO_CB + c];         \
      const T s12 = m1 + m2, d12 = m1 - m2, s34 = m3 + m4, d34 = m3 - m4;                       \
      o[c] = m0 + s12 + s34 + bb[c];                                                             \
      o[WINO_CB + c] = d12 + 2 * d34 + bb[c];                                                    \
      o[2 * WINO_CB + c] = s12 + 4 * s34 + bb[c];                                                \
      o[3 * WINO_CB + c] = d12 + 8 * d34 + m5 + bb[c];                                           \
    }                                                                                            \
  }                                                                                              \
}                                                                                                \
                                                                                                 \
/* u = G g G^T for the 3x3 filters of kb output channels at once (filter k's element (i, j)   \
 * at g[k*gk + i*gh + j*gw]), computed in double and rounded once; element (a, b) of filter k's \
 * 6x6 result goes to u[(a*6 + b)*plane + k]. The channels are the vector lanes. */              \
WINO_INLINE void strided_wino_filter_n_##T(const T* g, long gk, long gh, long gw, long kb,       \
                                            T* u, long plane) {                                  \
  double f[9][WINO_CB], t[6][3][WINO_CB];                                                        \
  for (long i = 0; i < 3; i++)                                                                   \
    for (long j = 0; j < 3; j++) {                                                               \
      for (long k = 0; k < kb; k++) f[i * 3 + j][k] = g[k * gk + i * gh + j * gw];               \
      for (long k = kb; k < WINO_CB; k++) f[i * 3 + j][k] = 0;                                   \
    }                                                                                            \
  /* t = G g: the rows of G are 1/4 (1, 0, 0), -1/6 (1, 1, 1), -1/6 (1, -1, 1),                  \
   * 1/24 (1, 2, 4), 1/24 (1, -2, 4), (0, 0, 1); by 1/6 and 1/24 as products with the double     \
   * nearest (a last-bit difference in double, far below float's): 45 divisions of vectors of    \
   * doubles a block were a twelfth of the forward of the digits CNN's second layer */           \
  for (long j = 0; j < 3; j++)                                                                   \
    for (long k = 0; k < WINO_CB; k++) {                                                         \
      const double g0 = f[j][k], g1 = f[3 + j][k], g2 = f[6 + j][k];                             \
      t[0][j][k] = g0 * 0.25;                                                                    \
      t[1][j][k] = -(g0 + g1 + g2) * (1.0 / 6);                                                  \
      t[2][j][k] = -(g0 - g1 + g2) * (1.0 / 6);                                                  \
      t[3][j][k] = (g0 + 2 * g1 + 4 * g2) * (1.0 / 24);                                          \
      t[4][j][k] = (g0 - 2 * g1 + 4 * g2) * (1.0 / 24);                                          \
      t[5][j][k] = g2;                                                                           \
    }                                                                                            \
  /* u = t G^T */                                                                                \
  for (long a = 0; a < 6; a++) {                                                                 \
    T* o = u + a * 6 * plane;                                                                    \
    for (long k = 0; k < kb; k++) {                                                              \
      const double g0 = t[a][0][k], g1 = t[a][1][k], g2 = t[a][2][k];                            \
      o[k] = (T)(g0 * 0.25);                                                                     \
      o[plane + k] = (T)(-(g0 + g1 + g2) * (1.0 / 6));                                           \
      o[2 * plane + k] = (T)(-(g0 - g1 + g2) * (1.0 / 6));                                       \
      o[3 * plane + k] = (T)((g0 + 2 * g1 + 4 * g2) * (1.0 / 24));                               \
      o[4 * plane + k] = (T)((g0 - 2 * g1 + 4 * g2) * (1.0 / 24));                               \
      o[5 * plane + k] = (T)g2;                                                                  \
    }                                                                                            \
  }                                                                                              \
}                                                                                                \
                                                                                                 \
/* The weight's gradient (Note [The weight's gradient by Winograd] in conv.pyx): the 4x4 tile   \
 * of grad whose top-left element is (y0, x0), zeros past (Ho, Wo), channels innermost, taken    \
 * to w = A u A^T (6x6), element (a, b) at w + (a*6 + b)*plane. */                               \
WINO_INLINE void strided_wino_grad_n_##T(const T* g, long sk, long sh, long sw, long Ho,      \
                                          long Wo, long y0, long x0, long cb, T* u, T* w,        \
                                          long plane) {                                           \
  T r[24 * WINO_CB];                                                                             \
  for (long i = 0; i < 4; i++)                                                                   \
    for (long j = 0; j < 4; j++) {                                                               \
      const int inside = y0 + i < Ho && x0 + j < Wo;                                             \
      strided_wino_gather_##T(inside ? g + (y0 + i) * sh + (x0 + j) * sw : NULL, sk, cb,         \
                              u + (i * 4 + j) * WINO_CB);                                        \
    }                                                                                            \
  /* rows: r[i][b] = sum_j A[b][j] u[i][j] (A = (A^T)^T, 6x4) */                                 \
  for (long i = 0; i < 4; i++) {                                                                 \
    const T* q = u + i * 4 * WINO_CB;                                                            \
    T* o = r + i * 6 * WINO_CB;                                                                  \
    for (long c = 0; c < WINO_CB; c++) {                                                         \
      const T u0 = q[c], u1 = q[WINO_CB + c], u2 = q[2 * WINO_CB + c], u3 = q[3 * WINO_CB + c]; \
      const T e = u0 + u2, f = u1 + u3, e4 = u0 + 4 * u2, f8 = 2 * u1 + 8 * u3;                 \
      o[c] = u0;                                                                                 \
      o[WINO_CB + c] = e + f;                                                                    \
      o[2 * WINO_CB + c] = e - f;                                                                \
      o[3 * WINO_CB + c] = e4 + f8;                                                              \
      o[4 * WINO_CB + c] = e4 - f8;                                                              \
      o[5 * WINO_CB + c] = u3;                                                                   \
    }                                                                                            \
  }                                                                                              \
  /* columns: w[a][b] = sum_i A[a][i] r[i][b] */                                                 \
  for (long b = 0; b < 6; b++) {                                                                 \
    const T* q = r + b * WINO_CB;                                                                \
    const long st = 6 * WINO_CB;                                                                 \
    T *o0 = w + b * plane, *o1 = o0 + 6 * plane, *o2 = o1 + 6 * plane;                           \
    T *o3 = o2 + 6 * plane, *o4 = o3 + 6 * plane, *o5 = o4 + 6 * plane;                          \
    WINO_SIMD                                                                                    \
    for (long c = 0; c < cb; c++) {                                                              \
      const T u0 = q[c], u1 = q[st + c], u2 = q[2 * st + c], u3 = q[3 * st + c];                 \
      const T e = u0 + u2, f = u1 + u3, e4 = u0 + 4 * u2, f8 = 2 * u1 + 8 * u3;                 \
      o0[c] = u0;                                                                                \
      o1[c] = e + f;                                                                             \
      o2[c] = e - f;                                                                             \
      o3[c] = e4 + f8;                                                                           \
      o4[c] = e4 - f8;                                                                           \
      o5[c] = u3;                                                                                \
    }                                                                                            \
  }                                                                                              \
}                                                                                                \
                                                                                                 \
/* (the entry points of input, filter and grad: see gather's) */                                 \
static inline void strided_wino_input_##T(const T* d, long cb, T* v, long plane) {              \
  if (cb == WINO_CB) strided_wino_input_n_##T(d, WINO_CB, v, plane);                             \
  else strided_wino_input_n_##T(d, cb, v, plane);                                                \
}                                                                                                \
static inline void strided_wino_filter_##T(const T* g, long gk, long gh, long gw, long kb,      \
                                           T* u, long plane) {                                   \
  if (kb == WINO_CB) strided_wino_filter_n_##T(g, gk, gh, gw, WINO_CB, u, plane);                \
  else strided_wino_filter_n_##T(g, gk, gh, gw, kb, u, plane);                                   \
}                                                                                                \
static inline void strided_wino_grad_##T(const T* g, long sk, long sh, long sw, long Ho,        \
                                         long Wo, long y0, long x0, long cb, T* u, T* w,         \
                                         long plane) {                                           \
  if (cb == WINO_CB) strided_wino_grad_n_##T(g, sk, sh, sw, Ho, Wo, y0, x0, WINO_CB, u, w, plane);\
  else strided_wino_grad_n_##T(g, sk, sh, sw, Ho, Wo, y0, x0, cb, u, w, plane);                  \
}                                                                                                \
                                                                                                 \
/* gw = G^T s G (3x3) from the 6x6 sums s of K filters of one input channel, filter k's        \
 * element (a, b) at s[(a*6 + b)*plane + k], in double; filter k's (i, j) at                    \
 * gw[k*gk + i*gh + j*gw]. The filters are the vector lanes, a block of WINO_CB at a time (one   \
 * filter at a time, scalar, this was 8% of the digits CNN's second weight gradient). */         \
static inline void strided_wino_weight_##T(const T* s, long plane, long K, T* g, long gk,       \
                                           long gh, long gw) {                                   \
  static const double G[6][3] = {{1.0 / 4, 0, 0},                                                \
                                 {-1.0 / 6, -1.0 / 6, -1.0 / 6},                                 \
                                 {-1.0 / 6, 1.0 / 6, -1.0 / 6},                                  \
                                 {1.0 / 24, 1.0 / 12, 1.0 / 6},                                  \
                                 {1.0 / 24, -1.0 / 12, 1.0 / 6},                                 \
                                 {0, 0, 1}};                                                     \
  for (long k0 = 0; k0 < K; k0 += WINO_CB) {                                                     \
    const long kb = K - k0 < WINO_CB ? K - k0 : WINO_CB;                                         \
    double t[3][6][WINO_CB], acc[WINO_CB];                                                       \
    for (int i = 0; i < 3; i++)                                                                  \
      for (int b = 0; b < 6; b++) {                                                              \
        for (long k = 0; k < WINO_CB; k++) acc[k] = 0;                                           \
        for (int a = 0; a < 6; a++) {                                                            \
          const T* r = s + (a * 6 + b) * plane + k0;                                             \
          const double c = G[a][i];                                                              \
          for (long k = 0; k < WINO_CB; k++) acc[k] += c * (double)r[k];                         \
        }                                                                                        \
        for (long k = 0; k < WINO_CB; k++) t[i][b][k] = acc[k];                                  \
      }                                                                                          \
    for (int i = 0; i < 3; i++)                                                                  \
      for (int j = 0; j < 3; j++) {                                                              \
        for (long k = 0; k < WINO_CB; k++) acc[k] = 0;                                           \
        for (int b = 0; b < 6; b++)                                                              \
          for (long k = 0; k < WINO_CB; k++) acc[k] += t[i][b][k] * G[b][j];                     \
        for (long k = 0; k < kb; k++) g[(k0 + k) * gk + i * gh + j * gw] = (T)acc[k];            \
      }                                                                                          \
  }                                                                                              \
}                                                                                                \
                                                                                                 \
/* The products of WINO_RT tiles for one block of WINO_CB output channels (Note [The products \
 * in registers] in conv.pyx): mt[r][xi][k] (at mt + (r*36 + xi)*WINO_CB + k) = sum_c          \
 * v[r*rs + xi*xs + c*cs] u[xi*C*Kp + c*Kp + k] for the first ``rows`` tiles; V's strides rs,    \
 * xs, cs are (36*C, C, 1) tile by tile, (1, WINO_CB, 36*WINO_CB) with tiles in lanes (Note     \
 * [Tiles in lanes]). u is the block's first output channel, readable for WINO_CB channels. */   \
WINO_INLINE void strided_wino_products_n_##T(const T* restrict v, long rs, long xs, long cs,     \
                                             const T* restrict u, long C, long Kp, long rows,    \
                                             T* restrict mt) {                                   \
  typedef strided_wino_vec_##T V;                                                                \
  typedef strided_wino_mem_##T M;                                                                \
  enum { NV = WINO_NV(T) };                                                                      \
  for (long xi = 0; xi < 36; xi++) {                                                             \
    const T* a = v + xi * xs;                                                                    \
    const T* b = u + xi * C * Kp;                                                                \
    V acc[WINO_RT][NV];                                                                          \
    WINO_UNROLL                                                                                  \
    for (long r = 0; r < rows; r++)                                                              \
      WINO_UNROLL                                                                                \
      for (long q = 0; q < NV; q++) acc[r][q] = (V){0};                                          \
    for (long c = 0; c < C; c++) {                                                               \
      V bc[NV];                                                                                  \
      WINO_UNROLL                                                                                \
      for (long q = 0; q < NV; q++) bc[q] = *(const M*)(b + c * Kp + q * (WINO_VB / sizeof(T))); \
      WINO_UNROLL                                                                                \
      for (long r = 0; r < rows; r++) {                                                          \
        const T ar = a[r * rs + c * cs];                                                         \
        WINO_UNROLL                                                                              \
        for (long q = 0; q < NV; q++) acc[r][q] += ar * bc[q];                                   \
      }                                                                                          \
    }                                                                                            \
    WINO_UNROLL                                                                                  \
    for (long r = 0; r < rows; r++)                                                              \
      WINO_UNROLL                                                                                \
      for (long q = 0; q < NV; q++)                                                              \
        *(M*)(mt + (r * 36 + xi) * WINO_CB + q * (WINO_VB / sizeof(T))) = acc[r][q];             \
  }                                                                                              \
}                                                                                                \
static inline void strided_wino_products_##T(const T* v, long rs, long xs, long cs, const T* u, \
                                             long C, long Kp, long rows, T* mt) {                \
  if (rows == WINO_RT) strided_wino_products_n_##T(v, rs, xs, cs, u, C, Kp, WINO_RT, mt);        \
  else strided_wino_products_n_##T(v, rs, xs, cs, u, C, Kp, rows, mt);                           \
}                                                                                                \
                                                                                                 \
/* The weight gradient's sums over WINO_RT tiles for one block of WINO_CB output channels: for   \
 * every xi and input channel c, s[xi*C*Kp + c*Kp + k] += sum_r v[r*rs + xi*xs + c*cs]           \
 * mt[r][xi][k], mt and V as products' (mt: A u A^T of the first ``rows`` tiles), s at the      \
 * block's first channel and readable and writable for WINO_CB channels (its padding lanes sum   \
 * whatever; they are never read). */                                                            \
WINO_INLINE void strided_wino_sums_n_##T(const T* restrict mt, const T* restrict v, long rs,     \
                                         long xs, long cs, T* restrict s, long C, long Kp,       \
                                         long rows) {                                            \
  typedef strided_wino_vec_##T V;                                                                \
  typedef strided_wino_mem_##T M;                                                                \
  enum { NV = WINO_NV(T) };                                                                      \
  for (long xi = 0; xi < 36; xi++) {                                                             \
    const T* a = v + xi * xs;                                                                    \
    T* o = s + xi * C * Kp;                                                                      \
    V w[WINO_RT][NV];                                                                            \
    WINO_UNROLL                                                                                  \
    for (long r = 0; r < rows; r++)                                                              \
      WINO_UNROLL                                                                                \
      for (long q = 0; q < NV; q++)                                                              \
        w[r][q] = *(const M*)(mt + (r * 36 + xi) * WINO_CB + q * (WINO_VB / sizeof(T)));         \
    for (long c = 0; c < C; c++) {                                                               \
      V acc[NV];                                                                                 \
      WINO_UNROLL                                                                                \
      for (long q = 0; q < NV; q++) acc[q] = *(M*)(o + c * Kp + q * (WINO_VB / sizeof(T)));      \
      WINO_UNROLL                                                                                \
      for (long r = 0; r < rows; r++) {                                                          \
        const T ar = a[r * rs + c * cs];                                                         \
        WINO_UNROLL                                                                              \
        for (long q = 0; q < NV; q++) acc[q] += ar * w[r][q];                                    \
      }                                                                                          \
      WINO_UNROLL                                                                                \
      for (long q = 0; q < NV; q++) *(M*)(o + c * Kp + q * (WINO_VB / sizeof(T))) = acc[q];      \
    }                                                                                            \
  }                                                                                              \
}                                                                                                \
static inline void strided_wino_sums_##T(const T* mt, const T* v, long rs, long xs, long cs,    \
                                         T* s, long C, long Kp, long rows) {                     \
  if (rows == WINO_RT) strided_wino_sums_n_##T(mt, v, rs, xs, cs, s, C, Kp, WINO_RT);            \
  else strided_wino_sums_n_##T(mt, v, rs, xs, cs, s, C, Kp, rows);                               \
}                                                                                                \
                                                                                                 \
/* Tiles in lanes (Note [Tiles in lanes] in conv.pyx): the 6x6 patches of channel c of         \
 * WINO_CB tiles, d[(i*6 + j)*WINO_CB + l] = x[n_l, c, y0_l + i, x0_l + j] (zeros outside the   \
 * image, and for the lanes from ``lanes`` on), the tiles' images and origins in n, y0, x0. */   \
static inline void strided_wino_lane_patches_##T(const T* x, long sn, long sh, long sw, long H, \
                                                 long W, const long* n, const long* y0,        \
                                                 const long* x0, long lanes, T* d) {           \
  for (long e = 0; e < 36 * WINO_CB; e++) d[e] = 0;                                              \
  for (long l = 0; l < lanes; l++) {                                                             \
    const T* src = x + n[l] * sn;                                                                \
    for (long i = 0; i < 6; i++) {                                                               \
      const long y = y0[l] + i;                                                                  \
      if (y < 0 || y >= H) continue;                                                             \
      for (long j = 0; j < 6; j++) {                                                             \
        const long z = x0[l] + j;                                                                \
        if (z >= 0 && z < W) d[(i * 6 + j) * WINO_CB + l] = src[y * sh + z * sw];                \
      }                                                                                          \
    }                                                                                            \
  }                                                                                              \
}

STRIDED_WINOGRAD(float)
STRIDED_WINOGRAD(double)

#endif
