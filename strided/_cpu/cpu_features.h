/* Which x86-64 microarchitecture level this CPU runs (Note [Choosing kernels at run time] in
 * strided/_cpu/cpu_dispatch.py). This file is compiled for plain x86-64 (setup.py), so that it
 * runs on any 64-bit x86 CPU and can say in Python what a too-old CPU lacks, where a kernel
 * compiled for a higher level would die of SIGILL ("Illegal instruction").
 *
 * The levels are the psABI's (the same as GCC's -march=x86-64-vN):
 *   1  x86-64      SSE2
 *   2  x86-64-v2   + SSE3, SSSE3, SSE4.1, SSE4.2, POPCNT, CMPXCHG16B (Nehalem, 2008)
 *   3  x86-64-v3   + AVX, AVX2, FMA, BMI1, BMI2, F16C, LZCNT, MOVBE (Haswell, 2013; AMD Zen)
 *   4  x86-64-v4   + AVX-512 F, BW, CD, DQ, VL (Skylake-X, 2017; AMD Zen 4)
 * __builtin_cpu_supports reads CPUID once (libgcc's __builtin_cpu_init) and, for AVX and
 * AVX-512, also asks the operating system (XGETBV) whether it saves the wide registers on a
 * context switch: a CPU with AVX-512 under a kernel that does not enable it counts as level 3.
 * Other machines (aarch64, ...) answer 0: they have one build, see the Note. */
#ifndef STRIDED_CPU_FEATURES_H
#define STRIDED_CPU_FEATURES_H

#if defined(__x86_64__) && defined(__GNUC__)
#if defined(__clang__) || __GNUC__ < 12
/* Older compilers know the features but not the level names. */
#define STRIDED_V2() (__builtin_cpu_supports("sse4.2") && __builtin_cpu_supports("popcnt"))
#define STRIDED_V3()                                                                      \
    (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&                   \
     __builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2"))
#define STRIDED_V4()                                                                      \
    (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&           \
     __builtin_cpu_supports("avx512cd") && __builtin_cpu_supports("avx512dq") &&          \
     __builtin_cpu_supports("avx512vl"))
#else
#define STRIDED_V2() __builtin_cpu_supports("x86-64-v2")
#define STRIDED_V3() __builtin_cpu_supports("x86-64-v3")
#define STRIDED_V4() __builtin_cpu_supports("x86-64-v4")
#endif

static int strided_cpu_level(void) {
    __builtin_cpu_init();
    if (!STRIDED_V2()) return 1;
    if (!STRIDED_V3()) return 2;
    if (!STRIDED_V4()) return 3;
    return 4;
}

/* AVX512_BF16 (vdpbf16ps, the bfloat16 dot product: Note [bfloat16 matmul through vdpbf16ps]
 * in strided/_cpu/blas.pyx): CPUID leaf 7, sub-leaf 1, EAX bit 5 (Intel Cooper Lake and
 * Sapphire Rapids, AMD Zen 4). Whether the operating system saves the registers is the level's
 * question: the caller also asks for level 4. */
#include <cpuid.h>
static int strided_has_avx512_bf16(void) {
    unsigned int a, b, c, d;
    if (__get_cpuid_max(0, 0) < 7) return 0;
    __cpuid_count(7, 1, a, b, c, d);
    (void)b, (void)c, (void)d;
    return (int)((a >> 5) & 1u);
}
#else
static int strided_cpu_level(void) { return 0; }
static int strided_has_avx512_bf16(void) { return 0; }
#endif

#endif
