"""The dispatcher's ``call`` and ``redispatch``, compiled (Note [The compiled call] in
_dispatch.py).

_dispatch.py's ``call`` and ``redispatch`` are the reference: these are their inline paths
(Note [The CPU-or-Autograd path] and Note [The CUDA path] there) line for line, without the
Python frames, and every other call goes to the same general roads (``_dispatch._call_general``
and ``_dispatch._redispatch_general``: ``_pick``, the trace).
"""

from strided._core cimport TensorBase

cdef enum:
    # the key bits of _dispatch.py (Note [Dispatch key sets]), checked there by setup's caller
    CPU = 1
    CUDA = 2
    AUTOGRAD = 4
    TRACE = 8

cdef dict _kernels = {}
cdef object _possible = [0]
cdef object _general = None
cdef object _redispatch_general = None
cdef object _hook = None


def setup(dict kernels, possible, general, redispatch_general, tuple bits):
    """Called once by _dispatch.py: its kernel table, its possible-keys cell, its general roads
    and its key bits (CPU, CUDA, AUTOGRAD, TRACE), which must be the ones compiled here."""
    global _kernels, _possible, _general, _redispatch_general
    if bits != (CPU, CUDA, AUTOGRAD, TRACE):
        raise ImportError(
            f"_dispatch_call was compiled for the key bits {(CPU, CUDA, AUTOGRAD, TRACE)}, "
            f"_dispatch.py has {bits}: rebuild the extension")
    _kernels, _possible, _general = kernels, possible, general
    _redispatch_general = redispatch_general


def set_hook(hook):
    """_dispatch.set_autograd_hook's hook, once autograd has registered."""
    global _hook
    _hook = hook


cdef inline int _tensor_keys(TensorBase t) noexcept:
    cdef int keys = CUDA if t._storage.device.is_cuda else CPU
    return keys | AUTOGRAD if t._requires_grad else keys


cdef int _call_keys(str name, tuple args, dict kwargs) except -1:
    """_dispatch.call_keys without TRACE (the callers have checked it is not possible)."""
    cdef int keys = CPU
    for a in args:
        if isinstance(a, TensorBase):
            keys |= _tensor_keys(<TensorBase>a)
        elif type(a) is list or type(a) is tuple:  # concat([a, b]), index tuples
            for b in a:
                if isinstance(b, TensorBase):
                    keys |= _tensor_keys(<TensorBase>b)
    out = kwargs.get("out") if kwargs else None
    if isinstance(out, TensorBase):
        keys |= _tensor_keys(<TensorBase>out)
    if (out is not None or name[len(name) - 1] == "_") and _hook is not None:
        keys |= AUTOGRAD  # an in-place write: autograd records it
    if keys & CUDA:
        keys &= ~CPU  # a call on a CUDA tensor is a CUDA call (CPU scalars join it)
    return keys


def call(str name, /, *args, **kwargs):
    """Run op ``name``: pick the dispatch key, then call that key's kernel (compiled form of
    _dispatch.call)."""
    cdef dict table
    cdef int possible = <int>_possible[0], keys
    if not possible & TRACE:
        table = _kernels.get(name)
        if table is not None:
            if not possible & CUDA:  # Note [The CPU-or-Autograd path]
                if _hook is not None:
                    autograd = table.get("Autograd")
                    if autograd is not None and _hook(name, args, kwargs):
                        if kwargs and len(kwargs) == 1 and kwargs.get("out", kwargs) is None:
                            return autograd(*args)  # out=None, the default: not passed on
                        return autograd(*args, **kwargs)
                kernel = table.get("CPU")
            else:  # Note [The CUDA path]: _pick's choice, its key set computed in C
                keys = _call_keys(name, args, kwargs)
                if keys & AUTOGRAD and _hook is not None:
                    autograd = table.get("Autograd")
                    if autograd is not None and _hook(name, args, kwargs):
                        if kwargs and len(kwargs) == 1 and kwargs.get("out", kwargs) is None:
                            return autograd(*args)  # as above
                        return autograd(*args, **kwargs)
                kernel = table.get("CUDA" if keys & CUDA else "CPU")
            if kernel is not None:
                return kernel(*args, **kwargs)
    return _general(name, args, kwargs)


def redispatch(str name, below, /, *args, **kwargs):
    """Call op ``name`` skipping keys down to and including ``below`` (compiled form of
    _dispatch.redispatch)."""
    cdef dict table
    cdef int possible = <int>_possible[0]
    if not possible & TRACE and below != "CPU":
        table = _kernels.get(name)
        if table is not None:
            if not possible & CUDA:  # Note [The CPU-or-Autograd path]
                kernel = table.get("CPU")
            else:  # Note [The CUDA path]
                kernel = table.get("CUDA" if _call_keys(name, args, kwargs) & CUDA else "CPU")
            if kernel is not None:
                return kernel(*args, **kwargs)
    return _redispatch_general(name, below, args, kwargs)
