import ctypes
import os


def _load_openblas():
    """Load libscipy_openblas from the installed scipy-openblas32 package before any module
    that links to it (Note [Finding OpenBLAS at run time] in setup.py): once a library of that
    soname is loaded, the dynamic loader uses it for strided._cpu.blas's NEEDED entry, whatever
    that module's RUNPATH says (a repaired wheel's says nothing about OpenBLAS)."""
    import scipy_openblas32 as openblas

    path = os.path.join(openblas.get_lib_dir(), openblas.get_library(fullname=True))
    ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)


_load_openblas()

# Before any kernel module loads: choose which compiled variant of the hot kernels this CPU runs
# (Note [Choosing kernels at run time] in strided/_cpu/cpu_dispatch.py).
from strided._cpu import cpu_dispatch  # noqa: E402, F401
