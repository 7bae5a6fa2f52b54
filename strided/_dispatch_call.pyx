"""The dispatcher's ``call``, compiled (Note [The compiled call] in _dispatch.py).

_dispatch.py's ``call`` is the reference: this is its CPU-or-Autograd path (Note [The
CPU-or-Autograd path] there) line for line, without the Python frame, and every other call
goes to the same general road (``_dispatch._call_general``: ``_pick``, the trace).
"""

cdef dict _kernels = {}
cdef object _possible = [0]
cdef object _general = None
cdef object _hook = None
cdef int _not_inline = 0


def setup(dict kernels, possible, general, int not_inline):
    """Called once by _dispatch.py: its kernel table, its possible-keys cell, its general road
    and the keys (CUDA, TRACE) under which the inline path does not apply."""
    global _kernels, _possible, _general, _not_inline
    _kernels, _possible, _general, _not_inline = kernels, possible, general, not_inline


def set_hook(hook):
    """_dispatch.set_autograd_hook's hook, once autograd has registered."""
    global _hook
    _hook = hook


def call(name, /, *args, **kwargs):
    """Run op ``name``: pick the dispatch key, then call that key's kernel (compiled form of
    _dispatch.call)."""
    cdef dict table
    if not (<int>_possible[0]) & _not_inline:  # Note [The CPU-or-Autograd path]
        table = _kernels.get(name)
        if table is not None:
            if _hook is not None:
                autograd = table.get("Autograd")
                if autograd is not None and _hook(name, args, kwargs):
                    return autograd(*args, **kwargs)
            kernel = table.get("CPU")
            if kernel is not None:
                return kernel(*args, **kwargs)
    return _general(name, args, kwargs)
