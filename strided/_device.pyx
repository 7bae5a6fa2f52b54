"""Device: where a tensor's bytes live, "cpu", "cuda:N" or "cuda-emulated" (PyTorch's
``c10/core/Device.h``).

A Device is a small immutable object, one per name: ``as_device`` interns them, so two devices
are equal exactly when they are the same object and a check is a pointer comparison. The Storage
(``_storage.pyx``) records its device; a tensor's device is its storage's.
"""

cdef dict _DEVICES = {}


cdef class Device:
    """Where a tensor's bytes live: ``strided.device("cpu")`` or ``strided.device("cuda:0")``.

    Examples
    --------
    >>> import strided
    >>> strided.device("cpu")
    device(type='cpu')
    >>> strided.device("cpu") == "cpu"
    True
    """

    def __init__(self, *args):
        raise TypeError("use strided.device('cpu'), strided.device('cuda:0') or "
                        "strided.device('cuda-emulated')")

    def __repr__(self):
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other):
        if isinstance(other, Device):
            return self is other
        if isinstance(other, str):
            try:
                return as_device(other) is self
            except (ValueError, TypeError):
                return False
        return NotImplemented

    def __hash__(self):
        return hash(str(self))

    def __reduce__(self):
        return (as_device, (str(self),))


cpdef Device as_device(object obj):
    """Turn ``obj`` (a Device, ``"cpu"``, ``"cuda"``, ``"cuda:1"``, ``"cuda-emulated"`` or None)
    into a Device. See Note [Device kinds]."""
    if obj is None:
        return cpu_device
    if isinstance(obj, Device):
        return <Device>obj
    if not isinstance(obj, str):
        raise TypeError(f"device must be a strided.device or a string such as 'cpu', got {obj!r}")
    cdef Device d = _DEVICES.get(obj)
    if d is not None:
        return d
    kind, _, idx = obj.partition(":")
    if kind not in ("cpu", "cuda", "cuda-emulated") or (idx and not idx.isdigit()) or \
            (kind == "cpu" and idx):
        raise ValueError(
            f"unknown device {obj!r}: use 'cpu', 'cuda', 'cuda:N' or 'cuda-emulated'")
    d = Device.__new__(Device)
    d.type = kind
    d.index = None if kind == "cpu" else int(idx or 0)
    d.is_cpu = kind == "cpu"
    d.is_cuda = not d.is_cpu
    canonical = str(d)
    if canonical in _DEVICES:
        d = _DEVICES[canonical]
    _DEVICES[canonical] = d
    _DEVICES[obj] = d
    return d


# Note [Device kinds]
# ~~~~~~~~~~~~~~~~~~~
# Three kinds of device: "cpu"; "cuda:N", a real GPU reached through CuPy; and "cuda-emulated:N",
# the CUDA backend's kernels compiled for the CPU and run by the emulator in strided/cuda/_emulator
# (threads as fibers). The two CUDA kinds share everything above the kernel launch: the same CUDA
# sources, the same launch code, the same dispatch key (CUDA). Their memory is different (GPU
# memory from CuPy's pool; host memory with guard bytes for the emulator) and the core does not
# care: a Storage on a CUDA device is allocated by the allocator that strided.cuda registers
# with _storage.pyx (``set_device_allocator``), and its bytes are never touched by CPU code.


cpu_device = as_device("cpu")


def device(spec):
    """``strided.device("cpu")``: the Device object for a name (see Device)."""
    return as_device(spec)
