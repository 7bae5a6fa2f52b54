"""The dispatcher: which kernel runs an operator call.

Note [Two dispatches]
~~~~~~~~~~~~~~~~~~~~~
A call such as ``strided.add(a, b)`` is routed twice before any arithmetic happens:

1. **By dispatch key, here.** Each op has a kernel per key. The keys, highest first, are
   ``Autograd`` (registered by the autograd package: records the graph, then re-dispatches below
   itself), ``CUDA`` and ``CPU``. The key of a call is the highest one that is *active*: Autograd
   when autograd has registered and says one of the arguments needs it, CUDA when an argument
   lives on a GPU, else CPU. An op without a kernel for that key fails with an error that names
   the op and the key.
2. **By dtype, inside the kernel.** The CPU kernel of an elementwise op asks the iterator for
   the computation dtype and takes the loop for it out of a table (Note [Generated loops] in
   ``_cpu/binary.pyx.tp``).

``trace_dispatch()`` records both: which key and kernel ran, and what the iterator decided.

Every op has three variants and one kernel: ``add(a, b)`` (a new result), ``add(a, b, out=c)``
(the workhorse: every kernel takes ``out=``) and ``a.add_(b)``, which is ``add(a, b, out=a)``.
"""

from __future__ import annotations

import contextlib
import threading

from strided import _core

__all__ = [
    "KEYS",
    "register",
    "call",
    "redispatch",
    "trace_dispatch",
    "registered_ops",
    "set_autograd_hook",
]

KEYS = ("Autograd", "CUDA", "CPU")  # highest priority first

_kernels: dict[str, dict[str, object]] = {}
_NO_KERNELS: dict[str, object] = {}
_autograd_hook = None  # set by strided.autograd: (name, args, kwargs) -> does this call need it?
_trace = threading.local()

# Note [The fast path]
# ~~~~~~~~~~~~~~~~~~~~
# Picking a key costs a few hundred nanoseconds of Python, more than a one-element add itself.
# While nothing but the CPU key can be active (no autograd registered, no trace running), the
# operator functions in _ops call the CPU kernel directly: ``fast[0]`` says whether they may.
# The kernel still refuses tensors on other devices, so the shortcut changes speed, not
# behaviour. Anything that activates another key (set_autograd_hook, trace_dispatch) clears it.
fast = [True]
_cuda_active = False  # set once a CUDA storage exists: see activate_cuda

# Note [The CPU-or-Autograd path]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# Once autograd is active, every op comes through ``call``, most of them on tensors that need
# no gradient (the SGD update under no_grad, the engine's own arithmetic, a model's inputs).
# While no trace runs and no CUDA tensor exists (``cpu_only[0]``), only two keys can be picked,
# Autograd or CPU, and ``call`` and ``redispatch`` pick them inline, without ``_pick``'s general
# walk over the keys and the devices. The general path stays the reference: the shortcut must
# pick the same kernel, only sooner.
cpu_only = [True]

# Note [Plain CPU calls]
# ~~~~~~~~~~~~~~~~~~~~~~
# Whatever keys are active, a call whose tensors are all on the CPU and none needs a gradient,
# with no ``out=`` (an in-place write is recorded even without gradients) and no trace
# running, can only end at the CPU kernel: the Autograd key declines it (needs_autograd) and the
# device key is CPU. The compiled front ends of the elementwise ops check exactly that, in a few
# C comparisons, and call the CPU kernel directly; ``untraced[0]`` tells them no trace runs.
# This is what keeps a CPU op at its NumPy-like cost once autograd is imported or a CUDA
# tensor exists (1.3 and 3.7 us for a one-element add before, 0.3 us without them).
untraced = [True]


def _update_fast():
    untraced[0] = getattr(_trace, "records", None) is None
    cpu_only[0] = untraced[0] and not _cuda_active
    fast[0] = _autograd_hook is None and cpu_only[0]


def activate_cuda():
    """Called once, when the first storage on a CUDA device is made (_core tells us: see
    ``_core.on_device_storage``): from then on every op goes through the dispatcher, which
    sends CUDA tensors to CUDA kernels (Note [The fast path])."""
    global _cuda_active
    if not _cuda_active:
        _cuda_active = True
        _update_fast()


_core.on_device_storage(activate_cuda)


def register(name, key, kernel=None):
    """Register ``kernel`` for op ``name`` under dispatch ``key`` (usable as a decorator)."""
    if key not in KEYS:
        raise ValueError(f"register: unknown dispatch key {key!r}; use one of {KEYS}")

    def deco(fn):
        _kernels.setdefault(name, {})[key] = fn
        return fn

    return deco if kernel is None else deco(kernel)


def registered_ops():
    """{op name: [keys with a kernel]}, for documentation and tests."""
    return {name: [k for k in KEYS if k in ks] for name, ks in sorted(_kernels.items())}


