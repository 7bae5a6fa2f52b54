# Type stub for the compiled module strided/_cpu/gemm_loops.pyx: its loops are C functions
# only (cimported by strided/_cpu/blas.pyx); it has no Python names.
