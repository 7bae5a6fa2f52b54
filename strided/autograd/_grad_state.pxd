# The grad-mode flags in C thread-local storage (Note [Grad mode in C] in _grad_state.pyx).

cdef class GradState:
    pass

cdef bint grad_enabled() noexcept nogil
cdef void set_grad_enabled(bint on) noexcept nogil
cdef bint anomaly_enabled() noexcept nogil
