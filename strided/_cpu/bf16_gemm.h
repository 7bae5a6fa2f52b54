/* bfloat16 matrix products on AVX512_BF16's vdpbf16ps, for strided/_cpu/blas.pyx: see Note
 * [bfloat16 matmul through vdpbf16ps] there for the design and the arithmetic.
 *
 * C (m x n, bfloat16) = alpha * A (m x k) @ B (k x n) + beta * C, every operand read or written
 * through its own byte strides (any sign, 0 included), the sums in float32, rounded once.
 *
 * This file is included by a module compiled for the x86-64-v2 baseline. The functions that use
 * AVX-512 carry a target attribute, so that only they are compiled for it and the rest of the
 * module still runs on any CPU; blas.pyx calls them only after cpu_dispatch.py has seen
 * AVX512_BF16 in CPUID (cpu_features.h). A compiler without the instruction (GCC before 10,
 * Clang before 9, MSVC) or another machine gets STRIDED_HAVE_BF16_GEMM 0 and stubs. */
#ifndef STRIDED_BF16_GEMM_H
#define STRIDED_BF16_GEMM_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__) &&                                          \
    ((defined(__clang__) && __clang_major__ >= 9) || (!defined(__clang__) && __GNUC__ >= 10))
#define STRIDED_HAVE_BF16_GEMM 1
#include <immintrin.h>
#else
#define STRIDED_HAVE_BF16_GEMM 0
#endif

#ifdef _OPENMP
#include <omp.h>
#endif

/* The register tile: BF16_MR rows of A times BF16_NR columns of B, 24 vectors of 16 float32
 * accumulators (of the 32 registers; 2 hold B, 1 the broadcast pair of A). Blocks: BF16_KC
 * pairs of k at a time (a micro-panel of A, 12 KB, stays in L1 while the micro-panels of B,
 * 32 KB each, stream past it from L2), BF16_MC_PANELS panels of A (48 rows) and BF16_NC_PANELS
 * panels of B (1024 columns) per block of C, each thread's unit of work (its float32 sums,
 * 192 KB, in L2). Chosen by measurement on a Zen 4 core, 1 thread: 48 x 1024 blocks took
 * 41-45 ms at 2048 where 96 x 256 took 46-50 (the machine's noise is a few ms), 512 the same
 * within noise; then 256 pairs of k against 128: 512 x 512 0.558-0.564 ms against
 * 0.573-0.575, 2048 38-40 ms against 39-42 (512 pairs no better than 256). */
#define BF16_MR 12
#define BF16_NR 32
#ifndef BF16_KC
#define BF16_KC 256
#endif
#ifndef BF16_MC_PANELS
#define BF16_MC_PANELS 4
#endif
#ifndef BF16_NC_PANELS
#define BF16_NC_PANELS 32
#endif

typedef struct {
    ptrdiff_t m, n, k;
    ptrdiff_t a_s0, a_s1, b_s0, b_s1, c_s0, c_s1; /* byte strides: rows, then columns */
    float alpha, beta;
    int beta_zero; /* C is written, never read */
} strided_bf16_gemm_args;

/* The head of a workspace: which B its packed panels hold, so that a batch whose B is
 * broadcast (x @ w with a 3-d x) packs it once. */
typedef struct {
    const char* packed_b;
    char pad[56];
} strided_bf16_ws_head;

static inline ptrdiff_t strided_bf16_cdiv(ptrdiff_t a, ptrdiff_t b) { return (a + b - 1) / b; }

/* Bytes of workspace one product of this size needs, run on `threads` threads. */
static size_t strided_bf16_gemm_bytes(ptrdiff_t m, ptrdiff_t n, ptrdiff_t k, int threads) {
    ptrdiff_t kp = (k + 1) / 2;
    ptrdiff_t a = strided_bf16_cdiv(m, BF16_MR) * BF16_MR * kp;
    ptrdiff_t b = strided_bf16_cdiv(n, BF16_NR) * BF16_NR * kp;
    ptrdiff_t cbuf = (ptrdiff_t)BF16_MC_PANELS * BF16_MR * BF16_NC_PANELS * BF16_NR;
    size_t bytes = sizeof(strided_bf16_ws_head) + 64 /* the alignment of the panels */
                   + 4 * (size_t)(a + b + cbuf * (threads > 0 ? threads : 1));
    return (bytes + 63) & ~(size_t)63; /* so that a thread's workspace follows another's */
}

