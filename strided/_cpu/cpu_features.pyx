"""What this CPU can run: its x86-64 level, read with CPUID (strided/_cpu/cpu_features.h).

Compiled for plain x86-64 whatever the build's target (setup.py), and imported by
strided/_cpu/cpu_dispatch.py before any kernel module: see Note [Choosing kernels at run time]
there.
"""

cdef extern from "cpu_features.h":
    int strided_cpu_level() nogil
    int strided_has_avx512_bf16() nogil


def cpu_level():
    """The x86-64 level of this CPU: 1 (x86-64), 2, 3 (AVX2, FMA) or 4 (AVX-512); 0 when the
    machine is not x86-64."""
    return strided_cpu_level()


def has_avx512_bf16():
    """Whether CPUID lists AVX512_BF16 (vdpbf16ps); False when the machine is not x86-64."""
    return strided_has_avx512_bf16() != 0
