# The Cython declarations of strided/_cpu/vecmath.h: the vectorisable transcendental functions
# that the generated loops of unary.pyx.tp call (Note [Vectorised transcendental functions]
# there). The functions are defined only in the header.

cdef extern from "vecmath.h" nogil:
    float strided_vlogf(float)
    double strided_vlog(double)
    float strided_vlog2f(float)
    float strided_vlog10f(float)
    float strided_vlog1pf(float)
    # the fix-up passes' conditions: 1 where the argument is for the C library
    int strided_vlog_hard(double)
    int strided_vlogf_hard(float)
    int strided_vlog1pf_hard(float)
    float strided_vexpm1f(float)
    float strided_vexp2f(float)
    double strided_vexp2(double)
    double strided_vexpm1(double)
    double strided_vlog2(double)
    double strided_vlog10(double)
    double strided_vlog1p(double)
    int strided_vlog1p_hard(double)
    float strided_vsinhf(float)
    float strided_vcoshf(float)
    float strided_vasinhf(float)
    float strided_vacoshf(float)
    int strided_vacoshf_hard(float)
    float strided_vatanhf(float)
    int strided_vatanhf_hard(float)
    float strided_vsinf(float)
    float strided_vcosf(float)
    float strided_vtanf(float)
    float strided_vatanf(float)
    float strided_vasinf(float)
    int strided_vasinf_hard(float)
    float strided_vacosf(float)
    int strided_vacosf_hard(float)
    float strided_verff(float)
    float strided_verfcf(float)
    double strided_vsin(double)
    double strided_vcos(double)
    double strided_vtanh(double)
    # the largest |x| whose trig reduction the vector code does; beyond, the C library's
    float STRIDED_VTRIGF_MAX
    double STRIDED_VTRIG_MAX