#if STRIDED_HAVE_BF16_GEMM

#define BF16_TARGET __attribute__((target("avx512f,avx512bw,avx512vl,avx512bf16,fma")))

static inline uint32_t strided_bf16_load16(const char* p) {
    uint16_t v;
    memcpy(&v, p, 2);
    return v;
}

static inline uint32_t strided_bf16_load32(const char* p) {
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

/* Packing. A pair is two bfloat16 of consecutive k in one 32-bit word, the first in the low
 * half: the layout vdpbf16ps multiplies lane by lane. A panel of A is BF16_MR rows of k/2
 * pairs ([BF16_MR][k/2]: a row-major A with k even is that already, and is read where it lies,
 * strided_bf16_a_direct), a panel of B BF16_NR columns as [k/2][BF16_NR] pairs; rows and columns
 * past the matrix, and the second half of the last pair when k is odd, are zeros (0 * 0 adds
 * nothing, where a zero against an unread inf would make a NaN). */
static void strided_bf16_pack_a(uint32_t* dst, const char* a, const strided_bf16_gemm_args* g,
                                ptrdiff_t i0) {
    ptrdiff_t kp = (g->k + 1) / 2, kfull = g->k / 2, rows = g->m - i0, q, r;
    ptrdiff_t s0 = g->a_s0, s1 = g->a_s1;
    if (rows > BF16_MR) rows = BF16_MR;
    if (rows == BF16_MR && s1 == 2) { /* rows of A are contiguous: each pair is one word */
        for (r = 0; r < BF16_MR; r++) {
            const char* row = a + (i0 + r) * s0;
            memcpy(dst + r * kp, row, 4 * (size_t)kfull);
        }
    } else if (rows == BF16_MR && s0 == 2) { /* columns of A are contiguous: interleave two */
        for (q = 0; q < kfull; q++) {
            const uint16_t* c0 = (const uint16_t*)(a + 2 * q * s1 + i0 * 2);
            const uint16_t* c1 = (const uint16_t*)(a + (2 * q + 1) * s1 + i0 * 2);
            for (r = 0; r < BF16_MR; r++) dst[r * kp + q] = c0[r] | (uint32_t)c1[r] << 16;
        }
    } else {
        for (q = 0; q < kfull; q++)
            for (r = 0; r < BF16_MR; r++) {
                const char* p = a + (i0 + r) * s0 + 2 * q * s1;
                dst[r * kp + q] =
                    r < rows ? strided_bf16_load16(p) | strided_bf16_load16(p + s1) << 16 : 0;
            }
    }
    if (kp > kfull) /* k odd: the last pair's second half is 0 */
        for (r = 0; r < BF16_MR; r++)
            dst[r * kp + kfull] =
                r < rows ? strided_bf16_load16(a + (i0 + r) * s0 + 2 * kfull * s1) : 0;
}

static void strided_bf16_pack_b(uint32_t* dst, const char* b, const strided_bf16_gemm_args* g,
                                ptrdiff_t j0) {
    ptrdiff_t kp = (g->k + 1) / 2, kfull = g->k / 2, cols = g->n - j0, q, j;
    ptrdiff_t s0 = g->b_s0, s1 = g->b_s1;
    if (cols > BF16_NR) cols = BF16_NR;
    if (cols == BF16_NR && s1 == 2) { /* rows of B are contiguous: interleave two */
        for (q = 0; q < kfull; q++) {
            const uint16_t* r0 = (const uint16_t*)(b + 2 * q * s0 + j0 * 2);
            const uint16_t* r1 = (const uint16_t*)(b + (2 * q + 1) * s0 + j0 * 2);
            for (j = 0; j < BF16_NR; j++) dst[q * BF16_NR + j] = r0[j] | (uint32_t)r1[j] << 16;
        }
    } else if (cols == BF16_NR && s0 == 2) { /* columns of B are contiguous: one word a pair */
        for (j = 0; j < BF16_NR; j++) {
            const char* col = b + (j0 + j) * s1;
            for (q = 0; q < kfull; q++) dst[q * BF16_NR + j] = strided_bf16_load32(col + 4 * q);
        }
    } else {
        for (q = 0; q < kfull; q++)
            for (j = 0; j < BF16_NR; j++) {
                const char* p = b + 2 * q * s0 + (j0 + j) * s1;
                dst[q * BF16_NR + j] =
                    j < cols ? strided_bf16_load16(p) | strided_bf16_load16(p + s0) << 16 : 0;
            }
    }
    if (kp > kfull)
        for (j = 0; j < BF16_NR; j++)
            dst[kfull * BF16_NR + j] =
                j < cols ? strided_bf16_load16(b + 2 * kfull * s0 + (j0 + j) * s1) : 0;
}

/* The micro-kernel: c (a BF16_MR x BF16_NR float32 tile, rows ldc apart) = (first ? 0 : c) +
 * the products of kc pairs from a panel of A and a panel of B. One vdpbf16ps takes 16 pairs of
 * B (16 columns), one pair of A broadcast to every lane, and adds both exact products into each
 * of the 16 float32 lanes: 32 multiply-adds. */
static BF16_TARGET void strided_bf16_tile(const char* a, ptrdiff_t lda, const uint32_t* b,
                                          float* c, ptrdiff_t ldc, ptrdiff_t kc, int first) {
    __m512 acc[BF16_MR][2];
    ptrdiff_t q;
    int r;
    for (r = 0; r < BF16_MR; r++) acc[r][0] = acc[r][1] = _mm512_setzero_ps();
    for (q = 0; q < kc; q++) {
        __m512bh b0 = (__m512bh)_mm512_loadu_si512((const void*)b);
        __m512bh b1 = (__m512bh)_mm512_loadu_si512((const void*)(b + 16));
        for (r = 0; r < BF16_MR; r++) {
            __m512bh ar = (__m512bh)_mm512_set1_epi32((int)strided_bf16_load32(a + r * lda));
            acc[r][0] = _mm512_dpbf16_ps(acc[r][0], ar, b0);
            acc[r][1] = _mm512_dpbf16_ps(acc[r][1], ar, b1);
        }
        a += 4;
        b += BF16_NR;
    }
    if (!first) /* the earlier blocks of k are added after this one's sum, not before */
        for (r = 0; r < BF16_MR; r++) {
            acc[r][0] = _mm512_add_ps(_mm512_loadu_ps(c + r * ldc), acc[r][0]);
            acc[r][1] = _mm512_add_ps(_mm512_loadu_ps(c + r * ldc + 16), acc[r][1]);
        }
    for (r = 0; r < BF16_MR; r++) {
        _mm512_storeu_ps(c + r * ldc, acc[r][0]);
        _mm512_storeu_ps(c + r * ldc + 16, acc[r][1]);
    }
}

/* float32 to bfloat16 as strided_f32_to_bf16 in scalar_math.h rounds (to nearest, ties to
 * even; any NaN to the quiet one of its sign), 16 lanes at once. */
static BF16_TARGET __m256i strided_bf16_round16(__m512 v) {
    __m512i u = _mm512_castps_si512(v);
    __m512i odd = _mm512_and_si512(_mm512_srli_epi32(u, 16), _mm512_set1_epi32(1));
    __m512i r = _mm512_srli_epi32(
        _mm512_add_epi32(_mm512_add_epi32(u, _mm512_set1_epi32(0x7FFF)), odd), 16);
    __m512i nan = _mm512_or_si512(
        _mm512_and_si512(_mm512_srli_epi32(u, 16), _mm512_set1_epi32(0x8000)),
        _mm512_set1_epi32(0x7FC0));
    r = _mm512_mask_mov_epi32(r, _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q), nan);
    return _mm512_cvtepi32_epi16(r);
}

