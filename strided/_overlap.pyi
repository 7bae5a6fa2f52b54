# Type stub for the compiled module strided/_overlap.pyx. It has no Python-visible names: its
# functions are C functions (see _overlap.pxd); Python callers use _core's _has_internal_overlap,
# _storage_overlap and _storage_range.
