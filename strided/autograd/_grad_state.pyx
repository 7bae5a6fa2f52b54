"""The grad-mode flags, per thread, in C (Note [Grad mode in C]).

Note [Grad mode in C]
~~~~~~~~~~~~~~~~~~~~~
Grad mode is per thread (Note [Grad mode is per thread] in grad_mode.py). In Python that is a
``threading.local``, whose attribute reads look the thread's dictionary up each time: about
0.15 us a read and 0.25 us a write on the 2-core Zen 3, and a recorded op reads or writes the
flag four times (the dispatcher's question, the recorder's check of anomaly mode, grad mode
off around the device kernel and back on), more than half a microsecond of a budget of two.

PyTorch keeps the flag in a C++ ``thread_local`` (``GradMode::is_enabled``). Here it is the
same: four C ``__thread`` ints, each thread's copy starting at the defaults (grad mode on,
inference off, anomaly mode off, its NaN check on), so a fresh thread needs no set-up, as with
the ``threading.local``'s class-level defaults. ``GradState`` is the Python face: one object,
``grad_mode.state``, whose properties read and write the calling thread's flags (a C slot
read, ~0.03 us), so ``state.enabled = False`` reads the same in every module as before. The
compiled recorder (_record.pyx) calls ``grad_enabled()`` and ``set_grad_enabled()`` directly.
Where this module is not built, grad_mode.py's ``threading.local`` is the state.
"""

cdef extern from *:
    """
    static __thread int strided_grad_enabled = 1;
    static __thread int strided_grad_inference = 0;
    static __thread int strided_grad_anomaly = 0;
    static __thread int strided_grad_anomaly_check_nan = 1;
    """
    int strided_grad_enabled
    int strided_grad_inference
    int strided_grad_anomaly
    int strided_grad_anomaly_check_nan


cdef bint grad_enabled() noexcept nogil:
    return strided_grad_enabled != 0


cdef void set_grad_enabled(bint on) noexcept nogil:
    global strided_grad_enabled
    strided_grad_enabled = on


cdef bint anomaly_enabled() noexcept nogil:
    return strided_grad_anomaly != 0


cdef class GradState:
    """The calling thread's grad-mode flags (grad_mode.state): see Note [Grad mode in C]."""

    @property
    def enabled(self):
        """Record operations on tensors that require grad."""
        return strided_grad_enabled != 0

    @enabled.setter
    def enabled(self, value):
        global strided_grad_enabled
        strided_grad_enabled = 1 if value else 0

    @property
    def inference(self):
        """Inside inference_mode."""
        return strided_grad_inference != 0

    @inference.setter
    def inference(self, value):
        global strided_grad_inference
        strided_grad_inference = 1 if value else 0

    @property
    def anomaly(self):
        """detect_anomaly (anomaly_mode.py)."""
        return strided_grad_anomaly != 0

    @anomaly.setter
    def anomaly(self, value):
        global strided_grad_anomaly
        strided_grad_anomaly = 1 if value else 0

    @property
    def anomaly_check_nan(self):
        """detect_anomaly's check for NaN gradients."""
        return strided_grad_anomaly_check_nan != 0

    @anomaly_check_nan.setter
    def anomaly_check_nan(self, value):
        global strided_grad_anomaly_check_nan
        strided_grad_anomaly_check_nan = 1 if value else 0