def set_autograd_hook(hook):
    """Called once by strided.autograd: ``hook(name, args, kwargs)`` says whether a call needs
    autograd (the op's name and ``out=`` tell it about in-place writes)."""
    global _autograd_hook
    _autograd_hook = hook
    _update_fast()


def _device_key(args, kwargs):
    if not _cuda_active:
        return "CPU"
    for a in args:
        if isinstance(a, _core.TensorBase):
            if a.is_cuda:
                return "CUDA"
        elif type(a) in (list, tuple):  # concat([a, b]), index tuples
            for b in a:
                if isinstance(b, _core.TensorBase) and b.is_cuda:
                    return "CUDA"
    out = kwargs.get("out")
    if isinstance(out, _core.TensorBase) and out.is_cuda:
        return "CUDA"
    return "CPU"


def _pick(name, args, kwargs, below=None):
    table = _kernels.get(name)
    if table is None:
        raise NotImplementedError(f"no operator named {name!r} is registered")
    if (
        below is None
        and _autograd_hook is not None
        and "Autograd" in table
        and _autograd_hook(name, args, kwargs)
    ):
        key = "Autograd"
    else:
        key = _device_key(args, kwargs)
    kernel = table.get(key)
    if kernel is None:
        have = [k for k in KEYS if k in table]
        hint = "; move the tensors to the CPU with .cpu() first" if key == "CUDA" else ""
        raise NotImplementedError(
            f"{name}: no kernel for the {key} dispatch key (it has kernels for {have}){hint}"
        )
    return key, kernel


def call(name, /, *args, **kwargs):
    """Run op ``name``: pick the dispatch key, then call that key's kernel."""
    if cpu_only[0]:  # Note [The CPU-or-Autograd path]
        table = _kernels.get(name)
        if table is not None:
            hook = _autograd_hook
            if hook is not None and "Autograd" in table and hook(name, args, kwargs):
                return table["Autograd"](*args, **kwargs)
            kernel = table.get("CPU")
            if kernel is not None:
                return kernel(*args, **kwargs)
    key, kernel = _pick(name, args, kwargs)
    records = getattr(_trace, "records", None)
    if records is not None:
        return _traced(records, name, key, kernel, args, kwargs)
    return kernel(*args, **kwargs)


def redispatch(name, below, /, *args, **kwargs):
    """Call op ``name`` skipping keys down to and including ``below`` (how the Autograd kernel
    reaches the device kernel after recording the graph)."""
    if cpu_only[0] and below != "CPU":  # Note [The CPU-or-Autograd path]
        kernel = _kernels.get(name, _NO_KERNELS).get("CPU")
        if kernel is not None:
            return kernel(*args, **kwargs)
    key, kernel = _pick(name, args, kwargs, below=below)
    records = getattr(_trace, "records", None)
    if records is not None:
        return _traced(records, name, key, kernel, args, kwargs)
    return kernel(*args, **kwargs)


def _describe(x):
    if isinstance(x, _core.TensorBase):
        return f"{x.dtype.name}{list(x.shape)}"
    return type(x).__name__


def _traced(records, name, key, kernel, args, kwargs):
    rec = {
        "op": name,
        "key": key,
        "kernel": getattr(kernel, "__qualname__", None) or repr(kernel),
        "inputs": [_describe(a) for a in args],
        "out=": "out" in kwargs and kwargs["out"] is not None,
    }
    plan_fn = getattr(kernel, "plan", None)
    if plan_fn is not None:
        try:
            rec["plan"] = plan_fn(*args, **kwargs).explain()
        except Exception as e:  # the call itself will raise the real error
            rec["plan"] = f"(no plan: {e})"
    records.append(rec)
    depth = getattr(_trace, "depth", 0)
    _trace.depth = depth + 1
    try:
        result = kernel(*args, **kwargs)
    finally:
        _trace.depth = depth
    rec["result"] = (
        _describe(result) if not isinstance(result, tuple) else [_describe(r) for r in result]
    )
    return result


class DispatchTrace(list):
    """The records of a ``trace_dispatch()`` block, one dict per dispatched call."""

    def __str__(self):
        lines = []
        for r in self:
            lines.append(
                f"{r['op']}({', '.join(r['inputs'])}) -> key {r['key']}, kernel "
                f"{r['kernel']} -> {r.get('result')}"
            )
            if "plan" in r:
                lines.extend("    " + ln for ln in r["plan"].splitlines())
        return "\n".join(lines)


@contextlib.contextmanager
def trace_dispatch():
    """Record every dispatched call in the block: its key, kernel and iterator plan.

    Examples
    --------
    >>> import strided
    >>> x = strided.ones((2, 3), dtype="float32")
    >>> with strided.trace_dispatch() as trace:
    ...     y = x + 1
    >>> trace[0]["op"], trace[0]["key"]
    ('add', 'CPU')
    """
    previous = getattr(_trace, "records", None)
    records = DispatchTrace()
    _trace.records = records
    _update_fast()  # both shortcuts off while the trace runs
    try:
        yield records
    finally:
        _trace.records = previous
        _update_fast()