static inline uint16_t strided_bf16_round1(float x) {
    uint32_t u;
    memcpy(&u, &x, 4);
    if ((u & 0x7FFFFFFFu) > 0x7F800000u) return (uint16_t)(((u >> 16) & 0x8000u) | 0x7FC0u);
    return (uint16_t)((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}

/* Rows [i0, i1) and columns [j0, j1) of C from the float32 block buffer: alpha * sum, plus
 * beta * C (fused, one rounding) unless beta is 0, rounded once to bfloat16. */
static BF16_TARGET void strided_bf16_store(const strided_bf16_gemm_args* g, char* c,
                                           const float* cb, ptrdiff_t ldcb, ptrdiff_t i0,
                                           ptrdiff_t i1, ptrdiff_t j0, ptrdiff_t j1) {
    ptrdiff_t i, j;
    __m512 alpha = _mm512_set1_ps(g->alpha), beta = _mm512_set1_ps(g->beta);
    int scale = g->alpha != 1.0f;
    for (i = i0; i < i1; i++) {
        const float* src = cb + (i - i0) * ldcb;
        char* row = c + i * g->c_s0;
        if (g->c_s1 == 2) {
            uint16_t* dst = (uint16_t*)row;
            for (j = j0; j < j1; j += 16) {
                __mmask16 mask = j1 - j >= 16 ? (__mmask16)0xFFFF
                                              : (__mmask16)((1u << (j1 - j)) - 1);
                __m512 v = _mm512_maskz_loadu_ps(mask, src + (j - j0));
                if (scale) v = _mm512_mul_ps(v, alpha);
                if (!g->beta_zero) {
                    __m512i old = _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(mask, dst + j));
                    v = _mm512_fmadd_ps(beta, _mm512_castsi512_ps(_mm512_slli_epi32(old, 16)), v);
                }
                _mm256_mask_storeu_epi16(dst + j, mask, strided_bf16_round16(v));
            }
        } else {
            for (j = j0; j < j1; j++) {
                char* p = row + j * g->c_s1;
                float v = src[j - j0];
                uint16_t h;
                if (scale) v = v * g->alpha;
                if (!g->beta_zero) {
                    uint32_t old = strided_bf16_load16(p) << 16;
                    float f;
                    memcpy(&f, &old, 4);
                    v = __builtin_fmaf(g->beta, f, v);
                }
                h = strided_bf16_round1(v);
                memcpy(p, &h, 2);
            }
        }
    }
}

/* Whether A's panel ip is read where it lies: its rows are rows of pairs already (contiguous,
 * k even), and all BF16_MR of them are there. Else it was packed, rows kp pairs apart. */
static inline int strided_bf16_a_direct(const strided_bf16_gemm_args* g, ptrdiff_t ip) {
    return g->a_s1 == 2 && g->k % 2 == 0 && (ip + 1) * BF16_MR <= g->m;
}

static inline const char* strided_bf16_a_panel(const strided_bf16_gemm_args* g, const char* a,
                                               const uint32_t* pa, ptrdiff_t ip,
                                               ptrdiff_t* lda) {
    ptrdiff_t kp = (g->k + 1) / 2;
    if (strided_bf16_a_direct(g, ip)) {
        *lda = g->a_s0;
        return a + ip * BF16_MR * g->a_s0;
    }
    *lda = 4 * kp;
    return (const char*)(pa + ip * BF16_MR * kp);
}

/* One block of C: panels [pi0, pi1) of A (rows) against panels [pj0, pj1) of B (columns), all
 * of k in steps of BF16_KC pairs, summed in the float32 buffer cb; then rounded into C. */
static BF16_TARGET void strided_bf16_block(const strided_bf16_gemm_args* g, char* c,
                                           const char* a, const uint32_t* pa,
                                           const uint32_t* pb, float* cb, ptrdiff_t pi0,
                                           ptrdiff_t pi1, ptrdiff_t pj0, ptrdiff_t pj1) {
    ptrdiff_t kp = (g->k + 1) / 2, ldcb = (pj1 - pj0) * BF16_NR, pc = 0, kc, ip, jp, i1, j1;
    do { /* at least once: k = 0 still writes zeros into cb */
        kc = kp - pc < BF16_KC ? kp - pc : BF16_KC;
        for (ip = pi0; ip < pi1; ip++) {
            ptrdiff_t lda;
            const char* ap = strided_bf16_a_panel(g, a, pa, ip, &lda) + 4 * pc;
            for (jp = pj0; jp < pj1; jp++)
                strided_bf16_tile(ap, lda, pb + jp * BF16_NR * kp + pc * BF16_NR,
                                  cb + (ip - pi0) * BF16_MR * ldcb + (jp - pj0) * BF16_NR, ldcb,
                                  kc, pc == 0);
        }
        pc += kc;
    } while (pc < kp);
    i1 = pi1 * BF16_MR < g->m ? pi1 * BF16_MR : g->m;
    j1 = pj1 * BF16_NR < g->n ? pj1 * BF16_NR : g->n;
    strided_bf16_store(g, c, cb, ldcb, pi0 * BF16_MR, i1, pj0 * BF16_NR, j1);
}

/* One product (see the top of the file) on `threads` threads, with a workspace of
 * strided_bf16_gemm_bytes(m, n, k, threads) bytes whose head was zeroed before its first use.
 * Threads pack panels of A and B, then take blocks of C; a smaller product gets smaller blocks,
 * so that each thread has at least two. */
static void strided_bf16_gemm(const strided_bf16_gemm_args* g, char* c, const char* a,
                              const char* b, char* ws, int threads) {
    strided_bf16_ws_head* head = (strided_bf16_ws_head*)ws;
    ptrdiff_t kp = (g->k + 1) / 2;
    ptrdiff_t na = strided_bf16_cdiv(g->m, BF16_MR), nb = strided_bf16_cdiv(g->n, BF16_NR);
    ptrdiff_t mcp = BF16_MC_PANELS, ncp = BF16_NC_PANELS, nbi, nbj, npack, a0;
    uintptr_t base = ((uintptr_t)(ws + sizeof(strided_bf16_ws_head)) + 63) & ~(uintptr_t)63;
    uint32_t* pa = (uint32_t*)base;
    uint32_t* pb = pa + na * BF16_MR * kp;
    float* cbufs = (float*)(pb + nb * BF16_NR * kp);
    int pack_b = head->packed_b != b;
    if (threads < 1) threads = 1;
    if (mcp > na) mcp = na;
    if (ncp > nb) ncp = nb;
    while (threads > 1 && strided_bf16_cdiv(na, mcp) * strided_bf16_cdiv(nb, ncp) < 2 * threads
           && (mcp > 1 || ncp > 1)) {
        if (ncp >= mcp && ncp > 1)
            ncp = (ncp + 1) / 2;
        else
            mcp = (mcp + 1) / 2;
    }
    nbi = strided_bf16_cdiv(na, mcp);
    nbj = strided_bf16_cdiv(nb, ncp);
    /* as many blocks for each thread; the panels are then shared out evenly between blocks
     * (43 panels on 2 threads: 21 and 22, where blocks of 4 gave 24 and 19) */
    while ((nbi * nbj) % threads != 0 && nbi < na) nbi++;
    /* the panels to pack, shared out between the threads: A's from a0 (those before it are
     * read where they lie), then B's unless they hold this B already */
    for (a0 = 0; a0 < na && strided_bf16_a_direct(g, a0); a0++) {
    }
    npack = na - a0 + (pack_b ? nb : 0);
    head->packed_b = b;
#ifdef _OPENMP
#pragma omp parallel num_threads(threads) if (threads > 1)
#endif
    {
        ptrdiff_t t, blk;
        float* cb = cbufs;
#ifdef _OPENMP
        cb += (ptrdiff_t)omp_get_thread_num() * BF16_MC_PANELS * BF16_MR * BF16_NC_PANELS
              * BF16_NR;
#pragma omp for schedule(static)
#endif
        for (t = 0; t < npack; t++) {
            ptrdiff_t ip = a0 + t, jp = t - (na - a0);
            if (ip < na)
                strided_bf16_pack_a(pa + ip * BF16_MR * kp, a, g, ip * BF16_MR);
            else
                strided_bf16_pack_b(pb + jp * BF16_NR * kp, b, g, jp * BF16_NR);
        }
#ifdef _OPENMP
#pragma omp for schedule(static)
#endif
        for (blk = 0; blk < nbi * nbj; blk++) {
            ptrdiff_t bi = blk % nbi, bj = blk / nbi;
            strided_bf16_block(g, c, a, pa, pb, cb, bi * na / nbi, (bi + 1) * na / nbi,
                               bj * nb / nbj, (bj + 1) * nb / nbj);
        }
    }
}

#else /* no vdpbf16ps in this compiler or on this machine: never called (blas.pyx asks first) */

static void strided_bf16_gemm(const strided_bf16_gemm_args* g, char* c, const char* a,
                              const char* b, char* ws, int threads) {
    (void)g, (void)c, (void)a, (void)b, (void)ws, (void)threads;
}

#endif

#endif
