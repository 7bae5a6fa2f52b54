# The one limit every layer's fixed-size arrays share. A .pxd alone (no module at run time), so
# that a module below the tensor (_overlap) can size its arrays without cimporting _core;
# _core.pxd re-exports it, and most code cimports it from there.

cdef enum:
    MAX_DIMS = 64        # as NumPy; the iterator's fixed-size arrays depend on it
